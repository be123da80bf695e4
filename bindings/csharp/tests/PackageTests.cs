// PackageTests.cs — the NuGet package FastKKM as built (NUnit 2): its layout and metadata, the
// XML docs, the self-contained native library, clustering from a copy of the package alone in a
// child mono, and the loader's message when the native library is missing.
//
// Meson passes FASTKKM_PACKAGE_DIR, FASTKKM_NUPKG, FASTKKM_VERSION and FASTKKM_MONO; run by
// hand from the build directory, the package is found beside the test assembly.

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Xml;
using FastKKM;
using NUnit.Framework;

namespace FastKKM.Tests
{
    [TestFixture]
    public class PackageTests
    {
        const string Native = "libfastkkm_csharp.so";
        static readonly string[] Layout =
        {
            "FastKKM.nuspec",
            "lib/netstandard2.0/FastKKM.dll",
            "lib/netstandard2.0/FastKKM.xml",
            "runtimes/linux-x64/native/" + Native,
        };

        static string BuildDir
        {
            get { return Path.GetDirectoryName(typeof(PackageTests).Assembly.Location); }
        }

        static string Version
        {
            get { return Environment.GetEnvironmentVariable("FASTKKM_VERSION") ?? KernelKMeans.Version; }
        }

        static string PackageDir
        {
            get
            {
                return Environment.GetEnvironmentVariable("FASTKKM_PACKAGE_DIR") ??
                       Path.Combine(BuildDir, "FastKKM." + Version);
            }
        }

        static string Nupkg
        {
            get { return Environment.GetEnvironmentVariable("FASTKKM_NUPKG") ?? PackageDir + ".nupkg"; }
        }

        static string InPackage(string relative)
        {
            return Path.Combine(PackageDir, relative.Replace('/', Path.DirectorySeparatorChar));
        }

        // ------------------------------------------------------------------ layout

        [Test]
        public void PackageDirectoryHasTheNuGetLayoutAndNothingElse()
        {
            Assert.IsTrue(Directory.Exists(PackageDir), PackageDir);
            var files = Directory.GetFiles(PackageDir, "*", SearchOption.AllDirectories)
                                 .Select(f => f.Substring(PackageDir.Length + 1).Replace(Path.DirectorySeparatorChar, '/'))
                                 .OrderBy(f => f, StringComparer.Ordinal).ToArray();
            CollectionAssert.AreEqual(Layout.OrderBy(f => f, StringComparer.Ordinal).ToArray(), files);
            // The package's assembly and native library are the build's.
            CollectionAssert.AreEqual(File.ReadAllBytes(Path.Combine(BuildDir, "FastKKM.dll")),
                                      File.ReadAllBytes(InPackage("lib/netstandard2.0/FastKKM.dll")));
            CollectionAssert.AreEqual(File.ReadAllBytes(Path.Combine(BuildDir, Native)),
                                      File.ReadAllBytes(InPackage("runtimes/linux-x64/native/" + Native)));
        }

        [Test]
        public void NuspecNamesFastKKMAndTheProjectVersion()
        {
            var spec = new XmlDocument();
            spec.Load(InPackage("FastKKM.nuspec"));
            var ns = new XmlNamespaceManager(spec.NameTable);
            ns.AddNamespace("n", spec.DocumentElement.NamespaceURI);
            Assert.AreEqual("FastKKM", spec.SelectSingleNode("/n:package/n:metadata/n:id", ns).InnerText);
            string version = spec.SelectSingleNode("/n:package/n:metadata/n:version", ns).InnerText;
            Assert.AreEqual(Version, version);
            Assert.AreEqual(KernelKMeans.Version, version);
            Assert.AreEqual(new Version(version + ".0"), typeof(KernelKMeans).Assembly.GetName().Version);
            Assert.AreEqual("FastKKM", typeof(KernelKMeans).Assembly.GetName().Name);
            Assert.AreEqual("FastKKM", typeof(KernelKMeans).Namespace);
            Assert.IsNotNull(spec.SelectSingleNode("/n:package/n:metadata/n:dependencies/n:group[@targetFramework='.NETStandard2.0']", ns));
            Assert.That(spec.SelectSingleNode("/n:package/n:metadata/n:description", ns).InnerText, Is.StringContaining("kernel k-means"));
            StringAssert.EndsWith("FastKKM." + version + ".nupkg", Nupkg);
            // the authors as the other packages name them (pom.xml's developer, R's maintainer)
            Assert.AreEqual("The kkmeans authors", spec.SelectSingleNode("/n:package/n:metadata/n:authors", ns).InnerText);
            Assert.AreEqual("https://github.com/fastkkm/fastkkm",
                            spec.SelectSingleNode("/n:package/n:metadata/n:projectUrl", ns).InnerText);
        }

