#!/usr/bin/env python3
"""Keeps tests/BAD_INPUT.md from rotting.

Usage: check_bad_input_table.py BAD_INPUT.md TESTS_DIR

For every table row of BAD_INPUT.md (a line starting with '|', except header and separator
rows):
  - the last column names tests as `file.cpp:Suite.Name`, separated by commas; each file must
    exist in TESTS_DIR and define TEST / TEST_F / TEST_P(Suite, Name), not DISABLED_;
    a shell test script's check is named `check_name.sh:"start of the check's name"`: the
    script must exist in TESTS_DIR (or TESTS_DIR/mpi) and hold a line `check "<that text>...`;
    a check of a pure C test program is named `test_x.c:"start of the check's name"`;
    a test of the MPI programs (tests/mpi/mpi_test.h's harness) is named
    `mpi/test_mpi_x.cpp:"start of the test's name"`: the file must run such a test;
  - a row without a test ('—') must be marked as a finding (its first column starts with
    '**finding:**');
  - every status written in the status column (INVALID_ARGUMENT, ..., or OK) must be a status
    of include/kkmeans.h.
Conversely every test defined in test_api_bad_input.cpp must be named somewhere in the table.
Exits 1 and lists every problem, or prints a one-line summary and exits 0.
"""
import pathlib
import re
import sys

TEST_REF = re.compile(r"^(test_[A-Za-z0-9_]+\.(?:cpp|c)):([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$")
STATUS = re.compile(r"\b(OK|INVALID_ARGUMENT|INVALID_DATA|NOT_FITTED|OUT_OF_MEMORY|IO|FORMAT|CANCELLED|INTERNAL|[A-Z]+(?:_[A-Z0-9]+)+)\b")
SCRIPT_REF = re.compile(r'^((?:mpi/)?check_[A-Za-z0-9_]+\.sh):"([^"]+)"$')
# A test of the MPI programs' own harness (tests/mpi/mpi_test.h): suite.run("name", ...).
HARNESS_REF = re.compile(r'^(mpi/test_mpi_[A-Za-z0-9_]+\.cpp):"([^"]+)"$')
# A check of a pure C test program: check(condition, "name") in tests/test_x.c.
C_REF = re.compile(r'^(test_[A-Za-z0-9_]+\.c):"([^"]+)"$')
NO_TEST = {"—", "-", ""}
# The references that name a check by the start of its name: the reference's form, what the
# file must hold for that name, and what a missing one is called.
NAMED_CHECKS = [
    (SCRIPT_REF, lambda name: re.escape(f'check "{name}'), "has no check whose name starts with"),
    (C_REF, lambda name: r'"' + re.escape(name) + r'[^"]*"\)', "has no check named"),
    (HARNESS_REF, lambda name: r'\.run\((?:std::string\()?"' + re.escape(name), "runs no test whose name starts with"),
]


def defined_tests(source: str) -> set:
    """(suite, name) of every TEST, TEST_F and TEST_P in a C++ source."""
    found = set()
    for m in re.finditer(r"\bTEST(?:_F|_P)?\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)", source):
        found.add((m.group(1), m.group(2)))
    return found


def split_row(line: str) -> list:
    cells = line.strip().strip("|").split("|")
    return [c.strip() for c in cells]


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    table = pathlib.Path(sys.argv[1])
    tests_dir = pathlib.Path(sys.argv[2])
    header = tests_dir.parent / "include" / "kkmeans.h"
    statuses = set(re.findall(r"\bKKM_(OK|ERR_[A-Z_]+)\b", header.read_text()))
    known_status = {s[len("ERR_"):] if s.startswith("ERR_") else s for s in statuses}

    problems = []
    sources = {}
    referenced = set()
    rows = 0
    for number, line in enumerate(table.read_text().splitlines(), start=1):
        if not line.startswith("|"):
            continue
        cells = split_row(line)
        if cells[0] == "bad input" or set("".join(cells)) <= set("-: "):
            continue  # header or separator
        rows += 1
        where = f"{table.name}:{number}"
        if len(cells) != 5:
            problems.append(f"{where}: {len(cells)} columns, expected 5")
            continue
        bad_input, _, status, _, tests = cells
        for word in STATUS.findall(status):
            if word not in known_status:
                problems.append(f"{where}: status '{word}' is not a kkm_status of {header.name}")
        refs = [t.strip().strip("`") for t in tests.split(",")]
        if all(r in NO_TEST or r.startswith("— (") for r in refs):
            if not bad_input.startswith("**finding:**"):
                problems.append(f"{where}: no test named for '{bad_input}' (only findings may have none)")
            continue
        for ref in refs:
            named = next(((kind, m) for kind in NAMED_CHECKS if (m := kind[0].match(ref))), None)
            if named:
                (_, pattern, missing), found = named
                file, name = found.groups()
                path = tests_dir / file
                if not path.exists():
                    problems.append(f"{where}: {file} does not exist in {tests_dir}")
                elif not re.search(pattern(name), path.read_text()):
                    problems.append(f"{where}: {file} {missing} '{name}'")
                continue
            m = TEST_REF.match(ref)
            if not m:
                problems.append(f"{where}: '{ref}' is not of the form file.cpp:Suite.Name")
                continue
            file, suite, name = m.groups()
            path = tests_dir / file
            if file not in sources:
                sources[file] = defined_tests(path.read_text()) if path.exists() else None
            if sources[file] is None:
                problems.append(f"{where}: {file} does not exist in {tests_dir}")
            elif (suite, name) not in sources[file]:
                problems.append(f"{where}: {file} defines no test {suite}.{name}")
            elif name.startswith("DISABLED_") or suite.startswith("DISABLED_"):
                problems.append(f"{where}: {suite}.{name} is disabled")
            referenced.add((file, suite, name))

    own = "test_api_bad_input.cpp"
    for suite, name in sorted(defined_tests((tests_dir / own).read_text())):
        if (own, suite, name) not in referenced:
            problems.append(f"{own}: {suite}.{name} is not named in {table.name}")

    if rows == 0:
        problems.append(f"{table}: no table rows found")
    if problems:
        print("\n".join(problems))
        print(f"{len(problems)} problem(s) in {table.name}")
        return 1
    print(f"{table.name}: {rows} rows, {len(referenced)} test references, all defined")
    return 0


if __name__ == "__main__":
    sys.exit(main())
