#!/usr/bin/python3
"""A/B: the same fit with two builds of libkkmeans.so, alternating in one process.

Times kkm_fit on Fashion-MNIST (pixels / 255, 8-bit: the exact 8-bit tiles where the CPU has
VNNI) with library A and library B in turns (A B B A A B ...), so that a machine whose speed
drifts during the run charges both alike, and prints each build's median, the ratio B/A of
the medians, and whether both builds gave the same labels. Used for issue 60's "the 8-bit
path's guard costs <= 2 % of a Fashion-MNIST nystrom fit": A is the build under test, B the
one without the change (a copy of the tree built elsewhere, never this tree).

    /usr/bin/python3 bench/lib_ab.py --a build/src/libkkmeans.so --b /tmp/old/build/src/libkkmeans.so \
        [--params "k=10 method=nystrom m=1000"] [--repeats 7] [--n 0]

Run it on a quiet machine (no build, fuzzer or test beside it).
"""

import argparse
import statistics

from kkm_ctypes import (DEFAULT_FASHION_DIR, KkmeansError, cpu_name, load_fashion_mnist, log,
                        open_library, papers_gamma)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--a", required=True, help="libkkmeans.so under test")
    p.add_argument("--b", required=True, help="libkkmeans.so to compare against")
    p.add_argument("--params", default="k=10 method=nystrom m=1000",
                   help="fit parameters (default: the P1 fit, 'k=10 method=nystrom m=1000'; "
                        "gamma is the papers' rule unless given)")
    p.add_argument("--repeats", type=int, default=7, help="fits per build (default: 7)")
    p.add_argument("--n", type=int, default=0, help="random subsample of n rows (default: all 60000)")
    p.add_argument("--data-dir", default=str(DEFAULT_FASHION_DIR))
    return p.parse_args()


def main():
    args = parse_args()
    if args.repeats < 1:
        raise SystemExit("--repeats must be at least 1")
    libs = {"A": open_library(args.a), "B": open_library(args.b)}
    X, _ = load_fashion_mnist(args.data_dir, args.n)
    params = args.params
    if "gamma=" not in params:
        params += f" gamma={papers_gamma(X)!r}"
    log(f"n={X.shape[0]} d={X.shape[1]} params: {params}")
    times = {"A": [], "B": []}
    labels = {}
    order = []
    for r in range(args.repeats):
        order += ["A", "B"] if r % 2 == 0 else ["B", "A"]
    try:
        for name in order:
            got, seconds, _, resolved = libs[name].fit(X, params)
            times[name].append(seconds)
            labels.setdefault(name, got)
            log(f"{name}: {seconds:.3f} s (isa={resolved['isa']})")
    except KkmeansError as e:
        raise SystemExit(f"kkmeans: error: {e}")
    a, b = statistics.median(times["A"]), statistics.median(times["B"])
    same = bool((labels["A"] == labels["B"]).all())
    print(f"CPU: {cpu_name()}")
    print(f"params: {params} (n={X.shape[0]}, {args.repeats} fits per build, alternating)")
    print("| build | median fit (s) | all fits (s) |")
    print("|---|---|---|")
    for name, path in (("A", args.a), ("B", args.b)):
        print(f"| {name} ({path}) | {statistics.median(times[name]):.3f} | "
              + ", ".join(f"{t:.3f}" for t in times[name]) + " |")
    print(f"A / B = {a / b:.4f} (A costs {100 * (a / b - 1):+.2f} % of B's fit); same labels: {same}")


if __name__ == "__main__":
    main()
