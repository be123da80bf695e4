#!/usr/bin/python3
"""Truncated mini-batch kernel k-means (method=minibatch) against exact kernel k-means on
LetterRecognition and Fashion-MNIST, through ctypes on libkkmeans.so: the Gaussian-kernel
experiments (Figure 1; Appendix C, Figure 2 (MNIST) and Figure 8 (Letter)) of "Mini-batch
kernel k-means" (anonymous submission, 2024).

Run with Debian's python, which has numpy and scikit-learn (python3-sklearn):

    /usr/bin/python3 bench/minibatch.py [--datasets letter,fashion] [--seeds N] [--n N] [--quick]

For each data set it fits exact (`method=exact k=K gamma=auto seed=s n_init=1`) and every
minibatch configuration (`method=minibatch tau=T batch_size=B learning_rate=R k=K gamma=auto
seed=s`, tau in {50, 100, 200, 300} (the paper's values), b in {256, 1024}, both learning
rates: beta = the paper's / Schwartzman's sqrt(b_j/b) and sklearn's b_j / (points so far);
epsilon and max_iter at the library's defaults unless --epsilon / --max-iter say otherwise),
prints a Markdown table (method | tau | b | rate | fit time (s) | NMI | ARI; mean +- sd over the
seeds; NMI/ARI of the training labels against the true classes) and under it each minibatch
row's speed-up over exact (exact's mean time / the row's mean time), its ARI difference and
whether the issue's target holds (>= 10x faster than exact at an ARI within 0.02 of exact's).
The tables also go to bench/results/minibatch.md, a figure (ARI against fit time, one marker
per configuration, exact as a reference line, one panel per data set) to
bench/results/minibatch.svg, and every fit to bench/out/minibatch.json (or --json FILE).

Deviations from the paper's protocol:
  - Data: LetterRecognition (all 20000 rows by default, as the paper's Letters; attributes
    / 15) and Fashion-MNIST (60000 training images, pixels / 255) instead of the paper's
    MNIST (70000), PenDigits, Letters and HAR; no heat or k-nn kernels.
  - Kernel: rbf with gamma=auto = 1/(2 sigma^2), sigma^2 = mean pairwise squared distance
    (Wang et al.'s heuristic, beta = 1); the paper starts from the same heuristic but then
    tunes kappa by hand (its values are in supplementary material we do not have).
  - Stopping: the library's early stopping (epsilon = 0.001 on the batch objective,
    max_iter = 100) instead of the paper's fixed 200 iterations without a stopping rule;
    `--epsilon 0 --max-iter 200` runs the paper's protocol.
  - b in {256, 1024} of the paper's {256, 512, 1024, 2048} (--batch-sizes takes any list);
    no untruncated (tau = 0, --taus accepts 0) or non-kernel mini-batch rows.
  - 5 seeds instead of 10; times are CPU (2 cores here) kkm_fit wall times, the paper's
    include a GPU; exact is the library's Lloyd on the stored float32 kernel matrix.

--quick: 3000-row subsamples of both data sets, tau in {50, 100}, b = 256, both rates, 1 seed
(about 10 s).
"""

import argparse
import sys
import time
from types import SimpleNamespace

from kkm_ctypes import (DEFAULT_FASHION_DIR, OPENBLAS_CORE_HELP, REPO_ROOT, KkmeansError,
                        fit_failed, load_fashion_mnist, log, machine_line, mean_std, papers_gamma,
                        subsample)
import plots

NAME = "minibatch"
DEFAULTS = dict(n=0, seeds=5, taus="50,100,200,300", batch_sizes="256,1024", rates="beta,sklearn")
QUICK = dict(n=3000, seeds=1, taus="50,100", batch_sizes="256", rates="beta,sklearn")

DEFAULT_CACHE_DIR = REPO_ROOT / "bench" / "out"
TARGET_SPEEDUP = 10.0
TARGET_ARI_GAP = 0.02
EXACT_SUBSAMPLE_SEED = 20240601  # the fallback --exact-n subsample (as approximations.py)

