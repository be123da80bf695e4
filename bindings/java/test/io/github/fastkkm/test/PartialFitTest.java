package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;

import io.github.fastkkm.FitCancelledException;
import io.github.fastkkm.KKMeansException;
import io.github.fastkkm.KernelKMeans;
import org.junit.jupiter.api.Test;

/** {@code partialFit}: streams of batches ({@code kkm_partial_fit}) and the methods it refuses. */
class PartialFitTest {

    static final double[][] CENTRES = {{0, 0}, {6, 0}, {0, 6}};

    /** n rows of three blobs in random order, row-major float32; truth[i] = row i's blob. */
    static float[] shuffledBlobs(int n, int[] truth, long seed) {
        Random rng = new Random(seed);
        for (int i = 0; i < n; i++) {
            truth[i] = i % 3;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = truth[i];
            truth[i] = truth[j];
            truth[j] = t;
        }
        float[] x = new float[2 * n];
        for (int i = 0; i < n; i++) {
            x[2 * i] = (float) (CENTRES[truth[i]][0] + 0.7 * rng.nextGaussian());
            x[2 * i + 1] = (float) (CENTRES[truth[i]][1] + 0.7 * rng.nextGaussian());
        }
        return x;
    }

    static float[] rows(float[] x, int from, int to) {
        return Arrays.copyOfRange(x, 2 * from, 2 * to);
    }

    @Test
    void aStreamOfShuffledBlobBatchesClustersAsWellAsOneFit() {
        int n = 1500;
        int[] truth = new int[n];
        float[] x = shuffledBlobs(n, truth, 11);
        for (String method : new String[] {"nystrom", "sketch", "rff", "minibatch"}) {
            String params = "k=3 method=" + method + " m=60 gamma=0.1 seed=3";
            try (KernelKMeans whole = new KernelKMeans(params); KernelKMeans stream = new KernelKMeans(params)) {
                whole.fit(x, n, 2);
                stream.partialFit(rows(x, 0, 300), 300, 2);
                int batches = 1;
                for (int from = 300; from < n; from += 200) {
                    int to = Math.min(n, from + 200);
                    stream.partialFit(rows(x, from, to), to - from, 2);
                    batches++;
                    assertEquals(to - from, stream.nTrain(), method);
                    assertEquals(to - from, stream.labels().length, method);
                    assertEquals(to, Arrays.stream(stream.clusterSizes()).sum(), 1e-9, method);
                }
                int[] streamed = stream.predict(x, n, 2);
                double ariWhole = KernelKMeans.adjustedRandIndex(whole.labels(), truth);
                double ariStream = KernelKMeans.adjustedRandIndex(streamed, truth);
                assertTrue(ariStream > 0.95, method + ": stream ARI " + ariStream);
                assertTrue(ariStream > ariWhole - 0.02, method + ": stream ARI " + ariStream + " whole " + ariWhole);
                double nmiWhole = KernelKMeans.normalizedMutualInfo(whole.labels(), truth);
                double nmiStream = KernelKMeans.normalizedMutualInfo(streamed, truth);
                assertTrue(nmiStream > nmiWhole - 0.02, method + ": stream NMI " + nmiStream + " whole " + nmiWhole);
                assertEquals(batches, 7);
            }
        }
    }

