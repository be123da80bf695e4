#!/usr/bin/python3
"""Reproduces Tables 5 and 6 of Wang, Gittens & Mahoney, "Scalable kernel k-means clustering
with Nystrom approximation: relative-error bounds", JMLR 2019, with kkmeans' rank-restricted
Nystrom kernel k-means (method=nystrom m=c rank=s, the paper's Algorithm 2) on Fashion-MNIST,
through ctypes on libkkmeans.so.

    /usr/bin/python3 bench/repro_wang.py [--seeds 5] [--quick]

The tables (MNIST8M, k = 10, uniform sampling, l = ceil(c/2) eigenpairs of W kept):
  Table 5: NMI (and time) against the sketch size c in {100, 400, 1600}, for target
           dimension s = 20 (c = 100, 400, 1600) and s = 80 (c = 400, 1600; s = 80 > l = 50
           at c = 100 is outside the algorithm's k <= s <= l <= c);
  Table 6: NMI (and time) against s in {10, 20, 40, 80, 160, 320} at c = 1600.
This script fits, for every (c, s) of both tables and seed 0..seeds-1 (default 5),
  `k=10 method=nystrom sampling=uniform m=c rank=s gamma=auto seed=s0 n_init=1`
(reg_rank = l stays at the library's auto = ceil(c/2), the paper's choice), and also the
unrestricted Nystrom method (`method=nystrom m=c`, no rank) at every c, on the 60000
Fashion-MNIST training images (pixels / 255), and reports the NMI of the training labels
against the true classes and the kkm_fit wall time (mean +- sd over the seeds): Markdown
tables in the layout of Tables 5 and 6 (plus an "unrestricted" column / row), written to
bench/results/repro_wang.md, a figure bench/results/repro_wang.svg (NMI against c per s;
NMI against s at the largest c, the unrestricted fit as a band), per-fit records in
bench/out/repro_wang.json.

Deviations from the paper's protocol:
  - Data: Fashion-MNIST 60000 training images instead of MNIST8M (8.1 million); n is 135x
    smaller, so the NMI values are not comparable, only the trends in c and s.
  - Kernel scale: eq. (5) with beta = 1 as the paper (Section 6.1): sigma^2 = (1/n^2)
    sum_ij ||a_i - a_j||^2, k(a, a') = exp(-||a - a'||^2 / (2 sigma^2)); that is the
    library's gamma=auto, computed on the training rows.
  - Clustering: kkmeans' Lloyd on the s-dimensional features (k-means++ seeding, n_init=1,
    max_iter=100) instead of Spark MLlib's k-means|| (MaxIter = 100); the rank restriction
    uses the exact top-s eigenvectors of R^T R (accumulated over row blocks) rather than a
    distributed truncated SVD.
  - Time: one kkm_fit call on one machine (Nystrom + rank restriction + k-means together,
    the stage split is in the JSON), not the paper's 32-node Spark timings; 5 seeds (the paper
    repeats 10 times).
  - The "unrestricted" rows (standard Nystrom features, all eigenpairs of W above the
    library's rcond cut-off) are not in Tables 5/6; they are the s = c end of the paper's
    Figure 2(b) / Section 5 "without dimensionality reduction".

--quick: 10000 training rows, c in {100, 400, 800} (800 in place of 1600, also for Table 6),
the paper's s values, 2 seeds (about 15 s).
"""

import argparse
import math

from kkm_ctypes import (DEFAULT_FASHION_DIR, OPENBLAS_CORE_HELP, KkmeansError, fit_failed,
                        load_fashion_mnist, log, machine_line, papers_gamma)
import plots

NAME = "repro_wang"
DEFAULTS = dict(n=0, seeds=5, cs="100,400,1600", s5="20,80", c6=1600, s6="10,20,40,80,160,320")
QUICK = dict(n=10000, seeds=2, cs="100,400,800", s5="20,80", c6=800, s6="10,20,40,80,160,320")