        [Test]
        public void NupkgHoldsThePackageDirectory()
        {
            using (ZipArchive zip = ZipFile.OpenRead(Nupkg))
            {
                var names = zip.Entries.Select(e => e.FullName).OrderBy(f => f, StringComparer.Ordinal).ToArray();
                var expected = Layout.Concat(new[] { "[Content_Types].xml", "_rels/.rels" })
                                     .OrderBy(f => f, StringComparer.Ordinal).ToArray();
                CollectionAssert.AreEqual(expected, names);
                foreach (string inside in Layout)
                {
                    using (Stream stream = zip.GetEntry(inside).Open())
                    using (var bytes = new MemoryStream())
                    {
                        stream.CopyTo(bytes);
                        CollectionAssert.AreEqual(File.ReadAllBytes(InPackage(inside)), bytes.ToArray(), inside);
                    }
                }
            }
        }

        [Test]
        public void XmlDocsDocumentEveryPublicTypeAndMember()
        {
            var docs = new XmlDocument();
            docs.Load(InPackage("lib/netstandard2.0/FastKKM.xml"));
            Assert.AreEqual("FastKKM", docs.SelectSingleNode("/doc/assembly/name").InnerText);
            var documented = new HashSet<string>();
            foreach (XmlNode member in docs.SelectNodes("/doc/members/member"))
            {
                if (member.SelectSingleNode("summary") != null && member.SelectSingleNode("summary").InnerText.Trim().Length > 0)
                {
                    documented.Add(member.Attributes["name"].Value);
                }
            }
            var missing = new List<string>();
            Type[] types = typeof(KernelKMeans).Assembly.GetExportedTypes();
            Assert.That(types.Length, Is.GreaterThanOrEqualTo(7));
            foreach (Type type in types)
            {
                if (!documented.Contains("T:" + type.FullName)) missing.Add("T:" + type.FullName);
                const BindingFlags Declared = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.DeclaredOnly;
                foreach (MemberInfo member in type.GetMembers(Declared))
                {
                    var method = member as MethodBase;
                    if (method != null && method.IsSpecialName && !(method is ConstructorInfo)) continue;  // get_/set_/op_
                    if (type.IsEnum && member.Name == "value__") continue;
                    string kind = member is MethodBase ? "M" : member is PropertyInfo ? "P" : member is FieldInfo ? "F" : member is EventInfo ? "E" : "T";
                    string name = member is ConstructorInfo ? "#ctor" : member.Name;
                    string prefix = kind + ":" + type.FullName + "." + name;
                    if (!documented.Any(d => d == prefix || d.StartsWith(prefix + "(", StringComparison.Ordinal)))
                    {
                        missing.Add(prefix);
                    }
                }
            }
            CollectionAssert.IsEmpty(missing, "public members without a <summary> in FastKKM.xml");
            Assert.IsTrue(documented.Contains(
                "M:FastKKM.KernelKMeans.Fit(System.Double[][],System.Threading.CancellationToken,System.IProgress{FastKKM.FitProgress})"));
            Assert.IsTrue(documented.Contains("M:FastKKM.KernelKMeans.Transform(System.Single[][])"));
        }

