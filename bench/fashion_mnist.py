#!/usr/bin/python3
"""Fashion-MNIST: kkmeans (Nystrom kernel k-means, through ctypes) against scikit-learn
(Nystroem + KMeans), same data, same gamma, same number of landmarks, in one process.

Run with Debian's python, which has numpy and scikit-learn (python3-sklearn):

    /usr/bin/python3 bench/fashion_mnist.py [--seeds N] [--threads T] [--m M] [--n N]

Prints a Markdown table (system | fit time (s) | NMI | ARI), the speed ratio and the NMI
difference. Target: kkmeans >= 10x faster at NMI >= scikit-learn's - 0.005.
"""

import argparse
import json
import os
import platform
import statistics
from pathlib import Path

from kkm_ctypes import (DEFAULT_FASHION_DIR as DEFAULT_DATA_DIR, OPENBLAS_CORE_HELP, KkmeansError,
                        choose_openblas_core, cpu_name, load_fashion_mnist, log, mean_std,
                        numpy_blas, open_library, papers_gamma, parse_timings)

TARGET_SPEEDUP = 10.0
TARGET_NMI_LOSS = 0.005


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR),
                   help="directory of the Fashion-MNIST *-idx?-ubyte.gz files (default: %(default)s)")
    p.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1, one fit each (default: 1)")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for both systems; 0 = all cores (default: 0)")
    p.add_argument("--m", type=int, default=1000, help="landmarks / n_components (default: 1000)")
    p.add_argument("--k", type=int, default=10, help="clusters (default: 10)")
    p.add_argument("--n", type=int, default=0,
                   help="use a random subsample of N training images (default: all 60000)")
    p.add_argument("--blas", help="label of the BLAS kkmeans was built with, for the report "
                   "(default: taken from the library's timings if present, else the meson option)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    p.add_argument("--skip-sklearn", action="store_true", help="run kkmeans only")
    p.add_argument("--json", help="also write the results to this JSON file")
    args = p.parse_args()
    if args.seeds < 1 or args.threads < 0 or args.m < 1 or args.k < 2 or args.n < 0:
        p.error("need --seeds >= 1, --threads >= 0, --m >= 1, --k >= 2, --n >= 0")
    return args


# ---------------------------------------------------------------------------- the two systems

def run_kkmeans(kkm, X, y, args, gamma, metrics):
    runs = []
    for seed in range(args.seeds):
        params = (f"k={args.k} method=nystrom m={args.m} gamma={gamma!r} seed={seed} n_init=1 "
                  f"threads={args.threads}")
        log(f"kkmeans: fit seed={seed} ({params})...")
        labels, seconds, timings, resolved = kkm.fit(X, params)
        runs.append(score(seconds, labels, y, metrics, timings=timings, resolved=resolved))
        log(f"kkmeans: {seconds:.2f} s, NMI {runs[-1]['nmi']:.4f}, stages: {timings}")
    return runs


def run_sklearn(X, y, args, gamma, metrics):
    import peers
    runs = []
    for seed in range(args.seeds):
        log(f"scikit-learn: Nystroem(n_components={args.m}) + KMeans(n_clusters={args.k}) seed={seed}...")
        peer = peers.sklearn_nystroem_kmeans(X, args.k, args.m, gamma, seed, args.threads)
        stages = peers.stages_text(peer)
        runs.append(score(peer["time_s"], peer["labels"], y, metrics, timings=stages))
        log(f"scikit-learn: {peer['time_s']:.2f} s, NMI {runs[-1]['nmi']:.4f}, stages: {stages}")
    return runs


def score(seconds, labels, y, metrics, **extra):
    return dict(seconds=seconds,
                nmi=float(metrics.normalized_mutual_info_score(y, labels)),
                ari=float(metrics.adjusted_rand_score(y, labels)), **extra)


# ---------------------------------------------------------------------------- report

def table_row(name, runs):
    return (f"| {name} | {mean_std([r['seconds'] for r in runs], 2)} | "
            f"{mean_std([r['nmi'] for r in runs], 4)} | {mean_std([r['ari'] for r in runs], 4)} |")


def blas_label(args, kkm_runs):
    if args.blas:
        return args.blas
    stages = parse_timings(kkm_runs[0]["timings"])
    if "blas" in stages:
        return stages["blas"]
    return "meson option 'blas' of the build (default: blis)"


def report(args, X, gamma, kkm, kkm_runs, skl_runs, core_note):
    import sklearn
    threads = f"{args.threads}" if args.threads else f"0 = all cores ({os.cpu_count()})"
    print(f"## Fashion-MNIST: n={X.shape[0]}, d={X.shape[1]}, k={args.k}, m={args.m}, "
          f"gamma={gamma:.6g}, seeds={args.seeds}\n")
    print("| system | fit time (s) | NMI | ARI |")
    print("|---|---:|---:|---:|")
    print(table_row(f"kkmeans {kkm.version()} (nystrom)", kkm_runs))
    if skl_runs:
        print(table_row(f"scikit-learn {sklearn.__version__} (Nystroem + KMeans)", skl_runs))
    print()
    if skl_runs:
        speedup = statistics.mean(r["seconds"] for r in skl_runs) / statistics.mean(r["seconds"] for r in kkm_runs)
        nmi_diff = statistics.mean(r["nmi"] for r in kkm_runs) - statistics.mean(r["nmi"] for r in skl_runs)
        met = speedup >= TARGET_SPEEDUP and nmi_diff >= -TARGET_NMI_LOSS
        print(f"- speed ratio scikit-learn / kkmeans: {speedup:.2f}x")
        print(f"- NMI difference kkmeans - scikit-learn: {nmi_diff:+.4f}")
        print(f"- target (>= {TARGET_SPEEDUP:g}x faster, NMI >= scikit-learn's - {TARGET_NMI_LOSS}): "
              f"{'met' if met else 'NOT met'}")
    print(f"- kkmeans stages (seed 0): {kkm_runs[0]['timings']}")
    print(f"- kkmeans resolved: gamma={kkm_runs[0]['resolved']['gamma']} m={kkm_runs[0]['resolved']['m']}")
    print(f"- kkmeans BLAS: {blas_label(args, kkm_runs)}; numpy/scikit-learn BLAS: {numpy_blas()}; {core_note}")
    print(f"- threads: {threads}; CPU: {cpu_name()}; python {platform.python_version()}")


def main():
    args = parse_args()
    core_note = choose_openblas_core(args.openblas_core)  # before numpy loads OpenBLAS
    from sklearn import metrics

    kkm = open_library(args.lib)

    log(f"loading Fashion-MNIST from {args.data_dir}...")
    X, y = load_fashion_mnist(args.data_dir, args.n)
    gamma = papers_gamma(X)
    log(f"n={X.shape[0]} d={X.shape[1]} gamma={gamma!r}")

    try:
        kkm_runs = run_kkmeans(kkm, X, y, args, gamma, metrics)
    except KkmeansError as e:
        raise SystemExit(f"kkmeans: error: {e}")
    skl_runs = [] if args.skip_sklearn else run_sklearn(X, y, args, gamma, metrics)
    report(args, X, gamma, kkm, kkm_runs, skl_runs, core_note)
    if args.json:
        Path(args.json).write_text(json.dumps(dict(
            n=X.shape[0], d=X.shape[1], k=args.k, m=args.m, gamma=gamma, threads=args.threads,
            cpu_count=os.cpu_count(), numpy_blas=numpy_blas(), openblas_core=core_note,
            kkmeans=kkm_runs, sklearn=skl_runs), indent=2) + "\n")


if __name__ == "__main__":
    main()