    @Test
    void theFirstBatchIsAFitAndLaterBatchesDescribeThemselves() {
        int[] truth = new int[600];
        float[] x = shuffledBlobs(600, truth, 12);
        String params = "k=3 method=nystrom m=50 gamma=0.1 seed=1";
        try (KernelKMeans stream = new KernelKMeans(params); KernelKMeans one = new KernelKMeans(params)) {
            stream.partialFit(rows(x, 0, 300), 300, 2);
            one.fit(rows(x, 0, 300), 300, 2);
            assertArrayEquals(one.labels(), stream.labels());
            assertEquals(one.objective(), stream.objective(), 1e-9 * one.objective());
            int firstIterations = stream.iterations();
            float[] batch = rows(x, 300, 500);
            stream.partialFit(batch, 200, 2);
            assertArrayEquals(stream.predict(batch, 200, 2), stream.labels()); // labels after the update
            assertEquals(firstIterations + 1, stream.iterations());
            // Weights: the centres' weights grow by the batch's.
            float[] w = new float[100];
            Arrays.fill(w, 2.0f);
            stream.partialFit(rows(x, 500, 600), 100, 2, w);
            assertEquals(700, Arrays.stream(stream.clusterSizes()).sum(), 1e-6);
            // The float64 and jagged forms are the same batch.
            double[][] jagged = new double[100][];
            for (int i = 0; i < 100; i++) {
                jagged[i] = new double[] {x[2 * (500 + i)], x[2 * (500 + i) + 1]};
            }
            stream.partialFit(jagged);
            assertEquals(800, Arrays.stream(stream.clusterSizes()).sum(), 1e-6);
            // Changing a parameter starts a new stream at the next batch.
            stream.seed(2);
            one.seed(2).fit(rows(x, 0, 300), 300, 2);
            stream.partialFit(rows(x, 0, 300), 300, 2);
            assertArrayEquals(one.labels(), stream.labels());
            assertEquals(300, Arrays.stream(stream.clusterSizes()).sum(), 1e-9);
        }
    }

    @Test
    void methodExactIsRefusedNamingPartialFit() {
        int[] truth = new int[300];
        float[] x = shuffledBlobs(300, truth, 13);
        try (KernelKMeans km = new KernelKMeans("k=3 method=exact gamma=0.1 seed=1")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> km.partialFit(x, 300, 2));
            assertTrue(e.getMessage().contains("kkm_partial_fit"), e.getMessage());
            assertTrue(e.getMessage().contains("method=exact"), e.getMessage());
            assertThrows(KKMeansException.class, km::labels); // nothing was fitted
            // A fitted exact model is not changed by a refused batch.
            km.fit(x, 300, 2);
            int[] before = km.labels();
            assertThrows(IllegalArgumentException.class, () -> km.partialFit(x, 300, 2));
            assertArrayEquals(before, km.labels());
        }
        for (String params : new String[] {"k=3 method=minibatch tau=0", "k=3 kernel=knn", "k=3 kernel=heat"}) {
            try (KernelKMeans km = new KernelKMeans(params)) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> km.partialFit(x, 300, 2));
                assertTrue(e.getMessage().contains("kkm_partial_fit"), params + ": " + e.getMessage());
            }
        }
    }

    @Test
    void badBatchesLeaveTheStreamAsItWas() {
        int[] truth = new int[500];
        float[] x = shuffledBlobs(500, truth, 14);
        try (KernelKMeans km = new KernelKMeans("k=3 method=rff m=40 seed=2")) {
            km.partialFit(rows(x, 0, 300), 300, 2);
            double[] sizes = km.clusterSizes();
            IllegalArgumentException wide = assertThrows(IllegalArgumentException.class,
                    () -> km.partialFit(new float[300], 100, 3));
            assertTrue(wide.getMessage().contains("d=3"), wide.getMessage());
            assertThrows(IllegalArgumentException.class, () -> km.partialFit(new float[5], 3, 2));
            assertThrows(IllegalArgumentException.class, () -> km.partialFit((float[]) null, 3, 2));
            assertThrows(IllegalArgumentException.class, () -> km.partialFit(rows(x, 300, 400), 100, 2, new float[3]));
            float[] bad = rows(x, 300, 400);
            bad[11] = Float.NaN;
            KKMeansException e = assertThrows(KKMeansException.class, () -> km.partialFit(bad, 100, 2));
            assertEquals(KKMeansException.INVALID_DATA, e.status());
            assertArrayEquals(sizes, km.clusterSizes());
            km.partialFit(rows(x, 300, 400), 100, 2);
            assertNotEquals(sizes[0] + sizes[1] + sizes[2], Arrays.stream(km.clusterSizes()).sum());
        }
        try (KernelKMeans km = new KernelKMeans("k=3 method=nystrom m=50 seed=2")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> km.partialFit(rows(x, 0, 20), 20, 2));
            assertTrue(e.getMessage().contains("m=50"), e.getMessage());
            // The first batch is a fit: its listener may cancel it, and nothing is fitted then.
            assertThrows(FitCancelledException.class, () -> km.partialFit(rows(x, 0, 300), 300, 2, (s, f) -> false));
            assertThrows(KKMeansException.class, km::labels);
        }
    }
}
