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
#
# The R package is `fastkkm` while the SWIG module (shared with Java and C#) stays `kkmeans`,
# so the sed lines rename what SWIG names after the module (SWIG 4.1's -package option
# crashes): PACKAGE='fastkkm' in every .Call() (SWIG's two unused callback helpers get one
# too), and the init function R_init_fastkkm, which registers every wrapper
# (R_registerRoutines) and, added here, turns off lookup of unregistered symbols
# (R_useDynamicSymbols(dll, FALSE)), as R CMD check asks.
set -eu
swig=$1
swig_dir=$2
wrap=$3
rfile=$4

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
"$swig" -c++ -r -I"$swig_dir" -o "$tmp/kkmeans_wrap.cpp" -outdir "$tmp" "$swig_dir/kkmeans.i"
sed -e 's|^##	 .*-c++ -r .*|##	 swig -c++ -r kkmeans.i  (bindings/r/tools/swig-r.sh)|' \
    -e "s|PACKAGE='kkmeans'|PACKAGE='fastkkm'|" \
    -e 's|^\(  \.Call("R_SWIG_[A-Za-z_]*"[^)]*\))|\1, PACKAGE='"'"'fastkkm'"'"')|' \
    "$tmp/kkmeans.R" > "$tmp/swig_kkmeans.R"
sed -e 's|R_init_kkmeans(|R_init_fastkkm(|' \
    -e 's|^\( *\)R_registerRoutines(dll, NULL, CallEntries, NULL, NULL);|&\n\1R_useDynamicSymbols(dll, FALSE);|' \
    "$tmp/kkmeans_wrap.cpp" > "$tmp/wrap.cpp"
grep -q 'R_useDynamicSymbols' "$tmp/wrap.cpp" || { echo "swig-r.sh: R_registerRoutines not found in the wrapper" >&2; exit 1; }
cp "$tmp/wrap.cpp" "$wrap"
cp "$tmp/swig_kkmeans.R" "$rfile"
