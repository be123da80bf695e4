// PackageProbe.cs — a program that uses FastKKM the way a package user does; the package
// tests (PackageTests.cs) run it in a child mono from copies of the package.
//
// It clusters two rings (jagged double[][] input) and prints where FastKKM.dll and
// libfastkkm_csharp.so were loaded from ("assembly: PATH", "native: PATH", from
// /proc/self/maps) and "ARI=..."; exit status 0 when the rings are separated, 1 when not.
// Any exception is printed as "EXCEPTION <type>: <message>" (its outermost type, so a
// TypeInitializationException would show as such), exit status 2.

using System;
using System.Globalization;
using System.IO;
using FastKKM;

public static class PackageProbe
{
    public static int Main()
    {
        try
        {
            // examples/csharp/Example.cs's rings (radii 1 and 3, Gaussian noise 0.1, 300 per ring, seed 42).
            var random = new Random(42);
            const int perRing = 300;
            var x = new double[2 * perRing][];
            var truth = new int[2 * perRing];
            for (int i = 0; i < x.Length; ++i)
            {
                int ring = i / perRing;
                double radius = ring == 0 ? 1.0 : 3.0;
                double angle = 2.0 * Math.PI * random.NextDouble();
                x[i] = new double[] { (float)(radius * Math.Cos(angle) + 0.1 * Gaussian(random)),
                                      (float)(radius * Math.Sin(angle) + 0.1 * Gaussian(random)) };
                truth[i] = ring;
            }
            using (var model = new KernelKMeans().K(2).Method("exact").Kernel("rbf").Gamma(0.5).NInit(3).Seed(1))
            {
                model.Fit(x);
                double ari = Metrics.AdjustedRandIndex(model.Labels, truth);
                Console.WriteLine("assembly: " + typeof(KernelKMeans).Assembly.Location);
                foreach (string line in File.ReadAllLines("/proc/self/maps"))
                {
                    int slash = line.IndexOf('/');
                    if (slash >= 0 && line.EndsWith("/libfastkkm_csharp.so", StringComparison.Ordinal))
                    {
                        Console.WriteLine("native: " + line.Substring(slash));
                        break;
                    }
                }
                Console.WriteLine("ARI=" + ari.ToString("F4", CultureInfo.InvariantCulture));
                return ari >= 0.95 ? 0 : 1;
            }
        }
        catch (Exception e)
        {
            Console.WriteLine("EXCEPTION " + e.GetType().FullName + ": " + e.Message);
            return 2;
        }
    }

    static double Gaussian(Random random)
    {
        double u = 1.0 - random.NextDouble();
        double v = random.NextDouble();
        return Math.Sqrt(-2.0 * Math.Log(u)) * Math.Cos(2.0 * Math.PI * v);
    }
}
