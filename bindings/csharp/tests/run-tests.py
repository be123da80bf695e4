#!/usr/bin/env python3
"""Runs the C# binding's NUnit 2 tests and closes with "N passed, N failed".

Usage: run-tests.py NUNIT_CONSOLE TESTS_DLL

nunit-console runs without shadow copying, so FastKKM.dll is loaded from the build directory
and its loader finds libfastkkm_csharp.so beside it. Its summary line
"Tests run: N, Errors: E, Failures: F, Inconclusive: I, ..." becomes the closing line; a run
without that line (a crash) counts as one failure."""
import os
import re
import subprocess
import sys

SUMMARY = re.compile(r"^Tests run: (\d+), Errors: (\d+), Failures: (\d+), Inconclusive: (\d+)", re.M)
INVALID = re.compile(r"^\s*Not run: (\d+), Invalid: (\d+)", re.M)


def main(nunit_console, tests_dll):
    tests_dll = os.path.abspath(tests_dll)
    proc = subprocess.run(
        [nunit_console, "-nologo", "-noshadow", "-noresult", "-labels", tests_dll],
        cwd=os.path.dirname(tests_dll), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, check=False)
    sys.stdout.write(proc.stdout)
    summary = SUMMARY.findall(proc.stdout)
    if not summary:
        print(f"nunit-console exited with status {proc.returncode} and no summary")
        print("0 passed, 1 failed")
        return 1
    run, errors, failures, inconclusive = map(int, summary[-1])
    invalid = INVALID.findall(proc.stdout)
    invalid = int(invalid[-1][1]) if invalid else 0
    failed = errors + failures + invalid
    passed = run - errors - failures - inconclusive
    if proc.returncode != 0 and failed == 0:
        failed = 1
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and proc.returncode == 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
