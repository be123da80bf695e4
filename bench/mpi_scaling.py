#!/usr/bin/env python3
"""Distributed fits (kkmeans-mpi) on one machine: P ranks x T threads against one process.

For each size (Fashion-MNIST replicated with N(0, 0.01^2) noise, as targets.py's P5: 480000 x
784 and 1000000 x 784) the script writes the rows once as raw float32, then runs

    mpirun -np P kkmeans-mpi fit --dims 784 rows.f32 k=10 method=nystrom m=1000 gamma=... threads=T

for (P, T) in the configurations below, each writing its labels; it reports the wall time of
the fit (the tool's summary), the bytes each rank received (KKMEANS_MPI_STATS=1: MpiComm
counts them), whether the labels equal the one-process run's, and NMI against the classes.
On this project's 2-core machine P x T = 2 is the fair comparison with 1 x 2; P = 4 runs
oversubscribed (two ranks per core) and shows the overhead of more ranks than cores.

    /usr/bin/python3 bench/mpi_scaling.py                      # both sizes
    /usr/bin/python3 bench/mpi_scaling.py --rows 480000        # one size
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kkm_ctypes import DEFAULT_FASHION_DIR, load_fashion_mnist  # noqa: E402

NOISE_SD = 0.01
REPLICA_SEED = 7
CONFIGS = [(1, 2), (2, 1), (1, 1), (4, 1)]  # (ranks, threads per rank)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def replicated(base, rows, path):
    """Base rows repeated to `rows`, copy c plus N(0, NOISE_SD^2) noise from seed
    REPLICA_SEED + c (targets.py's P5 data), written to path as raw float32."""
    n0 = base.shape[0]
    with open(path, "wb") as out:
        for c, start in enumerate(range(0, rows, n0)):
            count = min(n0, rows - start)
            noise = np.random.default_rng(REPLICA_SEED + c).standard_normal((count, base.shape[1]), dtype=np.float32)
            (base[:count] + np.float32(NOISE_SD) * noise).astype(np.float32).tofile(out)


def papers_gamma(X):
    """1 / (2 sigma^2), sigma^2 the mean pairwise squared distance (2 x the variance)."""
    mean = X.mean(axis=0, dtype=np.float64)
    spread = float(((X - mean) ** 2).sum(axis=1, dtype=np.float64).mean())
    return 1.0 / (2.0 * 2.0 * spread)


def run(tool, ranks, threads, data, labels, params):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none", "-np", str(ranks),
           "-x", "KKMEANS_MPI_STATS=1", "-x", "OMP_NUM_THREADS=%d" % threads,
           tool, "fit", "--dims", "784", str(data), "-l", str(labels), "-q", f"{params} threads={threads}"]
    start = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}")
    text = out.stdout + out.stderr
    fit = re.search(r"^time fit\s+([0-9.]+) s", text, re.M)  # kkmeans-mpi's summary (rank 0)
    received = [int(v) for v in re.findall(r"bytes received (\d+)", text)]
    calls = [int(v) for v in re.findall(r"collectives (\d+)", text)]
    return dict(ranks=ranks, threads=threads, fit_s=float(fit.group(1)) if fit else None, wall_s=wall,
                bytes_per_rank=max(received) if received else None, collectives=max(calls) if calls else None,
                output=text[-600:])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, nargs="*", default=[480000, 1000000])
    p.add_argument("--tool", default="build/tools/kkmeans-mpi")
    p.add_argument("--data-dir", default=DEFAULT_FASHION_DIR)
    p.add_argument("--work", default="/tmp/kkm-mpi-bench")
    p.add_argument("--m", type=int, default=1000)
    p.add_argument("--json", default="bench/results/mpi_scaling.json")
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    base, classes = load_fashion_mnist(args.data_dir)
    gamma = papers_gamma(base)
    records = []
    for rows in args.rows:
        data = work / f"fashion_{rows}.f32"
        if not data.exists() or data.stat().st_size != rows * 784 * 4:
            log(f"writing {data}...")
            replicated(base, rows, data)
        y = np.tile(classes, rows // len(classes) + 1)[:rows]
        params = f"k=10 method=nystrom m={args.m} gamma={gamma!r} seed=0 n_init=1 max_memory_mb=64000"
        reference = None
        for ranks, threads in CONFIGS:
            labels_path = work / f"labels_{rows}_{ranks}x{threads}.i32"
            log(f"n={rows}: {ranks} ranks x {threads} threads...")
            r = run(args.tool, ranks, threads, data, labels_path, params)
            labels = np.fromfile(labels_path, dtype=np.int32)
            if reference is None:
                reference = labels
            from sklearn import metrics
            r.update(rows=rows, same_labels_as_first=bool(np.array_equal(labels, reference)),
                     nmi=float(metrics.normalized_mutual_info_score(y, labels)))
            log(f"  fit {r['fit_s']} s (wall {r['wall_s']:.1f} s), {r['bytes_per_rank']} bytes per rank, "
                f"same labels: {r['same_labels_as_first']}, NMI {r['nmi']:.4f}")
            records.append(r)
    Path(args.json).write_text(json.dumps(records, indent=1))
    print(json.dumps([{k: v for k, v in r.items() if k != "output"} for r in records], indent=1))


if __name__ == "__main__":
    main()
