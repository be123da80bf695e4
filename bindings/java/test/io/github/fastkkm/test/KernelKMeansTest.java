package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.fastkkm.KKMeansException;
import io.github.fastkkm.KernelKMeans;
import io.github.fastkkm.SearchPoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java binding through its public API only (this package is not io.github.fastkkm). */
class KernelKMeansTest {

    /** Two concentric rings (radii 1 and 3) in 2-D with Gaussian noise; truth = ring index. */
    static final class Rings {
        final double[][] x;
        final int[] truth;

        Rings(int nPerRing, long seed, double noise) {
            Random rng = new Random(seed);
            x = new double[2 * nPerRing][];
            truth = new int[2 * nPerRing];
            for (int ring = 0; ring < 2; ring++) {
                double r = ring == 0 ? 1.0 : 3.0;
                for (int i = 0; i < nPerRing; i++) {
                    double a = rng.nextDouble() * 2 * Math.PI;
                    int row = ring * nPerRing + i;
                    x[row] = new double[] {r * Math.cos(a) + noise * rng.nextGaussian(),
                                           r * Math.sin(a) + noise * rng.nextGaussian()};
                    truth[row] = ring;
                }
            }
        }

        float[] rowMajorFloats() {
            float[] out = new float[x.length * 2];
            for (int i = 0; i < x.length; i++) {
                out[2 * i] = (float) x[i][0];
                out[2 * i + 1] = (float) x[i][1];
            }
            return out;
        }
    }

    static final Rings RINGS = new Rings(200, 7, 0.1);
    static final String RING_PARAMS = "k=2 method=exact kernel=rbf gamma=0.3 n_init=5 seed=1";

    static KernelKMeans fittedRings() {
        return new KernelKMeans(RING_PARAMS).fit(RINGS.x);
    }

    // ------------------------------------------------------------------ quality

    @Test
    void ringsExactAriAtLeast095() {
        try (KernelKMeans km = fittedRings()) {
            double ari = KernelKMeans.adjustedRandIndex(km.labels(), RINGS.truth);
            assertTrue(ari >= 0.95, "ARI " + ari);
            assertEquals(2, km.fittedK());
            assertEquals(RINGS.x.length, km.nTrain());
            assertEquals(2, km.nFeatures());
            assertTrue(km.iterations() >= 1);
            assertTrue(km.objective() > 0 && Double.isFinite(km.objective()));
        }
    }

    @Test
    void ringsNystromWithFluentSettersAriAtLeast095() {
        try (KernelKMeans km = new KernelKMeans().k(2).method("nystrom").kernel("rbf").gamma(0.3).m(100)
                .nInit(5).seed(3)) {
            km.fit(RINGS.rowMajorFloats(), RINGS.x.length, 2);
            double ari = KernelKMeans.adjustedRandIndex(km.labels(), RINGS.truth);
            assertTrue(ari >= 0.95, "ARI " + ari);
            assertTrue(km.featureDim() >= 1 && km.featureDim() <= 100, "feature dim " + km.featureDim());
        }
    }

    @Test
    void linearKernelCannotSeparateRings() {
        // The ARI check above can fail: a linear kernel splits the rings by a line.
        try (KernelKMeans km = new KernelKMeans("k=2 method=exact kernel=linear n_init=3 seed=1")) {
            double ari = KernelKMeans.adjustedRandIndex(km.fitPredict(RINGS.x), RINGS.truth);
            assertTrue(ari < 0.5, "ARI " + ari);
        }
    }

    @Test
    void predictOnTrainingDataAgreesWithFitLabels() {
        try (KernelKMeans km = fittedRings()) {
            int[] labels = km.labels();
            assertArrayEquals(labels, km.predict(RINGS.x));
            assertArrayEquals(labels, km.predict(RINGS.rowMajorFloats(), RINGS.x.length, 2));
            for (int l : labels) {
                assertTrue(l == 0 || l == 1, "label " + l);
            }
        }
    }

