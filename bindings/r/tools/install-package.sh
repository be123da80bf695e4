#!/bin/sh
# Meson build step: stages the package with freshly generated SWIG files and installs it
# into a library directory inside the build tree.
#
#   install-package.sh R PKG_SRC WRAP_CPP R_FILE PC_DIR STAGE_DIR LIB_DIR STAMP
#
# PKG_SRC is bindings/r; WRAP_CPP and R_FILE come from swig-r.sh in the build dir; PC_DIR
# holds the build tree's kkmeans.pc (it goes first in PKG_CONFIG_PATH, so the package is
# compiled and linked against this build's include/ and libkkmeans.so, with an rpath to it).
set -eu
R=$1
pkg_src=$2
wrap=$3
rfile=$4
pc_dir=$5
stage=$6
lib=$7
stamp=$8

rm -rf "$stage"
mkdir -p "$stage" "$lib"
cp -R "$pkg_src" "$stage/fastkkm"
rm -rf "$stage/fastkkm/meson.build" "$stage/fastkkm/tools" "$stage/fastkkm/src/Makevars" \
       "$stage/fastkkm/src/"*.o "$stage/fastkkm/src/"*.so
cp "$wrap" "$stage/fastkkm/src/kkmeans_wrap.cpp"
cp "$rfile" "$stage/fastkkm/R/swig_kkmeans.R"

PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PKG_CONFIG_PATH
if ! "$R" CMD INSTALL --no-multiarch --library="$lib" "$stage/fastkkm" > "$stage/install.log" 2>&1; then
    cat "$stage/install.log" >&2
    exit 1
fi
touch "$stamp"
