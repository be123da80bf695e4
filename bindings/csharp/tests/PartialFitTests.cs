// PartialFitTests.cs — PartialFit: streams of batches (kkm_partial_fit) and the methods it refuses.

using System;
using System.Linq;
using System.Threading;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    [TestFixture]
    public class PartialFitTests
    {
        static readonly double[][] Centres = { new double[] { 0, 0 }, new double[] { 6, 0 }, new double[] { 0, 6 } };

        // n rows of three blobs in random order; truth[i] = row i's blob.
        internal static float[,] ShuffledBlobs(int n, int[] truth, int seed)
        {
            var random = new Random(seed);
            for (int i = 0; i < n; ++i) truth[i] = i % 3;
            for (int i = n - 1; i > 0; --i)
            {
                int j = random.Next(i + 1);
                int t = truth[i];
                truth[i] = truth[j];
                truth[j] = t;
            }
            var x = new float[n, 2];
            for (int i = 0; i < n; ++i)
            {
                x[i, 0] = (float)(Centres[truth[i]][0] + 0.7 * Gaussian(random));
                x[i, 1] = (float)(Centres[truth[i]][1] + 0.7 * Gaussian(random));
            }
            return x;
        }

        static double Gaussian(Random random)
        {
            double u = 1.0 - random.NextDouble();
            double v = random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v);
        }

        // An IProgress that counts its reports on the fitting thread.
        sealed class Reports : IProgress<FitProgress>
        {
            readonly Action report;

            internal Reports(Action report)
            {
                this.report = report;
            }

            public void Report(FitProgress value)
            {
                report();
            }
        }

        static float[,] Rows(float[,] x, int from, int to)
        {
            var rows = new float[to - from, x.GetLength(1)];
            Buffer.BlockCopy(x, from * x.GetLength(1) * sizeof(float), rows, 0, rows.Length * sizeof(float));
            return rows;
        }

        [Test]
        public void AStreamOfShuffledBlobBatchesClustersAsWellAsOneFit()
        {
            const int n = 1500;
            var truth = new int[n];
            float[,] x = ShuffledBlobs(n, truth, 11);
            foreach (string method in new[] { "nystrom", "sketch", "rff", "minibatch" })
            {
                string parameters = "k=3 method=" + method + " m=60 gamma=0.1 seed=3";
                using (var whole = new KernelKMeans(parameters))
                using (var stream = new KernelKMeans(parameters))
                {
                    whole.Fit(x);
                    var reports = 0;
                    stream.PartialFit(Rows(x, 0, 300), CancellationToken.None, new Reports(() => ++reports));
                    Assert.That(reports, Is.GreaterThan(0), method);
                    for (int from = 300; from < n; from += 200)
                    {
                        int to = Math.Min(n, from + 200);
                        stream.PartialFit(Rows(x, from, to));
                        Assert.AreEqual(to - from, stream.NumTrain, method);
                        Assert.AreEqual(to - from, stream.Labels.Length, method);
                        Assert.AreEqual(to, stream.ClusterSizes.Sum(), 1e-9, method);
                    }
                    int[] streamed = stream.Predict(x);
                    double ariWhole = Metrics.AdjustedRandIndex(whole.Labels, truth);
                    double ariStream = Metrics.AdjustedRandIndex(streamed, truth);
                    Assert.That(ariStream, Is.GreaterThan(0.95), method);
                    Assert.That(ariStream, Is.GreaterThan(ariWhole - 0.02), method);
                    double nmiWhole = Metrics.NormalizedMutualInfo(whole.Labels, truth);
                    Assert.That(Metrics.NormalizedMutualInfo(streamed, truth), Is.GreaterThan(nmiWhole - 0.02), method);
                }
            }
        }

        [Test]
        public void TheFirstBatchIsAFitAndLaterBatchesDescribeThemselves()
        {
            var truth = new int[600];
            float[,] x = ShuffledBlobs(600, truth, 12);
            const string parameters = "k=3 method=nystrom m=50 gamma=0.1 seed=1";
            using (var stream = new KernelKMeans(parameters))
            using (var one = new KernelKMeans(parameters))
            {
                stream.PartialFit(Rows(x, 0, 300));
                one.Fit(Rows(x, 0, 300));
                CollectionAssert.AreEqual(one.Labels, stream.Labels);
                Assert.AreEqual(one.Objective, stream.Objective, 1e-9 * one.Objective);
                int firstIterations = stream.Iterations;
                float[,] batch = Rows(x, 300, 500);
                stream.PartialFit(batch);
                CollectionAssert.AreEqual(stream.Predict(batch), stream.Labels);  // labels after the update
                Assert.AreEqual(firstIterations + 1, stream.Iterations);
                // Weighted batches: the centres' weights grow by the batch's weights.
                stream.PartialFit(Rows(x, 500, 600), Enumerable.Repeat(2.0f, 100).ToArray());
                Assert.AreEqual(700, stream.ClusterSizes.Sum(), 1e-6);
                // The row-major, jagged and float64 forms are batches too.
                float[,] more = Rows(x, 0, 100);
                var flat = new float[more.Length];
                Buffer.BlockCopy(more, 0, flat, 0, flat.Length * sizeof(float));
                stream.PartialFit(flat, 100, 2);
                var jagged = new double[100][];
                for (int i = 0; i < 100; ++i) jagged[i] = new double[] { more[i, 0], more[i, 1] };
                stream.PartialFit(jagged);
                var wide = new double[100, 2];
                for (int i = 0; i < 100; ++i)
                {
                    wide[i, 0] = more[i, 0];
                    wide[i, 1] = more[i, 1];
                }
                stream.PartialFit(wide, Enumerable.Repeat(0.5, 100).ToArray(), CancellationToken.None,
                                  new Progress<FitProgress>(p => { }));
                Assert.AreEqual(950, stream.ClusterSizes.Sum(), 1e-6);
                // Changing a parameter starts a new stream at the next batch.
                stream.Seed(2);
                one.Seed(2).Fit(Rows(x, 0, 300));
                stream.PartialFit(Rows(x, 0, 300));
                CollectionAssert.AreEqual(one.Labels, stream.Labels);
                Assert.AreEqual(300, stream.ClusterSizes.Sum(), 1e-9);
            }
        }

        [Test]
        public void MethodExactIsRefusedNamingPartialFit()
        {
            var truth = new int[300];
            float[,] x = ShuffledBlobs(300, truth, 13);
            using (var model = new KernelKMeans("k=3 method=exact gamma=0.1 seed=1"))
            {
                var e = Assert.Throws<ArgumentException>(() => model.PartialFit(x));
                StringAssert.Contains("kkm_partial_fit", e.Message);
                StringAssert.Contains("method=exact", e.Message);
                Assert.AreEqual(Status.NotFitted, Assert.Throws<KKMeansException>(() => { var l = model.Labels; }).Status);
                model.Fit(x);
                int[] before = model.Labels;
                Assert.Throws<ArgumentException>(() => model.PartialFit(x));
                CollectionAssert.AreEqual(before, model.Labels);
            }
            foreach (string parameters in new[] { "k=3 method=minibatch tau=0", "k=3 kernel=knn", "k=3 kernel=heat" })
            {
                using (var model = new KernelKMeans(parameters))
                {
                    var e = Assert.Throws<ArgumentException>(() => model.PartialFit(x));
                    StringAssert.Contains("kkm_partial_fit", e.Message, parameters);
                }
            }
        }

        [Test]
        public void BadBatchesLeaveTheStreamAsItWas()
        {
            var truth = new int[500];
            float[,] x = ShuffledBlobs(500, truth, 14);
            using (var model = new KernelKMeans("k=3 method=rff m=40 seed=2"))
            {
                model.PartialFit(Rows(x, 0, 300));
                double[] sizes = model.ClusterSizes;
                var wide = Assert.Throws<ArgumentException>(() => model.PartialFit(new float[100, 3]));
                StringAssert.Contains("d=3", wide.Message);
                Assert.Throws<ArgumentException>(() => model.PartialFit(new float[5], 3, 2));
                Assert.Throws<ArgumentNullException>(() => model.PartialFit((float[,])null));
                Assert.Throws<ArgumentException>(() => model.PartialFit(Rows(x, 300, 400), new float[3]));
                float[,] bad = Rows(x, 300, 400);
                bad[5, 1] = float.NaN;
                Assert.AreEqual(Status.InvalidData, Assert.Throws<KKMeansException>(() => model.PartialFit(bad)).Status);
                CollectionAssert.AreEqual(sizes, model.ClusterSizes);
            }
            using (var model = new KernelKMeans("k=3 method=nystrom m=50 seed=2"))
            {
                var e = Assert.Throws<ArgumentException>(() => model.PartialFit(Rows(x, 0, 20)));
                StringAssert.Contains("m=50", e.Message);
                // The first batch is a fit: a cancelled token stops it, and nothing is fitted.
                using (var cancelled = new CancellationTokenSource())
                {
                    cancelled.Cancel();
                    Assert.Throws<OperationCanceledException>(() => model.PartialFit(Rows(x, 0, 300), cancelled.Token));
                }
                Assert.Throws<KKMeansException>(() => { var l = model.Labels; });
            }
        }
    }
}
