package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.github.fastkkm.FitCancelledException;
import io.github.fastkkm.KKMeansException;
import io.github.fastkkm.KernelKMeans;
import io.github.fastkkm.ProgressListener;
import org.junit.jupiter.api.Test;

/** Progress listeners, cancellation and Thread.interrupt() during a fit. */
class ProgressTest {

    /** n rows of d standard normal values, row-major. */
    static float[] gaussian(int n, int d, long seed) {
        Random rng = new Random(seed);
        float[] x = new float[n * d];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) rng.nextGaussian();
        }
        return x;
    }

    /**
     * A fit that runs for minutes unless cancelled: mini-batch steps until max_iter
     * (epsilon = 0 never stops early), each a small block of work.
     */
    static final String LONG_FIT = "k=20 method=minibatch max_iter=1000000 epsilon=0 threads=2 seed=1";
    static final float[] LONG_X = gaussian(20000, 8, 5);

    static final String SMALL_FIT = "k=3 method=exact gamma=0.5 seed=1";
    static final float[] SMALL_X = gaussian(300, 2, 6);

    static double secondsSince(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    /** One report: stage, fraction, and the thread it ran on. */
    static final class Report {
        final String stage;
        final double fraction;
        final Thread thread;

        Report(String stage, double fraction) {
            this.stage = stage;
            this.fraction = fraction;
            this.thread = Thread.currentThread();
        }
    }

    /** n rows of d values uniform in [0, 1), row-major. */
    static float[] uniform(int n, int d, long seed) {
        Random rng = new Random(seed);
        float[] x = new float[n * d];
        for (int i = 0; i < x.length; i++) {
            x[i] = rng.nextFloat();
        }
        return x;
    }

    /**
     * Lloyd on uniform data with k = 50 takes dozens of iterations of about 0.1 s, so it
     * reports several times; the listener stops it after 6 Lloyd reports. (Within the
     * seeding and minibatch stages the library's fractions are not monotone: they restart
     * with each inner loop.)
     */
    @Test
    void listenerReceivesIncreasingLloydFractionsOnTheFittingThread() {
        float[] x = uniform(20000, 8, 8);
        List<Report> reports = new ArrayList<>();
        try (KernelKMeans km = new KernelKMeans("k=50 method=nystrom m=300 max_iter=300 tol=0 threads=2 seed=1")) {
            ProgressListener listener = (stage, fraction) -> {
                reports.add(new Report(stage, fraction));
                return reports.stream().filter(r -> r.stage.equals("lloyd")).count() < 6;
            };
            try {
                km.fit(x, 20000, 8, listener);
            } catch (FitCancelledException e) {
                assertFalse(e.interrupted());
            }
        }
        List<Double> lloyd = new ArrayList<>();
        for (Report r : reports) {
            assertSame(Thread.currentThread(), r.thread, "reports run on the fitting thread");
            assertTrue(r.fraction >= 0 && r.fraction <= 1, r.stage + " " + r.fraction);
            if (r.stage.equals("lloyd")) {
                lloyd.add(r.fraction);
            }
        }
        assertTrue(lloyd.size() >= 3, lloyd.size() + " lloyd reports");
        for (int i = 1; i < lloyd.size(); i++) {
            assertTrue(lloyd.get(i) > lloyd.get(i - 1), "lloyd fractions " + lloyd);
        }
    }

    @Test
    void aListenerSeesTheFinalDoneAndDoesNotChangeTheFit() {
        List<Report> reports = new ArrayList<>();
        try (KernelKMeans listened = new KernelKMeans(SMALL_FIT); KernelKMeans plain = new KernelKMeans(SMALL_FIT)) {
            listened.fit(SMALL_X, 300, 2, (stage, fraction) -> reports.add(new Report(stage, fraction)));
            plain.fit(SMALL_X, 300, 2);
            assertArrayEquals(plain.labels(), listened.labels());
        }
        assertTrue(reports.size() >= 3, reports.size() + " reports");
        assertTrue(reports.stream().anyMatch(r -> r.stage.equals("kernel")), "the exact kernel stage");
        assertTrue(reports.stream().anyMatch(r -> r.stage.equals("lloyd")), "the lloyd stage");
        Report last = reports.get(reports.size() - 1);
        assertEquals("done", last.stage);
        assertEquals(1.0, last.fraction);
    }

    @Test
    void listenerReturningFalseCancelsQuicklyAndLeavesTheModelUnchanged() {
        try (KernelKMeans km = new KernelKMeans(SMALL_FIT)) {
            km.fit(SMALL_X, 300, 2);
            int[] before = km.labels();
            km.params(LONG_FIT);
            int[] calls = {0};
            long t0 = System.nanoTime();
            FitCancelledException e = assertThrows(FitCancelledException.class,
                    () -> km.fit(LONG_X, 20000, 8, (stage, fraction) -> ++calls[0] < 2));
            double elapsed = secondsSince(t0);
            System.out.printf("listener cancel: fit ended %.3f s after it started%n", elapsed);
            assertEquals(KKMeansException.CANCELLED, e.status());
            assertFalse(e.interrupted());
            assertTrue(e.getMessage().contains("listener returned false"), e.getMessage());
            assertEquals(2, calls[0], "no report after the cancel");
            assertTrue(elapsed < 2, elapsed + " s");
            assertArrayEquals(before, km.labels(), "the model is unchanged");
            assertEquals(300, km.nTrain());
        }
    }

    @Test
    void interruptingTheFittingThreadCancelsALargeFitWithinACoupleOfSeconds() throws Exception {
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean flagKept = new AtomicBoolean();
        CountDownLatch fitting = new CountDownLatch(1);
        Thread worker = new Thread(() -> {
            try (KernelKMeans km = new KernelKMeans(LONG_FIT)) {
                fitting.countDown();
                km.fit(LONG_X, 20000, 8); // no listener: every fit watches the interrupt flag
            } catch (Throwable t) {
                thrown.set(t);
                flagKept.set(Thread.currentThread().isInterrupted());
            }
        }, "kkmeans-fit");
        worker.start();
        assertTrue(fitting.await(30, TimeUnit.SECONDS));
        Thread.sleep(1000); // well into the fit (minutes, uninterrupted)
        assertTrue(worker.isAlive(), "the fit is still running");
        long t0 = System.nanoTime();
        worker.interrupt();
        worker.join(10_000);
        double elapsed = secondsSince(t0);
        boolean stillRunning = worker.isAlive();
        if (stillRunning) {
            worker.join(); // never leave a fit running; the assertion below fails the test
        }
        System.out.printf("Thread.interrupt(): fit thread ended %.3f s after the interrupt%n", elapsed);
        assertFalse(stillRunning, "the fit ignored the interrupt");
        assertTrue(elapsed < 2, elapsed + " s");
        Throwable t = thrown.get();
        assertNotNull(t, "the fit did not throw");
        FitCancelledException e = assertThrows(FitCancelledException.class, () -> {
            throw t;
        });
        assertTrue(e.interrupted());
        assertEquals(KKMeansException.CANCELLED, e.status());
        assertTrue(flagKept.get(), "the interrupt flag is kept");
    }

    @Test
    void anInterruptedThreadCancelsAtOnceAndTheListenerToo() {
        try (KernelKMeans km = new KernelKMeans(LONG_FIT)) {
            List<String> stages = new ArrayList<>();
            Thread.currentThread().interrupt();
            try {
                long t0 = System.nanoTime();
                FitCancelledException e = assertThrows(FitCancelledException.class,
                        () -> km.fit(LONG_X, 20000, 8, (stage, fraction) -> stages.add(stage)));
                assertTrue(e.interrupted());
                assertTrue(secondsSince(t0) < 1);
                assertTrue(stages.isEmpty(), "the listener is not called once the thread is interrupted");
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted(); // clear it for the other tests
            }
            assertThrows(KKMeansException.class, km::labels, "nothing was fitted");
        }
    }

    @Test
    void anExceptionInTheListenerCancelsTheFitAndReachesTheCaller() {
        try (KernelKMeans km = new KernelKMeans(SMALL_FIT)) {
            km.fit(SMALL_X, 300, 2);
            int[] before = km.labels();
            km.params(LONG_FIT);
            IllegalStateException boom = new IllegalStateException("boom from the listener");
            long t0 = System.nanoTime();
            ProgressListener throwing = (stage, fraction) -> {
                throw boom;
            };
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> km.fit(LONG_X, 20000, 8, throwing));
            assertSame(boom, e);
            assertTrue(secondsSince(t0) < 2);
            assertArrayEquals(before, km.labels(), "the model is unchanged");
            // The model and the JNI layer still work.
            km.params(SMALL_FIT).fit(SMALL_X, 300, 2, (stage, fraction) -> true);
            assertArrayEquals(before, km.labels());
        }
    }

    @Test
    void everyFitShapeTakesAListener() {
        double[][] rows = new double[300][2];
        float[][] frows = new float[300][2];
        double[] flat = new double[600];
        for (int i = 0; i < 300; i++) {
            for (int j = 0; j < 2; j++) {
                rows[i][j] = SMALL_X[2 * i + j];
                frows[i][j] = SMALL_X[2 * i + j];
                flat[2 * i + j] = SMALL_X[2 * i + j];
            }
        }
        double[] w = new double[300];
        float[] fw = new float[300];
        java.util.Arrays.fill(w, 1.0);
        java.util.Arrays.fill(fw, 1f);
        int[] done = {0};
        ProgressListener count = (stage, fraction) -> {
            done[0] += stage.equals("done") ? 1 : 0;
            return true;
        };
        try (KernelKMeans km = new KernelKMeans(SMALL_FIT)) {
            int[] reference = km.fit(SMALL_X, 300, 2).labels();
            assertArrayEquals(reference, km.fit(SMALL_X, 300, 2, count).labels());
            assertArrayEquals(reference, km.fit(SMALL_X, 300, 2, fw, count).labels());
            assertArrayEquals(reference, km.fit(flat, 300, 2, count).labels());
            assertArrayEquals(reference, km.fit(flat, 300, 2, w, count).labels());
            assertArrayEquals(reference, km.fit(rows, count).labels());
            assertArrayEquals(reference, km.fit(rows, w, count).labels());
            assertArrayEquals(reference, km.fit(frows, count).labels());
            assertArrayEquals(reference, km.fit(frows, (ProgressListener) null).labels());
        }
        assertEquals(7, done[0]);
    }
}
