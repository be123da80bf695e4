// KernelKMeansTests.cs — NUnit 2 tests of the C# binding (run by run-tests.py under meson).

using System;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Threading;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    // Two concentric rings (radii 1 and 3, Gaussian noise 0.1) in 2-D.
    internal sealed class Rings
    {
        public readonly float[,] X;
        public readonly int[] Truth;
        public readonly int N;

        public Rings(int perRing, int seed)
        {
            var random = new Random(seed);
            N = 2 * perRing;
            X = new float[N, 2];
            Truth = new int[N];
            for (int i = 0; i < N; ++i)
            {
                int ring = i / perRing;
                double radius = ring == 0 ? 1.0 : 3.0;
                double angle = 2.0 * Math.PI * random.NextDouble();
                X[i, 0] = (float)(radius * Math.Cos(angle) + 0.1 * Gaussian(random));
                X[i, 1] = (float)(radius * Math.Sin(angle) + 0.1 * Gaussian(random));
                Truth[i] = ring;
            }
        }

        static double Gaussian(Random random)
        {
            double u = 1.0 - random.NextDouble();
            double v = random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v);
        }

        public float[] RowMajor()
        {
            var flat = new float[N * 2];
            Buffer.BlockCopy(X, 0, flat, 0, flat.Length * sizeof(float));
            return flat;
        }

        public double[,] AsDouble()
        {
            var x = new double[N, 2];
            for (int i = 0; i < N; ++i)
            {
                x[i, 0] = X[i, 0];
                x[i, 1] = X[i, 1];
            }
            return x;
        }
    }

    [TestFixture]
    public class KernelKMeansTests
    {
        static readonly Rings rings = new Rings(200, 7);

        static KernelKMeans ExactModel()
        {
            return new KernelKMeans().K(2).Method("exact").Kernel("rbf").Gamma(0.5).NInit(3).Seed(1);
        }

        static KernelKMeans FittedExact()
        {
            KernelKMeans model = ExactModel();
            model.Fit(rings.X);
            return model;
        }

        // ------------------------------------------------------------------ clustering

        [Test]
        public void ExactSeparatesRings()
        {
            using (KernelKMeans model = FittedExact())
            {
                double ari = Metrics.AdjustedRandIndex(model.Labels, rings.Truth);
                Assert.That(ari, Is.GreaterThanOrEqualTo(0.95));
            }
        }

        [Test]
        public void NystromOnRowMajorArraySeparatesRings()
        {
            using (var model = new KernelKMeans("k=2 method=nystrom kernel=rbf gamma=0.5 m=100 n_init=3 seed=2"))
            {
                model.Fit(rings.RowMajor(), rings.N, 2);
                Assert.That(Metrics.AdjustedRandIndex(model.Labels, rings.Truth), Is.GreaterThanOrEqualTo(0.95));
                Assert.AreEqual(rings.N, model.NumTrain);
                Assert.AreEqual(2, model.NumFeatures);
                Assert.That(model.FeatureDim, Is.GreaterThan(0).And.LessThanOrEqualTo(100));
            }
        }

        [Test]
        public void DoubleInputSeparatesRings()
        {
            double[,] x = rings.AsDouble();
            using (KernelKMeans model = ExactModel())
            {
                model.Fit(x);
                Assert.That(Metrics.AdjustedRandIndex(model.Labels, rings.Truth), Is.GreaterThanOrEqualTo(0.95));
                CollectionAssert.AreEqual(model.Labels, model.Predict(x));
                var flat = new double[rings.N * 2];
                Buffer.BlockCopy(x, 0, flat, 0, flat.Length * sizeof(double));
                CollectionAssert.AreEqual(model.Labels, model.Predict(flat, rings.N, 2));
            }
        }

        [Test]
        public void PredictOnTrainingDataEqualsLabels()
        {
            using (KernelKMeans model = FittedExact())
            {
                int[] labels = model.Labels;
                Assert.AreEqual(rings.N, labels.Length);
                CollectionAssert.AreEqual(labels, model.Predict(rings.X));
                CollectionAssert.AreEqual(labels, model.Predict(rings.RowMajor(), rings.N, 2));
                foreach (int label in labels) Assert.That(label, Is.InRange(0, 1));
            }
        }

        [Test]
        public void PredictGivesDistancesToTheCentres()
        {
            using (KernelKMeans model = FittedExact())
            {
                double[] distances;
                int[] labels = model.Predict(rings.AsDouble(), out distances);
                CollectionAssert.AreEqual(model.Labels, labels);
                Assert.AreEqual(rings.N, distances.Length);
                double sum = 0;
                foreach (double dist in distances)
                {
                    Assert.That(dist, Is.GreaterThanOrEqualTo(-1e-4));
                    sum += dist;
                }
                // The objective is the sum of the training rows' squared distances.
                Assert.That(sum, Is.EqualTo(model.Objective).Within(1e-3 * Math.Max(1.0, model.Objective)));
            }
        }

        [Test]
        public void DistancesToEveryCentreHaveTheirMinimumAtPredictsLabel()
        {
            double[,] x = rings.AsDouble();
            foreach (string method in new[] { "exact", "minibatch", "nystrom", "sketch", "rff" })
            {
                using (KernelKMeans model = ExactModel().Method(method).M(100))
                {
                    model.Fit(rings.X);
                    double[] nearest;
                    int[] labels = model.Predict(x, out nearest);
                    double[,] all = model.Distances(x);
                    Assert.AreEqual(rings.N, all.GetLength(0), method);
                    Assert.AreEqual(2, all.GetLength(1), method);
                    for (int i = 0; i < rings.N; ++i)
                    {
                        int first = all[i, 1] < all[i, 0] ? 1 : 0;
                        Assert.AreEqual(labels[i], first, method + " row " + i);
                        Assert.AreEqual(nearest[i], all[i, first], method + " row " + i);
                        Assert.That(all[i, 1 - first], Is.GreaterThanOrEqualTo(all[i, first]), method + " row " + i);
                    }
                    // The row-major and jagged forms give the same values.
                    var flat = new double[rings.N * 2];
                    Buffer.BlockCopy(x, 0, flat, 0, flat.Length * sizeof(double));
                    double[] rowMajor = model.Distances(flat, rings.N, 2);
                    double[][] jagged = model.Distances(new[] { new[] { x[3, 0], x[3, 1] }, new[] { x[7, 0], x[7, 1] } });
                    for (int j = 0; j < 2; ++j)
                    {
                        Assert.AreEqual(all[5, j], rowMajor[5 * 2 + j], method);
                        Assert.AreEqual(all[3, j], jagged[0][j], method);
                        Assert.AreEqual(all[7, j], jagged[1][j], method);
                    }
                }
            }
        }

        [Test]
        public void DistancesWithALinearKernelAreEuclideanToTheMeans()
        {
            double[,] x = rings.AsDouble();
            using (KernelKMeans model = new KernelKMeans().K(3).Method("exact").Kernel("linear").NInit(3).Seed(1))
            {
                model.Fit(x);
                int[] labels = model.Labels;
                var means = new double[3, 2];
                var counts = new double[3];
                for (int i = 0; i < rings.N; ++i)
                {
                    counts[labels[i]] += 1;
                    for (int c = 0; c < 2; ++c) means[labels[i], c] += x[i, c];
                }
                for (int j = 0; j < 3; ++j)
                {
                    for (int c = 0; c < 2; ++c) means[j, c] /= counts[j];
                }
                double[,] all = model.Distances(x);
                for (int i = 0; i < rings.N; ++i)
                {
                    for (int j = 0; j < 3; ++j)
                    {
                        double dx = x[i, 0] - means[j, 0], dy = x[i, 1] - means[j, 1];
                        Assert.That(all[i, j], Is.EqualTo(dx * dx + dy * dy).Within(1e-3), "row " + i + " centre " + j);
                    }
                }
            }
        }

        [Test]
        public void DistancesOfABadInputAreArgumentErrors()
        {
            using (KernelKMeans model = FittedExact())
            {
                Assert.Throws<ArgumentNullException>(() => model.Distances((double[,])null));
                StringAssert.Contains("d=3", Assert.Throws<ArgumentException>(() => model.Distances(new double[2, 3])).Message);
                Assert.Throws<ArgumentException>(() => model.Distances(new double[3], 2, 2));
            }
            using (KernelKMeans unfitted = ExactModel())
            {
                Assert.AreEqual(Status.NotFitted, Assert.Throws<KKMeansException>(() => unfitted.Distances(rings.AsDouble())).Status);
            }
        }

        [Test]
        public void FittedResultsAreConsistent()
        {
            using (KernelKMeans model = FittedExact())
            {
                Assert.AreEqual(2, model.NumClusters);
                Assert.That(model.Iterations, Is.GreaterThanOrEqualTo(1));
                Assert.That(model.Objective, Is.GreaterThan(0.0));
                double[] sizes = model.ClusterSizes;
                Assert.AreEqual(2, sizes.Length);
                Assert.AreEqual(rings.N, sizes[0] + sizes[1], 1e-9);
                int[] labels = model.Labels;
                int inFirst = Array.FindAll(labels, l => l == 0).Length;
                Assert.AreEqual(inFirst, sizes[0], 1e-9);
                StringAssert.Contains("=", model.Timings);
            }
        }

        [Test]
        public void WeightsScaleClusterSizes()
        {
            var weights = new float[rings.N];
            for (int i = 0; i < weights.Length; ++i) weights[i] = 2.0f;
            using (KernelKMeans model = ExactModel())
            {
                model.Fit(rings.X, weights);
                double[] sizes = model.ClusterSizes;
                Assert.AreEqual(2.0 * rings.N, sizes[0] + sizes[1], 1e-6);
                Assert.That(Metrics.AdjustedRandIndex(model.Labels, rings.Truth), Is.GreaterThanOrEqualTo(0.95));
                Assert.Throws<ArgumentException>(() => model.Fit(rings.X, new float[rings.N - 1]));
            }
        }

        // ------------------------------------------------------------------ parameters

        [Test]
        public void FluentSettersAndGetParam()
        {
            using (KernelKMeans model = new KernelKMeans().K(3).Method("nystrom").Kernel("laplacian").Gamma(0.25).M(50).Seed(9))
            {
                Assert.AreEqual("3", model.GetParam("k"));
                Assert.AreEqual("nystrom", model.GetParam("method"));
                Assert.AreEqual("laplacian", model.GetParam("kernel"));
                Assert.AreEqual(0.25, double.Parse(model.GetParam("gamma"), CultureInfo.InvariantCulture), 1e-12);
                Assert.AreEqual("50", model.GetParam("m"));
                model.Params("k=4 max_iter=7").Param("tol", 0.01).Param("n_init", 2);
                Assert.AreEqual("4", model.GetParam("k"));
                Assert.AreEqual("7", model.GetParam("max_iter"));
                Assert.AreEqual("2", model.GetParam("n_init"));
            }
        }

        [Test]
        public void GetParamReportsResolvedAutoValues()
        {
            using (var model = new KernelKMeans("k=2 method=exact kernel=rbf gamma=auto"))
            {
                Assert.AreEqual("auto", model.GetParam("gamma"));
                model.Fit(rings.X);
                double gamma = double.Parse(model.GetParam("gamma"), CultureInfo.InvariantCulture);
                Assert.That(gamma, Is.GreaterThan(0.0));
            }
        }

        [Test]
        public void BadParameterThrowsArgumentExceptionWithLibraryMessage()
        {
            using (var model = new KernelKMeans())
            {
                var unknown = Assert.Throws<ArgumentException>(() => model.Param("bogus", "1"));
                StringAssert.Contains("bogus", unknown.Message);
                var outOfRange = Assert.Throws<ArgumentException>(() => model.Params("k=0"));
                StringAssert.Contains("k", outOfRange.Message);
                Assert.AreNotEqual(unknown.Message, outOfRange.Message);
                // All or nothing, and the pending exception is cleared: the model still works.
                Assert.Throws<ArgumentException>(() => model.Params("k=5 bogus=1"));
                Assert.AreEqual("8", model.GetParam("k"));
                Assert.Throws<ArgumentException>(() => model.GetParam("no_such_key"));
                Assert.Throws<ArgumentException>(() => model.Method("nonsense"));
                Assert.Throws<ArgumentException>(() => new KernelKMeans("k=-1"));
                model.K(2).Method("exact").Gamma(0.5).Fit(rings.X);
                Assert.AreEqual(rings.N, model.Labels.Length);
            }
        }

        // ------------------------------------------------------------------ errors

        [Test]
        public void NotFittedThrowsKKMeansException()
        {
            using (var model = new KernelKMeans())
            {
                var e = Assert.Throws<KKMeansException>(() => { var unused = model.Labels; });
                Assert.AreEqual(Status.NotFitted, e.Status);
                Assert.IsNotEmpty(e.Message);
                e = Assert.Throws<KKMeansException>(() => model.Predict(rings.X));
                Assert.AreEqual(Status.NotFitted, e.Status);
                e = Assert.Throws<KKMeansException>(() => { var unused = model.Objective; });
                Assert.AreEqual(Status.NotFitted, e.Status);
            }
        }

        [Test]
        public void NaNInDataThrowsInvalidData()
        {
            var x = (float[,])rings.X.Clone();
            x[5, 1] = float.NaN;
            using (KernelKMeans model = ExactModel())
            {
                var e = Assert.Throws<KKMeansException>(() => model.Fit(x));
                Assert.AreEqual(Status.InvalidData, e.Status);
                StringAssert.Contains("5", e.Message);
            }
        }

        [Test]
        public void ShortArrayThrowsArgumentException()
        {
            using (KernelKMeans model = ExactModel())
            {
                var e = Assert.Throws<ArgumentException>(() => model.Fit(new float[5], 3, 2));
                StringAssert.Contains("data", e.Message);
                Assert.Throws<ArgumentException>(() => model.Fit(new double[5], 3, 2));
                model.Fit(rings.X);
                Assert.Throws<ArgumentException>(() => model.Predict(new float[7], 4, 2));
                Assert.Throws<ArgumentException>(() => model.Predict(new double[3], 2, 2));
                // A wrong number of columns is the library's argument error too.
                Assert.Throws<ArgumentException>(() => model.Predict(new float[3, 3]));
                Assert.Throws<ArgumentException>(() => model.Predict(new float[0, 2]));
            }
        }

        [Test]
        public void NullArraysThrowArgumentNullException()
        {
            using (KernelKMeans model = ExactModel())
            {
                Assert.Throws<ArgumentNullException>(() => model.Fit((float[,])null));
                Assert.Throws<ArgumentNullException>(() => model.Fit((float[])null, 1, 1));
                Assert.Throws<ArgumentNullException>(() => model.Fit((double[,])null));
                Assert.Throws<ArgumentNullException>(() => model.Fit(rings.X, null));
                Assert.Throws<ArgumentNullException>(() => model.Predict((float[,])null));
                Assert.Throws<ArgumentNullException>(() => model.Predict((double[])null, 1, 1));
                Assert.Throws<ArgumentNullException>(() => model.Param(null, "1"));
                Assert.Throws<ArgumentNullException>(() => KernelKMeans.FromBytes(null));
                Assert.Throws<ArgumentNullException>(() => Metrics.AdjustedRandIndex(null, new int[1]));
            }
        }

        [Test]
        public void UseAfterDisposeThrowsObjectDisposedException()
        {
            KernelKMeans model = FittedExact();
            Assert.IsFalse(model.IsDisposed);
            model.Dispose();
            model.Dispose(); // idempotent
            Assert.IsTrue(model.IsDisposed);
            Assert.Throws<ObjectDisposedException>(() => model.Predict(rings.X));
            Assert.Throws<ObjectDisposedException>(() => model.Fit(rings.X));
            Assert.Throws<ObjectDisposedException>(() => { var unused = model.Labels; });
            Assert.Throws<ObjectDisposedException>(() => { var unused = model.Objective; });
            Assert.Throws<ObjectDisposedException>(() => model.K(3));
            Assert.Throws<ObjectDisposedException>(() => model.GetParam("k"));
            Assert.Throws<ObjectDisposedException>(() => model.ToBytes());
            Assert.Throws<ObjectDisposedException>(() => model.Save("unused.kkm"));
        }

        [Test]
        public void EightThreadsPredictIdenticalLabels()
        {
            using (KernelKMeans model = FittedExact())
            {
                int[] expected = model.Predict(rings.X);
                var results = new int[8][][];
                var errors = new Exception[8];
                var threads = new Thread[8];
                for (int t = 0; t < threads.Length; ++t)
                {
                    int id = t;
                    threads[t] = new Thread(() =>
                    {
                        try
                        {
                            results[id] = new int[20][];
                            for (int r = 0; r < 20; ++r)
                            {
                                results[id][r] = (r % 2 == 0) ? model.Predict(rings.X)
                                                              : model.Predict(rings.RowMajor(), rings.N, 2);
                            }
                        }
                        catch (Exception e)
                        {
                            errors[id] = e;
                        }
                    });
                    threads[t].Start();
                }
                foreach (Thread thread in threads) thread.Join();
                for (int t = 0; t < threads.Length; ++t)
                {
                    Assert.IsNull(errors[t], "thread " + t + " threw " + errors[t]);
                    foreach (int[] labels in results[t]) CollectionAssert.AreEqual(expected, labels);
                }
            }
        }

        // ------------------------------------------------------------------ persistence

        [Test]
        public void BytesRoundTripPredictsIdentically()
        {
            var other = new Rings(100, 99);
            using (KernelKMeans model = FittedExact())
            {
                byte[] bytes = model.ToBytes();
                Assert.That(bytes.Length, Is.GreaterThan(8));
                using (KernelKMeans restored = KernelKMeans.FromBytes(bytes))
                {
                    CollectionAssert.AreEqual(model.Predict(other.X), restored.Predict(other.X));
                    CollectionAssert.AreEqual(model.Labels, restored.Labels);
                    Assert.AreEqual(model.Objective, restored.Objective);
                    Assert.AreEqual(model.GetParam("gamma"), restored.GetParam("gamma"));
                    CollectionAssert.AreEqual(bytes, restored.ToBytes());
                }
            }
        }

        [Test]
        public void FileRoundTripPredictsIdentically()
        {
            string path = Path.Combine(Path.GetTempPath(), "kkmeans-csharp-" + Guid.NewGuid().ToString("N") + ".kkm");
            var other = new Rings(100, 98);
            try
            {
                using (KernelKMeans model = FittedExact())
                {
                    model.Save(path);
                    Assert.IsTrue(File.Exists(path));
                    using (KernelKMeans restored = KernelKMeans.Load(path))
                    {
                        CollectionAssert.AreEqual(model.Predict(other.X), restored.Predict(other.X));
                        CollectionAssert.AreEqual(model.Labels, restored.Labels);
                    }
                }
            }
            finally
            {
                File.Delete(path);
            }
        }

        [Test]
        public void MalformedBytesAndMissingFileThrowKKMeansException()
        {
            var garbage = new byte[64];
            for (int i = 0; i < garbage.Length; ++i) garbage[i] = (byte)(i * 7 + 3);
            var e = Assert.Throws<KKMeansException>(() => KernelKMeans.FromBytes(garbage));
            Assert.AreEqual(Status.Format, e.Status);
            string missing = Path.Combine(Path.GetTempPath(), "kkmeans-csharp-missing-" + Guid.NewGuid().ToString("N"));
            e = Assert.Throws<KKMeansException>(() => KernelKMeans.Load(missing));
            Assert.AreEqual(Status.IO, e.Status);
            StringAssert.Contains(missing, e.Message);
        }

        // ------------------------------------------------------------------ library helpers

        [Test]
        public void RingsWithNeitherGammaNorKChooseTwoClustersAndReportTheScan()
        {
            var data = new Rings(250, 11);
            using (var model = new KernelKMeans().Method("exact").GammaSearch().KAuto().Seed(1))
            {
                model.Fit(data.X);
                Assert.AreEqual(2, model.NumClusters);
                Assert.AreEqual("2", model.GetParam("k"));
                double gamma = double.Parse(model.GetParam("gamma"), CultureInfo.InvariantCulture);
                Assert.That(gamma, Is.GreaterThan(0.0));
                Assert.That(Metrics.AdjustedRandIndex(model.Labels, data.Truth), Is.GreaterThanOrEqualTo(0.95));
                SearchPoint[] scan = model.Search;
                Assert.That(scan.Length, Is.GreaterThan(0));
                bool chosenScored = false;
                foreach (SearchPoint p in scan)
                {
                    // k by stability over the whole grid, then gamma by MATR (the default) at k=2
                    Assert.That(p.Criterion == SearchCriterion.Stability || (p.Criterion == SearchCriterion.Matr && p.K == 2),
                                p.ToString());
                    Assert.That(p.K, Is.InRange(2, 10), p.ToString());
                    Assert.That(p.Gamma, Is.GreaterThan(0.0), p.ToString());
                    chosenScored |= p.Gamma == gamma && p.K == 2;
                }
                Assert.IsTrue(chosenScored, "gamma " + gamma);
                using (var back = KernelKMeans.FromBytes(model.ToBytes()))
                {
                    SearchPoint[] again = back.Search;
                    Assert.AreEqual(scan.Length, again.Length);
                    for (int i = 0; i < scan.Length; ++i)
                    {
                        Assert.AreEqual(scan[i].Gamma, again[i].Gamma);
                        Assert.AreEqual(scan[i].K, again[i].K);
                        Assert.AreEqual(scan[i].Score, again[i].Score);
                    }
                }
            }
        }

        [Test]
        public void GammaSearchByMatrWithAGivenK()
        {
            using (var model = new KernelKMeans().K(2).Method("exact").Gamma("search")
                       .SearchCriterion(SearchCriterion.Matr).SearchSize(300).Seed(2))
            {
                model.Fit(rings.X);
                Assert.AreEqual(2, model.NumClusters);
                SearchPoint[] scan = model.Search;
                Assert.That(scan.Length, Is.GreaterThan(0));
                foreach (SearchPoint p in scan)
                {
                    Assert.AreEqual(SearchCriterion.Matr, p.Criterion, p.ToString());
                    Assert.AreEqual(2, p.K);
                    Assert.That(p.Score, Is.GreaterThan(0.0), p.ToString());
                }
            }
        }

        [Test]
        public void NoSearchGivesAnEmptyScanAndBadSearchValuesAreArgumentErrors()
        {
            using (var model = ExactModel().Fit(rings.X))
            {
                Assert.AreEqual(0, model.Search.Length);
                Assert.Throws<ArgumentException>(() => model.KRange(1, 5));
                Assert.Throws<ArgumentException>(() => model.SearchSize(5));
                Assert.Throws<ArgumentException>(() => model.Param("search_criterion", "bogus"));
                Assert.Throws<ArgumentException>(() => model.Param("k", "search"));
                Assert.Throws<ArgumentOutOfRangeException>(() => model.SearchCriterion((SearchCriterion)7));
            }
            using (var model = new KernelKMeans())
            {
                var e = Assert.Throws<KKMeansException>(() => { var unused = model.Search; });
                Assert.AreEqual(Status.NotFitted, e.Status);
            }
        }

        [Test]
        public void KAutoFindsTheNumberOfBlobs()
        {
            var random = new Random(5);
            var x = new double[300, 2];
            var truth = new int[300];
            for (int i = 0; i < 300; ++i)
            {
                int c = i % 3;
                x[i, 0] = 10 * c + 0.5 * (random.NextDouble() - 0.5);
                x[i, 1] = (c == 1 ? 10 : 0) + 0.5 * (random.NextDouble() - 0.5);
                truth[i] = c;
            }
            using (var model = new KernelKMeans().Method("exact").KAuto().KRange(2, 6).Seed(3))
            {
                model.Fit(x);
                Assert.AreEqual(3, model.NumClusters);
                Assert.AreEqual(1.0, Metrics.AdjustedRandIndex(model.Labels, truth), 1e-12);
                foreach (SearchPoint p in model.Search) Assert.That(p.K, Is.InRange(2, 6), p.ToString());
            }
        }

        [Test]
        public void MetricsAndVersion()
        {
            var a = new[] { 0, 0, 1, 1, 2, 2 };
            var permuted = new[] { 5, 5, 3, 3, 9, 9 };
            Assert.AreEqual(1.0, Metrics.AdjustedRandIndex(a, permuted), 1e-12);
            Assert.AreEqual(1.0, Metrics.NormalizedMutualInfo(a, permuted), 1e-12);
            Assert.That(Metrics.AdjustedRandIndex(a, new[] { 0, 1, 0, 1, 0, 1 }), Is.LessThan(0.5));
            Assert.Throws<ArgumentException>(() => Metrics.AdjustedRandIndex(a, new[] { 0, 1 }));
            StringAssert.IsMatch(@"^\d+\.\d+\.\d+$", KernelKMeans.Version);
        }

        [Test]
        public void ExampleRunsAndSeparatesRings()
        {
            string dir = Path.GetDirectoryName(typeof(KernelKMeansTests).Assembly.Location);
            Assembly example = Assembly.LoadFrom(Path.Combine(dir, "Example.exe"));
            TextWriter stdout = Console.Out;
            var captured = new StringWriter();
            object status;
            Console.SetOut(captured);
            try
            {
                status = example.EntryPoint.Invoke(null, null);
            }
            finally
            {
                Console.SetOut(stdout);
            }
            string output = captured.ToString();
            Console.Write(output);
            Assert.AreEqual(0, status);
            Match ari = Regex.Match(output, @"ARI\s*=\s*([0-9.]+)");
            Assert.IsTrue(ari.Success, output);
            Assert.That(double.Parse(ari.Groups[1].Value, CultureInfo.InvariantCulture), Is.GreaterThanOrEqualTo(0.95));
            StringAssert.Contains("iterations", output);
        }
    }
}
