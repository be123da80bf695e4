#!/usr/bin/python3
"""kkmeans against its peers on every data set of datasets.py: scikit-learn (Nystroem + KMeans,
Nystroem + MiniBatchKMeans, KMeans on the raw data) and R's kernlab::kkmeans, with the same rbf
gamma, the same k and the same seeds; one Markdown table per data set and a summary of speed
ratios, written to bench/results/peers.md with a bar plot of the fit times.

Run with Debian's python (numpy, scikit-learn, matplotlib); kernlab and the mlbench data sets
need R (apt-get install --no-install-recommends r-base-core r-cran-kernlab r-cran-mlbench):

    /usr/bin/python3 bench/peers_board.py [--datasets fashion,letter,...] [--seeds N]
    /usr/bin/python3 bench/peers_board.py --quick          # smoke test: n <= 1000, 1 seed

Per data set (fashion: the training set, subsampled with --fashion-n; letter: all 20000 rows;
the others whole) with gamma = papers_gamma(X) (1 / (2 * mean pairwise squared distance),
what gamma=auto resolves to) and k = its number of classes, every seed s runs:

| row | what runs | where |
|---|---|---|
| kkmeans nystrom m=M | kkm_fit `k=K method=nystrom m=M gamma=G seed=s n_init=1` | everywhere |
| kkmeans exact | kkm_fit `k=K method=exact gamma=G seed=s n_init=1` | n <= 10000 |
| scikit-learn Nystroem + KMeans | Nystroem(rbf, G, n_components=M, random_state=s) + KMeans(K, n_init=1) | everywhere |
| scikit-learn Nystroem + MiniBatchKMeans | the same Nystroem + MiniBatchKMeans(K, n_init=3, batch_size=1024) | everywhere |
| scikit-learn KMeans (raw data) | KMeans(K, n_init=1, random_state=s) on X (no kernel) | everywhere |
| kernlab kkmeans (exact) | set.seed(s); kkmeans(X, K, "rbfdot", kpar=list(sigma=G)) | n <= 10000, unless --skip-kernlab |

M = 1000 for fashion (as fashion_mnist.py) and 500 for the others, capped at n // 2 (so
M = min(1000 or 500, n // 2)). Columns: fit time (the fit call alone: kkm_fit; the Nystroem
and KMeans calls; kernlab's system.time of the kkmeans call, R's start-up and the data
transfer excluded), NMI and ARI of the labels against the true classes (sklearn.metrics), and
the objective: mean over points of ||phi(x) - mu_c(x)||^2 in the exact rbf kernel at G, for
every system's labels (float64, peers.kernel_objective; lower is better; only where n <= 10000).
mean ± sd over the seeds; failed fits are counted in the row (kernlab fails when a cluster
empties) and listed under the table.

gamma is the papers' rule on every data set but rings, where it is far wider than the gap
between the rings (gamma ~ 0.05 for radii 1 and 3: no system separates them). There the board
uses the tests' bandwidth, sigma scaled by 0.4 (kkmeans' bandwidth_scale=0.4), i.e. gamma =
papers' gamma / 0.16 ~ 0.33, for every system. On spirals no gamma tried (0.5 to 100) lets
kernel k-means follow the arms (NMI < 0.05 for exact at every gamma): the spirals are not
separable by the k-means objective in the RBF feature space; the row shows speed and objective.

Summary: per data set, each peer's mean fit time divided by kkmeans nystrom's (the
scikit-learn rows, the same m) and kernlab's divided by kkmeans exact's (both exact kernel
k-means).

Outputs: the tables on stdout and in bench/results/peers.md, the plot in
bench/results/peers_time.svg (mean fit time per system per data set, log scale), the raw
records (without labels) in bench/out/peers.json. --quick writes to bench/out/quick/ instead,
so a smoke test never overwrites the committed results.
"""

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from kkm_ctypes import OPENBLAS_CORE_HELP, REPO_ROOT, cpu_name, log, mean_std, numpy_blas, open_library

EXACT_MAX_N = 10000      # kkmeans exact, kernlab and the objective only up to this many rows
FASHION_M = 1000
DEFAULT_M = 500
QUICK_N = 1000
RESULTS_DIR = REPO_ROOT / "bench" / "results"
OUT_DIR = REPO_ROOT / "bench" / "out"

