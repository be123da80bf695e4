#!/usr/bin/python3
"""Approximate kernel k-means methods of kkmeans against each other and against exact kernel
k-means: Nystrom (uniform, ridge-leverage-score and kernel k-means++ landmarks, rank-restricted),
the kernel sketches of Yin et al. (sub-Gaussian, ROS, Gaussian, identity) and random Fourier
features, on Fashion-MNIST and LetterRecognition, through ctypes on libkkmeans.so.

Run with Debian's python, which has numpy and scikit-learn (python3-sklearn):

    /usr/bin/python3 bench/approximations.py [--datasets fashion,letter] [--seeds N] [--n N]

For each data set it prints a Markdown table, one row per (method, m) with
m in {ceil(sqrt(n)), ceil(4 sqrt(n))}, n the training rows: fit time, NMI and ARI of the
training labels against the true classes, and the test objective, the mean over the test
points x of ||phi(x) - mu_c(x)||^2 with c(x) the label kkm_assign gives x and mu_j the
kernel-space mean of the training points the method put in cluster j (exact rbf kernel at
the fit's gamma; lower is better; comparable across methods, exact included).
"""

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

from datasets import DEFAULT_CACHE_DIR, LETTER_CSV_NAME, LETTER_TRAIN_ROWS, load as load_dataset
from kkm_ctypes import (DEFAULT_FASHION_DIR, OPENBLAS_CORE_HELP, KkmeansError,
                        choose_openblas_core, cpu_name, fit_failed, load_fashion_mnist, log,
                        machine_line, mean_std, numpy_blas, open_library, papers_gamma, subsample)

EVAL_SEED = 20240601  # the fixed permutation behind the exact and objective subsamples

# Method configurations: (name for --methods, row label, kkm_set_params fragment). {m} and {k}
# are filled in; exact has no m.
APPROXIMATIONS = [
    ("nystrom", "nystrom uniform", "method=nystrom m={m}"),
    ("nystrom-rls", "nystrom rls", "method=nystrom m={m} sampling=rls"),
    ("nystrom-kmeanspp", "nystrom kmeanspp", "method=nystrom m={m} sampling=kmeanspp"),
    ("nystrom-rank", "nystrom uniform, rank=k={k}", "method=nystrom m={m} rank={k}"),
    ("sketch-subgaussian", "sketch subgaussian", "method=sketch m={m} sketch=subgaussian"),
    ("sketch-ros", "sketch ros", "method=sketch m={m} sketch=ros"),
    ("sketch-gaussian", "sketch gaussian", "method=sketch m={m} sketch=gaussian"),
    ("sketch-identity", "sketch identity", "method=sketch m={m} sketch=identity"),
    ("rff", "rff", "method=rff m={m}"),
]
METHOD_NAMES = ["exact"] + [name for name, _, _ in APPROXIMATIONS]

