// JaggedTests.cs — float[][] / double[][] overloads of Fit, Predict and Transform (NUnit 2).

using System;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    [TestFixture]
    public class JaggedTests
    {
        static readonly Rings rings = new Rings(150, 3);

        static KernelKMeans Exact()
        {
            return new KernelKMeans().K(2).Method("exact").Kernel("rbf").Gamma(0.5).NInit(3).Seed(1);
        }

        static KernelKMeans Nystrom()
        {
            return new KernelKMeans("k=2 method=nystrom kernel=rbf gamma=0.5 m=60 n_init=3 seed=4");
        }

        static float[][] FloatRows()
        {
            var x = new float[rings.N][];
            for (int i = 0; i < rings.N; ++i) x[i] = new[] { rings.X[i, 0], rings.X[i, 1] };
            return x;
        }

        static double[][] DoubleRows()
        {
            var x = new double[rings.N][];
            for (int i = 0; i < rings.N; ++i) x[i] = new double[] { rings.X[i, 0], rings.X[i, 1] };
            return x;
        }

        [Test]
        public void FloatRowsGiveTheLabelsOfTheRectangularArray()
        {
            using (KernelKMeans rectangular = Exact())
            using (KernelKMeans jagged = Exact())
            {
                rectangular.Fit(rings.X);
                jagged.Fit(FloatRows());
                Assert.That(Metrics.AdjustedRandIndex(jagged.Labels, rings.Truth), Is.GreaterThanOrEqualTo(0.95));
                CollectionAssert.AreEqual(rectangular.Labels, jagged.Labels);
                Assert.AreEqual(rectangular.Objective, jagged.Objective);
                CollectionAssert.AreEqual(rectangular.Predict(rings.X), jagged.Predict(FloatRows()));
                CollectionAssert.AreEqual(jagged.Labels, jagged.Predict(FloatRows()));
            }
        }

        [Test]
        public void DoubleRowsGiveTheLabelsAndDistancesOfTheRectangularArray()
        {
            double[,] x = rings.AsDouble();
            using (KernelKMeans rectangular = Exact())
            using (KernelKMeans jagged = Exact())
            {
                rectangular.Fit(x);
                jagged.Fit(DoubleRows());
                Assert.That(Metrics.AdjustedRandIndex(jagged.Labels, rings.Truth), Is.GreaterThanOrEqualTo(0.95));
                CollectionAssert.AreEqual(rectangular.Labels, jagged.Labels);
                CollectionAssert.AreEqual(rectangular.Predict(x), jagged.Predict(DoubleRows()));
                double[] expected, got;
                int[] expectedLabels = rectangular.Predict(x, out expected);
                int[] gotLabels = jagged.Predict(DoubleRows(), out got);
                CollectionAssert.AreEqual(expectedLabels, gotLabels);
                CollectionAssert.AreEqual(expected, got);
                Assert.That(got, Has.All.GreaterThanOrEqualTo(0.0));
            }
        }

        [Test]
        public void WeightedRowsGiveTheFitOfTheRectangularArray()
        {
            var weights = new double[rings.N];
            var floatWeights = new float[rings.N];
            for (int i = 0; i < rings.N; ++i)
            {
                weights[i] = 1 + i % 3;
                floatWeights[i] = 1 + i % 3;
            }
            using (KernelKMeans rectangular = Exact())
            using (KernelKMeans jagged = Exact())
            using (KernelKMeans jaggedFloat = Exact())
            {
                rectangular.Fit(rings.AsDouble(), weights);
                jagged.Fit(DoubleRows(), weights);
                jaggedFloat.Fit(FloatRows(), floatWeights);
                CollectionAssert.AreEqual(rectangular.Labels, jagged.Labels);
                CollectionAssert.AreEqual(rectangular.ClusterSizes, jagged.ClusterSizes);
                CollectionAssert.AreEqual(rectangular.Labels, jaggedFloat.Labels);
                // Weights 1, 2, 3 repeating: the sizes sum to the total weight, not to n.
                Assert.AreEqual(2.0 * rings.N, jagged.ClusterSizes[0] + jagged.ClusterSizes[1], 1e-6);
            }
        }

        [Test]
        public void TransformOfRowsEqualsTransformOfTheRectangularArray()
        {
            using (KernelKMeans model = Nystrom())
            {
                model.Fit(rings.X);
                long dim = model.FeatureDim;
                Assert.That(dim, Is.GreaterThan(0).And.LessThanOrEqualTo(60));
                float[,] features = model.Transform(rings.X);
                Assert.AreEqual(rings.N, features.GetLength(0));
                Assert.AreEqual(dim, features.GetLength(1));
                float[][] rows = model.Transform(FloatRows());
                float[][] fromDouble = model.Transform(DoubleRows());
                float[,] fromDouble2d = model.Transform(rings.AsDouble());
                Assert.AreEqual(rings.N, rows.Length);
                bool anyNonZero = false;
                for (int i = 0; i < rings.N; ++i)
                {
                    Assert.AreEqual(dim, rows[i].Length);
                    for (int j = 0; j < dim; ++j)
                    {
                        Assert.AreEqual(features[i, j], rows[i][j], "row " + i + " column " + j);
                        Assert.AreEqual(features[i, j], fromDouble[i][j], "row " + i + " column " + j);
                        Assert.AreEqual(features[i, j], fromDouble2d[i, j], "row " + i + " column " + j);
                        anyNonZero |= features[i, j] != 0;
                    }
                }
                Assert.IsTrue(anyNonZero);
                // The features of the two rings differ: the inner ring's first rows against the outer's.
                float[] inner = model.Transform(new[] { 1.0f, 0.0f }, 1, 2);
                float[] outer = model.Transform(new[] { 3.0f, 0.0f }, 1, 2);
                Assert.AreEqual(dim, inner.Length);
                CollectionAssert.AreNotEqual(inner, outer);
            }
        }

        [Test]
        public void TransformNeedsAFittedApproximateModel()
        {
            using (KernelKMeans model = Nystrom())
            {
                var e = Assert.Throws<KKMeansException>(() => model.Transform(FloatRows()));
                Assert.AreEqual(Status.NotFitted, e.Status);
            }
            using (KernelKMeans model = Exact())
            {
                model.Fit(rings.X);
                var e = Assert.Throws<ArgumentException>(() => model.Transform(rings.X));
                StringAssert.Contains("exact", e.Message);
                Assert.Throws<ArgumentException>(() => model.Transform(FloatRows()));
            }
            using (KernelKMeans model = Nystrom())
            {
                model.Fit(rings.X);
                var e = Assert.Throws<ArgumentException>(() => model.Transform(new float[,] { { 1, 2, 3 } }));
                StringAssert.Contains("3", e.Message);
            }
        }

        [Test]
        public void RaggedRowIsNamed()
        {
            float[][] x = FloatRows();
            x[5] = new float[] { 1, 2, 3 };
            double[][] y = DoubleRows();
            y[17] = new double[] { 1 };
            using (KernelKMeans model = Exact())
            {
                var e = Assert.Throws<ArgumentException>(() => model.Fit(x));
                StringAssert.Contains("row 5 of x has 3 values but row 0 has 2", e.Message);
                Assert.AreEqual("x", e.ParamName);
                e = Assert.Throws<ArgumentException>(() => model.Fit(y));
                StringAssert.Contains("row 17 of x has 1 values but row 0 has 2", e.Message);

                // The failed fits left the model unfitted; a good fit, then ragged input to the rest.
                Assert.Throws<KKMeansException>(() => { int[] unused = model.Labels; });
                model.Fit(FloatRows());
                int[] labels = model.Labels;
                StringAssert.Contains("row 5", Assert.Throws<ArgumentException>(() => model.Predict(x)).Message);
                StringAssert.Contains("row 17", Assert.Throws<ArgumentException>(() => model.Predict(y)).Message);
                double[] distances;
                StringAssert.Contains("row 17", Assert.Throws<ArgumentException>(() => model.Predict(y, out distances)).Message);
                CollectionAssert.AreEqual(labels, model.Labels);
            }
            using (KernelKMeans model = Nystrom())
            {
                model.Fit(FloatRows());
                StringAssert.Contains("row 5", Assert.Throws<ArgumentException>(() => model.Transform(x)).Message);
                StringAssert.Contains("row 17", Assert.Throws<ArgumentException>(() => model.Transform(y)).Message);
            }
        }

        [Test]
        public void NullAndMissingRowsAreNamed()
        {
            float[][] x = FloatRows();
            x[7] = null;
            double[][] y = DoubleRows();
            y[0] = null;
            using (KernelKMeans model = Exact())
            {
                var e = Assert.Throws<ArgumentNullException>(() => model.Fit(x));
                StringAssert.Contains("row 7 of x is null", e.Message);
                Assert.AreEqual("x", e.ParamName);
                StringAssert.Contains("row 0 of x is null", Assert.Throws<ArgumentNullException>(() => model.Fit(y)).Message);
                Assert.AreEqual("x", Assert.Throws<ArgumentNullException>(() => model.Fit((float[][])null)).ParamName);
                Assert.AreEqual("x", Assert.Throws<ArgumentNullException>(() => model.Predict((double[][])null)).ParamName);
                StringAssert.Contains("x has no rows", Assert.Throws<ArgumentException>(() => model.Fit(new double[0][])).Message);
                StringAssert.Contains("x has no rows", Assert.Throws<ArgumentException>(() => model.Predict(new float[0][])).Message);
                // Rows of no columns: the library names d.
                var empty = new[] { new float[0], new float[0] };
                Assert.Throws<ArgumentException>(() => model.Fit(empty));
            }
        }
    }
}