    @Test
    void floatAndDoubleAndNestedInputsGiveTheSameFit() {
        float[] flat = RINGS.rowMajorFloats();
        float[][] nested = new float[RINGS.x.length][];
        for (int i = 0; i < nested.length; i++) {
            nested[i] = new float[] {flat[2 * i], flat[2 * i + 1]};
        }
        try (KernelKMeans a = new KernelKMeans(RING_PARAMS).fit(flat, RINGS.x.length, 2);
             KernelKMeans b = new KernelKMeans(RING_PARAMS).fit(nested)) {
            assertArrayEquals(a.labels(), b.labels());
            assertEquals(a.objective(), b.objective(), 1e-9 * Math.abs(a.objective()));
        }
    }

    @Test
    void clusterSizesCountTheLabels() {
        try (KernelKMeans km = fittedRings()) {
            double[] sizes = km.clusterSizes();
            assertEquals(2, sizes.length);
            int[] counts = new int[2];
            for (int l : km.labels()) {
                counts[l]++;
            }
            assertEquals(counts[0], sizes[0], 1e-9);
            assertEquals(counts[1], sizes[1], 1e-9);
        }
    }

    @Test
    void weightsChangeTheClusterSizes() {
        double[] w = new double[RINGS.x.length];
        java.util.Arrays.fill(w, 2.0);
        try (KernelKMeans km = new KernelKMeans(RING_PARAMS).fit(RINGS.x, w)) {
            double total = km.clusterSizes()[0] + km.clusterSizes()[1];
            assertEquals(2.0 * RINGS.x.length, total, 1e-6);
        }
    }

    @Test
    void predictWithDistancesFillsTheDistances() {
        double[] flat = new double[RINGS.x.length * 2];
        for (int i = 0; i < RINGS.x.length; i++) {
            flat[2 * i] = RINGS.x[i][0];
            flat[2 * i + 1] = RINGS.x[i][1];
        }
        try (KernelKMeans km = fittedRings()) {
            double[] dist = new double[RINGS.x.length];
            java.util.Arrays.fill(dist, -1);
            int[] labels = km.predict(flat, RINGS.x.length, 2, dist);
            assertArrayEquals(km.labels(), labels);
            double sum = 0;
            for (double v : dist) {
                assertTrue(v >= 0, "distance " + v);
                sum += v;
            }
            assertEquals(km.objective(), sum, 1e-3 * km.objective());
        }
    }

    @Test
    void distancesToEveryCentreHaveTheirFirstMinimumAtPredictsLabel() {
        double[] flat = new double[RINGS.x.length * 2];
        for (int i = 0; i < RINGS.x.length; i++) {
            flat[2 * i] = RINGS.x[i][0];
            flat[2 * i + 1] = RINGS.x[i][1];
        }
        for (String method : new String[] {"exact", "minibatch", "nystrom", "sketch", "rff"}) {
            String params = "k=2 kernel=rbf gamma=0.3 n_init=5 seed=1 m=100 method=" + method;
            try (KernelKMeans km = new KernelKMeans(params).fit(RINGS.x)) {
                double[] nearest = new double[RINGS.x.length];
                int[] labels = km.predict(flat, RINGS.x.length, 2, nearest);
                double[][] all = km.distances(RINGS.x);
                double[] rowMajor = km.distances(flat, RINGS.x.length, 2);
                assertEquals(RINGS.x.length, all.length, method);
                for (int i = 0; i < all.length; i++) {
                    assertEquals(2, all[i].length, method);
                    int first = all[i][1] < all[i][0] ? 1 : 0;
                    assertEquals(labels[i], first, method + " row " + i);
                    assertEquals(nearest[i], all[i][first], 0.0, method + " row " + i);
                    assertEquals(all[i][0], rowMajor[2 * i], 0.0, method + " row " + i);
                    assertEquals(all[i][1], rowMajor[2 * i + 1], 0.0, method + " row " + i);
                }
            }
        }
    }

