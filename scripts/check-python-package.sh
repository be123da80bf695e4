#!/usr/bin/env bash
# The Python package as a user installs it from PyPI: the sdist meson-python makes from
# bindings/python (fastkkm-VERSION.tar.gz, the C library's sources inside: it must not need this
# checkout), then a venv (--system-site-packages: Debian's numpy and scikit-learn) in /tmp,
# `pip install --no-build-isolation --no-index fastkkm-VERSION.tar.gz` (offline; meson-python
# builds libkkmeans from the sdist), then, outside the source tree, import fastkkm and cluster
# two rings (ARI >= 0.95, the library loaded from the venv). `pip install ./bindings/python`
# builds the same meson project from the checkout.
# Writes LOG (default build/python-package.json): one line of meson's testlog format that
# scripts/summarize-tests.py counts as one case. JOBS=N limits the compile to N jobs.
set -uo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
log="$(realpath -m "${1:-build/python-package.json}")"
mkdir -p "$(dirname "$log")"
venv="$(mktemp -d /tmp/fastkkm-venv.XXXXXX)"
out="$venv.log"
trap 'rm -rf "$venv"' EXIT
compile=()
[ -n "${JOBS:-}" ] && compile=(--config-settings=compile-args=-j"$JOBS")
start=$SECONDS
(
  set -e
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  mkdir "$venv/sdist"
  (cd "$repo/bindings/python" && /usr/bin/python3 -c 'import mesonpy, sys; print(mesonpy.build_sdist(sys.argv[1]))' "$venv/sdist")
  rm -rf "$repo"/bindings/python/.mesonpy-*  # meson-python's build directory and native file
  sdist=$(ls "$venv"/sdist/fastkkm-*.tar.gz)
  tar tzf "$sdist" >"$venv/sdist/files"
  grep -q '/PKG-INFO$' "$venv/sdist/files"
  grep -q '/subprojects/kkmeans/src/api/c_api.cpp$' "$venv/sdist/files"
  echo "sdist: $(basename "$sdist"), $(wc -l <"$venv/sdist/files") files"
  cd /tmp
  "$venv/bin/pip" install --no-build-isolation --no-index --disable-pip-version-check "${compile[@]}" "$sdist"
  "$venv/bin/python" - <<'PY'
import sys
import numpy as np
from sklearn.metrics import adjusted_rand_score
import fastkkm
from fastkkm import KernelKMeans
rng = np.random.default_rng(7)
angle = rng.uniform(0, 2 * np.pi, 1000)
radius = np.repeat([1.0, 3.0], 500)
X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]) + rng.normal(0, 0.1, (1000, 2))
km = KernelKMeans(n_clusters=2, method="nystrom", m=200, bandwidth_scale=0.4, n_init=5, random_state=1).fit(X)
ari = adjusted_rand_score(np.repeat([0, 1], 500), km.labels_)
print(f"fastkkm {fastkkm.__version__} from {fastkkm.__file__}, library {fastkkm._native.library_path()}: ARI {ari:.3f}")
assert fastkkm.__file__.startswith(sys.prefix), (fastkkm.__file__, sys.prefix)
assert fastkkm._native.library_path().is_file()
assert ari >= 0.95, ari
PY
) > "$out" 2>&1
status=$?
result=$([ $status -eq 0 ] && echo OK || echo FAIL)
tail -n 40 "$out"
echo "python package: $result in $((SECONDS - start)) s"
/usr/bin/python3 - "$log" "$out" "$result" "$((SECONDS - start))" <<'PY'
import json, sys
log, out, result, seconds = sys.argv[1:]
text = open(out, encoding="utf-8", errors="replace").read()[-20000:]
text += f"\n{1 if result == 'OK' else 0} passed, {0 if result == 'OK' else 1} failed\n"
with open(log, "w", encoding="utf-8") as f:
    f.write(json.dumps({"name": "python-package", "result": result, "duration": float(seconds),
                        "stdout": text}) + "\n")
PY
rm -f "$out"
exit $status
