package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;

import io.github.fastkkm.KKMeansException;
import io.github.fastkkm.KernelKMeans;
import org.junit.jupiter.api.Test;

/**
 * Starting partitions ({@code initCentres}, {@code initLabels}, {@code clearInit}), the
 * feature-space centres ({@code centres()}), and how the library's messages write a NaN.
 */
class StartTest {

    /** Three blobs in 2-D around (0, 0), (6, 0) and (0, 6), 40 rows each; truth = blob index. */
    static final double[][] BLOB_CENTRES = {{0, 0}, {6, 0}, {0, 6}};

    static double[][] blobs(int[] truth, long seed) {
        Random rng = new Random(seed);
        double[][] x = new double[truth.length][];
        for (int i = 0; i < truth.length; i++) {
            truth[i] = i / 40;
            double[] c = BLOB_CENTRES[truth[i]];
            x[i] = new double[] {c[0] + 0.5 * rng.nextGaussian(), c[1] + 0.5 * rng.nextGaussian()};
        }
        return x;
    }

    /** n uniform points in the unit square: every start ends in a local optimum of its own. */
    static double[][] uniform(int n, long seed) {
        Random rng = new Random(seed);
        double[][] x = new double[n][];
        for (int i = 0; i < n; i++) {
            x[i] = new double[] {rng.nextDouble(), rng.nextDouble()};
        }
        return x;
    }

    /** The index of the nearest of the means of the groups of {@code labels} for each row. */
    static int[] nearestMeans(double[][] x, int[] labels, int k) {
        int d = x[0].length;
        double[][] sum = new double[k][d];
        int[] count = new int[k];
        for (int i = 0; i < x.length; i++) {
            count[labels[i]]++;
            for (int j = 0; j < d; j++) {
                sum[labels[i]][j] += x[i][j];
            }
        }
        int[] out = new int[x.length];
        for (int i = 0; i < x.length; i++) {
            double best = Double.POSITIVE_INFINITY;
            for (int c = 0; c < k; c++) {
                double dist = 0;
                for (int j = 0; j < d; j++) {
                    double diff = x[i][j] - sum[c][j] / count[c];
                    dist += diff * diff;
                }
                if (dist < best) {
                    best = dist;
                    out[i] = c;
                }
            }
        }
        return out;
    }

    @Test
    void initCentresNumberTheClustersAsTheirRowsForExactAndNystrom() {
        int[] truth = new int[120];
        double[][] x = blobs(truth, 2);
        int[] order = {2, 0, 1};  // cluster j starts at blob order[j]
        double[][] centres = {BLOB_CENTRES[order[0]], BLOB_CENTRES[order[1]], BLOB_CENTRES[order[2]]};
        int[] expected = new int[truth.length];
        for (int i = 0; i < truth.length; i++) {
            for (int j = 0; j < 3; j++) {
                if (order[j] == truth[i]) {
                    expected[i] = j;
                }
            }
        }
        for (String method : new String[] {"exact", "nystrom"}) {
            try (KernelKMeans km = new KernelKMeans().k(3).method(method).gamma(0.1).m(60).nInit(1).seed(1)) {
                km.initCentres(centres).fit(x);
                assertArrayEquals(expected, km.labels(), method);
            }
        }
    }

    @Test
    void initCentresOverloadsAgree() {
        double[][] x = uniform(200, 3);
        double[][] c = {x[5], x[17], x[40], x[99]};
        float[][] cf = new float[4][2];
        float[] flat = new float[8];
        for (int j = 0; j < 4; j++) {
            for (int i = 0; i < 2; i++) {
                cf[j][i] = (float) c[j][i];
                flat[2 * j + i] = (float) c[j][i];
            }
        }
        String params = "k=4 method=exact kernel=linear max_iter=100 n_init=1";
        try (KernelKMeans a = new KernelKMeans(params); KernelKMeans b = new KernelKMeans(params);
             KernelKMeans f = new KernelKMeans(params)) {
            int[] fromDouble = a.initCentres(c).fit(x).labels();
            int[] fromNested = b.initCentres(cf).fit(x).labels();
            int[] fromFlat = f.initCentres(flat, 4, 2).fit(x).labels();
            assertArrayEquals(fromDouble, fromNested);
            assertArrayEquals(fromDouble, fromFlat);
            // the linear kernel's exact fit is Lloyd's k-means: from c, it ends where Lloyd from c ends
            assertArrayEquals(lloyd(x, c, 100), fromDouble);
        }
    }

