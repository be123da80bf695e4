#!/bin/sh
# The scoreboard, one command: builds kkmeans (release, build-bench/) if needed, then runs every
# benchmark in turn at its default (paper-scale) settings. Each prints its Markdown tables and
# writes them, with its SVG plots, to bench/results/ (linked from the README); raw records go
# to bench/out/.
#
#   bench/run.sh                 # everything: about 60-75 min on 2 cores, needs ~16 GiB RAM
#   bench/run.sh --quick         # every script at small sizes (a smoke test, ~3 min);
#                                # writes to bench/out/quick/, never to bench/results/
#   bench/run.sh targets peers   # a subset, by name (targets peers calandriello yin wang minibatch graph defaults)
#
# Needs: scripts/install-deps.sh --bench (adds scikit-learn, scipy, matplotlib, threadpoolctl,
# R's mlbench and kernlab to the build's packages).
# BUILD_DIR (default build-bench) selects the meson build directory; THREADS (default 0 = all
# cores) is passed to every script.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-build-bench}
case $build in /*) ;; *) build=$root/$build ;; esac
threads=${THREADS:-0}

quick=""
parts=""
for arg in "$@"; do
    case $arg in
        --quick) quick="--quick" ;;
        targets|peers|calandriello|yin|wang|minibatch|graph|defaults) parts="$parts $arg" ;;
        *) echo "bench/run.sh: unknown argument '$arg' (--quick, targets, peers, calandriello, yin, wang, minibatch, graph, defaults)" >&2; exit 2 ;;
    esac
done
[ -n "$parts" ] || parts="targets peers calandriello yin wang minibatch graph defaults"

if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "$root" --buildtype=release -Dtests=false -Djava=disabled -Dcsharp=disabled -Dr=disabled >&2
fi
ninja -C "$build" >&2
lib=$build/src/libkkmeans.so
py=/usr/bin/python3
common="--lib $lib --threads $threads $quick"

status=0
for part in $parts; do
    echo "=== bench/run.sh: $part ($(date -u +%H:%M:%S) UTC)" >&2
    start=$(date +%s)
    case $part in
        targets) $py "$root/bench/targets.py" $common || status=1 ;;
        peers) $py "$root/bench/peers_board.py" $common || status=1 ;;
        calandriello) $py "$root/bench/repro_calandriello.py" $common || status=1 ;;
        yin) $py "$root/bench/repro_yin.py" $common || status=1 ;;
        wang) $py "$root/bench/repro_wang.py" $common || status=1 ;;
        minibatch) $py "$root/bench/minibatch.py" $common --seeds 3 || status=1 ;;
        graph) $py "$root/bench/graph.py" $common || status=1 ;;
        defaults) $py "$root/bench/defaults.py" --lib "$lib" $quick || status=1 ;;
    esac
    echo "=== bench/run.sh: $part took $(( $(date +%s) - start )) s" >&2
done
exit $status
