// Example.cs — cluster two concentric rings with kernel k-means (FastKKM, the C# package of kkmeans).
//
// Build and run against a meson build directory BUILD (see bindings/csharp/README.md):
//   mcs -r:BUILD/bindings/csharp/FastKKM.dll -out:BUILD/bindings/csharp/Example.exe examples/csharp/Example.cs
//   mono BUILD/bindings/csharp/Example.exe
// or against the package alone (FastKKM.dll finds runtimes/linux-x64/native/libfastkkm_csharp.so
// from lib/netstandard2.0/):
//   P=BUILD/bindings/csharp/FastKKM.0.1.0
//   mcs -r:$P/lib/netstandard2.0/FastKKM.dll -out:/tmp/Example.exe examples/csharp/Example.cs
//   MONO_PATH=$P/lib/netstandard2.0 mono /tmp/Example.exe

using System;
using System.Globalization;
using FastKKM;

public static class Example
{
    // Two concentric rings of radius 1 and 3 around the origin, Gaussian noise 0.1:
    // linear k-means cannot separate them, an RBF kernel can.
    static float[,] Rings(int perRing, int seed, out int[] truth)
    {
        var random = new Random(seed);
        var x = new float[2 * perRing, 2];
        truth = new int[2 * perRing];
        for (int i = 0; i < 2 * perRing; ++i)
        {
            int ring = i / perRing;
            double radius = ring == 0 ? 1.0 : 3.0;
            double angle = 2.0 * Math.PI * random.NextDouble();
            x[i, 0] = (float)(radius * Math.Cos(angle) + 0.1 * Gaussian(random));
            x[i, 1] = (float)(radius * Math.Sin(angle) + 0.1 * Gaussian(random));
            truth[i] = ring;
        }
        return x;
    }

    static double Gaussian(Random random)
    {
        // Box-Muller
        double u = 1.0 - random.NextDouble();
        double v = random.NextDouble();
        return Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v);
    }

    public static int Main()
    {
        int[] truth;
        float[,] x = Rings(300, 42, out truth);

        // Gamma and NInit: the library's defaults (gamma=auto, n_init=auto), nothing hand-picked.
        using (var model = new KernelKMeans().K(2).Method("exact").Kernel("rbf").Seed(1))
        {
            model.Fit(x);
            double ari = Metrics.AdjustedRandIndex(model.Labels, truth);

            var inv = CultureInfo.InvariantCulture;
            Console.WriteLine("kkmeans " + KernelKMeans.Version + ": " + x.GetLength(0) + " points on two rings");
            Console.WriteLine("k          = " + model.NumClusters);
            Console.WriteLine("iterations = " + model.Iterations);
            Console.WriteLine("objective  = " + model.Objective.ToString("F4", inv));
            Console.WriteLine("sizes      = " + string.Join(" ", Array.ConvertAll(model.ClusterSizes, s => s.ToString("F0", inv))));
            Console.WriteLine("ARI        = " + ari.ToString("F4", inv));

            // New points, as a jagged array (float[,], double[,] and row-major arrays work too):
            // one near the inner ring, one near the outer ring.
            int[] predicted = model.Predict(new[] { new[] { 0.0, 1.0 }, new[] { -3.0, 0.0 } });
            Console.WriteLine("predict    = " + string.Join(" ", predicted));
            return ari >= 0.95 ? 0 : 1;
        }
    }
}