    @Test
    void distancesWithALinearKernelAreEuclideanToTheMeans() {
        // tol=0: a fixed point, where the centres are the means of the labels (a fit stopped by
        // tol keeps the centres of its last reassignment, the means of the labels before it).
        try (KernelKMeans km = new KernelKMeans("k=3 method=exact kernel=linear n_init=3 seed=1 tol=0").fit(RINGS.x)) {
            int[] labels = km.labels();
            double[][] means = new double[3][2];
            double[] counts = new double[3];
            for (int i = 0; i < labels.length; i++) {
                counts[labels[i]] += 1;
                means[labels[i]][0] += RINGS.x[i][0];
                means[labels[i]][1] += RINGS.x[i][1];
            }
            for (int j = 0; j < 3; j++) {
                means[j][0] /= counts[j];
                means[j][1] /= counts[j];
            }
            double[][] all = km.distances(RINGS.x);
            for (int i = 0; i < all.length; i++) {
                for (int j = 0; j < 3; j++) {
                    double dx = RINGS.x[i][0] - means[j][0];
                    double dy = RINGS.x[i][1] - means[j][1];
                    assertEquals(dx * dx + dy * dy, all[i][j], 1e-3, "row " + i + " centre " + j);
                }
            }
        }
    }

    @Test
    void everyTrainingLabelIsItsRowsNearestCentre() {
        // Stopped by tol or not, as scikit-learn's KMeans: labels() is what predict gives the
        // training rows, and each is the row's nearest centre of distances().
        // Uniform points: Lloyd moves a few of them for many steps and stops by tol.
        java.util.Random random = new java.util.Random(5);
        double[][] x = new double[3000][2];
        for (double[] row : x) {
            row[0] = random.nextDouble();
            row[1] = random.nextDouble();
        }
        for (String method : new String[] {"exact", "nystrom m=300 kernel_rows=f32", "rff"}) {
            try (KernelKMeans km = new KernelKMeans("k=9 n_init=1 seed=1 gamma=2 method=" + method).fit(x)) {
                int[] labels = km.labels();
                assertArrayEquals(labels, km.predict(x), method);
                double[][] all = km.distances(x);
                for (int i = 0; i < labels.length; i++) {
                    for (int j = 0; j < all[i].length; j++) {
                        assertTrue(all[i][labels[i]] <= all[i][j], method + " row " + i + " centre " + j);
                    }
                }
            }
        }
    }

