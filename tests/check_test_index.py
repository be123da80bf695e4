#!/usr/bin/python3
"""tests/README.md names every test source of tests/ and tests/mpi/, and only files that exist.

    check_test_index.py README.md TESTS_DIR

A new test file without its feature's row in the index fails here, and so does a row naming a
file that was renamed or removed."""

import re
import sys
from pathlib import Path

SOURCES = ("*.cpp", "*.c", "*.h", "*.sh", "*.py", "*.md")


def main():
    index_path, tests = Path(sys.argv[1]), Path(sys.argv[2])
    index = index_path.read_text()
    named = set(re.findall(r"`((?:mpi/)?[\w.]+\.(?:cpp|c|h|sh|py|md))`", index))
    files = {p.relative_to(tests).as_posix() for pattern in SOURCES for p in tests.glob(pattern)}
    files |= {p.relative_to(tests).as_posix() for pattern in SOURCES for p in (tests / "mpi").glob(pattern)}
    files.discard("README.md")
    missing = sorted(files - named)
    gone = sorted(n for n in named if not (tests / n).exists() and not (tests.parent / n).exists())
    for name in missing:
        print(f"{index_path}: tests/{name} is not in the index: add it to its feature's row")
    for name in gone:
        print(f"{index_path}: names {name}, which is not in tests/")
    if missing or gone:
        return 1
    print(f"{len(files)} test files, every one in the index")
    return 0


if __name__ == "__main__":
    sys.exit(main())
