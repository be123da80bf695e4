package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.github.fastkkm.KKMeansException;
import io.github.fastkkm.KernelKMeans;
import org.junit.jupiter.api.Test;

/** The graph kernels (kernel knn and heat), on points and on a graph given as CSR. */
class GraphKernelsTest {

    static final String[] GRAPH_KERNELS = {"heat", "knn"};

    /** Two concentric rings of uneven sizes: inner points of radius 1, outer of radius 3. */
    static final class UnevenRings {
        final double[][] x;
        final int[] truth;

        UnevenRings(int inner, int outer, long seed, double noise) {
            Random rng = new Random(seed);
            x = new double[inner + outer][];
            truth = new int[inner + outer];
            for (int i = 0; i < inner + outer; i++) {
                int ring = i < inner ? 0 : 1;
                double r = ring == 0 ? 1.0 : 3.0;
                double a = rng.nextDouble() * 2 * Math.PI;
                x[i] = new double[] {r * Math.cos(a) + noise * rng.nextGaussian(),
                                     r * Math.sin(a) + noise * rng.nextGaussian()};
                truth[i] = ring;
            }
        }
    }

    static final UnevenRings RINGS = new UnevenRings(150, 450, 1, 0.1);

    // Any draw of the rings: the fit seeds its k-means on the leading k heat coordinates, where
    // the two rings' components are apart (seeding in all heat_rank at once split the long outer
    // ring for 16 draws of 40).
    @Test
    void unevenRingsOfAnyDrawSeparate() {
        for (long draw = 1; draw <= 6; draw++) {
            UnevenRings rings = new UnevenRings(150, 450, draw, 0.1);
            for (String kernel : GRAPH_KERNELS) {
                try (KernelKMeans km = new KernelKMeans().k(2).kernel(kernel).seed(1)) {
                    km.fit(rings.x);
                    double ari = KernelKMeans.adjustedRandIndex(km.labels(), rings.truth);
                    assertTrue(ari >= 0.95, kernel + ", draw " + draw + ": ARI " + ari);
                }
            }
        }
    }

    /** Two cliques of a and b nodes (no self-loops, no edge between them) in CSR. */
    static final class Cliques {
        final long n;
        final long[] indptr;
        final long[] indices;
        final float[] values;
        final int[] truth;
        final double[][] rows; // the dense affinity rows

        Cliques(int a, int b, float weight) {
            n = a + b;
            indptr = new long[a + b + 1];
            List<Long> cols = new ArrayList<>();
            truth = new int[a + b];
            rows = new double[a + b][a + b];
            for (int i = 0; i < a + b; i++) {
                int lo = i < a ? 0 : a;
                int hi = i < a ? a : a + b;
                truth[i] = i < a ? 0 : 1;
                for (int j = lo; j < hi; j++) {
                    if (j != i) {
                        cols.add((long) j);
                        rows[i][j] = weight;
                    }
                }
                indptr[i + 1] = cols.size();
            }
            indices = cols.stream().mapToLong(Long::longValue).toArray();
            values = new float[indices.length];
            java.util.Arrays.fill(values, weight);
        }
    }

    @Test
    void unevenRingsSeparateWithOnlyKAndAutoResolves() {
        for (String kernel : GRAPH_KERNELS) {
            try (KernelKMeans km = new KernelKMeans().k(2).kernel(kernel).seed(1)) {
                km.fit(RINGS.x);
                int[] labels = km.labels();
                double ari = KernelKMeans.adjustedRandIndex(labels, RINGS.truth);
                assertTrue(ari >= 0.95, kernel + ": ARI " + ari);
                assertArrayEquals(labels, km.predict(RINGS.x), kernel);
                assertEquals("exact", km.param("method"), kernel);
                assertEquals("10", km.param("n_init"), kernel);
                assertEquals("10", km.param("neighbors"), kernel);
                assertEquals(kernel, km.param("kernel"));
                assertTrue(km.toString().startsWith("KernelKMeans[method=exact kernel=" + kernel + " k=2 n=600"),
                        km.toString());
                // distances: each row's first minimum at its label
                double[][] d = km.distances(RINGS.x);
                for (int i = 0; i < 20; i++) {
                    int best = d[i][0] <= d[i][1] ? 0 : 1;
                    assertEquals(labels[i], best);
                }
            }
        }
    }

    @Test
    void methodAndNInitDefaultToAuto() {
        try (KernelKMeans km = new KernelKMeans()) {
            assertEquals("auto", km.param("method"));
            assertEquals("auto", km.param("n_init"));
            assertEquals("KernelKMeans[method=auto kernel=rbf k=8 unfitted]", km.toString());
        }
        UnevenRings small = new UnevenRings(40, 80, 2, 0.1);
        try (KernelKMeans km = new KernelKMeans().k(2).gamma(0.5).seed(1).fit(small.x)) {
            assertEquals("nystrom", km.param("method"));
            assertEquals("10", km.param("n_init"));  // n_init=auto: 10 up to 10000 rows
        }
        try (KernelKMeans km = new KernelKMeans().k(2).kernel("knn").nInit(3).seed(1).fit(small.x)) {
            assertEquals("3", km.param("n_init"));
            km.nInitAuto().fit(small.x);
            assertEquals("10", km.param("n_init"));
        }
    }