        [Test]
        public void NativeLibraryNeedsOnlySystemLibraries()
        {
            string library = InPackage("runtimes/linux-x64/native/" + Native);
            string dynamic = Run("readelf", "-d -W " + Quote(library), null, null).Item2;
            var needed = Regex.Matches(dynamic, @"\(NEEDED\)\s+Shared library: \[([^\]]+)\]").Cast<Match>()
                              .Select(m => m.Groups[1].Value).ToList();
            CollectionAssert.Contains(needed, "libgomp.so.1", dynamic);
            Assert.That(needed, Has.None.StringContaining("kkmeans"), dynamic);
            Assert.That(needed.Any(n => n.StartsWith("libblis", StringComparison.Ordinal) || n.StartsWith("libopenblas", StringComparison.Ordinal)),
                        dynamic);
            StringAssert.Contains("Library soname: [" + Native + "]", dynamic);
            Assert.That(dynamic, Is.Not.StringContaining("RPATH").And.Not.StringContaining("RUNPATH"));
            // Exported: the SWIG entry points only; the linked-in kkm_* functions stay local.
            string symbols = Run("readelf", "--dyn-syms -W " + Quote(library), null, null).Item2;
            var exported = Regex.Matches(symbols, @"^\s*\d+:\s+\S+\s+\d+\s+FUNC\s+GLOBAL\s+DEFAULT\s+\d+\s+(\S+)$", RegexOptions.Multiline)
                                .Cast<Match>().Select(m => m.Groups[1].Value).ToList();
            Assert.That(exported, Has.Some.EqualTo("CSharp_FastKKM_NativeModel_fit"));
            Assert.That(exported.Where(s => s.StartsWith("kkm_", StringComparison.Ordinal) && s != "kkm_cs_register_exception_callback"),
                        Is.Empty);
        }

        // ------------------------------------------------------------------ child processes

        [Test]
        public void PackageAloneClustersRingsInAChildProcess()
        {
            string root = TempDir();
            try
            {
                string package = Path.Combine(root, "packages", "FastKKM");
                CopyDirectory(PackageDir, package);
                string app = Path.Combine(root, "app");
                Directory.CreateDirectory(app);
                File.Copy(Path.Combine(BuildDir, "FastKKM.PackageProbe.exe"), Path.Combine(app, "probe.exe"));
                string lib = Path.Combine(package, "lib", "netstandard2.0");

                Tuple<int, string> result = RunMono(Path.Combine(app, "probe.exe"), app, lib);
                string output = result.Item2;
                Assert.AreEqual(0, result.Item1, output);
                StringAssert.Contains("assembly: " + Path.Combine(lib, "FastKKM.dll"), output);
                StringAssert.Contains("native: " + Path.Combine(package, "runtimes", "linux-x64", "native", Native), output);
                Match ari = Regex.Match(output, @"ARI=([0-9.]+)");
                Assert.IsTrue(ari.Success, output);
                Assert.That(double.Parse(ari.Groups[1].Value, CultureInfo.InvariantCulture), Is.GreaterThanOrEqualTo(0.95));

                // An application's output directory: FastKKM.dll with runtimes/linux-x64/native/ beside it.
                string flat = Path.Combine(root, "published");
                Directory.CreateDirectory(Path.Combine(flat, "runtimes", "linux-x64", "native"));
                File.Copy(Path.Combine(lib, "FastKKM.dll"), Path.Combine(flat, "FastKKM.dll"));
                File.Copy(Path.Combine(package, "runtimes", "linux-x64", "native", Native),
                          Path.Combine(flat, "runtimes", "linux-x64", "native", Native));
                File.Copy(Path.Combine(app, "probe.exe"), Path.Combine(flat, "probe.exe"));
                result = RunMono(Path.Combine(flat, "probe.exe"), flat, null);
                Assert.AreEqual(0, result.Item1, result.Item2);
                StringAssert.Contains("native: " + Path.Combine(flat, "runtimes", "linux-x64", "native", Native), result.Item2);
            }
            finally
            {
                Directory.Delete(root, true);
            }
        }

