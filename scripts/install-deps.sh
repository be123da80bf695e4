#!/usr/bin/env bash
# Installs everything kkmeans needs to build, test and run its demo, from Debian's packages.
# Idempotent: packages already installed are not fetched again; apt-get update runs only when
# something is missing. Run as root (or through sudo).
#   scripts/install-deps.sh            library, CLI, C/C++ tests, Fashion-MNIST demo data, OpenMPI
#                                      (libkkmeans_mpi, kkmeans-mpi, the mpi suite), and the
#                                      R, Java and C# bindings with their test runners, and
#                                      clang with LLVM's OpenMP (scripts/sanitize.sh tsan-omp)
#   scripts/install-deps.sh --bench    also what bench/ needs: scikit-learn, scipy, matplotlib,
#                                      threadpoolctl, OpenBLAS, R's mlbench and kernlab
set -euo pipefail

packages=(meson ninja-build pkg-config g++ libblis-openmp-dev liblapacke-dev libgtest-dev
          zlib1g-dev libeigen3-dev libspectra-dev python3 dataset-fashion-mnist
          libopenmpi-dev openmpi-bin
          swig openjdk-17-jdk-headless junit5
          mono-mcs mono-devel libnunit-cil-dev nunit-console
          r-base-dev r-cran-testthat r-cran-matrix
          python3-numpy python3-sklearn python3-pytest python3-mesonpy python3-venv python3-pip
          clang libomp-dev libclang-rt-14-dev)
for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(python3-numpy python3-scipy python3-sklearn python3-threadpoolctl
                        python3-matplotlib libopenblas-openmp-dev r-base-core r-cran-mlbench
                        r-cran-kernlab) ;;
    *) echo "usage: $0 [--bench]" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
