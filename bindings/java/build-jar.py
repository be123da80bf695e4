#!/usr/bin/env python3
"""Compiles Java sources into one jar (used by bindings/java/meson.build).

usage: build-jar.py JAVAC JAR OUT.jar WORKDIR [--main CLASS] INPUT...

Each INPUT ending in .java is compiled; each ending in .jar goes on the class path.
Classes are written to WORKDIR/classes (emptied first), then packed into OUT.jar.
javac runs with -Xlint:all -Werror, so a warning fails the build.
"""
import os
import shutil
import subprocess
import sys


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    javac, jar, out, workdir = argv[1:5]
    rest = argv[5:]
    main_class = None
    if len(rest) >= 2 and rest[0] == "--main":
        main_class = rest[1]
        rest = rest[2:]
    sources = [os.path.abspath(p) for p in rest if p.endswith(".java")]
    classpath = [os.path.abspath(p) for p in rest if p.endswith(".jar")]
    if not sources:
        print("build-jar.py: no .java inputs", file=sys.stderr)
        return 2
    classes = os.path.join(workdir, "classes")
    shutil.rmtree(classes, ignore_errors=True)
    os.makedirs(classes)
    cmd = [javac, "--release", "11", "-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d", classes]
    if classpath:
        cmd += ["-classpath", os.pathsep.join(classpath)]
    subprocess.run(cmd + sources, check=True)
    tmp = out + ".tmp"
    cmd = [jar, "--create", "--file", tmp]
    if main_class:
        cmd += ["--main-class", main_class]
    subprocess.run(cmd + ["-C", classes, "."], check=True)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except subprocess.CalledProcessError as e:
        sys.exit(e.returncode or 1)
