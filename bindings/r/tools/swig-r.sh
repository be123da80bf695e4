#!/bin/sh
# Runs SWIG over bindings/swig/kkmeans.i for R and writes the two generated files of the
# package: the C++ wrapper and the R functions calling it.
#
#   swig-r.sh SWIG SWIG_DIR WRAP_CPP R_FILE
#
# The meson build runs it into the build dir (bindings/r/meson.build); to refresh the copies
# committed in the package after editing bindings/swig/*.i, run from the repository root:
#
#   sh bindings/r/tools/swig-r.sh swig bindings/swig bindings/r/src/kkmeans_wrap.cpp bindings/r/R/swig_kkmeans.R
#
# (or `ninja -C BUILD r-update-swig`). The command line SWIG records in the R file is
# replaced by a fixed one so that the output does not depend on where it was generated.
set -eu
swig=$1
swig_dir=$2
wrap=$3
rfile=$4

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$swig" -c++ -r -I"$swig_dir" -o "$tmp/kkmeans_wrap.cpp" -outdir "$tmp" "$swig_dir/kkmeans.i"
sed 's|^##	 .*-c++ -r .*|##	 swig -c++ -r kkmeans.i  (bindings/r/tools/swig-r.sh)|' "$tmp/kkmeans.R" > "$tmp/swig_kkmeans.R"
cp "$tmp/kkmeans_wrap.cpp" "$wrap"
cp "$tmp/swig_kkmeans.R" "$rfile"