    @Test
    void graphSettersSetTheLibraryParameters() {
        try (KernelKMeans km = new KernelKMeans().k(2).kernel("heat").neighbors(12).graph("nndescent")
                .heatT(20).heatRank(8).heatNormalize(false).seed(1)) {
            assertEquals("12", km.param("neighbors"));
            assertEquals("12", km.param("n_neighbors"));
            assertEquals("nndescent", km.param("graph"));
            assertEquals(20.0, Double.parseDouble(km.param("heat_t")));
            assertEquals("8", km.param("heat_rank"));
            assertEquals("false", km.param("heat_normalize"));
            km.fit(new UnevenRings(40, 80, 3, 0.1).x);
            assertEquals(8, km.featureDim());
            km.neighborsAuto().heatRankAuto().heatNormalize(true);
            assertEquals("auto", km.param("neighbors"));
            assertEquals("auto", km.param("heat_rank"));
            assertEquals("true", km.param("heat_normalize"));
            km.graph("anchor").anchors(30).fit(new UnevenRings(40, 80, 3, 0.1).x);
            assertEquals("30", km.param("anchors"));
            assertEquals("anchor", km.param("graph"));
            km.anchorsAuto();
            assertEquals("auto", km.param("anchors"));
        }
        try (KernelKMeans km = new KernelKMeans()) {
            assertThrows(IllegalArgumentException.class, () -> km.anchors(1));
            assertThrows(IllegalArgumentException.class, () -> km.neighbors(0));
            assertThrows(IllegalArgumentException.class, () -> km.heatT(-1));
            assertThrows(IllegalArgumentException.class, () -> km.heatRank(0));
            assertThrows(IllegalArgumentException.class, () -> km.graph("bogus"));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> km.kernel("graphs"));
            assertTrue(e.getMessage().contains("knn") && e.getMessage().contains("heat"), e.getMessage());
        }
    }

    @Test
    void sampleWeightsWithKnnAreAnInvalidArgument() {
        double[] weights = new double[RINGS.x.length];
        java.util.Arrays.fill(weights, 1.0);
        for (String kernel : GRAPH_KERNELS) {
            try (KernelKMeans km = new KernelKMeans().k(2).kernel(kernel).seed(1)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> km.fit(RINGS.x, weights));
                assertTrue(e.getMessage().contains("weights"), e.getMessage());
                assertThrows(KKMeansException.class, km::labels); // nothing was fitted
            }
        }
    }

    @Test
    void disconnectedCliquesGivenAsCsrSeparateExactly() {
        Cliques g = new Cliques(6, 9, 1.0f);
        for (String kernel : GRAPH_KERNELS) {
            try (KernelKMeans km = new KernelKMeans().k(2).kernel(kernel).seed(1)) {
                km.fitGraph(g.n, g.indptr, g.indices, g.values);
                int[] labels = km.labels();
                assertEquals(1.0, KernelKMeans.adjustedRandIndex(labels, g.truth), kernel);
                assertEquals(15, km.nTrain());
                assertEquals(15, km.nFeatures());
                assertEquals("exact", km.param("method"));
                assertEquals("10", km.param("n_init"));
                // predict takes affinity rows; a training node's own row is that node
                assertArrayEquals(labels, km.predict(g.rows), kernel);
                // unweighted (values null) and weighted by a constant: the same partition
                km.fitGraph(g.n, g.indptr, g.indices, null);
                assertEquals(1.0, KernelKMeans.adjustedRandIndex(km.labels(), g.truth), kernel);
                Cliques heavy = new Cliques(6, 9, 2.5f);
                km.fitGraph(heavy.n, heavy.indptr, heavy.indices, heavy.values);
                assertEquals(1.0, KernelKMeans.adjustedRandIndex(km.labels(), g.truth), kernel);
            }
        }
        // a new node attached to three nodes of the second clique joins it
        try (KernelKMeans km = new KernelKMeans().k(2).kernel("knn").seed(1).fitGraph(g.n, g.indptr, g.indices, g.values)) {
            double[] node = new double[15];
            node[7] = node[8] = node[9] = 1;
            assertEquals(km.labels()[8], km.predict(node));
        }
    }

    @Test
    void aBadGraphIsRefusedAndLeavesTheModelUnfitted() {
        Cliques g = new Cliques(4, 5, 1.0f);
        try (KernelKMeans km = new KernelKMeans().k(2).kernel("knn").seed(1)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> km.fitGraph(g.n, java.util.Arrays.copyOf(g.indptr, 9), g.indices, g.values));
            assertTrue(e.getMessage().contains("indptr has 9 values"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class,
                    () -> km.fitGraph(g.n, g.indptr, java.util.Arrays.copyOf(g.indices, 3), g.values));
            assertTrue(e.getMessage().contains("indices has 3 values"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> km.fitGraph(g.n, null, g.indices, g.values));
            assertThrows(IllegalArgumentException.class, () -> km.fitGraph(0, new long[] {0}, new long[0], null));
            float[] negative = g.values.clone();
            negative[0] = -1;
            KKMeansException data = assertThrows(KKMeansException.class,
                    () -> km.fitGraph(g.n, g.indptr, g.indices, negative));
            assertEquals(KKMeansException.INVALID_DATA, data.status());
            float[] asymmetric = g.values.clone();
            asymmetric[0] = 2;
            data = assertThrows(KKMeansException.class, () -> km.fitGraph(g.n, g.indptr, g.indices, asymmetric));
            assertEquals(KKMeansException.INVALID_DATA, data.status());
            assertThrows(KKMeansException.class, km::labels);
        }
        try (KernelKMeans km = new KernelKMeans().k(2).kernel("rbf")) {
            assertThrows(IllegalArgumentException.class, () -> km.fitGraph(g.n, g.indptr, g.indices, g.values));
        }
    }
}