    @Test
    void distancesOfBadInputAreErrors() {
        try (KernelKMeans km = fittedRings()) {
            assertThrows(IllegalArgumentException.class, () -> km.distances((double[][]) null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> km.distances(new double[][] {{1, 2, 3}}));
            assertTrue(e.getMessage().contains("d=3"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> km.distances(new double[3], 2, 2));
        }
        try (KernelKMeans unfitted = new KernelKMeans(RING_PARAMS)) {
            KKMeansException e = assertThrows(KKMeansException.class, () -> unfitted.distances(RINGS.x));
            assertEquals(KKMeansException.NOT_FITTED, e.status());
        }
    }

    @Test
    void singleRowPredictAgreesWithTheBatchAndChecksTheRow() {
        Rings test = new Rings(50, 21, 0.1);
        try (KernelKMeans km = fittedRings()) {
            int[] batch = km.predict(test.x);
            int inner = -1;
            int outer = -1;
            for (int i = 0; i < test.x.length; i++) {
                assertEquals(batch[i], km.predict(test.x[i]), "row " + i);
                float[] f = {(float) test.x[i][0], (float) test.x[i][1]};
                assertEquals(batch[i], km.predict(f), "float row " + i);
                if (test.truth[i] == 0) {
                    inner = batch[i];
                } else {
                    outer = batch[i];
                }
            }
            // the centre of the rings and a point far out fall on the two rings' sides
            assertEquals(inner, km.predict(new double[] {0.0, 0.9}));
            assertEquals(outer, km.predict(new float[] {-3.1f, 0.1f}));
            assertNotEquals(inner, outer);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> km.predict(new double[] {1, 2, 3}));
            assertFalse(e.getMessage().isEmpty());
            assertThrows(IllegalArgumentException.class, () -> km.predict(new float[] {1}));
            e = assertThrows(IllegalArgumentException.class, () -> km.predict((double[]) null));
            assertTrue(e.getMessage().contains("row"), e.getMessage());
            KKMeansException nan = assertThrows(KKMeansException.class,
                    () -> km.predict(new double[] {Double.NaN, 0}));
            assertEquals(KKMeansException.INVALID_DATA, nan.status());
        }
        try (KernelKMeans km = new KernelKMeans()) {
            KKMeansException e = assertThrows(KKMeansException.class, () -> km.predict(new double[] {0, 0}));
            assertEquals(KKMeansException.NOT_FITTED, e.status());
        }
    }

    @Test
    void toStringNamesMethodKernelKAndTheFitOrUnfitted() {
        KernelKMeans km = new KernelKMeans().k(3).method("exact").kernel("rbf").gamma(0.3).nInit(5).seed(1);
        assertEquals("KernelKMeans[method=exact kernel=rbf k=3 unfitted]", km.toString());
        km.kAuto();
        assertEquals("KernelKMeans[method=exact kernel=rbf k=auto unfitted]", km.toString());
        km.k(2).fit(RINGS.x);
        String s = km.toString();
        assertTrue(s.startsWith("KernelKMeans[method=exact kernel=rbf k=2 n=" + RINGS.x.length + " objective="), s);
        double objective = Double.parseDouble(s.substring(s.indexOf("objective=") + 10, s.length() - 1));
        assertEquals(km.objective(), objective);
        km.close();
        assertEquals("KernelKMeans[closed]", km.toString());
    }

    @Test
    void requestedAndFittedKAreNamedApart() {
        try (KernelKMeans km = new KernelKMeans().method("exact").gamma(0.3).nInit(5).seed(1)) {
            KKMeansException e = assertThrows(KKMeansException.class, km::fittedK);
            assertEquals(KKMeansException.NOT_FITTED, e.status());
            km.k(2).fit(RINGS.x);
            assertEquals(2, km.fittedK());
            // a new request changes the parameter, not the fitted model
            km.k(5);
            assertEquals("5", km.param("k"));
            assertEquals(2, km.fittedK());
            assertEquals(2, km.clusterSizes().length);
            km.fit(RINGS.x);
            assertEquals(5, km.fittedK());
        }
    }

    // ------------------------------------------------------------------ parameters

    @Test
    void parametersReadBackAndAutoResolvesAfterFit() {
        try (KernelKMeans km = new KernelKMeans().k(3).method("exact")) {
            assertEquals("3", km.param("k"));
            assertEquals("exact", km.param("method"));
            assertEquals("auto", km.param("gamma"));
            km.param("k", "2").fit(RINGS.x);
            double gamma = Double.parseDouble(km.param("gamma"));
            assertTrue(gamma > 0 && Double.isFinite(gamma), "resolved gamma " + gamma);
        }
    }

    @Test
    void unknownParameterIsIllegalArgumentWithLibraryMessage() {
        try (KernelKMeans km = new KernelKMeans()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> km.param("bogus_key", "1"));
            assertTrue(e.getMessage().contains("bogus_key"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> km.params("k=2 m=oops"));
            assertTrue(e.getMessage().contains("oops") || e.getMessage().contains("m"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> km.k(0));
            assertTrue(e.getMessage().contains("k"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> km.param("no_such_key"));
            assertTrue(e.getMessage().contains("no_such_key"), e.getMessage());
            // all or nothing: k is still the default
            assertEquals("8", km.param("k"));
            assertThrows(IllegalArgumentException.class, () -> new KernelKMeans("k=2 bogus=1"));
        }
    }

    // ------------------------------------------------------------------ errors

    @Test
    void useAfterCloseIsIllegalStateAndCloseIsIdempotent() {
        KernelKMeans km = fittedRings();
        assertFalse(km.isClosed());
        km.close();
        km.close();
        assertTrue(km.isClosed());
        assertThrows(IllegalStateException.class, km::labels);
        assertThrows(IllegalStateException.class, () -> km.predict(RINGS.x));
        assertThrows(IllegalStateException.class, () -> km.fit(RINGS.x));
        assertThrows(IllegalStateException.class, () -> km.k(3));
        assertThrows(IllegalStateException.class, () -> km.param("k"));
        assertThrows(IllegalStateException.class, km::toBytes);
        assertThrows(IllegalStateException.class, km::objective);
    }

    @Test
    void nullAndShortArraysAreIllegalArguments() {
        try (KernelKMeans km = new KernelKMeans("k=2 method=exact gamma=0.3")) {
            assertThrows(IllegalArgumentException.class, () -> km.fit((float[]) null, 4, 2));
            assertThrows(IllegalArgumentException.class, () -> km.fit((double[][]) null));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> km.fit(new float[7], 4, 2));
            assertTrue(e.getMessage().contains("7"), e.getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> km.fit(new double[][] {{1, 2}, {3}, {4, 5}}));
            assertThrows(IllegalArgumentException.class,
                    () -> km.fit(new double[][] {{1, 2}, null}));
            km.fit(RINGS.x);
            assertThrows(IllegalArgumentException.class, () -> km.predict((double[]) null, 1, 2));
            assertThrows(IllegalArgumentException.class, () -> km.predict(new double[3], 2, 2));
            // wrong number of columns for the fitted model
            assertThrows(IllegalArgumentException.class, () -> km.predict(new double[][] {{1, 2, 3}}));
            assertThrows(IllegalArgumentException.class, () -> km.predict(new double[4], 2, 2, new double[1]));
            assertThrows(IllegalArgumentException.class, () -> KernelKMeans.fromBytes(null));
            assertThrows(IllegalArgumentException.class,
                    () -> KernelKMeans.adjustedRandIndex(new int[3], new int[2]));
        }
    }

    @Test
    void libraryFailuresAreKKMeansExceptionsWithStatus() {
        try (KernelKMeans km = new KernelKMeans("k=2 method=exact gamma=0.3")) {
            KKMeansException e = assertThrows(KKMeansException.class, () -> km.predict(RINGS.x));
            assertEquals(KKMeansException.NOT_FITTED, e.status());
            assertEquals("not fitted", e.statusName());
            assertFalse(e.getMessage().isEmpty());
            double[][] bad = {{0, 0}, {1, Double.NaN}, {2, 2}, {3, 3}};
            e = assertThrows(KKMeansException.class, () -> km.fit(bad));
            assertEquals(KKMeansException.INVALID_DATA, e.status());
            // a failed fit leaves the model unfitted
            assertThrows(KKMeansException.class, km::labels);
            e = assertThrows(KKMeansException.class,
                    () -> KernelKMeans.fromBytes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
            assertEquals(KKMeansException.FORMAT, e.status());
        }
    }

    @Test
    void generatedClassesAreNotPublic() throws Exception {
        for (String name : new String[] {"io.github.fastkkm.NativeModel", "io.github.fastkkm.kkmeansJNI", "io.github.fastkkm.kkmeans"}) {
            Class<?> c = Class.forName(name, false, KernelKMeans.class.getClassLoader());
            assertFalse(Modifier.isPublic(c.getModifiers()), name + " is public");
        }
        assertTrue(Modifier.isPublic(KernelKMeans.class.getModifiers()));
        assertTrue(RuntimeException.class.isAssignableFrom(KKMeansException.class));
        assertTrue(KernelKMeans.version().matches("\\d+\\.\\d+\\.\\d+"), KernelKMeans.version());
    }

    // ------------------------------------------------------------------ threads

    @Test
    void eightThreadsPredictLikeSerial() throws Exception {
        Rings test = new Rings(300, 99, 0.15);
        try (KernelKMeans km = fittedRings()) {
            int[] serial = km.predict(test.x);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<int[]>> results = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    Callable<int[]> task = () -> {
                        start.await();
                        int[] last = null;
                        for (int rep = 0; rep < 20; rep++) {
                            int[] got = km.predict(test.x);
                            if (last != null) {
                                assertArrayEquals(last, got);
                            }
                            last = got;
                        }
                        return last;
                    };
                    results.add(pool.submit(task));
                }
                start.countDown();
                for (Future<int[]> f : results) {
                    assertArrayEquals(serial, f.get(120, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
            assertTrue(KernelKMeans.adjustedRandIndex(serial, test.truth) >= 0.95);
        }
    }

    // ------------------------------------------------------------------ persistence

    @Test
    void bytesRoundTripPredictsIdentically() {
        Rings test = new Rings(150, 5, 0.1);
        try (KernelKMeans km = fittedRings()) {
            byte[] bytes = km.toBytes();
            assertTrue(bytes.length > 8);
            try (KernelKMeans back = KernelKMeans.fromBytes(bytes)) {
                assertArrayEquals(km.predict(test.x), back.predict(test.x));
                assertArrayEquals(km.labels(), back.labels());
                assertEquals(km.objective(), back.objective());
                assertEquals(km.fittedK(), back.fittedK());
                assertEquals(km.param("gamma"), back.param("gamma"));
                assertArrayEquals(bytes, back.toBytes());
            }
            byte[] corrupt = bytes.clone();
            corrupt[corrupt.length / 2] ^= 0x5a;
            assertThrows(KKMeansException.class, () -> KernelKMeans.fromBytes(corrupt));
        }
    }

    @Test
    void fileRoundTripPredictsIdentically(@TempDir Path dir) throws Exception {
        Rings test = new Rings(150, 6, 0.1);
        String path = dir.resolve("model.kkm").toString();
        try (KernelKMeans km = new KernelKMeans("k=2 method=nystrom m=80 gamma=0.3 seed=2 n_init=3")) {
            km.fit(RINGS.x).save(path);
            assertTrue(Files.size(Path.of(path)) > 8);
            try (KernelKMeans back = KernelKMeans.load(path)) {
                assertArrayEquals(km.predict(test.x), back.predict(test.x));
                assertEquals("nystrom", back.param("method"));
            }
        }
        KKMeansException e = assertThrows(KKMeansException.class,
                () -> KernelKMeans.load(dir.resolve("missing" + File.separator + "none.kkm").toString()));
        assertEquals(KKMeansException.IO, e.status());
    }

    // ------------------------------------------------------------------ gamma=search, k=auto

    @Test
    void ringsWithNeitherGammaNorKChooseTwoClustersAndReportTheScan() {
        Rings rings = new Rings(250, 11, 0.1);
        try (KernelKMeans km = new KernelKMeans().method("exact").gammaSearch().kAuto().seed(1)) {
            km.fit(rings.x);
            assertEquals(2, km.fittedK());
            assertEquals("2", km.param("k"));
            double gamma = Double.parseDouble(km.param("gamma"));
            assertTrue(gamma > 0, "gamma " + gamma);
            double ari = KernelKMeans.adjustedRandIndex(km.labels(), rings.truth);
            assertTrue(ari >= 0.95, "ARI " + ari);
            List<SearchPoint> scan = km.search();
            assertFalse(scan.isEmpty());
            boolean chosenScored = false;
            for (SearchPoint p : scan) {
                // k by stability over the whole grid, then gamma by MATR (the default) at k=2
                assertTrue(p.criterion().equals("stability") || (p.criterion().equals("matr") && p.k() == 2),
                           p.toString());
                assertTrue(p.k() >= 2 && p.k() <= 10, p.toString());
                assertTrue(p.gamma() > 0 && Double.isFinite(p.score()), p.toString());
                chosenScored |= p.gamma() == gamma && p.k() == 2;
            }
            assertTrue(chosenScored, "gamma " + gamma + " scan " + scan);
            assertThrows(UnsupportedOperationException.class, () -> scan.clear());
            // The scan survives a round trip through bytes.
            try (KernelKMeans back = KernelKMeans.fromBytes(km.toBytes())) {
                List<SearchPoint> again = back.search();
                assertEquals(scan.size(), again.size());
                for (int i = 0; i < scan.size(); i++) {
                    assertEquals(scan.get(i).gamma(), again.get(i).gamma());
                    assertEquals(scan.get(i).k(), again.get(i).k());
                    assertEquals(scan.get(i).score(), again.get(i).score());
                }
            }
        }
    }

    @Test
    void gammaSearchByMatrWithAGivenK() {
        try (KernelKMeans km = new KernelKMeans().k(2).method("exact").gammaSearch().searchCriterion("matr")
                .searchSize(300).seed(2)) {
            km.fit(RINGS.x);
            assertEquals(2, km.fittedK());
            List<SearchPoint> scan = km.search();
            assertFalse(scan.isEmpty());
            for (SearchPoint p : scan) {
                assertEquals("matr", p.criterion());
                assertEquals(2, p.k());
                assertTrue(p.score() > 0, p.toString());
            }
        }
    }

    @Test
    void noSearchGivesAnEmptyScanAndBadSearchValuesAreArgumentErrors() {
        try (KernelKMeans km = fittedRings()) {
            assertTrue(km.search().isEmpty());
            assertThrows(IllegalArgumentException.class, () -> km.searchCriterion("bogus"));
            assertThrows(IllegalArgumentException.class, () -> km.kRange(1, 5));
            assertThrows(IllegalArgumentException.class, () -> km.searchSize(5));
            assertThrows(IllegalArgumentException.class, () -> km.param("k", "search"));
            assertEquals("2", km.param("k_min"));
        }
        try (KernelKMeans km = new KernelKMeans()) {
            KKMeansException e = assertThrows(KKMeansException.class, km::search);
            assertEquals(KKMeansException.NOT_FITTED, e.status());
        }
    }

    @Test
    void kAutoFindsTheNumberOfBlobs() {
        Random rng = new Random(5);
        double[][] x = new double[300][];
        int[] truth = new int[300];
        for (int i = 0; i < 300; i++) {
            int c = i % 3;
            x[i] = new double[] {10 * c + 0.5 * rng.nextGaussian(), (c == 1 ? 10 : 0) + 0.5 * rng.nextGaussian()};
            truth[i] = c;
        }
        try (KernelKMeans km = new KernelKMeans().method("exact").kAuto().kRange(2, 6).seed(3)) {
            km.fit(x);
            assertEquals(3, km.fittedK());
            assertEquals(1.0, KernelKMeans.adjustedRandIndex(km.labels(), truth), 1e-12);
            for (SearchPoint p : km.search()) {
                assertTrue(p.k() >= 2 && p.k() <= 6, p.toString());
            }
        }
    }

    @Test
    void refitReplacesTheModel() {
        try (KernelKMeans km = fittedRings()) {
            int[] first = km.labels();
            km.k(3).fit(RINGS.x);
            assertEquals(3, km.fittedK());
            assertNotEquals(first.length, 0);
            assertEquals(3, km.clusterSizes().length);
        }
    }
}
