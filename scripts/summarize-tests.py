#!/usr/bin/env python3
"""Sums meson testlog.json files into one closing line "N passed, N failed".

A test whose output carries GoogleTest's summary counts its cases; one that prints
"N passed, N failed" itself (the C ABI test, language suites) counts those; any other test
counts as one case, passed or failed by its exit status.

usage: summarize-tests.py [LOG...]   (default: build/meson-logs/testlog.json)
With more than one log, each gets its own line "LOG: N passed, N failed" first; the last
line is always the sum. A log that does not exist (its build failed before any test ran)
counts as one failed case."""
import json
import re
import sys

GTEST_PASSED = re.compile(r"^\[  PASSED  \] (\d+) tests?", re.M)
GTEST_FAILED = re.compile(r"^\[  FAILED  \] (\d+) tests?, listed below", re.M)
PLAIN = re.compile(r"^(\d+) passed, (\d+) failed", re.M)


def count(entry):
    out = entry.get("stdout", "") or ""
    ok = entry.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
    passed = GTEST_PASSED.findall(out)
    failed = GTEST_FAILED.findall(out)
    if passed or failed:
        p = int(passed[-1]) if passed else 0
        f = int(failed[-1]) if failed else 0
        if not ok and f == 0:
            f = 1  # crashed or timed out after its summary
        return p, f
    plain = PLAIN.findall(out)
    if plain:
        p, f = map(int, plain[-1])
        return p, (f if ok or f else 1)
    return (1, 0) if ok else (0, 1)


def summarize(path):
    passed = failed = 0
    try:
        log = open(path, encoding="utf-8")
    except OSError as e:
        print(f"{path}: {e.strerror}: counted as 1 failed", file=sys.stderr)
        return 0, 1
    with log:
        for line in log:
            if line.strip():
                p, f = count(json.loads(line))
                passed += p
                failed += f
    return passed, failed


def main(paths):
    passed = failed = 0
    for path in paths:
        p, f = summarize(path)
        if len(paths) > 1:
            print(f"{path}: {p} passed, {f} failed")
        passed += p
        failed += f
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["build/meson-logs/testlog.json"]))
