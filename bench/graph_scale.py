#!/usr/bin/python3
"""The graph kernels at scale (issue 58): kernel=heat and kernel=knn with their defaults against
the rbf Nystrom fit, from the command line on raw float32 files, in one run on one machine.

    /usr/bin/python3 bench/graph_scale.py [--data DIR] [--only fashion60k,x8,m8,blobs2d]
                                          [--out bench/results/graph_scale.md]

Every fit is `build/tools/kkmeans fit --dims D FILE k=K ... --truth LABELS` under /usr/bin/time
(peak resident memory); the fit time is the CLI's own "time fit" line, NMI its line against
the classes. Data (written under --data when missing):
  - fashion60k: Fashion-MNIST's 60000 training images (pixels / 255), k=10;
  - x8: 480000 rows, bench/mnist8m.py --rows 480000 (8 shifted, jittered copies), k=10;
  - m8: the MNIST8M-like 8.1M x 784 file of bench/mnist8m.py (25.4 GB), k=10;
  - blobs2d: 100000 two-dimensional points in 100 Gaussian blobs of uneven sizes and widths
    (seed 0), k=100.
Rows per data set: heat (`k=K kernel=heat seed=0`, graph=auto: the anchor graph above 20000
rows), knn (`kernel=knn`, graph=auto: the k-NN graph up to 60000 rows, the anchor graph beyond),
rbf (`method=nystrom m=1000`; m8: `method=nystrom m=400 rank=20`, the issue's reference).
Predicting: the 10000 Fashion-MNIST test images assigned against the 60000-row heat and rbf
models (`kkmeans assign`), with the model files' sizes.
"""
import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
CLI = REPO / "build" / "tools" / "kkmeans"


def cpu_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def prepare(name, data):
    data.mkdir(parents=True, exist_ok=True)
    f32, truth = data / f"{name}.f32", data / f"{name}.truth"
    if name in ("fashion60k", "fashion_test"):
        if not f32.exists():
            import datasets
            d = datasets.load("fashion", split="train" if name == "fashion60k" else "test")
            np.ascontiguousarray(d.X, dtype=np.float32).tofile(f32)
            np.savetxt(truth, d.y.astype(int), fmt="%d", header="label", comments="")
        return f32, truth, 784, 10
    if name in ("x8", "m8"):
        rows = 480000 if name == "x8" else 8100000
        if not f32.exists():
            subprocess.run(["/usr/bin/python3", str(REPO / "bench" / "mnist8m.py"), str(f32), "--rows", str(rows)],
                           check=True)
        return f32, data / f"{name}.labels.csv", 784, 10
    if name == "blobs2d":
        if not f32.exists():
            rng = np.random.default_rng(0)
            k, n = 100, 100000
            sizes = rng.dirichlet(np.full(k, 5.0)) * n
            sizes = np.maximum(1, np.round(sizes)).astype(int)
            sizes[-1] += n - sizes.sum()
            centres = rng.uniform(0, 100, size=(k, 2))
            widths = rng.uniform(0.3, 1.2, size=k)
            X = np.concatenate([c + w * rng.standard_normal((s, 2)) for c, w, s in zip(centres, widths, sizes)])
            y = np.repeat(np.arange(k), sizes)
            X.astype(np.float32).tofile(f32)
            np.savetxt(truth, y, fmt="%d", header="label", comments="")
        return f32, truth, 2, 100
    raise ValueError(name)


def fit(f32, truth, d, params, model=None):
    cmd = ["/usr/bin/time", "-f", "PEAK %M", str(CLI), "fit", "--dims", str(d), str(f32), *params.split(),
           "--truth", str(truth)]
    if model is not None:
        cmd += ["-o", str(model)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    text = out.stdout + out.stderr
    if out.returncode != 0:
        return {"error": text.strip().splitlines()[-1]}
    seconds = float(re.search(r"time fit\s+([0-9.]+) s", text).group(1))
    nmi = float(re.search(r"^NMI\s+([0-9.]+)", text, re.M).group(1))
    graph = re.search(r"^graph\s+(\S+)", text, re.M)
    peak = int(re.search(r"PEAK (\d+)", text).group(1)) / 1024
    return {"seconds": seconds, "nmi": nmi, "peak_mb": peak, "graph": graph.group(1) if graph else "-"}


def assign_seconds(model, f32, d):
    start = time.perf_counter()
    subprocess.run([str(CLI), "assign", "--dims", str(d), str(model), str(f32), "-l", "/dev/null"], check=True,
                   capture_output=True)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/tmp/kkm_graph_scale")
    ap.add_argument("--only", default="fashion60k,x8,blobs2d,m8")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "graph_scale.md"))
    args = ap.parse_args()
    data = Path(args.data)
    rows = []
    for name in args.only.split(","):
        f32, truth, d, k = prepare(name, data)
        n = os.path.getsize(f32) // (4 * d)
        rbf = "method=nystrom m=400 rank=20" if name == "m8" else "method=nystrom m=1000"
        runs = {"heat": f"k={k} kernel=heat seed=0", "knn": f"k={k} kernel=knn seed=0", "rbf": f"k={k} {rbf} seed=0"}
        for system, params in runs.items():
            model = data / f"{name}.{system}.kkm" if name == "fashion60k" else None
            r = fit(f32, truth, d, params, model)
            r.update(data=name, n=n, d=d, k=k, system=system, params=params)
            print(r, flush=True)
            rows.append(r)
    lines = [f"# Graph kernels at scale (bench/graph_scale.py)", "",
             f"CPU: {cpu_name()}, {os.cpu_count()} cores; threads = all; the command line on raw float32 "
             "files (mapped); one fit each, seed 0, label-free defaults. Peak = maximum resident set of "
             "the CLI process (the mapped file's pages included).", "",
             "| data | n x d | k | system | parameters | graph | NMI | fit s | peak MB | fit / rbf |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['data']} | {r['n']} x {r['d']} | {r['k']} | {r['system']} | `{r['params']}` | "
                         f"error: {r['error']} | | | | |")
            continue
        base = next((b for b in rows if b["data"] == r["data"] and b["system"] == "rbf" and "error" not in b),
                    None)
        ratio = f"{r['seconds'] / base['seconds']:.2f}" if base else "-"
        lines.append(f"| {r['data']} | {r['n']} x {r['d']} | {r['k']} | {r['system']} | `{r['params']}` | "
                     f"{r['graph']} | {r['nmi']:.4f} | {r['seconds']:.2f} | {r['peak_mb']:.0f} | {ratio} |")
    if "fashion60k" in args.only.split(","):
        test, _, d, _ = prepare("fashion_test", data)
        lines += ["", "Predicting the 10000 Fashion-MNIST test images against the 60000-row models "
                  "(`kkmeans assign`, wall seconds of the whole command, median of 3), and the model files:", "",
                  "| model | assign s | model file bytes |", "|---|---|---|"]
        for system in ("heat", "knn", "rbf"):
            model = data / f"fashion60k.{system}.kkm"
            if not model.exists():
                continue
            t = sorted(assign_seconds(model, test, d) for _ in range(3))[1]
            lines.append(f"| {system} | {t:.3f} | {os.path.getsize(model)} |")
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