    /** Plain Lloyd iterations from the given centres (no cluster empties on these data). */
    static int[] lloyd(double[][] x, double[][] start, int maxIter) {
        int k = start.length;
        int[] labels = new int[x.length];
        double[][] centres = new double[k][];
        for (int j = 0; j < k; j++) {
            centres[j] = start[j].clone();
        }
        for (int it = 0; it < maxIter; it++) {
            boolean moved = false;
            for (int i = 0; i < x.length; i++) {
                int best = 0;
                double bestDist = Double.POSITIVE_INFINITY;
                for (int j = 0; j < k; j++) {
                    double dist = 0;
                    for (int c = 0; c < x[i].length; c++) {
                        double diff = x[i][c] - centres[j][c];
                        dist += diff * diff;
                    }
                    if (dist < bestDist) {
                        bestDist = dist;
                        best = j;
                    }
                }
                moved |= it == 0 || labels[i] != best;
                labels[i] = best;
            }
            if (!moved) {
                break;
            }
            int[] count = new int[k];
            for (int j = 0; j < k; j++) {
                java.util.Arrays.fill(centres[j], 0);
            }
            for (int i = 0; i < x.length; i++) {
                count[labels[i]]++;
                for (int c = 0; c < x[i].length; c++) {
                    centres[labels[i]][c] += x[i][c];
                }
            }
            for (int j = 0; j < k; j++) {
                for (int c = 0; c < centres[j].length; c++) {
                    centres[j][c] /= count[j];
                }
            }
        }
        return labels;
    }

    @Test
    void initLabelsStartOneLloydIterationFromTheirMeans() {
        double[][] x = uniform(200, 3);
        Random rng = new Random(5);
        int[] start = new int[x.length];
        for (int i = 0; i < start.length; i++) {
            start[i] = rng.nextInt(3);
        }
        try (KernelKMeans km = new KernelKMeans("k=3 method=exact kernel=linear max_iter=1 n_init=1")) {
            km.initLabels(start).fit(x);
            assertArrayEquals(nearestMeans(x, start, 3), km.labels());
            assertEquals(1, km.iterations());
            // cleared: the fit seeds as a fresh model with the same parameters does
            km.clearInit().param("max_iter", "100").param("seed", "4");
            try (KernelKMeans fresh = new KernelKMeans("k=3 method=exact kernel=linear max_iter=100 n_init=1 seed=4")) {
                assertArrayEquals(fresh.fit(x).labels(), km.fit(x).labels());
            }
        }
    }

