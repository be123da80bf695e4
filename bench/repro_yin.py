#!/usr/bin/python3
"""Reproduces Table 2 (real data sets) of Yin, Liu, Wang & Meng, "Randomized Sketches for
Clustering: Fast and Optimal Kernel k-Means" (2022): test accuracy and training time of
exact kernel k-means and of the randomized-sketch kernel k-means variants at sketch
dimension m = 150, with kkmeans through ctypes on libkkmeans.so, on the mlbench data sets
of bench/datasets.py.

    /usr/bin/python3 bench/repro_yin.py [--datasets letter,satellite,dna,shuttle] [--quick]

Protocol (the paper's Section 5.2, as far as it is stated): each data set is split once at
random into 70% training and 30% test rows (numpy seed SPLIT_SEED, the same split for every
method and seed); every method is fitted on the training rows with k = the number of classes,
m = 150, n_init = 1, seeds 0..seeds-1 (default 5, the paper's "repeated 5 times"); the test
rows are labelled with kkm_assign and scored against their true classes by
  - accuracy with the best one-to-one matching of clusters to classes (Hungarian algorithm,
    scipy.optimize.linear_sum_assignment on the cluster x class contingency table; the
    paper's map(.)), and
  - NMI (sklearn, arithmetic normalisation);
the training time is the kkm_fit wall time. Rows (kkm_set_params):
  exact          method=exact                                  (the paper's "Kernel k-Means")
  gaussian       method=sketch m=150 sketch=gaussian           (the paper's "Gaussian", Biau et al.)
  nystrom        method=nystrom m=150 sampling=uniform         (Calandriello & Rosasco's Nystrom;
                                                                in the slot of "Nystrom (Liu)")
  subgaussian    method=sketch m=150 sketch=subgaussian        ("Sub-Gaussian (Ours)")
  ros            method=sketch m=150 sketch=ros                ("ROS (Ours)")
  identity       method=sketch m=150 sketch=identity           ("Nystrom (Ours)": S = I, the
                                                                raw kernel rows k_Q(x))
Kernel: exp(-||x - x'||^2 / sigma^2) with sigma^2 = (1/n^2) sum_ij ||x_i - x_j||^2 over the
training rows, i.e. gamma = 1/sigma^2 = 1/(mean pairwise squared distance), passed explicitly
(twice the library's gamma=auto, which is 1/(2 sigma^2)). The paper prints
sigma = sqrt(sum_ij ||x_i - x_j||^2 / n): summed over all n^2 pairs and divided by n that is
n times the mean pairwise squared distance, a bandwidth that grows with n and makes the rbf
kernel ~ 1 - ||x - x'||^2 / sigma^2 (linear k-means in disguise); we read it as a missing
square on n (--sigma-rule literal runs the printed formula instead).

Output: Markdown tables in the paper's layout (per data set: instances, classes, then time and
accuracy per method, in two halves like the paper's table) plus an NMI table, written to
bench/results/repro_yin.md; a figure bench/results/repro_yin.svg (test accuracy and fit time
per method per data set, mean +- sd); per-fit records in bench/out/repro_yin.json.

Deviations from the paper's protocol:
  - Data sets: the R mlbench versions of LetterRecognition (20000 x 16, 26 classes),
    Satellite (6435 x 36, 6), DNA (3186 x 180, 3) and Shuttle (58000 x 9, 7), with
    bench/datasets.py's scaling, instead of the paper's nine LIBSVM sets (of which only dna
    overlaps: LIBSVM's dna is the 2000-row StatLog training part of the same data).
  - Exact on a training set of more than --exact-max-n rows (default 20000: Shuttle's 40600)
    runs on a uniform subsample of that many training rows (same gamma; exact stores an n x n
    float32 matrix, 6.6 GB for 40600 rows); it is scored on the full test set. The paper
    stopped methods that ran over 90 s or out of memory instead.
  - "Nystrom (Liu)" (Liu 2021) is not implemented; its slot holds uniform Nystrom
    (method=nystrom). The paper's ROS pads nothing; the library pads m to a power of two
    for the Hadamard transform (see its README).
  - Lloyd with k-means++ seeding, n_init = 1, max_iter = 100 (the paper: Lloyd, seeding not
    stated); the split is fixed across seeds (the paper does not say whether it redraws it).
  - Times are kkm_fit on this machine (the paper: a 32-core server), so only ratios between
    methods compare.

--quick: a random subsample of 4000 rows of each data set (before the split), 2 seeds
(about 10 s).
"""

import argparse

from kkm_ctypes import OPENBLAS_CORE_HELP, KkmeansError, fit_failed, log, machine_line, papers_gamma
import plots

