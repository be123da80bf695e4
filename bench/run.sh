#!/bin/sh
# Builds kkmeans if needed, then runs the Fashion-MNIST benchmark against scikit-learn.
#   bench/run.sh [fashion_mnist.py options]     e.g. bench/run.sh --n 10000 --seeds 3
# BUILD_DIR (default: build) selects the meson build directory.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-build}
case $build in /*) ;; *) build=$root/$build ;; esac

if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" >&2
fi
ninja -C "$build" >&2
exec /usr/bin/python3 "$root/bench/fashion_mnist.py" --lib "$build/src/libkkmeans.so" "$@"
