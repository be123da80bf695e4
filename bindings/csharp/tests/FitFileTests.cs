// FitFileTests.cs — FitFile: a raw float32 file mapped by the library (kkm_fit_file).

using System;
using System.IO;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    [TestFixture]
    public class FitFileTests
    {
        string dir;

        [SetUp]
        public void MakeDirectory()
        {
            dir = Path.Combine(Path.GetTempPath(), "kkmeans-csharp-file-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
        }

        [TearDown]
        public void RemoveDirectory()
        {
            Directory.Delete(dir, true);
        }

        // x written as kkm_fit_file reads it: row-major little-endian float32.
        string Write(string name, float[,] x)
        {
            Assert.IsTrue(BitConverter.IsLittleEndian);
            var bytes = new byte[x.Length * sizeof(float)];
            Buffer.BlockCopy(x, 0, bytes, 0, bytes.Length);
            string path = Path.Combine(dir, name);
            File.WriteAllBytes(path, bytes);
            return path;
        }

        [Test]
        public void ATemporaryFileFitsAsTheSameRowsInMemory()
        {
            const int n = 300;
            var truth = new int[n];
            float[,] x = PartialFitTests.ShuffledBlobs(n, truth, 21);
            string path = Write("blobs.f32", x);
            foreach (string method in new[] { "exact", "nystrom", "rff" })
            {
                string parameters = "k=3 method=" + method + " m=40 gamma=0.2 seed=5";
                using (var fromFile = new KernelKMeans(parameters))
                using (var inMemory = new KernelKMeans(parameters))
                {
                    fromFile.FitFile(path, 2);
                    inMemory.Fit(x);
                    CollectionAssert.AreEqual(inMemory.Labels, fromFile.Labels, method);
                    Assert.AreEqual(inMemory.Objective, fromFile.Objective, 1e-9 * inMemory.Objective, method);
                    Assert.AreEqual(n, fromFile.NumTrain);
                    Assert.AreEqual(2, fromFile.NumFeatures);
                    CollectionAssert.AreEqual(inMemory.Predict(x), fromFile.Predict(x), method);
                    Assert.That(Metrics.AdjustedRandIndex(fromFile.Labels, truth), Is.GreaterThan(0.9), method);
                }
            }
            var w = new float[n];
            for (int i = 0; i < n; ++i) w[i] = 1 + i % 3;
            using (var fromFile = new KernelKMeans("k=3 method=nystrom m=40 seed=5"))
            using (var inMemory = new KernelKMeans("k=3 method=nystrom m=40 seed=5"))
            {
                fromFile.FitFile(path, 2, w, new System.Threading.CancellationTokenSource().Token);
                inMemory.Fit(x, w);
                CollectionAssert.AreEqual(inMemory.Labels, fromFile.Labels);
                CollectionAssert.AreEqual(inMemory.ClusterSizes, fromFile.ClusterSizes);
                var e = Assert.Throws<ArgumentException>(() => fromFile.FitFile(path, 2, new float[7]));
                StringAssert.Contains("n_weights=7", e.Message);
            }
        }

        [Test]
        public void AMissingFileIsAnIoErrorNamingIt()
        {
            string missing = Path.Combine(dir, "no-such-file.f32");
            using (var model = new KernelKMeans("k=2"))
            {
                var e = Assert.Throws<KKMeansException>(() => model.FitFile(missing, 3));
                Assert.AreEqual(Status.IO, e.Status);
                StringAssert.Contains("no-such-file.f32", e.Message);
                using (var token = new System.Threading.CancellationTokenSource())
                {
                    e = Assert.Throws<KKMeansException>(() => model.FitFile(missing, 3, token.Token));
                    Assert.AreEqual(Status.IO, e.Status);
                }
                Assert.AreEqual(Status.NotFitted, Assert.Throws<KKMeansException>(() => { var l = model.Labels; }).Status);
            }
        }

        [Test]
        public void TheFileSizeAndArgumentsAreChecked()
        {
            string path = Write("ten.f32", new float[10, 3]);
            using (var model = new KernelKMeans("k=2"))
            {
                StringAssert.Contains("multiple", Assert.Throws<ArgumentException>(() => model.FitFile(path, 4)).Message);
                Assert.Throws<ArgumentException>(() => model.FitFile(path, 0));
                Assert.Throws<ArgumentNullException>(() => model.FitFile(null, 3));
                string empty = Write("empty.f32", new float[0, 3]);
                Assert.AreEqual(Status.IO, Assert.Throws<KKMeansException>(() => model.FitFile(empty, 3)).Status);
                Assert.AreEqual(Status.IO, Assert.Throws<KKMeansException>(() => model.FitFile(dir, 3)).Status);
            }
        }
    }
}
