#!/usr/bin/env python3
"""The README's parameter table is `kkmeans params` (generated from kkm_param_info).

    scripts/readme_params.py build/tools/kkmeans [README.md]          # rewrite the table
    scripts/readme_params.py --check build/tools/kkmeans [README.md]  # exit 1 if it differs
"""
import subprocess
import sys
from pathlib import Path

HEADER = "| name | type | default | range | description |"


def table_span(lines):
    start = lines.index(HEADER)
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return start, end


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if not args:
        sys.exit(__doc__)
    tool = args[0]
    readme = Path(args[1]) if len(args) > 1 else Path(__file__).resolve().parent.parent / "README.md"
    generated = subprocess.run([tool, "params"], check=True, capture_output=True, text=True).stdout.splitlines()
    lines = readme.read_text().splitlines()
    start, end = table_span(lines)
    new_start, new_end = table_span(generated)
    table = generated[new_start:new_end]
    if lines[start:end] == table:
        return 0
    if check:
        for old, new in zip(lines[start:end], table):
            if old != new:
                print(f"README.md's parameter table differs from `kkmeans params`:\n  README: {old}\n  "
                      f"library: {new}\nrun scripts/readme_params.py {tool}", file=sys.stderr)
                break
        else:
            print("README.md's parameter table has a different number of rows than `kkmeans params`; "
                  f"run scripts/readme_params.py {tool}", file=sys.stderr)
        return 1
    readme.write_text("\n".join(lines[:start] + table + lines[end:]) + "\n")
    print(f"{readme}: parameter table rewritten ({len(table) - 2} parameters)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
