#!/usr/bin/env python3
"""Meson dist script of the fastkkm sdist: replaces the link subprojects/kkmeans (to the
repository root, which `meson dist` archives as a bare symbolic link) by a copy of what the C
library's build reads: the git-tracked files of the repository's meson.build,
meson_options.txt, LICENSE, include/, src/, examples/, bindings/meson.build and bindings/swig/. The sdist then
builds offline: `pip install --no-build-isolation fastkkm-VERSION.tar.gz`."""
import os
import pathlib
import shutil
import subprocess

LIBRARY_PATHS = ["meson.build", "meson_options.txt", "LICENSE", "include", "src", "examples", "bindings/meson.build",
                 "bindings/swig"]

source = pathlib.Path(os.environ["MESON_PROJECT_SOURCE_ROOT"]).resolve()
repo = (source / "subprojects" / "kkmeans").resolve()
target = pathlib.Path(os.environ["MESON_PROJECT_DIST_ROOT"]) / "subprojects" / "kkmeans"
if target.is_symlink() or target.is_file():
    target.unlink()
elif target.exists():
    shutil.rmtree(target)
tracked = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--", *LIBRARY_PATHS], check=True,
                         capture_output=True).stdout.decode().split("\0")
for name in filter(None, tracked):
    destination = target / name
    destination.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(repo / name, destination)
print(f"dist: {len([t for t in tracked if t])} library files into {target}")