SYSTEMS = [  # (key, row label)
    ("kkmeans-nystrom", "kkmeans nystrom"),
    ("kkmeans-exact", "kkmeans exact"),
    ("sklearn-nystroem-kmeans", "scikit-learn Nystroem + KMeans"),
    ("sklearn-nystroem-minibatch", "scikit-learn Nystroem + MiniBatchKMeans"),
    ("sklearn-kmeans-raw", "scikit-learn KMeans (raw data)"),
    ("kernlab", "kernlab kkmeans (exact)"),
]
LABELS = dict(SYSTEMS)
# Summary columns: (peer, reference kkmeans row, header).
RATIOS = [
    ("sklearn-nystroem-kmeans", "kkmeans-nystrom", "sklearn Nystroem+KMeans / kkmeans nystrom"),
    ("sklearn-nystroem-minibatch", "kkmeans-nystrom", "sklearn Nystroem+MiniBatch / kkmeans nystrom"),
    ("sklearn-kmeans-raw", "kkmeans-nystrom", "sklearn KMeans raw / kkmeans nystrom"),
    ("kernlab", "kkmeans-exact", "kernlab / kkmeans exact"),
]


def parse_args():
    import datasets
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--datasets", default=",".join(datasets.NAMES),
                   help="comma-separated subset of datasets.py's (default: %(default)s)")
    p.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1 (default: 3; --quick: 1)")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for every system; 0 = all cores (default: 0)")
    p.add_argument("--fashion-n", type=int, default=None,
                   help="random subsample of N Fashion-MNIST training images (default: all 60000; "
                   f"--quick: {QUICK_N})")
    p.add_argument("--skip-kernlab", action="store_true", help="leave kernlab out")
    p.add_argument("--kernlab-timeout", type=float, default=1800,
                   help="seconds before a kernlab fit is abandoned (an error row) (default: %(default)s)")
    p.add_argument("--quick", action="store_true",
                   help=f"smoke test: every data set subsampled to at most {QUICK_N} rows, 1 seed, "
                   "outputs under bench/out/quick/")
    p.add_argument("--data-dir", help="directory of the Fashion-MNIST files (default: datasets.py's)")
    p.add_argument("--cache-dir", help="where the Rscript exports are kept (default: bench/out)")
    p.add_argument("--results-dir", default=None,
                   help="where peers.md and peers_time.svg go (default: bench/results; --quick: "
                   "bench/out/quick)")
    p.add_argument("--json", default=None,
                   help="raw records (default: bench/out/peers.json; --quick: bench/out/quick/peers.json)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    args = p.parse_args()
    args.datasets = [s.strip() for s in args.datasets.split(",") if s.strip()]
    bad = [s for s in args.datasets if s not in datasets.NAMES]
    if bad or not args.datasets:
        p.error(f"--datasets: unknown {bad}; choose from {', '.join(datasets.NAMES)}")
    if args.seeds is None:
        args.seeds = 1 if args.quick else 3
    if args.fashion_n is None:
        args.fashion_n = QUICK_N if args.quick else 0
    quick_dir = OUT_DIR / "quick"
    args.results_dir = Path(args.results_dir or (quick_dir if args.quick else RESULTS_DIR))
    args.json = Path(args.json or ((quick_dir if args.quick else OUT_DIR) / "peers.json"))
    if args.seeds < 1 or args.threads < 0 or args.fashion_n < 0:
        p.error("need --seeds >= 1, --threads >= 0, --fashion-n >= 0")
    return args


# ---------------------------------------------------------------------------- runs

def load(name, args):
    import datasets
    if name == "fashion":
        n, split = args.fashion_n, "train"
    else:
        n, split = (QUICK_N if args.quick else 0), ("all" if name == "letter" else "train")
    if name in ("rings", "blobs"):  # generated: n is the number generated; quick keeps the default
        n = min(n, datasets.SPECS[name]["rows"]) if n else 0
    return datasets.load(name, n=n, split=split, data_dir=args.data_dir, cache_dir=args.cache_dir)


def plan(n, args):
    keys = ["kkmeans-nystrom"]
    if n <= EXACT_MAX_N:
        keys.append("kkmeans-exact")
    keys += ["sklearn-nystroem-kmeans", "sklearn-nystroem-minibatch", "sklearn-kmeans-raw"]
    if n <= EXACT_MAX_N and not args.skip_kernlab:
        keys.append("kernlab")
    return keys


# Data sets whose structure is narrower than the papers' bandwidth: gamma = papers' / divisor.
GAMMA_DIVISOR = {"rings": 0.16}


def fit(key, kkm, X, k, m, gamma, seed, args):
    import peers
    if key == "kkmeans-nystrom":
        return peers.kkmeans_fit(kkm, X, k, gamma, seed, args.threads, method="nystrom", m=m)
    if key == "kkmeans-exact":
        return peers.kkmeans_fit(kkm, X, k, gamma, seed, args.threads, method="exact")
    if key == "sklearn-nystroem-kmeans":
        return peers.sklearn_nystroem_kmeans(X, k, m, gamma, seed, args.threads)
    if key == "sklearn-nystroem-minibatch":
        return peers.sklearn_nystroem_minibatch(X, k, m, gamma, seed, args.threads)
    if key == "sklearn-kmeans-raw":
        return peers.sklearn_kmeans_raw(X, k, seed, args.threads)
    return peers.kernlab_kkmeans(X, k, gamma, seed, args.threads, timeout=args.kernlab_timeout)


def run_dataset(name, kkm, args, metrics):
    import datasets
    import peers
    X, y = loaded = load(name, args)
    meta = loaded.meta
    n, d = X.shape
    k = meta["classes_present"]
    m = min(FASHION_M if name == "fashion" else DEFAULT_M, n // 2)
    gamma = datasets.papers_gamma(X) / GAMMA_DIVISOR.get(name, 1.0)
    keys = plan(n, args)
    log(f"{name}: n={n} d={d} k={k} m={m} gamma={gamma!r}; systems: {', '.join(keys)}")
    records = []
    for seed in range(args.seeds):
        for key in keys:
            log(f"{name}: {key} seed={seed}...")
            r = fit(key, kkm, X, k, m, gamma, seed, args)
            r.update(key=key, seed=seed, dataset=name)
            peers.score(r, y, metrics)
            if r.get("error"):
                log(f"  error: {r['error']}")
            else:
                log(f"  {r['time_s']:.3f} s, NMI {r['nmi']:.4f}, ARI {r['ari']:.4f}")
            records.append(r)
    objective_s = None
    if n <= EXACT_MAX_N:
        done = [r for r in records if r.get("labels") is not None]
        start = time.perf_counter()
        for r, value in zip(done, peers.kernel_objective(X, [r["labels"] for r in done], gamma)):
            r["objective"] = value
        objective_s = time.perf_counter() - start
        log(f"{name}: exact-kernel objectives of {len(done)} labellings in {objective_s:.1f} s")
    for r in records:
        r.pop("labels", None)
    return dict(name=name, n=n, d=d, k=k, m=m, gamma=gamma, keys=keys, records=records,
                objective_s=objective_s,
                meta={key: value for key, value in meta.items() if key != "sha256"})


# ---------------------------------------------------------------------------- report

def ok_runs(out, key):
    return [r for r in out["records"] if r["key"] == key and not r.get("error")]


def mean_time(out, key):
    runs = ok_runs(out, key)
    return statistics.mean(r["time_s"] for r in runs) if runs else None


def cell(runs, field, digits):
    values = [r[field] for r in runs if r.get(field) is not None]
    return mean_std(values, digits) if values else "—"


def dataset_table(out, args):
    lines = [f"## {out['meta']['title']} ({out['name']}): n={out['n']}, d={out['d']}, "
             f"k={out['k']}, m={out['m']}, gamma={out['gamma']:.6g}, seeds={args.seeds}", "",
             "| system | fit time (s) | NMI | ARI | objective (exact kernel) |",
             "|---|---:|---:|---:|---:|"]
    for key in out["keys"]:
        runs = [r for r in out["records"] if r["key"] == key]
        good = [r for r in runs if not r.get("error")]
        failed = len(runs) - len(good)
        label = LABELS[key] + (f" m={out['m']}" if key == "kkmeans-nystrom" else "")
        if failed:
            label += f" ({failed} of {len(runs)} failed)"
        if not good:
            lines.append(f"| {label} | error | — | — | — |")
            continue
        objective = cell(good, "objective", 5) if out["n"] <= EXACT_MAX_N else "—"
        lines.append(f"| {label} | {cell(good, 'time_s', 3)} | {cell(good, 'nmi', 4)} | "
                     f"{cell(good, 'ari', 4)} | {objective} |")
    lines.append("")
    meta = out["meta"]
    sub = f"; random subsample of {meta['subsample']['n']} rows" if meta.get("subsample") else ""
    lines.append(f"- data: {meta['source']}; {meta['preprocessing']}; split {meta['split']}{sub}")
    if meta.get("note"):
        lines.append(f"- {meta['note']}")
    if meta["classes_present"] < meta["classes"]:
        lines.append(f"- only {meta['classes_present']} of the {meta['classes']} classes occur in "
                     f"these rows; k = {out['k']}")
    if out["n"] > EXACT_MAX_N:
        lines.append(f"- n > {EXACT_MAX_N}: no kkmeans exact, kernlab or exact-kernel objective")
    exact, kern = ok_runs(out, "kkmeans-exact"), ok_runs(out, "kernlab")
    if exact and kern:
        e = statistics.mean(r["objective"] for r in exact)
        kl = statistics.mean(r["objective"] for r in kern)
        lines.append(f"- objective, kkmeans exact vs kernlab (both exact kernel k-means, different "
                     f"initialisations: k-means++ vs a random partition): mean {e:.5f} vs {kl:.5f}, "
                     f"kkmeans {'no worse' if e <= kl else 'WORSE'}")
    for r in out["records"]:
        if r.get("error"):
            lines.append(f"- error: {LABELS[r['key']]} seed={r['seed']}: {r['error']}")
    lines.append("")
    return lines


def summary_table(results):
    lines = ["## Speed ratios (peer mean fit time / kkmeans mean fit time; > 1: kkmeans faster)", "",
             "| data set | n | " + " | ".join(h for _, _, h in RATIOS) + " |",
             "|---|---:|" + "---:|" * len(RATIOS)]
    for out in results:
        cells = []
        for peer, ref, _ in RATIOS:
            a, b = mean_time(out, peer), mean_time(out, ref)
            cells.append(f"{a / b:.2f}x" if a is not None and b else "—")
        lines.append(f"| {out['name']} | {out['n']} | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def footer(args, kkm, core_note):
    import peers
    import sklearn
    threads = f"{args.threads}" if args.threads else f"0 = all cores ({os.cpu_count()})"
    lines = [f"- kkmeans {kkm.version()} ({kkm.path}); scikit-learn {sklearn.__version__}, numpy "
             f"BLAS {numpy_blas()} (its default pool; --threads limits it during the fits); {core_note}",
             f"- threads: {threads}; CPU: {cpu_name()}; python {platform.python_version()}"]
    if not args.skip_kernlab:
        try:
            ki = peers.kernlab_info()
            lines.append(f"- kernlab {ki['kernlab']}, {ki['r']}, R BLAS {ki['blas']}")
        except SystemExit as e:
            lines.append(f"- kernlab: {e}")
    lines.append("")
    return lines


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "kkmeans-peers"  # stable ids: reruns diff cleanly
    keys = [key for key, _ in SYSTEMS if any(mean_time(out, key) for out in results)]
    fig, ax = plt.subplots(figsize=(max(6.0, 1.2 * len(results) + 2.0), 4.5))
    width = 0.8 / max(1, len(keys))
    for i, key in enumerate(keys):
        xs, hs = [], []
        for j, out in enumerate(results):
            t = mean_time(out, key)
            if t:
                xs.append(j + (i - (len(keys) - 1) / 2) * width)
                hs.append(t)
        ax.bar(xs, hs, width=width, label=LABELS[key])
    ax.set_yscale("log")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([f"{out['name']}\nn={out['n']}" for out in results], fontsize=8)
    ax.set_ylabel("mean fit time (s), log scale")
    ax.set_title("kkmeans and peers: fit time (same gamma, k, seeds)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    plt.close(fig)


def main():
    args = parse_args()
    import peers
    core_note = peers.setup_blas(args.openblas_core)  # before numpy loads OpenBLAS
    from sklearn import metrics

    kkm = open_library(args.lib)
    if not args.skip_kernlab:
        peers.kernlab_info()  # fails early, with the apt package, if R or kernlab is missing
    start = time.perf_counter()
    results = []
    for name in args.datasets:
        out = run_dataset(name, kkm, args, metrics)
        results.append(out)
        print("\n".join(dataset_table(out, args)), flush=True)
    lines = [f"# kkmeans against its peers{' (--quick smoke test)' if args.quick else ''}", "",
             "Written by `bench/peers_board.py`" + (" --quick" if args.quick else "") +
             "; see its docstring for what each row runs.", ""]
    for out in results:
        lines += dataset_table(out, args)
    summary = summary_table(results)
    print("\n".join(summary))
    foot = footer(args, kkm, core_note)
    foot.insert(0, f"- total wall time of the board: {time.perf_counter() - start:.0f} s")
    print("\n".join(foot))
    args.results_dir.mkdir(parents=True, exist_ok=True)
    md = args.results_dir / "peers.md"
    svg = args.results_dir / "peers_time.svg"
    md.write_text("\n".join(lines + summary + foot + [f"![fit times]({svg.name})", ""]))
    plot(results, svg)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(dict(
        library=str(kkm.path), version=kkm.version(), threads=args.threads, seeds=args.seeds,
        quick=args.quick, cpu_count=os.cpu_count(), cpu=cpu_name(), numpy_blas=numpy_blas(),
        openblas_core=core_note, datasets=results), indent=2, default=str) + "\n")
    log(f"wrote {md}, {svg}, {args.json}")
    if any(r.get("error") and r["key"].startswith("kkmeans") for out in results for r in out["records"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
