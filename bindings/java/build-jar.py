#!/usr/bin/env python3
"""Builds the Java binding's jars (used by bindings/java/meson.build).

usage: build-jar.py TOOL JAR OUT.jar WORKDIR [options] INPUT...

Each INPUT ending in .java is a source; each ending in .jar goes on the class path.
Three kinds of jar, by option:

  (default)        TOOL is javac: the sources are compiled (--release 11, -Xlint:all
                   -Werror, so a warning fails the build) into WORKDIR/classes, packed in OUT.jar.
  --sources        the sources themselves, each under its package's directory (TOOL unused).
  --javadoc TITLE  TOOL is javadoc: the public API of the sources, documented with
                   -Xdoclint:all -Werror (a missing comment, @param, @return or a broken
                   reference fails the build; package-private classes are left out).

Options for every kind:
  --main CLASS             Main-Class of the manifest
  --manifest KEY=VALUE     one more manifest attribute (repeatable)
  --resource NAME=FILE     FILE stored in the jar as NAME (repeatable)
"""
import os
import re
import shutil
import subprocess
import sys

PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)


def fail(message):
    print("build-jar.py: " + message, file=sys.stderr)
    return 2


def package_of(source):
    with open(source, encoding="utf-8") as f:
        found = PACKAGE.search(f.read())
    return found.group(1) if found else ""


def main(argv):
    if len(argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    tool, jar, out, workdir = argv[1:5]
    rest = argv[5:]
    main_class = None
    kind = "classes"
    title = None
    manifest = []
    resources = []
    inputs = []
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg in ("--main", "--manifest", "--resource", "--javadoc"):
            if i + 1 >= len(rest):
                return fail(arg + " needs a value")
            value = rest[i + 1]
            i += 2
            if arg == "--main":
                main_class = value
            elif arg == "--javadoc":
                kind = "javadoc"
                title = value
            else:
                key, sep, val = value.partition("=")
                if not sep or not key:
                    return fail(arg + " " + value + ": expected NAME=VALUE")
                (manifest if arg == "--manifest" else resources).append((key, val))
        elif arg == "--sources":
            kind = "sources"
            i += 1
        else:
            inputs.append(arg)
            i += 1
    sources = [os.path.abspath(p) for p in inputs if p.endswith(".java")]
    classpath = [os.path.abspath(p) for p in inputs if p.endswith(".jar")]
    if not sources:
        return fail("no .java inputs")

    content = os.path.join(workdir, kind)
    shutil.rmtree(content, ignore_errors=True)
    os.makedirs(content)
    if kind == "classes":
        cmd = [tool, "--release", "11", "-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d", content]
        if classpath:
            cmd += ["-classpath", os.pathsep.join(classpath)]
        subprocess.run(cmd + sources, check=True)
    elif kind == "sources":
        for source in sources:
            target = os.path.join(content, *package_of(source).split("."), os.path.basename(source))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
    else:
        cmd = [tool, "--release", "11", "-encoding", "UTF-8", "-docencoding", "UTF-8", "-charset", "UTF-8",
               "-quiet", "-Xdoclint:all", "-Werror", "-doctitle", title, "-windowtitle", title,
               "-d", content]
        if classpath:
            cmd += ["-classpath", os.pathsep.join(classpath)]
        subprocess.run(cmd + sources, check=True)

    for name, path in resources:
        target = os.path.join(content, *name.strip("/").split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(path, target)

    tmp = out + ".tmp"
    cmd = [jar, "--create", "--file", tmp]
    if main_class:
        cmd += ["--main-class", main_class]
    if manifest:
        manifest_file = os.path.join(workdir, "MANIFEST.add")
        with open(manifest_file, "w", encoding="utf-8") as f:
            for key, value in manifest:
                f.write("%s: %s\n" % (key, value))
        cmd += ["--manifest", manifest_file]
    subprocess.run(cmd + ["-C", content, "."], check=True)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except subprocess.CalledProcessError as e:
        sys.exit(e.returncode or 1)