# Per data set: subsample sizes used when the options leave them unset (0 = all rows).
DATASET_DEFAULTS = {
    "fashion": dict(exact_n=10000, objective_n=5000),
    "letter": dict(exact_n=0, objective_n=0),
}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--datasets", default="fashion,letter",
                   help="comma-separated, from fashion, letter (default: %(default)s)")
    p.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1, one fit each (default: 1)")
    p.add_argument("--n", type=int, default=0,
                   help="use a random subsample of N training rows of each data set (default: all)")
    p.add_argument("--threads", type=int, default=0, help="kkmeans threads; 0 = all cores (default: 0)")
    p.add_argument("--methods", default=",".join(METHOD_NAMES),
                   help="comma-separated subset of: " + ", ".join(METHOD_NAMES) + " (default: all)")
    p.add_argument("--exact-n", type=int, default=None,
                   help="run exact on a uniform subsample of at most N training rows; 0 = all "
                   "(default: 10000 for fashion, whose 60000^2 float32 kernel matrix needs 14 GB; "
                   "all for letter)")
    p.add_argument("--objective-n", type=int, default=None,
                   help="cluster members of the test objective: a fixed uniform subsample of N "
                   "training rows; 0 = all (default: 5000 for fashion, all for letter)")
    p.add_argument("--data-dir", default=str(DEFAULT_FASHION_DIR),
                   help="directory of the Fashion-MNIST *-idx?-ubyte.gz files (default: %(default)s)")
    p.add_argument("--cache-dir", default=str(DEFAULT_CACHE_DIR),
                   help="where the LetterRecognition CSV exported with Rscript is kept "
                   "(default: %(default)s)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    p.add_argument("--json", help="also write the results to this JSON file")
    args = p.parse_args()
    args.datasets = [s.strip() for s in args.datasets.split(",") if s.strip()]
    args.methods = [s.strip() for s in args.methods.split(",") if s.strip()]
    bad = [s for s in args.datasets if s not in DATASET_DEFAULTS]
    if bad or not args.datasets:
        p.error(f"--datasets: unknown {bad}; choose from {', '.join(DATASET_DEFAULTS)}")
    bad = [s for s in args.methods if s not in METHOD_NAMES]
    if bad or not args.methods:
        p.error(f"--methods: unknown {bad}; choose from {', '.join(METHOD_NAMES)}")
    if args.seeds < 1 or args.threads < 0 or args.n < 0:
        p.error("need --seeds >= 1, --threads >= 0, --n >= 0")
    if (args.exact_n or 0) < 0 or (args.objective_n or 0) < 0:
        p.error("need --exact-n >= 0 and --objective-n >= 0")
    return args


# ---------------------------------------------------------------------------- data

def load_fashion(args):
    Xtr, ytr = load_fashion_mnist(args.data_dir, args.n, split="train")
    Xte, yte = load_fashion_mnist(args.data_dir, 0, split="test")
    return dict(name="Fashion-MNIST", Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte, k=10,
                source=f"{args.data_dir} (train + t10k), pixels/255")


def load_letter(args):
    """LetterRecognition from datasets.py (its Rscript export, sha256 checked): the first
    LETTER_TRAIN_ROWS rows train (subsampled with --n), the others test."""
    path = Path(args.cache_dir) / LETTER_CSV_NAME
    X, y = load_dataset("letter", split="all", cache_dir=args.cache_dir)
    Xtr, ytr = subsample(X[:LETTER_TRAIN_ROWS], y[:LETTER_TRAIN_ROWS], args.n)
    Xte, yte = subsample(X[LETTER_TRAIN_ROWS:], y[LETTER_TRAIN_ROWS:], 0)
    return dict(name="LetterRecognition", Xtr=Xtr, ytr=ytr, Xte=Xte, yte=yte, k=26,
                source=f"mlbench LetterRecognition via {path} (sha256 verified), attributes/15, "
                f"first {LETTER_TRAIN_ROWS} rows train, last {20000 - LETTER_TRAIN_ROWS} test")


LOADERS = {"fashion": load_fashion, "letter": load_letter}


# ---------------------------------------------------------------------------- test objective

def rbf_block(A, B, b_sq, gamma):
    """exp(-gamma ||a - b||^2) for the rows of A against those of B, float64."""
    import numpy as np
    A = A.astype(np.float64)
    d2 = np.einsum("ij,ij->i", A, A)[:, None] + b_sq[None, :] - 2.0 * (A @ B.T)
    np.maximum(d2, 0.0, out=d2)
    return np.exp(-gamma * d2, out=d2)


class TestObjective:
    """mean_x ||phi(x) - mu_c(x)||^2 = mean_x [k(x,x) - 2/|C_c| sum_a k(x,a)
    + 1/|C_c|^2 sum_ab k(a,b)], C_j = members (a fixed set of training rows) labelled j.
    The kernel blocks K(test, members) and K(members, members) are computed once (float64)."""

    BLOCK = 1024

    def __init__(self, X_test, X_members, gamma):
        import numpy as np
        self.gamma = gamma
        M = np.asarray(X_members, dtype=np.float64)
        m_sq = np.einsum("ij,ij->i", M, M)
        self.K_tm = np.empty((X_test.shape[0], M.shape[0]))
        self.K_mm = np.empty((M.shape[0], M.shape[0]))
        for K, X in ((self.K_tm, X_test), (self.K_mm, M)):
            for start in range(0, X.shape[0], self.BLOCK):
                K[start:start + self.BLOCK] = rbf_block(X[start:start + self.BLOCK], M, m_sq, gamma)

    def __call__(self, member_labels, test_labels, k):
        """Returns (objective, per-test-point values, test points whose cluster has no members)."""
        import numpy as np
        H = np.zeros((member_labels.shape[0], k))
        H[np.arange(member_labels.shape[0]), member_labels] = 1.0
        counts = H.sum(axis=0)
        cross = self.K_tm @ H                        # sum_{a in C_j} k(x, a)
        within = np.einsum("ij,ij->j", self.K_mm @ H, H)  # sum_{a,b in C_j} k(a, b)
        c = test_labels
        size = counts[c]
        empty = int(np.count_nonzero(size == 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            per_point = 1.0 - 2.0 * cross[np.arange(c.shape[0]), c] / size + within[c] / size ** 2
        return (float(per_point.mean()) if empty == 0 else float("nan")), per_point, empty


# ---------------------------------------------------------------------------- runs

def ceil_sqrt(x):
    r = math.isqrt(x)
    return r if r * r == x else r + 1


def resolve_sizes(key, ds, args):
    """Row subsets of the training set for exact and for the objective's members: the first
    exact_n / objective_n of one fixed permutation, so that the members are training rows of
    exact's fit too."""
    import numpy as np
    n = ds["Xtr"].shape[0]
    defaults = DATASET_DEFAULTS[key]
    exact_n = defaults["exact_n"] if args.exact_n is None else args.exact_n
    objective_n = defaults["objective_n"] if args.objective_n is None else args.objective_n
    exact_n = n if exact_n == 0 or exact_n >= n else exact_n
    objective_n = n if objective_n == 0 or objective_n >= n else objective_n
    if "exact" in args.methods and objective_n > exact_n:
        raise SystemExit(f"{ds['name']}: the objective's members ({objective_n} rows) must be "
                         f"training rows of exact ({exact_n}): lower --objective-n or raise --exact-n")
    perm = np.random.default_rng(EVAL_SEED).permutation(n)
    exact_idx = np.sort(perm[:exact_n]) if exact_n < n else np.arange(n)
    member_idx = np.sort(perm[:objective_n]) if objective_n < n else np.arange(n)
    return exact_idx, member_idx


def run_dataset(key, kkm, args, metrics):
    import numpy as np
    ds = LOADERS[key](args)
    Xtr, ytr, Xte, k = ds["Xtr"], ds["ytr"], ds["Xte"], ds["k"]
    n, d = Xtr.shape
    log(f"{ds['name']}: train {n}x{d}, test {Xte.shape[0]}, k={k}")
    exact_idx, member_idx = resolve_sizes(key, ds, args)
    ms = [ceil_sqrt(n), ceil_sqrt(16 * n)]
    plan = []  # (method name, row label, params fragment, m or None, training rows or None)
    if "exact" in args.methods:
        label = "exact" if exact_idx.shape[0] == n else \
            f"exact (uniform subsample of {exact_idx.shape[0]} training rows)"
        plan.append(("exact", label, "method=exact", None, exact_idx if exact_idx.shape[0] < n else None))
    for m in ms:
        for name, label, fragment in APPROXIMATIONS:
            if name in args.methods:
                plan.append((name, label.format(k=k), fragment.format(m=m, k=k), m, None))
    # Exact on a subsample gets the gamma that gamma=auto resolves to on the whole training
    # set (the kernel of every other row and of the objective), so it runs after the others.
    order = sorted(plan, key=lambda row: row[4] is not None)

    state = dict(gamma=None, objective=None)
    results = {}
    errors = []
    for name, label, fragment, m, rows in order:
        runs = []
        for seed in range(args.seeds):
            gamma_text = "auto"
            if rows is not None:
                gamma_text = repr(state["gamma"]) if state["gamma"] is not None else repr(papers_gamma(Xtr))
            params = f"k={k} {fragment} gamma={gamma_text} seed={seed} n_init=1 threads={args.threads}"
            log(f"{ds['name']}: {params} ...")
            try:
                run = fit_one(kkm, params, Xtr, ytr, ds, rows, member_idx, state, metrics, np)
            except KkmeansError as e:
                fit_failed(e, dict(seed=seed, params=params), runs, errors,
                           where=dict(method=label, m=m))
                continue
            log(f"  {run['seconds']:.2f} s, NMI {run['nmi']:.4f}, ARI {run['ari']:.4f}, "
                f"test objective {run['test_objective']:.5f}, stages: {run['timings']}")
            runs.append(run)
        results[(label, m)] = dict(method=name, label=label, m=m, runs=runs)
    rows_out = [results[(label, m)] for _, label, _, m, _ in plan]
    return ds, dict(n=n, d=d, k=k, n_test=int(Xte.shape[0]), ms=ms, gamma=state["gamma"],
                    gamma_text=state.get("gamma_text"), numpy_gamma=papers_gamma(Xtr),
                    exact_n=int(exact_idx.shape[0]), objective_n=int(member_idx.shape[0]),
                    objective_check=state.get("objective_check"), rows=rows_out, errors=errors)


def fit_one(kkm, params, Xtr, ytr, ds, rows, member_idx, state, metrics, np):
    X_fit = Xtr if rows is None else np.ascontiguousarray(Xtr[rows])
    y_fit = ytr if rows is None else ytr[rows]
    with kkm.fitted(params, X_fit) as model:
        seconds = model.seconds
        labels = model.labels()
        gamma_text = model.param("gamma")
        gamma = float(gamma_text)
        test_labels, test_distances = model.assign(ds["Xte"])
        run = dict(params=params, seconds=seconds,
                   nmi=float(metrics.normalized_mutual_info_score(y_fit, labels)),
                   ari=float(metrics.adjusted_rand_score(y_fit, labels)),
                   gamma=gamma_text, timings=model.timings(), train_objective=model.objective(),
                   iterations=model.iterations(), feature_dim=model.feature_dim(),
                   m_resolved=model.param("m"))
    if state["gamma"] is None:
        state["gamma"], state["gamma_text"] = gamma, gamma_text
        log(f"{ds['name']}: resolved gamma {gamma_text}; computing the objective's kernel blocks...")
        start = time.perf_counter()
        state["objective"] = TestObjective(ds["Xte"], Xtr[member_idx], gamma)
        log(f"  {time.perf_counter() - start:.1f} s")
    elif abs(gamma - state["gamma"]) > 1e-6 * state["gamma"]:
        raise KkmeansError(f"resolved gamma {gamma_text} differs from the first fit's "
                           f"{state['gamma_text']} (the objective would mix kernels)")
    # The members' labels: the fit's training labels of the member rows.
    if rows is None:
        member_labels = labels[member_idx]
    else:
        member_labels = labels[np.searchsorted(rows, member_idx)]
    value, per_point, empty = state["objective"](member_labels, test_labels, ds["k"])
    run.update(test_objective=value, empty_test_clusters=empty)
    if rows is None and member_idx.shape[0] == Xtr.shape[0] and params.find("method=exact") >= 0:
        # Exact on every training row: kkm_assign's distance is this objective's term.
        state["objective_check"] = float(np.max(np.abs(per_point - test_distances)))
    return run


# ---------------------------------------------------------------------------- report

def cell(runs, key, digits):
    values = [r[key] for r in runs if "error" not in r]
    if not values:
        return "error"
    text = mean_std(values, digits)
    failed = len(runs) - len(values)
    return text + (f" ({failed} failed)" if failed else "")


def print_table(ds, out, args):
    print(f"## {ds['name']}: n={out['n']} training rows, {out['n_test']} test rows, d={out['d']}, "
          f"k={out['k']}, m in {{{out['ms'][0]}, {out['ms'][1]}}}, seeds={args.seeds}\n")
    print("| method | m | fit time (s) | NMI | ARI | test objective |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in out["rows"]:
        runs = row["runs"]
        m = "—" if row["m"] is None else str(row["m"])
        print(f"| {row['label']} | {m} | {cell(runs, 'seconds', 2)} | {cell(runs, 'nmi', 4)} | "
              f"{cell(runs, 'ari', 4)} | {cell(runs, 'test_objective', 5)} |")
    print()
    print(f"- data: {ds['source']}" + (f"; training rows subsampled to {out['n']} (--n)" if args.n else ""))
    if out["gamma"] is not None:
        print(f"- gamma=auto resolved to {out['gamma_text']} (kkm_get_param; numpy, same rule: "
              f"{out['numpy_gamma']:.15g}); every fit and the objective use it")
    members = ("all training rows" if out["objective_n"] == out["n"] else
               f"a fixed uniform subsample of {out['objective_n']} of the {out['n']} training rows "
               f"(numpy seed {EVAL_SEED}; the same rows for every method)")
    print(f"- test objective: mean over the {out['n_test']} test points of ||phi(x) - mu_c(x)||^2, "
          f"c(x) from kkm_assign, mu_j the mean of the members the fit labelled j, exact rbf "
          f"kernel in float64; members = {members}; lower is better")
    if out["exact_n"] < out["n"] and "exact" in args.methods:
        print(f"- exact ran on a uniform subsample of {out['exact_n']} of the {out['n']} training rows "
              f"(--exact-n; exact stores the n^2 float32 kernel matrix, {4 * out['n'] ** 2 / 2 ** 30:.1f} GiB "
              f"for all {out['n']} rows, and would otherwise recompute its rows every Lloyd iteration), "
              f"with the gamma resolved on all of them; its NMI/ARI are of those rows, its time is that "
              f"fit's; its subsample contains the objective's members")
    if out["objective_check"] is not None:
        print(f"- check: exact's kkm_assign distances equal the objective's per-point terms to "
              f"max |diff| = {out['objective_check']:.2e}")
    for run in (r for row in out["rows"] for r in row["runs"] if r.get("empty_test_clusters")):
        print(f"- {run['params']}: {run['empty_test_clusters']} test points fell in clusters with "
              f"no members, so the objective is undefined (nan)")
    for e in out["errors"]:
        print(f"- ERROR {e['method']} m={e['m']} seed={e['seed']} ({e['params']}): {e['error']}")
    print()


def main():
    args = parse_args()
    core_note = choose_openblas_core(args.openblas_core)  # before numpy loads OpenBLAS
    from sklearn import metrics

    kkm = open_library(args.lib)
    results = {}
    for key in args.datasets:
        ds, out = run_dataset(key, kkm, args, metrics)
        print_table(ds, out, args)
        sys.stdout.flush()
        results[key] = out
    print(machine_line(kkm, args.threads, core_note, blas=True))
    if args.json:
        Path(args.json).write_text(json.dumps(dict(
            library=str(kkm.path), version=kkm.version(), threads=args.threads, seeds=args.seeds,
            cpu_count=os.cpu_count(), cpu=cpu_name(), numpy_blas=numpy_blas(), openblas_core=core_note,
            datasets=results), indent=2) + "\n")
    if any(out["errors"] for out in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