        [Test]
        public void MissingNativeLibraryNamesItAndEveryPlaceLooked()
        {
            string root = TempDir();
            try
            {
                string app = Path.Combine(root, "app");
                Directory.CreateDirectory(app);
                File.Copy(Path.Combine(BuildDir, "FastKKM.dll"), Path.Combine(app, "FastKKM.dll"));
                File.Copy(Path.Combine(BuildDir, "FastKKM.PackageProbe.exe"), Path.Combine(app, "probe.exe"));

                Tuple<int, string> result = RunMono(Path.Combine(app, "probe.exe"), app, null);
                string output = result.Item2;
                Assert.AreEqual(2, result.Item1, output);
                StringAssert.Contains("EXCEPTION System.DllNotFoundException: FastKKM could not load its native library " + Native, output);
                Assert.That(output, Is.Not.StringContaining("TypeInitializationException"));
                StringAssert.Contains(Path.Combine(app, "runtimes", "linux-x64", "native", Native) + " (no such file)", output);
                StringAssert.Contains(Path.GetFullPath(Path.Combine(app, "..", "..", "runtimes", "linux-x64", "native", Native)) +
                                      " (no such file)", output);
                StringAssert.Contains(Path.Combine(app, Native) + " (no such file)", output);
                StringAssert.Contains("the system's library search path (LD_LIBRARY_PATH", output);

                // A file that is there but cannot be loaded: its path and dlopen's reason.
                string broken = Path.Combine(app, "runtimes", "linux-x64", "native");
                Directory.CreateDirectory(broken);
                File.WriteAllText(Path.Combine(broken, Native), "not an ELF file");
                output = RunMono(Path.Combine(app, "probe.exe"), app, null).Item2;
                StringAssert.IsMatch(Regex.Escape(Path.Combine(broken, Native)) + @" \(.*(invalid ELF header|file too short)", output);
            }
            finally
            {
                Directory.Delete(root, true);
            }
        }

        // ------------------------------------------------------------------ helpers

        static string TempDir()
        {
            string dir = Path.Combine(Path.GetTempPath(), "fastkkm-test-" + Guid.NewGuid().ToString("N"));
            Directory.CreateDirectory(dir);
            return dir;
        }

        static void CopyDirectory(string from, string to)
        {
            Directory.CreateDirectory(to);
            foreach (string file in Directory.GetFiles(from)) File.Copy(file, Path.Combine(to, Path.GetFileName(file)));
            foreach (string dir in Directory.GetDirectories(from)) CopyDirectory(dir, Path.Combine(to, Path.GetFileName(dir)));
        }

        static string Quote(string path)
        {
            return "\"" + path.Replace("\\", "\\\\").Replace("\"", "\\\"") + "\"";
        }

        // mono EXE in workdir, with MONO_PATH = monoPath (or none) and no LD_LIBRARY_PATH, so
        // that the child sees only the copied files and the system.
        static Tuple<int, string> RunMono(string exe, string workdir, string monoPath)
        {
            string mono = Environment.GetEnvironmentVariable("FASTKKM_MONO") ?? "mono";
            var env = new Dictionary<string, string> { { "MONO_PATH", monoPath }, { "LD_LIBRARY_PATH", null } };
            return Run(mono, Quote(exe), workdir, env);
        }

        static Tuple<int, string> Run(string program, string arguments, string workdir, IDictionary<string, string> env)
        {
            var start = new ProcessStartInfo(program, arguments)
            {
                UseShellExecute = false,
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                WorkingDirectory = workdir ?? BuildDir,
            };
            if (env != null)
            {
                foreach (KeyValuePair<string, string> pair in env)
                {
                    start.EnvironmentVariables.Remove(pair.Key);
                    if (pair.Value != null) start.EnvironmentVariables[pair.Key] = pair.Value;
                }
            }
            using (Process process = Process.Start(start))
            {
                var stderr = process.StandardError.ReadToEndAsync();
                string stdout = process.StandardOutput.ReadToEnd();
                if (!process.WaitForExit(120000))
                {
                    process.Kill();
                    Assert.Fail(program + " " + arguments + " ran past 120 s");
                }
                string output = stdout + stderr.Result;
                Console.Write(output);
                return Tuple.Create(process.ExitCode, output);
            }
        }
    }
}