# Per data set: k, max_memory_mb passed to exact (None = library default), and a label.
DATASETS = {
    "letter": dict(k=26, exact_memory_mb=None),
    # 60000^2 float32 = 13.4 GiB: above the default budget of 4096 MiB, under which exact
    # would recompute kernel rows every Lloyd iteration.
    "fashion": dict(k=10, exact_memory_mb=16000),
}
DEFAULTS_REPORTED = ("epsilon", "max_iter", "n_init", "init", "max_memory_mb")


def int_list(text):
    return [int(v) for v in text.split(",") if v.strip()]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--datasets", default="letter,fashion",
                   help="comma-separated, from letter, fashion (default: %(default)s)")
    p.add_argument("--seeds", type=int, help="seeds 0..N-1, one fit each (default: 5)")
    p.add_argument("--n", type=int,
                   help="use a random subsample of N training rows of each data set (default: all)")
    p.add_argument("--letter-rows", choices=("16000", "20000"), default="20000",
                   help="LetterRecognition rows to cluster: the first 16000 (the UCI training "
                   "rows, as approximations.py) or all 20000, as the paper (default: %(default)s)")
    p.add_argument("--taus", help="tau values (default: 50,100,200,300)")
    p.add_argument("--batch-sizes", help="b values (default: 256,1024)")
    p.add_argument("--rates", help="learning rates, from beta, sklearn (default: beta,sklearn)")
    p.add_argument("--max-iter", type=int,
                   help="max_iter of the minibatch fits (default: the library's, 100; the paper: 200)")
    p.add_argument("--epsilon", type=float,
                   help="early-stopping epsilon of the minibatch fits (default: the library's, "
                   "0.001; 0 = run max_iter iterations, as the paper)")
    p.add_argument("--skip-exact", action="store_true",
                   help="no exact rows (no speed-ups or target then)")
    p.add_argument("--exact-n", type=int, default=0,
                   help="fallback: run exact on a uniform subsample of N training rows (with the "
                   "gamma resolved on all of them) when all rows are impractical; 0 = all rows "
                   "(default: 0)")
    p.add_argument("--exact-memory-mb", type=int, default=None,
                   help="max_memory_mb for exact (default: 16000 for fashion, the library's "
                   "default for letter)")
    p.add_argument("--threads", type=int, default=0, help="kkmeans threads; 0 = all cores (default: 0)")
    p.add_argument("--data-dir", default=str(DEFAULT_FASHION_DIR),
                   help="directory of the Fashion-MNIST *-idx?-ubyte.gz files (default: %(default)s)")
    p.add_argument("--cache-dir", default=str(DEFAULT_CACHE_DIR),
                   help="where the LetterRecognition CSV exported with Rscript is kept "
                   "(default: %(default)s)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    plots.add_output_args(p)
    args = p.parse_args()
    plots.fill_unset(args, QUICK if args.quick else DEFAULTS)
    args.datasets = [s.strip() for s in args.datasets.split(",") if s.strip()]
    bad = [s for s in args.datasets if s not in DATASETS]
    if bad or not args.datasets:
        p.error(f"--datasets: unknown {bad}; choose from {', '.join(DATASETS)}")
    args.taus = int_list(args.taus)
    args.batch_sizes = int_list(args.batch_sizes)
    args.rates = [s.strip() for s in args.rates.split(",") if s.strip()]
    if any(r not in ("beta", "sklearn") for r in args.rates):
        p.error("--rates: choose from beta, sklearn")
    if args.seeds < 1 or args.threads < 0 or args.n < 0 or args.exact_n < 0:
        p.error("need --seeds >= 1, --threads >= 0, --n >= 0, --exact-n >= 0")
    if (args.max_iter is not None and args.max_iter < 1) or (args.epsilon is not None and args.epsilon < 0):
        p.error("need --max-iter >= 1 and --epsilon >= 0")
    return args


# ---------------------------------------------------------------------------- data

def load_letter(args):
    """LetterRecognition through approximations.py's Rscript export (sha256 checked)."""
    import numpy as np
    from approximations import load_letter as load_letter_split
    from datasets import LETTER_TRAIN_ROWS
    ds = load_letter_split(SimpleNamespace(cache_dir=args.cache_dir, n=0))
    if args.letter_rows == "20000":
        X = np.concatenate([ds["Xtr"], ds["Xte"]])
        y = np.concatenate([ds["ytr"], ds["yte"]])
        rows = "all 20000 rows"
    else:
        X, y = ds["Xtr"], ds["ytr"]
        rows = f"first {LETTER_TRAIN_ROWS} rows (the UCI training rows, as approximations.py)"
    X, y = subsample(X, y, args.n)
    source = ds["source"].split(", first")[0] + f"; {rows}"
    return dict(name="LetterRecognition", X=X, y=y, source=source)


def load_fashion(args):
    X, y = load_fashion_mnist(args.data_dir, args.n, split="train")
    return dict(name="Fashion-MNIST", X=X, y=y,
                source=f"{args.data_dir} (train split), pixels/255")


LOADERS = {"letter": load_letter, "fashion": load_fashion}


# ---------------------------------------------------------------------------- runs

def plan_rows(args):
    """(key, label fields, params fragment) per table row, exact first."""
    rows = []
    if not args.skip_exact:
        rows.append(dict(method="exact", tau=None, b=None, rate=None, fragment="method=exact n_init=1"))
    stopping = ""
    if args.max_iter is not None:
        stopping += f" max_iter={args.max_iter}"
    if args.epsilon is not None:
        stopping += f" epsilon={args.epsilon!r}"
    for tau in args.taus:
        for b in args.batch_sizes:
            for rate in args.rates:
                rows.append(dict(method="minibatch", tau=tau, b=b, rate=rate,
                                 fragment=f"method=minibatch tau={tau} batch_size={b} "
                                 f"learning_rate={rate}{stopping}"))
    return rows


def fit_one(kkm, params, X, y, metrics):
    with kkm.fitted(params, X) as model:
        labels = model.labels()
        resolved = {key: model.param(key) for key in ("gamma",) + DEFAULTS_REPORTED}
        return dict(params=params, seconds=model.seconds,
                    nmi=float(metrics.normalized_mutual_info_score(y, labels)),
                    ari=float(metrics.adjusted_rand_score(y, labels)),
                    timings=model.timings(), iterations=model.iterations(),
                    train_objective=model.objective(), resolved=resolved)


def run_dataset(key, kkm, args, metrics):
    import numpy as np
    ds = LOADERS[key](args)
    X, y = ds["X"], ds["y"]
    k = DATASETS[key]["k"]
    n, d = X.shape
    log(f"{ds['name']}: {n}x{d}, k={k}")
    exact_memory = args.exact_memory_mb if args.exact_memory_mb is not None \
        else DATASETS[key]["exact_memory_mb"]
    exact_rows = None
    if args.exact_n and args.exact_n < n:
        perm = np.random.default_rng(EXACT_SUBSAMPLE_SEED).permutation(n)
        exact_rows = np.sort(perm[:args.exact_n])
    out_rows, errors = [], []
    gamma_text = None
    # Minibatch first: exact on a subsample needs the gamma resolved on all rows.
    plan = plan_rows(args)
    order = [r for r in plan if r["method"] != "exact"] + [r for r in plan if r["method"] == "exact"]
    for row in order:
        runs = []
        for seed in range(args.seeds):
            X_fit, y_fit, gamma = X, y, "auto"
            extra = ""
            if row["method"] == "exact":
                if exact_memory is not None:
                    extra = f" max_memory_mb={exact_memory}"
                if exact_rows is not None:
                    X_fit, y_fit = np.ascontiguousarray(X[exact_rows]), y[exact_rows]
                    gamma = gamma_text if gamma_text is not None else repr(papers_gamma(X))
            params = f"{row['fragment']} k={k} gamma={gamma} seed={seed}{extra} threads={args.threads}"
            log(f"{ds['name']}: {params} ...")
            try:
                run = fit_one(kkm, params, X_fit, y_fit, metrics)
            except KkmeansError as e:
                fit_failed(e, dict(seed=seed, params=params), runs, errors,
                           where=dict(row=row_label(row)))
                continue
            run["seed"] = seed
            if gamma == "auto":
                if gamma_text is None:
                    gamma_text = run["resolved"]["gamma"]
                elif run["resolved"]["gamma"] != gamma_text:
                    log(f"  note: gamma resolved to {run['resolved']['gamma']}, earlier {gamma_text}")
            log(f"  {run['seconds']:.2f} s, NMI {run['nmi']:.4f}, ARI {run['ari']:.4f}, "
                f"{run['iterations']} iterations, stages: {run['timings']}")
            runs.append(run)
        out_rows.append(dict(row, label=row_label(row), runs=runs,
                             n_fit=int(n if row["method"] != "exact" or exact_rows is None
                                       else exact_rows.shape[0])))
    out_rows.sort(key=lambda r: plan.index(next(p for p in plan if p["fragment"] == r["fragment"])))
    return ds, dict(n=n, d=d, k=k, gamma=gamma_text, numpy_gamma=papers_gamma(X),
                    exact_n=None if exact_rows is None else int(exact_rows.shape[0]),
                    exact_memory_mb=exact_memory, rows=out_rows, errors=errors)


def row_label(row):
    if row["method"] == "exact":
        return "exact"
    return f"minibatch tau={row['tau']} b={row['b']} rate={row['rate']}"


# ---------------------------------------------------------------------------- report

def ok_runs(runs):
    return [r for r in runs if "error" not in r]


def cell(runs, key, digits):
    values = [r[key] for r in ok_runs(runs)]
    if not values:
        return "error"
    failed = len(runs) - len(values)
    return mean_std(values, digits) + (f" ({failed} failed)" if failed else "")


def gib(nbytes):
    return f"{nbytes / 2 ** 30:.1f} GiB" if nbytes >= 2 ** 30 else f"{nbytes / 2 ** 20:.0f} MiB"


def speedup_text(x):
    return f"{x:.1f}×" if x >= 1 else f"{x:.2f}×"


def mean(values):
    return sum(values) / len(values)


def print_table(ds, out, args, R):
    subset = f" (random subsample of {out['n']} rows, --n)" if args.n else ""
    R(f"## {ds['name']}: n={out['n']}{subset}, d={out['d']}, k={out['k']}, seeds={args.seeds}\n")
    R("| method | τ | b | rate | fit time (s) | NMI | ARI |")
    R("|---|---:|---:|---|---:|---:|---:|")
    exact = None
    for row in out["rows"]:
        runs = row["runs"]
        if row["method"] == "exact":
            exact = row
            label = "exact" if out["exact_n"] is None else \
                f"exact (uniform subsample of {out['exact_n']} rows)"
            R(f"| {label} | — | — | — | {cell(runs, 'seconds', 2)} | {cell(runs, 'nmi', 4)} | "
                  f"{cell(runs, 'ari', 4)} |")
        else:
            R(f"| minibatch | {row['tau']} | {row['b']} | {row['rate']} | {cell(runs, 'seconds', 2)} | "
                  f"{cell(runs, 'nmi', 4)} | {cell(runs, 'ari', 4)} |")
    R()
    resolved = next((r["resolved"] for row in out["rows"] for r in ok_runs(row["runs"])
                     if row["method"] == "minibatch"), None)
    R(f"- data: {ds['source']}")
    if out["gamma"] is not None:
        R(f"- gamma=auto resolved to {out['gamma']} (kkm_get_param; numpy, same rule: "
              f"{out['numpy_gamma']:.15g})")
    if resolved is not None:
        R(f"- minibatch stopping and seeding (kkm_get_param): epsilon={resolved['epsilon']} "
              f"max_iter={resolved['max_iter']} n_init={resolved['n_init']} init={resolved['init']}")
    if exact is not None:
        memory = out["exact_memory_mb"]
        mem_text = f"max_memory_mb={memory}" if memory is not None else \
            "max_memory_mb at its default " + next((r["resolved"]["max_memory_mb"] for r in ok_runs(exact["runs"])), "?")
        n_exact = out["n"] if out["exact_n"] is None else out["exact_n"]
        R(f"- exact: n_init=1, {mem_text} (its float32 kernel matrix: {gib(4 * n_exact ** 2)}); "
              f"Lloyd iterations {cell(exact['runs'], 'iterations', 1)}")
        if out["exact_n"] is not None:
            R(f"- **exact ran on a uniform subsample of {out['exact_n']} of the {out['n']} rows** "
                  f"(--exact-n; numpy seed {EXACT_SUBSAMPLE_SEED}), with the gamma resolved on all rows; "
                  f"its NMI/ARI are of those rows and its time is that smaller fit's, so the speed-ups "
                  f"below understate those over exact on all rows")
    R("- fit time: the kkm_fit call (wall clock); NMI/ARI: the fit's training labels against "
          "the true classes (sklearn.metrics)")
    R()
    if exact is not None and ok_runs(exact["runs"]):
        exact_time = mean([r["seconds"] for r in ok_runs(exact["runs"])])
        exact_ari = mean([r["ari"] for r in ok_runs(exact["runs"])])
        R(f"Speed-up over exact (exact's mean fit time {exact_time:.2f} s / the row's mean; "
              f"ΔARI = row's mean ARI − exact's {exact_ari:.4f}); target: ≥ {TARGET_SPEEDUP:g}× "
              f"faster at |ΔARI| ≤ {TARGET_ARI_GAP}; iterations: the fit's mini-batch iterations "
              f"(kkm_get_iterations):\n")
        R("| τ | b | rate | speed-up | ΔARI | iterations | target |")
        R("|---:|---:|---|---:|---:|---:|---|")
        met = []
        for row in out["rows"]:
            if row["method"] == "exact":
                continue
            runs = ok_runs(row["runs"])
            if not runs:
                R(f"| {row['tau']} | {row['b']} | {row['rate']} | error | error | — | no |")
                continue
            t = mean([r["seconds"] for r in runs])
            diff = mean([r["ari"] for r in runs]) - exact_ari
            fast, close = exact_time / t >= TARGET_SPEEDUP, abs(diff) <= TARGET_ARI_GAP
            verdict = "yes" if fast and close else \
                "no (" + ", ".join(w for w, bad in (("speed", not fast), ("ARI", not close)) if bad) + ")"
            if fast and close:
                met.append(row)
            elif fast and diff > TARGET_ARI_GAP:
                verdict += "; ARI above exact's by more than 0.02"
            iters = cell(row["runs"], "iterations", 1)
            R(f"| {row['tau']} | {row['b']} | {row['rate']} | {speedup_text(exact_time / t)} | "
                  f"{diff:+.4f} | {iters} | {verdict} |")
        R()
        R(f"Target (≥ {TARGET_SPEEDUP:g}× faster than exact at ARI within {TARGET_ARI_GAP}) "
              + (f"holds for {len(met)} of {len(out['rows']) - 1} configurations: "
                 + ", ".join(f"τ={r['tau']} b={r['b']} {r['rate']}" for r in met) if met
                 else "holds for none of the configurations")
              + (" (against exact on a subsample)" if out["exact_n"] is not None else "") + ".")
        R()
    for e in out["errors"]:
        R(f"- ERROR {e['row']} seed={e['seed']} ({e['params']}): {e['error']}")
    if out["errors"]:
        R()


def plot(results, names, args, results_dir):
    """ARI against fit time, one marker per configuration (colour = tau, shape = b, filled =
    beta / open = sklearn), exact as a horizontal reference line; one panel per data set."""
    plt = plots.pyplot()
    from matplotlib.lines import Line2D
    fig, axes = plt.subplots(1, len(results), figsize=(4.6 * len(results), 3.8), squeeze=False)
    taus = sorted({row["tau"] for out in results.values() for row in out["rows"] if row["tau"] is not None})
    bs = sorted({row["b"] for out in results.values() for row in out["rows"] if row["b"] is not None})
    colours = {tau: f"C{i}" for i, tau in enumerate(taus)}
    markers = {b: m for b, m in zip(bs, "osD^v<>p*h")}
    for ax, (key, out) in zip(axes[0], results.items()):
        for row in out["rows"]:
            runs = ok_runs(row["runs"])
            if not runs:
                continue
            t_mean, t_sd = plots.mean_sd([r["seconds"] for r in runs])
            a_mean, a_sd = plots.mean_sd([r["ari"] for r in runs])
            if row["method"] == "exact":
                ax.axhline(a_mean, color="k", lw=1, ls="--")
                ax.axhspan(a_mean - a_sd, a_mean + a_sd, color="k", alpha=0.08, lw=0)
                ax.errorbar(t_mean, a_mean, xerr=t_sd, yerr=a_sd, fmt="*", color="k", ms=10,
                            capsize=2, lw=0.8)
                continue
            c = colours[row["tau"]]
            ax.errorbar(t_mean, a_mean, xerr=t_sd, yerr=a_sd, fmt=markers[row["b"]], color=c,
                        mfc=c if row["rate"] == "beta" else "white", mec=c, ms=6, capsize=2, lw=0.8)
        plots.log_axis(ax, "x")
        ax.set_xlabel("fit time (s, log)")
        ax.set_ylabel("ARI")
        ax.set_title(f"{names[key]} (n = {out['n']})", fontsize=9)
    handles = [Line2D([], [], color="k", ls="--", marker="*", ms=9, label="exact")]
    handles += [Line2D([], [], color=colours[t], marker="o", ls="", label=f"τ = {t}") for t in taus]
    handles += [Line2D([], [], color="grey", marker=markers[b], ls="", label=f"b = {b}") for b in bs]
    handles += [Line2D([], [], color="grey", marker="o", ls="", label="β rate (filled)"),
                Line2D([], [], color="grey", marker="o", mfc="white", ls="", label="sklearn rate (open)")]
    fig.suptitle(f"Truncated mini-batch kernel k-means against exact ({plots.seeds_text(args.seeds)})",
                 fontsize=9)
    fig.tight_layout()
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=5 if len(results) > 1 else 3, fontsize=8)
    return plots.save_svg(fig, results_dir / f"{NAME}.svg")