def int_list(text):
    return [int(v) for v in str(text).split(",") if v.strip()]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--seeds", type=int, help="seeds 0..N-1, one fit each per configuration (default: 5)")
    p.add_argument("--n", type=int, help="random subsample of N training rows (default: all 60000)")
    p.add_argument("--cs", help="Table 5's sketch sizes c (default: 100,400,1600)")
    p.add_argument("--s5", help="Table 5's target dimensions s (default: 20,80)")
    p.add_argument("--c6", type=int, help="Table 6's sketch size c (default: 1600)")
    p.add_argument("--s6", help="Table 6's target dimensions s (default: 10,20,40,80,160,320)")
    p.add_argument("--no-unrestricted", action="store_true",
                   help="skip the unrestricted Nystrom fits (no rank)")
    p.add_argument("--k", type=int, default=10, help="clusters (default: %(default)s)")
    p.add_argument("--threads", type=int, default=0, help="kkmeans threads; 0 = all cores (default: 0)")
    p.add_argument("--data-dir", default=str(DEFAULT_FASHION_DIR),
                   help="directory of the Fashion-MNIST *-idx?-ubyte.gz files (default: %(default)s)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    plots.add_output_args(p)
    args = p.parse_args()
    plots.fill_unset(args, QUICK if args.quick else DEFAULTS)
    args.cs, args.s5, args.s6 = int_list(args.cs), int_list(args.s5), int_list(args.s6)
    if args.seeds < 1 or args.threads < 0 or args.n < 0:
        p.error("need --seeds >= 1, --threads >= 0, --n >= 0")
    return args


def plan(args):
    """Configurations (c, s or None for unrestricted), each once, plus the skipped ones."""
    configs, skipped = [], []
    wanted = [(c, s) for c in args.cs for s in args.s5] + [(args.c6, s) for s in args.s6]
    for c, s in wanted:
        if s > math.ceil(c / 2):
            if (c, s) not in [(a, b) for a, b, _ in skipped]:
                skipped.append((c, s, f"s = {s} > l = ceil(c/2) = {math.ceil(c / 2)}"))
            continue
        if (c, s) not in configs:
            configs.append((c, s))
    if not args.no_unrestricted:
        for c in sorted(set(args.cs + [args.c6])):
            configs.append((c, None))
    return configs, skipped


def run(args, kkm, metrics):
    X, y = load_fashion_mnist(args.data_dir, args.n, split="train")
    n = X.shape[0]
    configs, skipped = plan(args)
    log(f"Fashion-MNIST: {n}x{X.shape[1]}, k={args.k}, {len(configs)} configurations x "
        f"{args.seeds} seeds")
    records, errors, gamma_text = [], [], None
    for c, s in configs:
        if c > n:
            skipped.append((c, s, f"c = {c} > n = {n}"))
            continue
        for seed in range(args.seeds):
            rank = f" rank={s}" if s is not None else ""
            params = (f"k={args.k} method=nystrom sampling=uniform m={c}{rank} gamma=auto "
                      f"seed={seed} n_init=1 threads={args.threads}")
            log(f"{params} ...")
            key = dict(c=c, s=s, seed=seed, params=params)
            try:
                with kkm.fitted(params, X) as model:
                    seconds = model.seconds
                    labels = model.labels()
                    rec = dict(key, seconds=seconds,
                               nmi=float(metrics.normalized_mutual_info_score(y, labels)),
                               ari=float(metrics.adjusted_rand_score(y, labels)),
                               timings=model.timings(), iterations=model.iterations(),
                               feature_dim=model.feature_dim(), reg_rank=model.param("reg_rank"),
                               train_objective=model.objective() / n, gamma=model.param("gamma"))
            except KkmeansError as e:
                fit_failed(e, key, records, errors)
                continue
            gamma_text = gamma_text or rec["gamma"]
            log(f"  {seconds:.2f} s, NMI {rec['nmi']:.4f}, features {rec['feature_dim']}, "
                f"reg_rank {rec['reg_rank']}, stages: {rec['timings']}")
            records.append(rec)
    return dict(n=n, d=int(X.shape[1]), gamma=gamma_text, numpy_gamma=papers_gamma(X),
                configs=configs, skipped=skipped, records=records, errors=errors)


def vals(out, c, s, key):
    return [r[key] for r in out["records"] if r["c"] == c and r["s"] == s and "error" not in r]


def cell(out, c, s, key, digits):
    if (c, s) not in [tuple(x) for x in out["configs"]]:
        return "—"
    return plots.fmt(vals(out, c, s, key), digits)


def report(out, args, kkm, core_note, results_dir, json_path, total):
    R = plots.Report()
    unres = not args.no_unrestricted
    R("# Wang, Gittens & Mahoney 2019, Tables 5 and 6: rank-restricted Nyström kernel k-means "
      "(Fashion-MNIST)\n")
    R(f"n = {out['n']} training rows, d = {out['d']}, k = {args.k}, uniform landmarks, "
      f"l = reg_rank = ⌈c/2⌉, seeds 0–{args.seeds - 1} (mean ± sd), NMI of the training labels; "
      f"`method=nystrom m=c rank=s n_init=1 gamma=auto`" + (" — **quick run**" if args.quick else "")
      + "\n")
    cols = [s for s in args.s5]
    R(f"## Table 5: NMI against the sketch size c (s ∈ {{{', '.join(map(str, cols))}}}"
      + (", and unrestricted" if unres else "") + ")\n")
    header = ["c"] + [f"s = {s}" for s in cols] + (["unrestricted (s = —)"] if unres else [])
    R.table(header, [[c] + [cell(out, c, s, "nmi", 4) for s in cols]
                     + ([cell(out, c, None, "nmi", 4)] if unres else []) for c in args.cs])
    R("Fit time (s), the kkm_fit call:\n")
    R.table(header, [[c] + [cell(out, c, s, "seconds", 2) for s in cols]
                     + ([cell(out, c, None, "seconds", 2)] if unres else []) for c in args.cs])
    c6 = args.c6
    R(f"## Table 6: NMI against the target dimension s (c = {c6})\n")
    header6 = [""] + [f"s = {s}" for s in args.s6] + (["unrestricted"] if unres else [])
    ss6 = list(args.s6) + ([None] if unres else [])
    R.table(header6, [[label] + [cell(out, c6, s, key, digits) for s in ss6]
                      for label, key, digits in (("NMI", "nmi", 4), ("ARI", "ari", 4),
                                                 ("fit time (s)", "seconds", 2))])
    # Where NMI peaks in s (the paper: non-monotonic, best at a moderate s ~ sqrt(kc)).
    means = [(plots.mean_sd(vals(out, c6, s, "nmi"))[0], s) for s in args.s6 if vals(out, c6, s, "nmi")]
    if means:
        best, s_best = max(means)
        R(f"At c = {c6} the mean NMI peaks at s = {s_best} ({best:.4f}); √(kc) = "
          f"{math.sqrt(args.k * c6):.1f} (the paper's suggested order for s; on MNIST8M it "
          f"found s = 80 best, NMI 0.4233).\n")
    R(f"- data: Fashion-MNIST {args.data_dir} (train), pixels/255"
      + (f"; a random subsample of {out['n']} rows (--n)" if args.n else "; all 60000 rows"))
    if out["gamma"]:
        R(f"- kernel: rbf, gamma=auto = 1/(2σ²), σ² = mean pairwise squared distance (the "
          f"paper's eq. 5, β = 1): resolved to {out['gamma']} (numpy, same rule: "
          f"{out['numpy_gamma']:.10g})")
    R("- unrestricted: standard Nyström features (all eigenpairs of W above the library's rcond "
      "cut-off), not part of the paper's Tables 5/6")
    for c, s, why in out["skipped"]:
        R(f"- skipped c = {c}, s = {s}: {why} (the paper's algorithm needs s ≤ l ≤ c)")
    for e in out["errors"]:
        R(f"- ERROR c={e['c']} s={e['s']} seed={e['seed']} ({e['params']}): {e['error']}")
    plots.close_report(R, results_dir / f"{NAME}.md", plot(out, args, results_dir), json_path,
                       "- " + machine_line(kkm, args.threads, core_note, total=total))


def plot(out, args, results_dir):
    plt = plots.pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    for s in args.s5:
        cs = [c for c in args.cs if vals(out, c, s, "nmi")]
        if cs:
            plots.band(ax1, cs, [vals(out, c, s, "nmi") for c in cs], label=f"s = {s}")
    cs = [c for c in args.cs if vals(out, c, None, "nmi")]
    if cs:
        plots.band(ax1, cs, [vals(out, c, None, "nmi") for c in cs], label="unrestricted",
                   marker="s", ls="--")
    ax1.set_xscale("log")
    ax1.set_xticks(args.cs)
    ax1.set_xticklabels([str(c) for c in args.cs])
    ax1.minorticks_off()
    ax1.set_xlabel("sketch size c (uniform landmarks)")
    ax1.set_ylabel("NMI")
    ax1.set_title("Table 5: NMI against c", fontsize=9)
    ax1.legend(fontsize=7)
    c6 = args.c6
    ss = [s for s in args.s6 if vals(out, c6, s, "nmi")]
    if ss:
        plots.band(ax2, ss, [vals(out, c6, s, "nmi") for s in ss], label=f"rank s (c = {c6})")
    unres = vals(out, c6, None, "nmi")
    if unres:
        m, sd = plots.mean_sd(unres)
        ax2.axhline(m, color="C1", ls="--", lw=1, label="unrestricted")
        ax2.axhspan(m - sd, m + sd, color="C1", alpha=0.15, lw=0)
    ax2.axvline(math.sqrt(args.k * c6), color="grey", ls=":", lw=1, label="√(kc)")
    ax2.set_xscale("log")
    if ss:
        ax2.set_xticks(ss)
        ax2.set_xticklabels([str(s) for s in ss])
    ax2.minorticks_off()
    ax2.set_xlabel("target dimension s")
    ax2.set_title(f"Table 6: NMI against s at c = {c6}", fontsize=9)
    ax2.legend(fontsize=7)
    fig.suptitle(f"Rank-restricted Nyström kernel k-means, Fashion-MNIST (n = {out['n']}, "
                 f"{args.seeds} seeds, mean ± sd)", fontsize=9)
    return plots.save_svg(fig, results_dir / f"{NAME}.svg")


if __name__ == "__main__":
    plots.reproduce(NAME, parse_args(), run, report)
