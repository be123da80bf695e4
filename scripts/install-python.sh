#!/usr/bin/env bash
# Installs the Python package fastkkm (bindings/python) into a virtual environment, with
# Debian's interpreter named explicitly: a python3 first on PATH (pyenv, conda, python.org)
# does not see Debian's python3-mesonpy, python3-numpy and python3-sklearn, and pip then fails
# with "No module named 'mesonpy'". Works wherever scripts/install-deps.sh has run.
#   scripts/install-python.sh [VENV]     VENV defaults to ~/venv; made with
#                                        --system-site-packages (Debian's numpy, scikit-learn)
#                                        unless it exists and sees them already
#   PYTHON=/path/to/python3              another interpreter that has meson-python, numpy and
#                                        scikit-learn (default /usr/bin/python3)
#   JOBS=N                               compile with N jobs (default: all cores)
# pip runs meson-python, which compiles libkkmeans from this checkout (about 2 minutes on 2
# cores) into VENV's site-packages/fastkkm; nothing is installed outside VENV. Offline.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-/usr/bin/python3}"
venv="${1:-$HOME/venv}"

die() { printf 'install-python: %s\n' "$*" >&2; exit 1; }

[ -x "$python" ] || die "$python not found: install Debian's python3 (sudo apt-get install python3, or scripts/install-deps.sh), or name an interpreter with PYTHON=/path/to/python3"

# What the build and the package need, with the Debian package that provides each.
missing=()
for pair in mesonpy:python3-mesonpy numpy:python3-numpy sklearn:python3-sklearn venv:python3-venv; do
  "$python" -c "import ${pair%%:*}" 2>/dev/null || missing+=("${pair#*:} (Python module ${pair%%:*})")
done
for pair in meson:meson ninja:ninja-build c++:g++ pkg-config:pkg-config; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:} (command ${pair%%:*})")
done
if [ ${#missing[@]} -gt 0 ]; then
  {
    echo "install-python: $python lacks what the build needs:"
    for m in "${missing[@]}"; do echo "  - $m"; done
    pkgs=$(printf '%s\n' "${missing[@]}" | cut -d' ' -f1 | sort -u | tr '\n' ' ')
    echo "Install them with: sudo apt-get install ${pkgs% } (or run scripts/install-deps.sh, which"
    echo "installs everything the repository needs)."
    if [ "$python" != /usr/bin/python3 ]; then
      echo "Debian's packages serve Debian's /usr/bin/python3 only: run without PYTHON=, or name an"
      echo "interpreter that has meson-python, numpy and scikit-learn: PYTHON=/path/to/python3 $0 ${1:-}"
    fi
  } >&2
  exit 1
fi

if [ -e "$venv" ]; then
  [ -x "$venv/bin/python" ] || die "$venv exists and is not a virtual environment (no $venv/bin/python); remove it or name another folder"
  "$venv/bin/python" -c 'import mesonpy, numpy, sklearn' 2>/dev/null ||
    die "$venv exists but its python does not see meson-python, numpy and scikit-learn (made by another python3, or without --system-site-packages); remove it or name another folder"
  echo "install-python: installing into the existing $venv"
else
  "$python" -m venv --system-site-packages "$venv" ||
    die "$python -m venv failed: on Debian it needs python3-venv (sudo apt-get install python3-venv python3-pip)"
  echo "install-python: made $venv ($python, --system-site-packages)"
fi

compile=()
[ -n "${JOBS:-}" ] && compile=(--config-settings=compile-args=-j"$JOBS")
"$venv/bin/python" -m pip install --no-build-isolation --disable-pip-version-check "${compile[@]}" ./bindings/python
rm -rf bindings/python/.mesonpy-*  # meson-python's native file, naming this venv's python

# Import it from outside the checkout: the installed package and its own libkkmeans.so.
cd /
FASTKKM_LIBRARY= "$venv/bin/python" -c '
import fastkkm, sys
print(f"install-python: fastkkm {fastkkm.__version__} in {fastkkm.__file__}")
assert fastkkm.__file__.startswith(sys.prefix), (fastkkm.__file__, sys.prefix)
'
echo "install-python: use it with $venv/bin/python (or: source $venv/bin/activate)"
