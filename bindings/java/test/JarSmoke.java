// A program the java test (run-tests.py, PackagingTest) runs in a fresh JVM with only the
// versioned jar on the class path, as a single source file (java -cp fastkkm-<version>.jar
// JarSmoke.java): it clusters two rings and reports where the JNI library came from and
// which kkmeans libraries the process mapped. Exit status 1 if the clustering is poor.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;

import io.github.fastkkm.KernelKMeans;

public class JarSmoke {
    public static void main(String[] args) throws Exception {
        int perRing = 150;
        Random rng = new Random(3);
        double[][] x = new double[2 * perRing][];
        int[] truth = new int[2 * perRing];
        for (int i = 0; i < x.length; i++) {
            double radius = i < perRing ? 1.0 : 3.0;
            double angle = 2 * Math.PI * rng.nextDouble();
            x[i] = new double[] {radius * Math.cos(angle) + 0.1 * rng.nextGaussian(),
                                 radius * Math.sin(angle) + 0.1 * rng.nextGaussian()};
            truth[i] = i < perRing ? 0 : 1;
        }
        double ari;
        try (KernelKMeans km = new KernelKMeans("k=2 method=exact gamma=0.3 n_init=5 seed=1")) {
            ari = KernelKMeans.adjustedRandIndex(km.fit(x).labels(), truth);
            System.out.println("model=" + km);
        }
        System.out.println("origin=" + KernelKMeans.nativeLibrary());
        System.out.println("version=" + KernelKMeans.version());
        System.out.println("ari=" + ari);
        List<String> maps = Files.readAllLines(Path.of("/proc/self/maps"));
        for (String line : maps) {
            int slash = line.indexOf('/');
            if (slash >= 0 && (line.contains("libkkmeans") || line.contains("fastkkm_jni"))) {
                System.out.println("mapped=" + line.substring(slash));
            }
        }
        System.exit(ari >= 0.95 ? 0 : 1);
    }
}
