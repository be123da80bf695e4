// NativeLoader.cs — finds and loads libfastkkm_csharp.so before the first P/Invoke.
//
// The SWIG intermediary class imports "fastkkm_csharp". Mono (and .NET) look for it beside the
// assembly and on the system's search path only, and when that fails the first call dies in the
// intermediary's static constructor: a TypeInitializationException around a
// DllNotFoundException that says neither the file name nor where it was looked for. So the
// public entry points (the KernelKMeans constructor, KernelKMeans.Version, Metrics) first call
// EnsureLoaded, which dlopens the library by absolute path from the places a NuGet package puts
// it. The library's SONAME is libfastkkm_csharp.so, so the runtime's own later
// dlopen("libfastkkm_csharp.so") returns this already-loaded copy (glibc matches the SONAME of
// loaded objects). When no place has it, EnsureLoaded throws a DllNotFoundException naming the
// library and every place looked.

using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Runtime.InteropServices;

namespace FastKKM
{
    internal static class NativeLoader
    {
        /// <summary>The native wrapper's file name (and SONAME).</summary>
        internal const string LibraryName = "libfastkkm_csharp.so";

        /// <summary>Where a NuGet package keeps it, relative to the package or application root.</summary>
        internal static readonly string RuntimeDirectory = Path.Combine("runtimes", "linux-x64", "native");

        private const int RTLD_NOW = 2;

        private static readonly object gate = new object();
        private static volatile bool loaded;

        [DllImport("libdl.so.2", EntryPoint = "dlopen")]
        private static extern IntPtr dlopen(string path, int flags);

        [DllImport("libdl.so.2", EntryPoint = "dlerror")]
        private static extern IntPtr dlerror();

        /// <summary>
        /// Loads the native library once per process; thread-safe. Throws DllNotFoundException
        /// naming every place looked when it cannot be loaded (and tries again on the next call).
        /// </summary>
        internal static void EnsureLoaded()
        {
            if (loaded) return;
            lock (gate)
            {
                if (loaded) return;
                Load();
                loaded = true;
            }
        }

        // The places looked, in order:
        //   1. <assembly dir>/runtimes/linux-x64/native/  (an application's output directory: the
        //      .NET SDK copies the package's native assets there);
        //   2. <assembly dir>/../../runtimes/linux-x64/native/  (the package's own layout, with the
        //      assembly referenced in place from lib/netstandard2.0/);
        //   3. <assembly dir>/  (the build directory, or the library copied beside the assembly);
        //   4. the system's search path (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib).
        private static void Load()
        {
            var looked = new List<string>();
            string error;
            foreach (string candidate in Candidates())
            {
                if (!File.Exists(candidate))
                {
                    looked.Add(candidate + " (no such file)");
                    continue;
                }
                if (TryOpen(candidate, out error)) return;
                looked.Add(candidate + " (" + error + ")");
            }
            if (TryOpen(LibraryName, out error)) return;
            looked.Add("the system's library search path (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib): " + error);
            throw new DllNotFoundException(
                "FastKKM could not load its native library " + LibraryName + " (built for linux-x64; it needs " +
                "BLIS, LAPACKE and libgomp from the system). Looked in:" + Environment.NewLine + "  " +
                string.Join(Environment.NewLine + "  ", looked) + Environment.NewLine +
                "Keep the package's runtimes/linux-x64/native/" + LibraryName + " (relative to the application " +
                "or to the package root), put " + LibraryName + " beside FastKKM.dll, or add its directory to LD_LIBRARY_PATH.");
        }

        private static IEnumerable<string> Candidates()
        {
            var seen = new HashSet<string>();
            foreach (string dir in AssemblyDirectories())
            {
                foreach (string path in new[]
                {
                    Path.Combine(Path.Combine(dir, RuntimeDirectory), LibraryName),
                    Path.Combine(Path.Combine(Path.Combine(Path.Combine(dir, ".."), ".."), RuntimeDirectory), LibraryName),
                    Path.Combine(dir, LibraryName),
                })
                {
                    string full = Path.GetFullPath(path);
                    if (seen.Add(full)) yield return full;
                }
            }
        }

        // The directory of FastKKM.dll; also its original directory when the runtime loaded a
        // shadow copy (CodeBase differs from Location).
        private static IEnumerable<string> AssemblyDirectories()
        {
            Assembly assembly = typeof(NativeLoader).Assembly;
            string location = assembly.Location;
            if (!string.IsNullOrEmpty(location)) yield return Path.GetDirectoryName(Path.GetFullPath(location));
            string codeBase = null;
            try
            {
                var uri = new Uri(assembly.CodeBase);
                if (uri.IsFile) codeBase = Path.GetDirectoryName(uri.LocalPath);
            }
            catch (Exception)
            {
                // No usable CodeBase (an assembly loaded from bytes): only Location counts.
            }
            if (codeBase != null) yield return codeBase;
        }

        private static bool TryOpen(string path, out string error)
        {
            try
            {
                if (dlopen(path, RTLD_NOW) != IntPtr.Zero)
                {
                    error = null;
                    return true;
                }
                IntPtr message = dlerror();
                error = message == IntPtr.Zero ? "dlopen failed" : Marshal.PtrToStringAnsi(message);
            }
            catch (DllNotFoundException e)
            {
                error = "no dlopen on this system (libdl.so.2: " + e.Message + ")";
            }
            catch (EntryPointNotFoundException e)
            {
                error = "no dlopen on this system (" + e.Message + ")";
            }
            return false;
        }
    }
}
