// StartTests.cs — starting partitions (InitCentres, InitLabels, ClearInit), the feature-space
// Centres, ToString, and how numbers read in the library's messages.

using System;
using System.Globalization;
using System.Reflection;
using System.Threading;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    [TestFixture]
    public class StartTests
    {
        static readonly double[][] BlobCentres = { new double[] { 0, 0 }, new double[] { 6, 0 }, new double[] { 0, 6 } };

        // Three blobs around BlobCentres, 40 rows each; truth = blob index.
        static double[,] Blobs(int[] truth, int seed)
        {
            var random = new Random(seed);
            var x = new double[truth.Length, 2];
            for (int i = 0; i < truth.Length; ++i)
            {
                truth[i] = i / 40;
                x[i, 0] = BlobCentres[truth[i]][0] + 0.5 * Gaussian(random);
                x[i, 1] = BlobCentres[truth[i]][1] + 0.5 * Gaussian(random);
            }
            return x;
        }

        static double Gaussian(Random random)
        {
            double u = 1.0 - random.NextDouble();
            double v = random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v);
        }

        // n uniform points in the unit square: each start ends in a local optimum of its own.
        static double[,] Uniform(int n, int seed)
        {
            var random = new Random(seed);
            var x = new double[n, 2];
            for (int i = 0; i < n; ++i)
            {
                x[i, 0] = random.NextDouble();
                x[i, 1] = random.NextDouble();
            }
            return x;
        }

        // Plain Lloyd iterations from the given centres (no cluster empties on these data).
        static int[] Lloyd(double[,] x, double[,] start, int maxIter)
        {
            int n = x.GetLength(0), d = x.GetLength(1), k = start.GetLength(0);
            var centres = (double[,])start.Clone();
            var labels = new int[n];
            for (int it = 0; it < maxIter; ++it)
            {
                bool moved = it == 0;
                for (int i = 0; i < n; ++i)
                {
                    int best = 0;
                    double bestDist = double.PositiveInfinity;
                    for (int j = 0; j < k; ++j)
                    {
                        double dist = 0;
                        for (int c = 0; c < d; ++c) dist += (x[i, c] - centres[j, c]) * (x[i, c] - centres[j, c]);
                        if (dist < bestDist)
                        {
                            bestDist = dist;
                            best = j;
                        }
                    }
                    moved |= labels[i] != best;
                    labels[i] = best;
                }
                if (!moved) break;
                var count = new int[k];
                centres = new double[k, d];
                for (int i = 0; i < n; ++i)
                {
                    count[labels[i]]++;
                    for (int c = 0; c < d; ++c) centres[labels[i], c] += x[i, c];
                }
                for (int j = 0; j < k; ++j)
                {
                    for (int c = 0; c < d; ++c) centres[j, c] /= count[j];
                }
            }
            return labels;
        }

        [Test]
        public void InitCentresNumberTheClustersAsTheirRowsForExactAndNystrom()
        {
            var truth = new int[120];
            double[,] x = Blobs(truth, 2);
            int[] order = { 2, 0, 1 };  // cluster j starts at blob order[j]
            var centres = new double[3, 2];
            for (int j = 0; j < 3; ++j)
            {
                centres[j, 0] = BlobCentres[order[j]][0];
                centres[j, 1] = BlobCentres[order[j]][1];
            }
            var expected = new int[truth.Length];
            for (int i = 0; i < truth.Length; ++i) expected[i] = Array.IndexOf(order, truth[i]);
            foreach (string method in new[] { "exact", "nystrom" })
            {
                using (var model = new KernelKMeans().K(3).Method(method).Gamma(0.1).M(60).NInit(1).Seed(1))
                {
                    model.InitCentres(centres).Fit(x);
                    CollectionAssert.AreEqual(expected, model.Labels, method);
                }
            }
        }

        [Test]
        public void InitCentresOverloadsAgreeAndLinearExactIsLloydFromThem()
        {
            double[,] x = Uniform(200, 3);
            int[] rows = { 5, 17, 40, 99 };
            var c = new double[4, 2];
            var cf = new float[4, 2];
            var jagged = new float[4][];
            var jaggedDouble = new double[4][];
            var flat = new float[8];
            for (int j = 0; j < 4; ++j)
            {
                jagged[j] = new float[2];
                jaggedDouble[j] = new double[2];
                for (int i = 0; i < 2; ++i)
                {
                    c[j, i] = x[rows[j], i];
                    cf[j, i] = (float)c[j, i];
                    jagged[j][i] = (float)c[j, i];
                    jaggedDouble[j][i] = c[j, i];
                    flat[2 * j + i] = (float)c[j, i];
                }
            }
            const string parameters = "k=4 method=exact kernel=linear max_iter=100 n_init=1";
            int[] reference;
            using (var model = new KernelKMeans(parameters)) reference = model.InitCentres(c).Fit(x).Labels;
            CollectionAssert.AreEqual(Lloyd(x, c, 100), reference);
            using (var model = new KernelKMeans(parameters)) CollectionAssert.AreEqual(reference, model.InitCentres(cf).Fit(x).Labels);
            using (var model = new KernelKMeans(parameters)) CollectionAssert.AreEqual(reference, model.InitCentres(jagged).Fit(x).Labels);
            using (var model = new KernelKMeans(parameters)) CollectionAssert.AreEqual(reference, model.InitCentres(jaggedDouble).Fit(x).Labels);
            using (var model = new KernelKMeans(parameters)) CollectionAssert.AreEqual(reference, model.InitCentres(flat, 4, 2).Fit(x).Labels);
        }

        [Test]
        public void InitLabelsStartOneLloydIterationFromTheirMeansAndClearInitForgetsThem()
        {
            double[,] x = Uniform(200, 3);
            var random = new Random(5);
            var start = new int[200];
            for (int i = 0; i < start.Length; ++i) start[i] = random.Next(3);
            // the means of the start's clusters, and each row's nearest
            var means = new double[3, 2];
            var count = new int[3];
            for (int i = 0; i < 200; ++i)
            {
                count[start[i]]++;
                means[start[i], 0] += x[i, 0];
                means[start[i], 1] += x[i, 1];
            }
            for (int j = 0; j < 3; ++j)
            {
                means[j, 0] /= count[j];
                means[j, 1] /= count[j];
            }
            using (var model = new KernelKMeans("k=3 method=exact kernel=linear max_iter=1 n_init=1"))
            {
                model.InitLabels(start).Fit(x);
                CollectionAssert.AreEqual(Lloyd(x, means, 1), model.Labels);
                Assert.AreEqual(1, model.Iterations);
                model.ClearInit().Param("max_iter", 100).Seed(4);
                using (var fresh = new KernelKMeans("k=3 method=exact kernel=linear max_iter=100 n_init=1 seed=4"))
                {
                    CollectionAssert.AreEqual(fresh.Fit(x).Labels, model.Fit(x).Labels);
                }
            }
        }

        [Test]
        public void BadStartsAreArgumentErrors()
        {
            double[,] x = Uniform(50, 6);
            using (var model = new KernelKMeans("k=2 method=exact kernel=rbf gamma=1"))
            {
                Assert.Throws<ArgumentNullException>(() => model.InitLabels(null));
                Assert.Throws<ArgumentNullException>(() => model.InitCentres((float[,])null));
                var e = Assert.Throws<ArgumentException>(() => model.InitLabels(new[] { 0, -1 }));
                StringAssert.Contains("labels[1]", e.Message);
                model.InitLabels(new int[49]);
                e = Assert.Throws<ArgumentException>(() => model.Fit(x));
                StringAssert.Contains("49", e.Message);
                var high = new int[50];
                high[7] = 2;
                model.InitLabels(high);
                e = Assert.Throws<ArgumentException>(() => model.Fit(x));
                StringAssert.Contains("labels[7]=2", e.Message);
                model.InitCentres(new double[,] { { 0, 0 }, { 1, 1 }, { 2, 2 } });
                e = Assert.Throws<ArgumentException>(() => model.Fit(x));
                StringAssert.Contains("3 x 2", e.Message);
                var bad = Assert.Throws<KKMeansException>(() => model.InitCentres(new double[,] { { 0, 0 }, { 1, double.NaN } }));
                Assert.AreEqual(Status.InvalidData, bad.Status);
                StringAssert.Contains("(NaN) at row 1", bad.Message);
                e = Assert.Throws<ArgumentException>(() => model.InitCentres(new[] { new float[] { 0, 0 }, new float[] { 1 } }));
                StringAssert.Contains("row 1 of centres", e.Message);
                Assert.Throws<ArgumentException>(() => model.InitCentres(new float[3], 2, 2));
                model.InitCentres(new float[,] { { 0, 0 }, { 1, 1 } }).GammaSearch();
                e = Assert.Throws<ArgumentException>(() => model.Fit(x));
                StringAssert.Contains("gamma=search", e.Message);
                model.ClearInit().Fit(x);  // the search runs once the start is gone
                Assert.AreEqual(50, model.Labels.Length);
            }
        }

        [Test]
        public void CentresAreTheClusterMeansInTheFeatureSpace()
        {
            // Nystrom with the linear kernel and m >= d is exact: its feature space is the
            // centred input space, rotated, so the centres lie as far apart as the means do.
            var random = new Random(8);
            var x = new double[150, 3];
            for (int i = 0; i < 150; ++i)
            {
                int t = i % 3;
                x[i, 0] = 4 * t + Gaussian(random);
                x[i, 1] = Gaussian(random);
                x[i, 2] = 3 * (t % 2) + Gaussian(random);
            }
            using (var model = new KernelKMeans("k=3 method=nystrom kernel=linear m=40 seed=2 n_init=3"))
            {
                model.Fit(x);
                float[,] c = model.Centres;
                Assert.AreEqual(3, c.GetLength(0));
                Assert.AreEqual(model.FeatureDim, c.GetLength(1));
                int[] labels = model.Labels;
                var means = new double[3, 3];
                var count = new int[3];
                for (int i = 0; i < 150; ++i)
                {
                    count[labels[i]]++;
                    for (int j = 0; j < 3; ++j) means[labels[i], j] += x[i, j];
                }
                for (int a = 0; a < 3; ++a)
                {
                    for (int b = a + 1; b < 3; ++b)
                    {
                        double input = 0, feature = 0;
                        for (int j = 0; j < 3; ++j)
                        {
                            double diff = means[a, j] / count[a] - means[b, j] / count[b];
                            input += diff * diff;
                        }
                        for (int j = 0; j < c.GetLength(1); ++j) feature += (c[a, j] - c[b, j]) * (c[a, j] - c[b, j]);
                        Assert.AreEqual(input, feature, 1e-3 * input, "centres " + a + ", " + b);
                    }
                }
                // Transform's features of the training rows are nearest their own centre
                float[,] f = model.Transform(x);
                for (int i = 0; i < 150; ++i)
                {
                    int best = 0;
                    double bestDist = double.PositiveInfinity;
                    for (int j = 0; j < 3; ++j)
                    {
                        double dist = 0;
                        for (int q = 0; q < c.GetLength(1); ++q) dist += (f[i, q] - c[j, q]) * (f[i, q] - c[j, q]);
                        if (dist < bestDist)
                        {
                            bestDist = dist;
                            best = j;
                        }
                    }
                    Assert.AreEqual(labels[i], best, "row " + i);
                }
            }
            using (var heat = new KernelKMeans("k=3 kernel=heat seed=1"))
            {
                // the heat kernel's spectral features have centres too: each row is nearest its own
                float[,] c = heat.Fit(x).Centres;
                Assert.AreEqual(3, c.GetLength(0));
                Assert.AreEqual(heat.FeatureDim, c.GetLength(1));
                float[,] f = heat.Transform(x);
                int[] labels = heat.Labels;
                for (int i = 0; i < 150; ++i)
                {
                    int best = 0;
                    double bestDist = double.PositiveInfinity;
                    for (int j = 0; j < 3; ++j)
                    {
                        double dist = 0;
                        for (int q = 0; q < c.GetLength(1); ++q) dist += (f[i, q] - c[j, q]) * (f[i, q] - c[j, q]);
                        if (dist < bestDist)
                        {
                            bestDist = dist;
                            best = j;
                        }
                    }
                    Assert.AreEqual(labels[i], best, "heat row " + i);
                }
            }
            using (var knn = new KernelKMeans("k=3 kernel=knn seed=1"))
            {
                knn.Fit(x);
                var e = Assert.Throws<ArgumentException>(() => { var unused = knn.Centres; });
                StringAssert.Contains("no explicit centres", e.Message);
            }
            using (var exact = new KernelKMeans("k=2 method=exact gamma=1"))
            {
                var unfitted = Assert.Throws<KKMeansException>(() => { var unused = exact.Centres; });
                Assert.AreEqual(Status.NotFitted, unfitted.Status);
                exact.Fit(x);
                var e = Assert.Throws<ArgumentException>(() => { var unused = exact.Centres; });
                StringAssert.Contains("no explicit centres", e.Message);
            }
        }

        [Test]
        public void ToStringDescribesTheModelInTheInvariantCulture()
        {
            CultureInfo saved = Thread.CurrentThread.CurrentCulture;
            try
            {
                Thread.CurrentThread.CurrentCulture = new CultureInfo("de-DE");  // decimal comma
                var model = new KernelKMeans().K(3).Method("exact").Kernel("rbf").Gamma(0.3).NInit(2).Seed(1);
                Assert.AreEqual("KernelKMeans[method=exact kernel=rbf k=3 unfitted]", model.ToString());
                model.KAuto();
                Assert.AreEqual("KernelKMeans[method=exact kernel=rbf k=auto unfitted]", model.ToString());
                double[,] x = Uniform(100, 11);
                model.K(2).Fit(x);
                string s = model.ToString();
                StringAssert.StartsWith("KernelKMeans[method=exact kernel=rbf k=2 n=100 objective=", s);
                StringAssert.EndsWith("]", s);
                string objective = s.Substring(s.IndexOf("objective=", StringComparison.Ordinal) + 10).TrimEnd(']');
                StringAssert.DoesNotContain(",", objective);
                Assert.AreEqual(model.Objective, double.Parse(objective, CultureInfo.InvariantCulture));
                model.Dispose();
                Assert.AreEqual("KernelKMeans[disposed]", model.ToString());
            }
            finally
            {
                Thread.CurrentThread.CurrentCulture = saved;
            }
        }

        [Test]
        public void NonFiniteNumbersReadAsCSharpWritesThem()
        {
            // ToString's number format (internal): NaN, not C's "-nan", in any culture
            MethodInfo format = typeof(KernelKMeans).GetMethod("FormatNumber", BindingFlags.NonPublic | BindingFlags.Static);
            Assert.IsNotNull(format);
            Assert.AreEqual("NaN", format.Invoke(null, new object[] { double.NaN }));
            Assert.AreEqual("NaN", format.Invoke(null, new object[] { -double.NaN }));
            Assert.AreEqual("-Infinity", format.Invoke(null, new object[] { double.NegativeInfinity }));
            Assert.AreEqual("0.25", format.Invoke(null, new object[] { 0.25 }));
            // the library's messages: "(-nan)" or "(nan)" from its printf reads "(NaN)"
            double[,] x = Uniform(20, 9);
            x[5, 1] = double.NaN;
            using (var model = new KernelKMeans("k=2 method=exact"))
            {
                var e = Assert.Throws<KKMeansException>(() => model.Fit(x));
                Assert.AreEqual(Status.InvalidData, e.Status);
                StringAssert.Contains("(NaN) at row 5", e.Message);
                StringAssert.DoesNotContain("nan", e.Message);
            }
        }
    }
}
