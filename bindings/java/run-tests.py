#!/usr/bin/env python3
"""The meson test of the Java binding (bindings/java/meson.build passes every path).

Cases, each counted in the last line "N passed, N failed":
  1. the JUnit 5 suite (console launcher; the launcher's "[ N tests successful ]" and
     "[ N tests failed ]" counts), run with only the test jar and the versioned jar on the
     class path and no library path, so the JNI library is loaded from the jar; PackagingTest
     gets the artifacts' paths as -Dfastkkm.test.* properties;
  2. the example as a single source file with only the versioned jar on the class path
     (java -cp fastkkm-<version>.jar Example.java): it exits non-zero if its ARI is poor;
  3. the compiled example jar with -Dfastkkm.library.path naming the built JNI library
     (the override is what gets loaded);
  4. the JNI library's ELF: it needs no libkkmeans.so and exports only Java_* symbols;
  5. javadoc's doclint fails the build script on a warning (an undocumented public method),
     and passes the same class once documented.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SUCCESSFUL = re.compile(r"\[\s*(\d+) tests successful\s*\]")
FAILED = re.compile(r"\[\s*(\d+) tests failed\s*\]")
ABORTED = re.compile(r"\[\s*(\d+) tests aborted\s*\]")
FOUND = re.compile(r"\[\s*(\d+) tests found\s*\]")


def clean_env():
    """The environment minus anything that could point the JVM or ld.so at the build."""
    env = dict(os.environ)
    for key in ("LD_LIBRARY_PATH", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"):
        env.pop(key, None)
    return env


def run(cmd, env=None):
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", env=env if env is not None else clean_env())
    print(proc.stdout, flush=True)
    return proc


def last(pattern, text):
    found = pattern.findall(text)
    return int(found[-1]) if found else None


def field(text, key):
    for line in text.splitlines():
        if line.startswith(key):
            return line[len(key):].strip()
    return None


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def case(self, name, ok, why=""):
        print("%s: %s%s" % (name, "ok" if ok else "FAILED", "" if ok or not why else " (" + why + ")"),
              flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def junit(a, tally):
    props = {"jar": a.jar, "sourcesJar": a.sources_jar, "javadocJar": a.javadoc_jar, "pom": a.pom,
             "java": a.java, "smoke": a.smoke_source, "version": a.version}
    cmd = [a.java] + ["-Dfastkkm.test.%s=%s" % (k, os.path.abspath(v) if k not in ("version",) else v)
                      for k, v in props.items()]
    cmd += ["-jar", a.junit, "--class-path", os.pathsep.join([a.tests_jar, a.jar]),
            "--select-package", "io.github.fastkkm.test",
            "--disable-banner", "--disable-ansi-colors", "--details=tree"]
    proc = run(cmd)
    ok = last(SUCCESSFUL, proc.stdout)
    bad = last(FAILED, proc.stdout)
    aborted = last(ABORTED, proc.stdout) or 0
    found = last(FOUND, proc.stdout)
    if ok is None or bad is None:
        tally.case("junit", False, "no summary found, launcher exit status %d" % proc.returncode)
        return
    print("junit: %d tests found, %d successful, %d failed, %d aborted (exit status %d)"
          % (found or 0, ok, bad, aborted, proc.returncode))
    tally.passed += ok
    tally.failed += bad + aborted
    if proc.returncode != 0 and bad + aborted == 0:
        tally.case("junit exit status", False, str(proc.returncode))
    if found is not None and found == 0:
        tally.case("junit", False, "no tests found")


def example_from_jar_only(a, tally):
    with tempfile.TemporaryDirectory(prefix="fastkkm-example-") as tmp:
        proc = run([a.java, "-Dfastkkm.tmpdir=" + tmp, "-cp", a.jar, a.example_source])
        left = os.listdir(tmp)
    origin = field(proc.stdout, "native library =") or ""
    tally.case("example with only %s on the class path" % os.path.basename(a.jar),
               proc.returncode == 0 and "ARI" in proc.stdout and origin.startswith("jar:/native/") and not left,
               "exit status %d, origin %r, left in tmpdir %r" % (proc.returncode, origin, left))


def example_with_property(a, tally):
    jni = os.path.abspath(a.jni)
    proc = run([a.java, "-Dfastkkm.library.path=" + jni, "-cp", os.pathsep.join([a.example_jar, a.jar]),
                "Example"])
    origin = field(proc.stdout, "native library =")
    tally.case("example with -Dfastkkm.library.path", proc.returncode == 0 and origin == jni,
               "exit status %d, origin %r" % (proc.returncode, origin))


def elf(a, tally):
    if not a.readelf:
        tally.case("JNI library ELF", False, "readelf not found (Debian binutils)")
        return
    dyn = run([a.readelf, "-d", "-W", a.jni])
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dyn.stdout)
    ours = [n for n in needed if "kkmeans" in n or "fastkkm" in n]
    tally.case("JNI library needs no libkkmeans.so (NEEDED %s)" % ", ".join(needed),
               dyn.returncode == 0 and needed and not ours, "needs %s" % ours)
    syms = subprocess.run([a.readelf, "--dyn-syms", "-W", a.jni], stdout=subprocess.PIPE, text=True)
    exported = []
    for line in syms.stdout.splitlines():
        cols = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(cols) >= 8 and cols[0].endswith(":") and cols[4] in ("GLOBAL", "WEAK") and cols[6] != "UND":
            exported.append(cols[7])
    strays = [s for s in exported if not s.startswith("Java_io_github_fastkkm_")]
    tally.case("JNI library exports only Java_io_github_fastkkm_* (%d symbols)" % len(exported),
               syms.returncode == 0 and len(exported) > 10 and not strays, "also exports %s" % strays[:10])


UNDOCUMENTED = """package p;

/** A class. */
public final class Api {
    private Api() {}

%s    public static int answer(int x) {
        return x;
    }
}
"""
DOC = """    /**
     * The answer.
     *
     * @param x a number
     * @return x
     */
"""


def doclint(a, tally):
    with tempfile.TemporaryDirectory(prefix="fastkkm-doclint-") as tmp:
        results = []
        for name, doc in (("bad", ""), ("good", DOC)):
            src = os.path.join(tmp, name, "Api.java")
            os.makedirs(os.path.dirname(src))
            with open(src, "w", encoding="utf-8") as f:
                f.write(UNDOCUMENTED % doc)
            out = os.path.join(tmp, name + ".jar")
            proc = run([sys.executable, a.build_jar, a.javadoc, a.jar_tool, out, os.path.join(tmp, name, "work"),
                        "--javadoc", "doclint test", src])
            results.append((proc, os.path.exists(out)))
        (bad, bad_jar), (good, good_jar) = results
    tally.case("javadoc -Xdoclint:all -Werror fails on an undocumented method",
               bad.returncode != 0 and not bad_jar and "no comment" in bad.stdout
               and good.returncode == 0 and good_jar,
               "undocumented: exit %d; documented: exit %d" % (bad.returncode, good.returncode))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for opt in ("java", "javadoc", "jar-tool", "readelf", "junit", "build-jar", "jni", "jar", "sources-jar",
                "javadoc-jar", "pom", "tests-jar", "example-jar", "example-source", "smoke-source", "version"):
        p.add_argument("--" + opt, required=True)
    a = p.parse_args(argv[1:])
    tally = Tally()
    junit(a, tally)
    example_from_jar_only(a, tally)
    example_with_property(a, tally)
    elf(a, tally)
    doclint(a, tally)
    print("%d passed, %d failed" % (tally.passed, tally.failed))
    return 0 if tally.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
