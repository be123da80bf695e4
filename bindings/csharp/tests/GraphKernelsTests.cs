// GraphKernelsTests.cs — the graph kernels (kernel knn and heat), on points and on a graph given as CSR.

using System;
using System.Collections.Generic;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    // Two concentric rings of uneven sizes: inner points of radius 1, outer of radius 3, noise 0.1.
    internal sealed class UnevenRings
    {
        public readonly double[,] X;
        public readonly int[] Truth;
        public readonly int N;

        public UnevenRings(int inner, int outer, int seed)
        {
            var random = new Random(seed);
            N = inner + outer;
            X = new double[N, 2];
            Truth = new int[N];
            for (int i = 0; i < N; ++i)
            {
                int ring = i < inner ? 0 : 1;
                double radius = ring == 0 ? 1.0 : 3.0;
                double angle = 2.0 * Math.PI * random.NextDouble();
                X[i, 0] = radius * Math.Cos(angle) + 0.1 * Gaussian(random);
                X[i, 1] = radius * Math.Sin(angle) + 0.1 * Gaussian(random);
                Truth[i] = ring;
            }
        }

        static double Gaussian(Random random)
        {
            double u = 1.0 - random.NextDouble();
            double v = random.NextDouble();
            return Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v);
        }
    }

    // Two cliques of a and b nodes (no self-loops, no edge between them) in CSR, and as dense rows.
    internal sealed class Cliques
    {
        public readonly long N;
        public readonly long[] Indptr;
        public readonly long[] Indices;
        public readonly float[] Values;
        public readonly int[] Truth;
        public readonly double[,] Rows;

        public Cliques(int a, int b, float weight)
        {
            N = a + b;
            Indptr = new long[a + b + 1];
            Truth = new int[a + b];
            Rows = new double[a + b, a + b];
            var columns = new List<long>();
            for (int i = 0; i < a + b; ++i)
            {
                int lo = i < a ? 0 : a;
                int hi = i < a ? a : a + b;
                Truth[i] = i < a ? 0 : 1;
                for (int j = lo; j < hi; ++j)
                {
                    if (j == i) continue;
                    columns.Add(j);
                    Rows[i, j] = weight;
                }
                Indptr[i + 1] = columns.Count;
            }
            Indices = columns.ToArray();
            Values = new float[Indices.Length];
            for (int e = 0; e < Values.Length; ++e) Values[e] = weight;
        }
    }

    [TestFixture]
    public class GraphKernelsTests
    {
        static readonly string[] graphKernels = { "heat", "knn" };
        static readonly UnevenRings rings = new UnevenRings(150, 450, 4);

        // Any draw of the rings (seeds 1, 2, 3, 6 and 7 were split before): the fit seeds its
        // k-means on the leading k heat coordinates, where the two rings' components are apart,
        // before it uses all heat_rank of them.
        [Test]
        public void UnevenRingsOfAnyDrawSeparate()
        {
            for (int draw = 1; draw <= 7; ++draw)
            {
                var data = new UnevenRings(150, 450, draw);
                foreach (string kernel in graphKernels)
                {
                    using (KernelKMeans model = new KernelKMeans().K(2).Kernel(kernel).Seed(1))
                    {
                        model.Fit(data.X);
                        double ari = Metrics.AdjustedRandIndex(model.Labels, data.Truth);
                        Assert.That(ari, Is.GreaterThanOrEqualTo(0.95), kernel + ", draw " + draw);
                    }
                }
            }
        }

        [Test]
        public void UnevenRingsSeparateWithOnlyKAndAutoResolves()
        {
            foreach (string kernel in graphKernels)
            {
                using (KernelKMeans model = new KernelKMeans().K(2).Kernel(kernel).Seed(1))
                {
                    model.Fit(rings.X);
                    int[] labels = model.Labels;
                    double ari = Metrics.AdjustedRandIndex(labels, rings.Truth);
                    Assert.That(ari, Is.GreaterThanOrEqualTo(0.95), kernel);
                    Assert.AreEqual(labels, model.Predict(rings.X), kernel);
                    Assert.AreEqual("exact", model.GetParam("method"), kernel);
                    Assert.AreEqual("10", model.GetParam("n_init"), kernel);
                    Assert.AreEqual("10", model.GetParam("neighbors"), kernel);
                    double[,] distances = model.Distances(rings.X);
                    for (int i = 0; i < 20; ++i)
                    {
                        Assert.AreEqual(labels[i], distances[i, 0] <= distances[i, 1] ? 0 : 1);
                    }
                }
            }
        }

        [Test]
        public void MethodAndNInitDefaultToAuto()
        {
            using (var model = new KernelKMeans())
            {
                Assert.AreEqual("auto", model.GetParam("method"));
                Assert.AreEqual("auto", model.GetParam("n_init"));
            }
            var small = new UnevenRings(40, 80, 2);
            using (KernelKMeans model = new KernelKMeans().K(2).Gamma(0.5).Seed(1).Fit(small.X))
            {
                Assert.AreEqual("nystrom", model.GetParam("method"));
                Assert.AreEqual("10", model.GetParam("n_init"));  // n_init=auto: 10 up to 10000 rows
            }
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("knn").NInit(3).Seed(1).Fit(small.X))
            {
                Assert.AreEqual("3", model.GetParam("n_init"));
                model.NInitAuto().Fit(small.X);
                Assert.AreEqual("10", model.GetParam("n_init"));
            }
        }

        [Test]
        public void GraphSettersSetTheLibraryParameters()
        {
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("heat").Neighbors(12).Graph("nndescent")
                                                          .HeatT(20).HeatRank(8).HeatNormalize(false).Seed(1))
            {
                Assert.AreEqual("12", model.GetParam("neighbors"));
                Assert.AreEqual("12", model.GetParam("n_neighbors"));
                Assert.AreEqual("nndescent", model.GetParam("graph"));
                Assert.AreEqual(20.0, double.Parse(model.GetParam("heat_t"), System.Globalization.CultureInfo.InvariantCulture));
                Assert.AreEqual("8", model.GetParam("heat_rank"));
                Assert.AreEqual("false", model.GetParam("heat_normalize"));
                model.Fit(new UnevenRings(40, 80, 3).X);
                Assert.AreEqual(8, model.FeatureDim);
                model.NeighborsAuto().HeatRankAuto().HeatNormalize(true);
                Assert.AreEqual("auto", model.GetParam("neighbors"));
                Assert.AreEqual("auto", model.GetParam("heat_rank"));
                Assert.AreEqual("true", model.GetParam("heat_normalize"));
                model.Graph("anchor").Anchors(30).Fit(new UnevenRings(40, 80, 3).X);
                Assert.AreEqual("30", model.GetParam("anchors"));
                Assert.AreEqual("anchor", model.GetParam("graph"));
                model.AnchorsAuto();
                Assert.AreEqual("auto", model.GetParam("anchors"));
            }
            using (var model = new KernelKMeans())
            {
                Assert.Throws<ArgumentException>(() => model.Anchors(1));
                Assert.Throws<ArgumentException>(() => model.Neighbors(0));
                Assert.Throws<ArgumentException>(() => model.HeatT(-1));
                Assert.Throws<ArgumentException>(() => model.HeatRank(0));
                Assert.Throws<ArgumentException>(() => model.Graph("bogus"));
                string message = Assert.Throws<ArgumentException>(() => model.Kernel("graphs")).Message;
                StringAssert.Contains("knn", message);
                StringAssert.Contains("heat", message);
            }
        }

        [Test]
        public void SampleWeightsWithKnnAreAnInvalidArgument()
        {
            var weights = new double[rings.N];
            for (int i = 0; i < weights.Length; ++i) weights[i] = 1.0;
            foreach (string kernel in graphKernels)
            {
                using (KernelKMeans model = new KernelKMeans().K(2).Kernel(kernel).Seed(1))
                {
                    StringAssert.Contains("weights", Assert.Throws<ArgumentException>(() => model.Fit(rings.X, weights)).Message);
                    Assert.AreEqual(Status.NotFitted, Assert.Throws<KKMeansException>(() => { int[] unused = model.Labels; }).Status);
                }
            }
        }

        [Test]
        public void DisconnectedCliquesGivenAsCsrSeparateExactly()
        {
            var g = new Cliques(6, 9, 1.0f);
            foreach (string kernel in graphKernels)
            {
                using (KernelKMeans model = new KernelKMeans().K(2).Kernel(kernel).Seed(1))
                {
                    model.FitGraph(g.N, g.Indptr, g.Indices, g.Values);
                    int[] labels = model.Labels;
                    Assert.AreEqual(1.0, Metrics.AdjustedRandIndex(labels, g.Truth), kernel);
                    Assert.AreEqual(15, model.NumTrain);
                    Assert.AreEqual(15, model.NumFeatures);
                    Assert.AreEqual("exact", model.GetParam("method"));
                    Assert.AreEqual("10", model.GetParam("n_init"));
                    // Predict takes affinity rows; a training node's own row is that node.
                    Assert.AreEqual(labels, model.Predict(g.Rows), kernel);
                    // Unweighted (values null), and weighted by a constant: the same partition.
                    model.FitGraph(g.N, g.Indptr, g.Indices);
                    Assert.AreEqual(1.0, Metrics.AdjustedRandIndex(model.Labels, g.Truth), kernel);
                    var heavy = new Cliques(6, 9, 2.5f);
                    model.FitGraph(heavy.N, heavy.Indptr, heavy.Indices, heavy.Values);
                    Assert.AreEqual(1.0, Metrics.AdjustedRandIndex(model.Labels, g.Truth), kernel);
                }
            }
            // A new node attached to three nodes of the second clique joins it.
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("knn").Seed(1).FitGraph(g.N, g.Indptr, g.Indices, g.Values))
            {
                var node = new double[1, 15];
                node[0, 7] = node[0, 8] = node[0, 9] = 1;
                Assert.AreEqual(model.Labels[8], model.Predict(node)[0]);
            }
        }

        [Test]
        public void FitGraphWithProgressReportsAndCancels()
        {
            var g = new Cliques(6, 9, 1.0f);
            var stages = new List<string>();
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("heat").Seed(1))
            {
                model.FitGraph(g.N, g.Indptr, g.Indices, g.Values, default(System.Threading.CancellationToken),
                               new SyncProgress(p => stages.Add(p.Stage)));
                CollectionAssert.Contains(stages, "done");
                Assert.AreEqual(1.0, Metrics.AdjustedRandIndex(model.Labels, g.Truth));
            }
            using (var cancelled = new System.Threading.CancellationTokenSource())
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("knn").Seed(1))
            {
                cancelled.Cancel();
                Assert.Throws<OperationCanceledException>(() => model.FitGraph(g.N, g.Indptr, g.Indices, g.Values, cancelled.Token));
                Assert.Throws<KKMeansException>(() => { int[] unused = model.Labels; });
            }
        }

        [Test]
        public void ABadGraphIsRefusedAndLeavesTheModelUnfitted()
        {
            var g = new Cliques(4, 5, 1.0f);
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("knn").Seed(1))
            {
                long[] shortIndptr = new long[9];
                Array.Copy(g.Indptr, shortIndptr, 9);
                StringAssert.Contains("indptr has 9 values",
                    Assert.Throws<ArgumentException>(() => model.FitGraph(g.N, shortIndptr, g.Indices, g.Values)).Message);
                long[] shortIndices = new long[3];
                Array.Copy(g.Indices, shortIndices, 3);
                StringAssert.Contains("indices has 3 values",
                    Assert.Throws<ArgumentException>(() => model.FitGraph(g.N, g.Indptr, shortIndices, g.Values)).Message);
                Assert.Throws<ArgumentNullException>(() => model.FitGraph(g.N, null, g.Indices, g.Values));
                Assert.Throws<ArgumentException>(() => model.FitGraph(0, new long[] { 0 }, new long[0]));
                var negative = (float[])g.Values.Clone();
                negative[0] = -1;
                Assert.AreEqual(Status.InvalidData,
                    Assert.Throws<KKMeansException>(() => model.FitGraph(g.N, g.Indptr, g.Indices, negative)).Status);
                var asymmetric = (float[])g.Values.Clone();
                asymmetric[0] = 2;
                Assert.AreEqual(Status.InvalidData,
                    Assert.Throws<KKMeansException>(() => model.FitGraph(g.N, g.Indptr, g.Indices, asymmetric)).Status);
                Assert.AreEqual(Status.NotFitted, Assert.Throws<KKMeansException>(() => { int[] unused = model.Labels; }).Status);
            }
            using (KernelKMeans model = new KernelKMeans().K(2).Kernel("rbf"))
            {
                Assert.Throws<ArgumentException>(() => model.FitGraph(g.N, g.Indptr, g.Indices, g.Values));
            }
        }

        // An IProgress that reports synchronously on the fitting thread.
        sealed class SyncProgress : IProgress<FitProgress>
        {
            readonly Action<FitProgress> report;

            public SyncProgress(Action<FitProgress> report) { this.report = report; }

            public void Report(FitProgress value) { report(value); }
        }
    }
}
