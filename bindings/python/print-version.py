#!/usr/bin/env python3
"""Prints the version of the kkmeans meson project (subprojects/kkmeans/meson.build), which
the fastkkm package carries: the one place the version is written."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent / "subprojects" / "kkmeans" / "meson.build"
match = re.search(r"project\([^)]*?\bversion\s*:\s*'([^']+)'", root.read_text(), re.S)
if not match:
    sys.exit(f"no version in the project() call of {root}")
print(match.group(1))
