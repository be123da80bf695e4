#!/usr/bin/env python3
"""Lays out the FastKKM NuGet package: a directory and the .nupkg (a zip of the same files).

Usage: package.py --id ID --version V --license SPDX --dll DLL --xml XML --native SO
                  --outdir DIR --nupkg FILE

DIR (replaced whole) and FILE then hold
    ID.nuspec
    lib/netstandard2.0/ID.dll, lib/netstandard2.0/ID.xml
    runtimes/linux-x64/native/<native library's file name>
and the .nupkg also [Content_Types].xml and _rels/.rels (the OPC parts `nuget pack` writes).
Zip entries carry a fixed timestamp, so the same inputs give the same bytes."""
import argparse
import os
import shutil
import sys
import tempfile
import zipfile
from xml.sax.saxutils import escape

DESCRIPTION = ("Kernel k-means clustering at scale: exact kernel k-means, Nystrom landmarks, "
               "sketches and random Fourier features, with gamma and k chosen by search. "
               "C# binding of the kkmeans C library (C++20, BLIS, LAPACKE, OpenMP). "
               "The native library is built for linux-x64 and needs BLIS, LAPACKE and libgomp "
               "from the system (Debian: libblis4-openmp liblapacke libgomp1).")

CONTENT_TYPES = """<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
  <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml" />
  <Default Extension="nuspec" ContentType="application/octet" />
  <Default Extension="dll" ContentType="application/octet" />
  <Default Extension="xml" ContentType="application/octet" />
  <Default Extension="so" ContentType="application/octet" />
</Types>
"""

RELS = """<?xml version="1.0" encoding="utf-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
  <Relationship Type="http://schemas.microsoft.com/packaging/2010/07/manifest" Target="/{nuspec}" Id="R0" />
</Relationships>
"""

ZIP_TIME = (2000, 1, 1, 0, 0, 0)


def nuspec(package_id, version, license_expression):
    return f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd">
  <metadata>
    <id>{escape(package_id)}</id>
    <version>{escape(version)}</version>
    <title>{escape(package_id)}: kernel k-means clustering</title>
    <authors>The kkmeans authors</authors>
    <projectUrl>https://github.com/fastkkm/fastkkm</projectUrl>
    <license type="expression">{escape(license_expression)}</license>
    <requireLicenseAcceptance>false</requireLicenseAcceptance>
    <description>{escape(DESCRIPTION)}</description>
    <tags>kernel k-means clustering nystrom machine-learning</tags>
    <dependencies>
      <group targetFramework=".NETStandard2.0" />
    </dependencies>
  </metadata>
</package>
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for name in ("id", "version", "license", "dll", "xml", "native", "outdir", "nupkg"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()

    files = {  # path inside the package -> source file
        f"lib/netstandard2.0/{args.id}.dll": args.dll,
        f"lib/netstandard2.0/{args.id}.xml": args.xml,
        f"runtimes/linux-x64/native/{os.path.basename(args.native)}": args.native,
    }
    spec_name = f"{args.id}.nuspec"
    spec = nuspec(args.id, args.version, args.license).encode("utf-8")

    # The directory: built beside, then swapped in (a failed run leaves no half directory).
    outdir = os.path.abspath(args.outdir)
    staging = tempfile.mkdtemp(prefix=".staging-", dir=os.path.dirname(outdir))
    try:
        os.chmod(staging, 0o755)  # mkdtemp's is 0700
        for inside, source in files.items():
            target = os.path.join(staging, inside)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
            shutil.copymode(source, target)
        with open(os.path.join(staging, spec_name), "wb") as out:
            out.write(spec)
        if os.path.isdir(outdir):
            shutil.rmtree(outdir)
        os.rename(staging, outdir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise

    # The .nupkg: written beside, renamed over.
    partial = args.nupkg + ".partial"
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name, data):
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)

        add("_rels/.rels", RELS.format(nuspec=spec_name))
        add(spec_name, spec)
        for inside, source in files.items():
            with open(source, "rb") as f:
                add(inside, f.read())
        add("[Content_Types].xml", CONTENT_TYPES)
    os.replace(partial, args.nupkg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
