// Clusters two concentric rings with kernel k-means through the Java binding.
//
// Run (see bindings/java/README.md), from the repository root with the build in BUILD; the jar
// carries its JNI library, so it is the only thing on the class path:
//   java -cp BUILD/bindings/java/fastkkm-0.1.0.jar examples/java/Example.java
import java.util.Arrays;
import java.util.Random;

import io.github.fastkkm.KernelKMeans;

public class Example {
    public static void main(String[] args) {
        // 2 × 300 points on circles of radius 1 and 3 with Gaussian noise (sd 0.1).
        int perRing = 300;
        Random rng = new Random(42);
        double[][] x = new double[2 * perRing][];
        int[] truth = new int[2 * perRing];
        for (int ring = 0; ring < 2; ring++) {
            double radius = ring == 0 ? 1.0 : 3.0;
            for (int i = 0; i < perRing; i++) {
                double angle = 2 * Math.PI * rng.nextDouble();
                x[ring * perRing + i] = new double[] {
                    radius * Math.cos(angle) + 0.1 * rng.nextGaussian(),
                    radius * Math.sin(angle) + 0.1 * rng.nextGaussian()};
                truth[ring * perRing + i] = ring;
            }
        }

        // gamma and n_init: the library's defaults (gamma=auto, n_init=auto), nothing hand-picked.
        try (KernelKMeans km = new KernelKMeans().k(2).method("exact").kernel("rbf").seed(1)) {
            km.fit(x);
            double ari = KernelKMeans.adjustedRandIndex(km.labels(), truth);
            System.out.println("fastkkm " + KernelKMeans.version());
            System.out.println("native library = " + KernelKMeans.nativeLibrary());
            System.out.println(km);
            System.out.println("k             = " + km.fittedK());
            System.out.println("iterations    = " + km.iterations());
            System.out.println("objective     = " + km.objective());
            System.out.println("cluster sizes = " + Arrays.toString(km.clusterSizes()));
            System.out.println("ARI vs truth  = " + ari);

            // New points: one near each ring.
            int[] y = km.predict(new double[][] {{0.0, 1.05}, {-2.9, 0.2}});
            System.out.println("predict([0, 1.05], [-2.9, 0.2]) = " + Arrays.toString(y));
            System.out.println("predict([0, 1.05]) = " + km.predict(new double[] {0.0, 1.05}));
            if (ari < 0.9) {
                System.err.println("unexpectedly low ARI");
                System.exit(1);
            }
        }
    }
}
