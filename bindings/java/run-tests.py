#!/usr/bin/env python3
"""The meson test of the Java binding: JUnit 5 suite plus the example program.

usage: run-tests.py JAVA JUNIT_CONSOLE_JAR JNI_LIB KKMEANS_JAR TESTS_JAR EXAMPLE_JAR

Runs the JUnit platform console launcher on the test jar (with the JNI library given by
-Dkkmeans.library.path), then the example (it exits non-zero if its ARI is poor), and
prints a last line "N passed, N failed": the launcher's "[ N tests successful ]" and
"[ N tests failed ]" counts, plus one case for the example.
"""
import os
import re
import subprocess
import sys

SUCCESSFUL = re.compile(r"\[\s*(\d+) tests successful\s*\]")
FAILED = re.compile(r"\[\s*(\d+) tests failed\s*\]")
ABORTED = re.compile(r"\[\s*(\d+) tests aborted\s*\]")
FOUND = re.compile(r"\[\s*(\d+) tests found\s*\]")


def run(cmd):
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace")
    print(proc.stdout, flush=True)
    return proc


def last(pattern, text):
    found = pattern.findall(text)
    return int(found[-1]) if found else None


def main(argv):
    if len(argv) != 7:
        print(__doc__, file=sys.stderr)
        return 2
    java, junit, jni_lib, kkmeans_jar, tests_jar, example_jar = argv[1:]
    lib_prop = "-Dkkmeans.library.path=" + os.path.abspath(jni_lib)
    passed = failed = 0

    # 1. JUnit 5 suite.
    junit_cmd = [java, lib_prop, "-jar", junit,
                 "--class-path", os.pathsep.join([tests_jar, kkmeans_jar]),
                 "--select-package", "kkmeans.test",
                 "--disable-banner", "--disable-ansi-colors", "--details=tree"]
    proc = run(junit_cmd)
    ok = last(SUCCESSFUL, proc.stdout)
    bad = last(FAILED, proc.stdout)
    aborted = last(ABORTED, proc.stdout) or 0
    found = last(FOUND, proc.stdout)
    if ok is None or bad is None:
        print("junit: no summary found (launcher exit status %d)" % proc.returncode)
        failed += 1
    else:
        print("junit: %d tests found, %d successful, %d failed, %d aborted (exit status %d)"
              % (found or 0, ok, bad, aborted, proc.returncode))
        passed += ok
        failed += bad + aborted
        if proc.returncode != 0 and bad + aborted == 0:
            failed += 1
        if found is not None and found == 0:
            print("junit: no tests found")
            failed += 1

    # 2. The example (examples/java/Example.java) runs and reports a good ARI.
    proc = run([java, lib_prop, "-cp", os.pathsep.join([example_jar, kkmeans_jar]), "Example"])
    if proc.returncode == 0 and "ARI" in proc.stdout:
        print("example: ok")
        passed += 1
    else:
        print("example: FAILED (exit status %d)" % proc.returncode)
        failed += 1

    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
