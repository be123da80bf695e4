package io.github.fastkkm.test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import io.github.fastkkm.KKMeansException;
import io.github.fastkkm.KernelKMeans;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code fitFile}: a raw float32 file mapped by the library ({@code kkm_fit_file}). */
class FitFileTest {

    /** x (row-major float32) written as kkm_fit_file reads it: little-endian. */
    static Path write(Path dir, String name, float[] x) throws IOException {
        ByteBuffer bytes = ByteBuffer.allocate(4 * x.length).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(x);
        return Files.write(dir.resolve(name), bytes.array());
    }

    @Test
    void aTemporaryFileFitsAsTheSameRowsInMemory(@TempDir Path dir) throws IOException {
        int n = 300;
        int[] truth = new int[n];
        float[] x = PartialFitTest.shuffledBlobs(n, truth, 21);
        Path file = write(dir, "blobs.f32", x);
        for (String method : new String[] {"exact", "nystrom", "rff"}) {
            String params = "k=3 method=" + method + " m=40 gamma=0.2 seed=5";
            try (KernelKMeans fromFile = new KernelKMeans(params); KernelKMeans inMemory = new KernelKMeans(params)) {
                fromFile.fitFile(file.toString(), 2);
                inMemory.fit(x, n, 2);
                assertArrayEquals(inMemory.labels(), fromFile.labels(), method);
                assertEquals(inMemory.objective(), fromFile.objective(), 1e-9 * inMemory.objective(), method);
                assertEquals(n, fromFile.nTrain());
                assertEquals(2, fromFile.nFeatures());
                assertArrayEquals(inMemory.predict(x, n, 2), fromFile.predict(x, n, 2), method);
                assertTrue(KernelKMeans.adjustedRandIndex(fromFile.labels(), truth) > 0.9, method);
            }
        }
        float[] w = new float[n];
        for (int i = 0; i < n; i++) {
            w[i] = 1 + i % 3;
        }
        try (KernelKMeans fromFile = new KernelKMeans("k=3 method=nystrom m=40 seed=5");
             KernelKMeans inMemory = new KernelKMeans("k=3 method=nystrom m=40 seed=5")) {
            fromFile.fitFile(file.toString(), 2, w);
            inMemory.fit(x, n, 2, w);
            assertArrayEquals(inMemory.labels(), fromFile.labels());
            assertArrayEquals(inMemory.clusterSizes(), fromFile.clusterSizes(), 1e-9);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> fromFile.fitFile(file.toString(), 2, new float[7]));
            assertTrue(e.getMessage().contains("n_weights=7"), e.getMessage());
        }
    }

    @Test
    void aMissingFileIsAnIoErrorNamingIt(@TempDir Path dir) {
        String missing = dir.resolve("no-such-file.f32").toString();
        try (KernelKMeans km = new KernelKMeans("k=2")) {
            KKMeansException e = assertThrows(KKMeansException.class, () -> km.fitFile(missing, 3));
            assertEquals(KKMeansException.IO, e.status());
            assertTrue(e.getMessage().contains("no-such-file.f32"), e.getMessage());
            assertThrows(KKMeansException.class, km::labels); // nothing was fitted
        }
    }

    @Test
    void theFileSizeAndArgumentsAreChecked(@TempDir Path dir) throws IOException {
        Path file = write(dir, "ten.f32", new float[30]);
        try (KernelKMeans km = new KernelKMeans("k=2")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> km.fitFile(file.toString(), 4));
            assertTrue(e.getMessage().contains("multiple"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> km.fitFile(file.toString(), 0));
            assertThrows(IllegalArgumentException.class, () -> km.fitFile(null, 3));
            KKMeansException empty = assertThrows(KKMeansException.class,
                    () -> km.fitFile(write(dir, "empty.f32", new float[0]).toString(), 3));
            assertEquals(KKMeansException.IO, empty.status());
            KKMeansException directory = assertThrows(KKMeansException.class, () -> km.fitFile(dir.toString(), 3));
            assertEquals(KKMeansException.IO, directory.status());
        }
    }
}