NAME = "repro_yin"
SPLIT_SEED = 20220707
EXACT_SUBSAMPLE_SEED = 20240601
DATASETS = ["letter", "satellite", "dna", "shuttle"]
# name, label in the tables, params fragment ({m} filled in)
METHODS = [
    ("exact", "kernel k-means (exact)", "method=exact"),
    ("gaussian", "Gaussian sketch", "method=sketch m={m} sketch=gaussian"),
    ("nystrom", "Nyström uniform (method=nystrom)", "method=nystrom m={m} sampling=uniform"),
    ("subgaussian", "Sub-Gaussian sketch", "method=sketch m={m} sketch=subgaussian"),
    ("ros", "ROS sketch", "method=sketch m={m} sketch=ros"),
    ("identity", "Nyström (Yin: S = I, sketch=identity)", "method=sketch m={m} sketch=identity"),
]
METHOD_NAMES = [name for name, _, _ in METHODS]
LABELS = {name: label for name, label, _ in METHODS}
# The paper's two halves of Table 2.
HALVES = [["exact", "gaussian", "nystrom"], ["subgaussian", "ros", "identity"]]
QUICK = dict(n=4000, seeds=2)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--datasets", default=",".join(DATASETS),
                   help="comma-separated, from " + ", ".join(DATASETS) + " (default: all)")
    p.add_argument("--methods", default=",".join(METHOD_NAMES),
                   help="comma-separated subset of " + ", ".join(METHOD_NAMES) + " (default: all)")
    p.add_argument("--seeds", type=int, help="seeds 0..N-1, one fit each (default: 5)")
    p.add_argument("--n", type=int,
                   help="random subsample of N rows of each data set before the split (default: all)")
    p.add_argument("--m", type=int, default=150, help="sketch dimension / landmarks (default: %(default)s)")
    p.add_argument("--train-fraction", type=float, default=0.7,
                   help="training share of the random split (default: %(default)s)")
    p.add_argument("--exact-max-n", type=int, default=20000,
                   help="exact runs on a uniform subsample of this many training rows when there "
                   "are more; 0 = always all (default: %(default)s)")
    p.add_argument("--sigma-rule", choices=("mean", "literal"), default="mean",
                   help="mean: sigma^2 = mean pairwise squared distance (gamma = 1/sigma^2); "
                   "literal: the paper's printed sigma^2 = sum_ij ||x_i - x_j||^2 / n "
                   "(default: %(default)s)")
    p.add_argument("--threads", type=int, default=0, help="kkmeans threads; 0 = all cores (default: 0)")
    p.add_argument("--cache-dir", help="where datasets.py keeps its Rscript exports (default: its own)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    plots.add_output_args(p)
    args = p.parse_args()
    plots.fill_unset(args, QUICK if args.quick else {})
    args.seeds = args.seeds if args.seeds is not None else 5
    args.n = args.n or 0
    args.datasets = [s.strip() for s in args.datasets.split(",") if s.strip()]
    args.methods = [s.strip() for s in args.methods.split(",") if s.strip()]
    bad = [s for s in args.datasets if s not in DATASETS]
    if bad or not args.datasets:
        p.error(f"--datasets: unknown {bad}; choose from {', '.join(DATASETS)}")
    bad = [s for s in args.methods if s not in METHOD_NAMES]
    if bad or not args.methods:
        p.error(f"--methods: unknown {bad}; choose from {', '.join(METHOD_NAMES)}")
    if args.seeds < 1 or args.threads < 0 or args.n < 0 or args.m < 1 or args.exact_max_n < 0:
        p.error("need --seeds >= 1, --m >= 1 and non-negative --threads, --n, --exact-max-n")
    if not 0 < args.train_fraction < 1:
        p.error("--train-fraction must lie in (0, 1)")
    return args


# ---------------------------------------------------------------------------- data

def load(name, args):
    """(X, y, description) of all rows of data set name (subsampled with --n)."""
    import datasets
    kwargs = dict(n=args.n, split="all")
    if args.cache_dir:
        kwargs["cache_dir"] = args.cache_dir
    loaded = datasets.load(name, **kwargs)  # DatasetError (a SystemExit) stops the script
    X, y = loaded
    meta = {key: value for key, value in getattr(loaded, "meta", {}).items()
            if key in ("sha256_ok", "class_counts", "classes_present", "subsample", "note")}
    spec = datasets.SPECS[name]
    return X, y, dict(title=spec["title"], source=spec.get("source", "bench/datasets.py"),
                      preprocessing=spec.get("preprocessing", "?"), classes=spec["classes"],
                      meta=meta)


def split(X, y, fraction):
    import numpy as np
    n = X.shape[0]
    perm = np.random.default_rng(SPLIT_SEED).permutation(n)
    n_train = int(round(fraction * n))
    tr, te = np.sort(perm[:n_train]), np.sort(perm[n_train:])
    return (np.ascontiguousarray(X[tr]), y[tr], np.ascontiguousarray(X[te]), y[te])


def yin_gamma(X, rule):
    """1/sigma^2 with sigma^2 the mean pairwise squared distance (rule 'mean') or n times it
    ('literal', the printed formula); papers_gamma is 1/(2 * mean pairwise squared distance)."""
    g = 2.0 * papers_gamma(X)
    return g if rule == "mean" else g / X.shape[0]


def hungarian_accuracy(y_true, y_pred):
    """Accuracy under the best one-to-one map of predicted clusters to classes."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment
    size = int(max(y_true.max(), y_pred.max())) + 1
    table = np.zeros((size, size), dtype=np.int64)
    np.add.at(table, (y_pred, y_true), 1)
    rows, cols = linear_sum_assignment(-table)
    return float(table[rows, cols].sum()) / y_true.shape[0]


# ---------------------------------------------------------------------------- runs

def run_dataset(name, args, kkm, metrics):
    import numpy as np
    X, y, info = load(name, args)
    Xtr, ytr, Xte, yte = split(X, y, args.train_fraction)
    k = info["classes"]
    gamma = yin_gamma(Xtr, args.sigma_rule)
    n_train = Xtr.shape[0]
    exact_rows = None
    if args.exact_max_n and n_train > args.exact_max_n:
        perm = np.random.default_rng(EXACT_SUBSAMPLE_SEED).permutation(n_train)
        exact_rows = np.sort(perm[:args.exact_max_n])
    log(f"{info['title']}: {X.shape[0]} rows x {X.shape[1]}, train {n_train}, test {Xte.shape[0]}, "
        f"k={k}, gamma={gamma!r}")
    records, errors = [], []
    for method, label, fragment in METHODS:
        if method not in args.methods:
            continue
        X_fit, y_fit = Xtr, ytr
        if method == "exact" and exact_rows is not None:
            X_fit, y_fit = np.ascontiguousarray(Xtr[exact_rows]), ytr[exact_rows]
        for seed in range(args.seeds):
            params = (f"k={k} {fragment.format(m=args.m)} gamma={gamma!r} seed={seed} n_init=1 "
                      f"threads={args.threads}")
            log(f"{info['title']}: {params} ...")
            key = dict(dataset=name, method=method, seed=seed, params=params)
            try:
                with kkm.fitted(params, X_fit) as model:
                    seconds = model.seconds
                    labels = model.labels()
                    test_labels, _ = model.assign(Xte)
                    rec = dict(key, seconds=seconds, n_fit=int(X_fit.shape[0]),
                               accuracy=hungarian_accuracy(yte, test_labels),
                               nmi=float(metrics.normalized_mutual_info_score(yte, test_labels)),
                               train_accuracy=hungarian_accuracy(y_fit, labels),
                               train_nmi=float(metrics.normalized_mutual_info_score(y_fit, labels)),
                               timings=model.timings(), iterations=model.iterations(),
                               feature_dim=model.feature_dim())
            except KkmeansError as e:
                fit_failed(e, key, records, errors)
                continue
            log(f"  {seconds:.2f} s, test accuracy {rec['accuracy']:.4f}, test NMI {rec['nmi']:.4f}, "
                f"stages: {rec['timings']}")
            records.append(rec)
    return dict(name=name, title=info["title"], source=info["source"], meta=info["meta"],
                preprocessing=info["preprocessing"], rows=int(X.shape[0]), d=int(X.shape[1]),
                k=k, n_train=n_train, n_test=int(Xte.shape[0]), gamma=gamma,
                exact_n=None if exact_rows is None else int(exact_rows.shape[0]),
                records=records, errors=errors)


def run(args, kkm, metrics):
    """The settings of the JSON records and every data set of --datasets."""
    return dict(m=args.m, sigma_rule=args.sigma_rule, split_seed=SPLIT_SEED,
                datasets=[run_dataset(name, args, kkm, metrics) for name in args.datasets])


def failed(out):
    """Whether a fit of any data set failed."""
    return any(ds["errors"] for ds in out["datasets"])


# ---------------------------------------------------------------------------- report

def split_text(fraction):
    return f"{round(100 * fraction)}/{100 - round(100 * fraction)}"


def seeds_range(seeds):
    return "seed 0" if seeds == 1 else f"seeds 0–{seeds - 1} (mean ± sd)"


def vals(ds, method, key):
    return [r[key] for r in ds["records"] if r["method"] == method and "error" not in r]


def cell(ds, method, key, digits):
    if method not in {r["method"] for r in ds["records"]}:
        return "—"
    return plots.fmt(vals(ds, method, key), digits)


def report(results, args, kkm, core_note, results_dir, json_path, total):
    out = results["datasets"]
    R = plots.Report()
    R("# Yin, Liu, Wang & Meng 2022, Table 2: randomized sketches for kernel k-means "
      "(mlbench data sets)\n")
    R(f"{split_text(args.train_fraction)} random split (fixed), m = {args.m}, k = classes, n_init = 1, "
      f"{seeds_range(args.seeds)}; accuracy and NMI of the **test** rows (kkm_assign; accuracy "
      f"after Hungarian matching of clusters to classes); time = kkm_fit (s)"
      + (" — **quick run**" if args.quick else "") + "\n")
    for half in HALVES:
        methods = [m for m in half if m in args.methods]
        if not methods:
            continue
        header = ["data set", "instances", "class"]
        for m in methods:
            header += [f"{LABELS[m]}: time", "accuracy"]
        rows = []
        for ds in out:
            row = [ds["name"], ds["rows"], ds["k"]]
            for m in methods:
                row += [cell(ds, m, "seconds", 2), cell(ds, m, "accuracy", 2)]
            rows.append(row)
        R.table(header, rows)
    methods = [m for m in METHOD_NAMES if m in args.methods]
    R("Test NMI:\n")
    R.table(["data set"] + [LABELS[m] for m in methods],
            [[ds["name"]] + [cell(ds, m, "nmi", 3) for m in methods] for ds in out])
    R("Test accuracy to 4 digits (the paper prints 2):\n")
    R.table(["data set"] + [LABELS[m] for m in methods],
            [[ds["name"]] + [cell(ds, m, "accuracy", 4) for m in methods] for ds in out])
    rule = ("σ² = mean pairwise squared distance of the training rows, gamma = 1/σ²"
            if args.sigma_rule == "mean" else
            "σ² = Σ_ij ‖x_i − x_j‖² / n over the training rows (the printed formula, --sigma-rule "
            "literal), gamma = 1/σ²")
    R(f"- kernel: exp(−‖x − x'‖²/σ²), {rule}")
    for ds in out:
        sub = f"; a random subsample of {ds['rows']} rows (--n)" if args.n else ""
        R(f"- {ds['name']}: {ds['title']}, {ds['rows']} × {ds['d']}{sub}, {ds['k']} classes, "
          f"{ds['preprocessing']}; train {ds['n_train']} / test {ds['n_test']}; gamma = "
          f"{ds['gamma']:.6g}" + (f"; **exact ran on a uniform subsample of {ds['exact_n']} of the "
                                  f"{ds['n_train']} training rows** (--exact-max-n), scored on the "
                                  f"whole test set" if ds["exact_n"] and "exact" in args.methods else ""))
    R(f"- split: numpy default_rng({SPLIT_SEED}).permutation, the first {args.train_fraction:g} "
      f"train; the same split for every method and seed")
    R("- Nyström (Yin: S = I) is the paper's \"Nyström (Ours)\": k-means on the raw kernel rows "
      "k_Q(x) of m uniform points; Nyström uniform is Calandriello & Rosasco's method "
      "(features U Λ^-½ k_Q(x)), in the slot of the paper's \"Nyström (Liu)\"")
    for ds in out:
        for e in ds["errors"]:
            R(f"- ERROR {e['dataset']} {e['method']} seed={e['seed']} ({e['params']}): {e['error']}")
    plots.close_report(R, results_dir / f"{NAME}.md", plot(out, args, results_dir), json_path,
                       "- " + machine_line(kkm, args.threads, core_note, total=total))


def plot(out, args, results_dir):
    plt = plots.pyplot()
    methods = [m for m in METHOD_NAMES if m in args.methods]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    groups = [ds["name"] for ds in out]
    plots.grouped_bars(ax1, groups, [LABELS[m] for m in methods],
                       [[vals(ds, m, "accuracy") for m in methods] for ds in out],
                       ylabel="test accuracy (Hungarian)")
    plots.grouped_bars(ax2, groups, [LABELS[m] for m in methods],
                       [[vals(ds, m, "seconds") for m in methods] for ds in out],
                       ylabel="fit time (s)")
    plots.log_axis(ax2, "y")
    ax1.set_ylim(0, 1)
    fig.suptitle(f"Yin et al. Table 2 setting: m = {args.m}, {split_text(args.train_fraction)} split, "
                 f"{plots.seeds_text(args.seeds)}", fontsize=9)
    fig.tight_layout()
    handles, labels = ax1.get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3, fontsize=8)
    return plots.save_svg(fig, results_dir / f"{NAME}.svg")


if __name__ == "__main__":
    plots.reproduce(NAME, parse_args(), run, report, failed=failed)