    @Test
    void badStartsAreIllegalArguments() {
        double[][] x = uniform(50, 6);
        try (KernelKMeans km = new KernelKMeans("k=2 method=exact kernel=rbf gamma=1")) {
            assertThrows(IllegalArgumentException.class, () -> km.initLabels(null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> km.initLabels(new int[] {0, -1}));
            assertTrue(e.getMessage().contains("labels[1]"), e.getMessage());
            km.initLabels(new int[49]);
            e = assertThrows(IllegalArgumentException.class, () -> km.fit(x));
            assertTrue(e.getMessage().contains("49"), e.getMessage());
            int[] high = new int[50];
            high[7] = 2;
            km.initLabels(high);
            e = assertThrows(IllegalArgumentException.class, () -> km.fit(x));
            assertTrue(e.getMessage().contains("labels[7]=2"), e.getMessage());
            km.initCentres(new double[][] {{0, 0}, {1, 1}, {2, 2}});
            e = assertThrows(IllegalArgumentException.class, () -> km.fit(x));
            assertTrue(e.getMessage().contains("3 x 2"), e.getMessage());
            KKMeansException bad = assertThrows(KKMeansException.class,
                    () -> km.initCentres(new double[][] {{0, 0}, {1, Double.NaN}}));
            assertEquals(KKMeansException.INVALID_DATA, bad.status());
            assertTrue(bad.getMessage().contains("(NaN) at row 1"), bad.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> km.initCentres(new double[][] {{0, 0}, {1}}));
            assertTrue(e.getMessage().contains("centres[1]"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> km.initCentres(new float[3], 2, 2));
            km.initCentres(new double[][] {{0, 0}, {1, 1}}).gammaSearch();
            e = assertThrows(IllegalArgumentException.class, () -> km.fit(x));
            assertTrue(e.getMessage().contains("gamma=search"), e.getMessage());
            km.clearInit();
            km.fit(x);  // the search runs once the start is gone
            assertEquals(50, km.labels().length);
        }
    }

    @Test
    void centresAreTheClusterMeansInTheFeatureSpace() {
        // Nystrom with the linear kernel and m >= d is exact: its feature space is the centred
        // input space, rotated, so the centres lie as far apart as the clusters' means do.
        Random rng = new Random(8);
        int[] truth = new int[150];
        double[][] x = new double[150][];
        for (int i = 0; i < 150; i++) {
            truth[i] = i % 3;
            x[i] = new double[] {4 * truth[i] + rng.nextGaussian(), rng.nextGaussian(), 3 * (truth[i] % 2) + rng.nextGaussian()};
        }
        try (KernelKMeans km = new KernelKMeans("k=3 method=nystrom kernel=linear m=40 seed=2 n_init=3")) {
            km.fit(x);
            float[][] c = km.centres();
            assertEquals(3, c.length);
            assertEquals(km.featureDim(), c[0].length);
            int[] labels = km.labels();
            double[][] means = new double[3][3];
            int[] count = new int[3];
            for (int i = 0; i < x.length; i++) {
                count[labels[i]]++;
                for (int j = 0; j < 3; j++) {
                    means[labels[i]][j] += x[i][j];
                }
            }
            for (int a = 0; a < 3; a++) {
                for (int b = a + 1; b < 3; b++) {
                    double input = 0;
                    double feature = 0;
                    for (int j = 0; j < 3; j++) {
                        double diff = means[a][j] / count[a] - means[b][j] / count[b];
                        input += diff * diff;
                    }
                    for (int j = 0; j < c[a].length; j++) {
                        double diff = c[a][j] - c[b][j];
                        feature += diff * diff;
                    }
                    assertEquals(input, feature, 1e-3 * input, "centres " + a + ", " + b);
                }
            }
        }
        try (KernelKMeans heat = new KernelKMeans("k=3 kernel=heat seed=1")) {
            float[][] c = heat.fit(x).centres();  // the heat kernel's spectral features have centres too
            assertEquals(3, c.length);
            assertEquals(heat.featureDim(), c[2].length);
        }
        try (KernelKMeans knn = new KernelKMeans("k=3 kernel=knn seed=1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> knn.fit(x).centres());
            assertTrue(e.getMessage().contains("no explicit centres"), e.getMessage());
        }
        try (KernelKMeans exact = new KernelKMeans("k=2 method=exact gamma=1")) {
            KKMeansException unfitted = assertThrows(KKMeansException.class, exact::centres);
            assertEquals(KKMeansException.NOT_FITTED, unfitted.status());
            exact.fit(x);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, exact::centres);
            assertTrue(e.getMessage().contains("no explicit centres"), e.getMessage());
        }
    }

    @Test
    void aNaNInTheLibrarysMessageReadsAsJavaWritesIt() {
        double[][] x = uniform(20, 9);
        x[5][1] = Double.NaN;
        try (KernelKMeans km = new KernelKMeans("k=2 method=exact")) {
            KKMeansException e = assertThrows(KKMeansException.class, () -> km.fit(x));
            assertEquals(KKMeansException.INVALID_DATA, e.status());
            assertTrue(e.getMessage().contains("(NaN) at row 5"), e.getMessage());
            assertFalse(e.getMessage().contains("nan"), e.getMessage());
        }
    }
}