def main():
    args = parse_args()
    core_note, metrics, kkm, results_dir, json_path = plots.start(NAME, args)
    R = plots.Report()
    R("# Mini-batch kernel k-means (2024): truncated mini-batch against exact kernel k-means\n")
    R(f"τ ∈ {{{', '.join(map(str, args.taus))}}}, b ∈ {{{', '.join(map(str, args.batch_sizes))}}}, "
      f"learning rates {', '.join(args.rates)}; `gamma=auto`, "
      + ("seed 0" if args.seeds == 1 else f"seeds 0–{args.seeds - 1} (mean ± sd)")
      + (" — **quick run**" if args.quick else "") + "\n")
    results, names = {}, {}
    start = time.perf_counter()
    for key in args.datasets:
        ds, out = run_dataset(key, kkm, args, metrics)
        print_table(ds, out, args, R)
        results[key] = out
        names[key] = ds["name"]
    total = time.perf_counter() - start
    plots.close_report(R, results_dir / f"{NAME}.md", plot(results, names, args, results_dir),
                       json_path, machine_line(kkm, args.threads, core_note, total=total),
                       figure_note=" (ARI against fit time; colour τ, shape b, filled β / open "
                       "sklearn; exact dashed)")
    plots.write_json(json_path, dict(plots.run_fields(kkm, args, core_note, total),
                                     datasets=results))
    if any(out["errors"] for out in results.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
