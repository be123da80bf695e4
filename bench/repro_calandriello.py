#!/usr/bin/python3
"""Reproduces Figure 1 (MNIST60K) of Calandriello & Rosasco, "Statistical and computational
trade-offs in kernel k-means", NeurIPS 2018, with kkmeans' uniform Nystrom kernel k-means
(method=nystrom sampling=uniform) on Fashion-MNIST, through ctypes on libkkmeans.so.

    /usr/bin/python3 bench/repro_calandriello.py [--seeds 5] [--ms 20,50,...] [--quick]

The figure: the kernel k-means cost of the Nystrom solution C_{n,m} on held-out data,
W(C_{n,m}, mu_test), and the NMI of the computed clusters against the true classes, as
functions of the number m of uniformly sampled landmarks, with n = 60000 training images
and 10000 test images; the paper's claim is that both plateau once m ~ sqrt(n).

What this script does, per m in the grid (default 20, 50, 100, 200, ceil(sqrt(n)) = 245,
500, 1000, 2000, 4000) and seed s in 0..seeds-1 (default 5):
  fit `k=10 method=nystrom sampling=uniform m=M gamma=auto seed=s n_init=1` on the 60000
  Fashion-MNIST training images (pixels / 255), kkm_assign the 10000 t10k images, and record
  - the test objective of approximations.py (imported from it, not copied): the mean over the
    test points x of ||phi(x) - mu_c(x)||^2, c(x) the kkm_assign label, mu_j the kernel-space
    mean of the training points the fit labelled j among one fixed uniform subsample of 5000
    training rows (numpy seed approximations.EVAL_SEED, the same rows as approximations.py),
    exact rbf kernel at the fit's gamma, float64;
  - the training objective kkm_get_objective / n (the Nystrom centres' kernel k-means cost
    on all training points, exact kernel; the paper's W(C_{n,m}, mu_n));
  - NMI of the training labels against the training classes (the paper's NMI) and NMI of the
    test labels against the test classes;
  - the kkm_fit wall time.
It prints a Markdown table (mean +- sd over the seeds), says where each curve plateaus
(the smallest m whose mean test objective is within --plateau (1%) of the largest m's, and
the smallest m whose mean NMI is within 0.01 of the largest m's, both as a multiple of
sqrt(n)), writes bench/results/repro_calandriello.md and repro_calandriello.svg (log-m axis,
mean +- sd bands, a vertical line at sqrt(n)) and the per-fit records to
bench/out/repro_calandriello.json.

Deviations from the paper's protocol:
  - Data: Fashion-MNIST (60000 train / 10000 t10k, pixels / 255) instead of MNIST60K (same
    sizes and scaling); MNIST8M (Figure 2) is not reproduced.
  - Kernel scale: the paper writes sigma = (1/n^2) sqrt(sum_ij ||x_i - x_j||^2) "as in Wang et
    al."; read literally that sigma is ~ 1/n of the data's scale (a kernel matrix ~ identity),
    so we take Wang, Gittens & Mahoney's eq. (5) with beta = 1, which it cites:
    sigma^2 = (1/n^2) sum_ij ||x_i - x_j||^2, k(x, x') = exp(-||x - x'||^2 / (2 sigma^2)),
    i.e. gamma = 1/(2 sigma^2), the library's gamma=auto (computed on the training set).
  - Clustering: kkmeans' Lloyd iterations on the Nystrom features (k-means++ seeding,
    n_init=1, max_iter=100) instead of scikit-learn's Nystroem + MiniBatchKMeans.
  - Test cost: W(C, mu_test) needs the kernel-space centres; ours are the means of the 5000
    member rows' clusters (labels from the fit), not of all 60000 training rows (the pair sums
    over 60000 rows are too costly), and each test point goes to the centre kkm_assign picks.
  - 5 seeds with mean +- sd bands instead of 10 runs with 95% confidence intervals; the m grid
    is ours (the paper's figure gives no list).

--quick: 10000 training rows, 2000 test rows, 2000 objective members, m in {20, 50,
sqrt(n) = 100, 200, 500, 1000}, 2 seeds (about 15 s).
"""

import argparse
import math
import time

from kkm_ctypes import (DEFAULT_FASHION_DIR, OPENBLAS_CORE_HELP, KkmeansError, fit_failed,
                        load_fashion_mnist, log, machine_line, papers_gamma)
import plots

NAME = "repro_calandriello"
DEFAULT_MS = "20,50,100,200,sqrt,500,1000,2000,4000"
QUICK = dict(n=10000, n_test=2000, objective_n=2000, ms="20,50,sqrt,200,500,1000", seeds=2)
NMI_PLATEAU = 0.01  # absolute NMI gap for the NMI plateau


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--seeds", type=int, default=None, help="seeds 0..N-1, one fit each per m (default: 5)")
    p.add_argument("--ms", default=None,
                   help="comma-separated landmark counts; 'sqrt' = ceil(sqrt(n)) (default: "
                   f"{DEFAULT_MS})")
    p.add_argument("--n", type=int, default=None,
                   help="random subsample of N training rows (default: all 60000)")
    p.add_argument("--n-test", type=int, default=None,
                   help="random subsample of N test rows (default: all 10000)")
    p.add_argument("--objective-n", type=int, default=None,
                   help="members of the test objective: a fixed uniform subsample of N training "
                   "rows; 0 = all (default: 5000)")
    p.add_argument("--k", type=int, default=10, help="clusters (default: %(default)s)")
    p.add_argument("--plateau", type=float, default=0.01,
                   help="relative gap to the largest m's mean test objective that counts as the "
                   "plateau (default: %(default)s)")
    p.add_argument("--threads", type=int, default=0, help="kkmeans threads; 0 = all cores (default: 0)")
    p.add_argument("--max-memory-mb", type=int, default=None,
                   help="max_memory_mb for every fit (default: the library's)")
    p.add_argument("--data-dir", default=str(DEFAULT_FASHION_DIR),
                   help="directory of the Fashion-MNIST *-idx?-ubyte.gz files (default: %(default)s)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    plots.add_output_args(p)
    args = p.parse_args()
    plots.fill_unset(args, QUICK if args.quick else {})
    args.seeds = args.seeds or 5
    args.ms = args.ms or DEFAULT_MS
    args.n = args.n or 0
    args.n_test = args.n_test or 0
    args.objective_n = 5000 if args.objective_n is None else args.objective_n
    if args.seeds < 1 or args.threads < 0 or args.n < 0 or args.n_test < 0 or args.objective_n < 0:
        p.error("need --seeds >= 1 and non-negative --threads, --n, --n-test, --objective-n")
    return args


def parse_ms(text, n):
    ms = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        m = math.ceil(math.sqrt(n)) if item == "sqrt" else int(item)
        if m < 1 or m > n:
            raise SystemExit(f"--ms: {m} outside [1, n={n}]")
        if m not in ms:
            ms.append(m)
    return sorted(ms)


def test_subsample(X, y, n):
    import numpy as np
    if n and n < X.shape[0]:
        keep = np.sort(np.random.default_rng(54321).permutation(X.shape[0])[:n])
        return np.ascontiguousarray(X[keep]), y[keep]
    return X, y


def run(args, kkm, metrics):
    import numpy as np
    from approximations import EVAL_SEED, TestObjective
    Xtr, ytr = load_fashion_mnist(args.data_dir, args.n, split="train")
    Xte, yte = load_fashion_mnist(args.data_dir, 0, split="test")
    Xte, yte = test_subsample(Xte, yte, args.n_test)
    n = Xtr.shape[0]
    ms = parse_ms(args.ms, n)
    sqrt_n = math.sqrt(n)
    objective_n = n if args.objective_n == 0 or args.objective_n >= n else args.objective_n
    perm = np.random.default_rng(EVAL_SEED).permutation(n)
    member_idx = np.sort(perm[:objective_n]) if objective_n < n else np.arange(n)
    log(f"Fashion-MNIST: train {n}x{Xtr.shape[1]}, test {Xte.shape[0]}, members {objective_n}, "
        f"m in {ms}, seeds {args.seeds}")

    gamma_text, objective = None, None
    extra = f" max_memory_mb={args.max_memory_mb}" if args.max_memory_mb else ""
    records, errors = [], []
    for m in ms:
        for seed in range(args.seeds):
            params = (f"k={args.k} method=nystrom sampling=uniform m={m} gamma=auto seed={seed} "
                      f"n_init=1 threads={args.threads}{extra}")
            log(f"{params} ...")
            key = dict(m=m, seed=seed, params=params)
            try:
                with kkm.fitted(params, Xtr) as model:
                    seconds = model.seconds
                    labels = model.labels()
                    test_labels, _ = model.assign(Xte)
                    resolved = model.param("gamma")
                    rec = dict(key, seconds=seconds, timings=model.timings(),
                               iterations=model.iterations(),
                               train_objective=model.objective() / n, gamma=resolved,
                               feature_dim=model.feature_dim())
            except KkmeansError as e:
                fit_failed(e, key, records, errors)
                continue
            if gamma_text is None:
                gamma_text = resolved
                log(f"gamma=auto resolved to {gamma_text}; computing the objective's kernel blocks...")
                start = time.perf_counter()
                objective = TestObjective(Xte, Xtr[member_idx], float(gamma_text))
                log(f"  {time.perf_counter() - start:.1f} s")
            elif resolved != gamma_text:
                raise SystemExit(f"gamma resolved to {resolved}, the first fit's to {gamma_text}: "
                                 "the objective would mix kernels")
            value, _, empty = objective(labels[member_idx], test_labels, args.k)
            rec.update(test_objective=value, empty_test_clusters=empty,
                       nmi=float(metrics.normalized_mutual_info_score(ytr, labels)),
                       test_nmi=float(metrics.normalized_mutual_info_score(yte, test_labels)))
            log(f"  {seconds:.2f} s, test objective {value:.5f}, NMI {rec['nmi']:.4f} "
                f"(test {rec['test_nmi']:.4f}), stages: {rec['timings']}")
            records.append(rec)
    return dict(n=n, d=int(Xtr.shape[1]), n_test=int(Xte.shape[0]), objective_n=objective_n,
                ms=ms, sqrt_n=sqrt_n, gamma=gamma_text, numpy_gamma=papers_gamma(Xtr),
                records=records, errors=errors)


def values(out, m, key):
    return [r[key] for r in out["records"] if r["m"] == m and "error" not in r
            and r.get(key) is not None and not math.isnan(r[key])]


def plateaus(out, rel_gap):
    """(smallest m with mean test objective <= (1 + rel_gap) * the largest m's mean,
        smallest m with mean NMI >= the largest m's mean - NMI_PLATEAU)."""
    ms = [m for m in out["ms"] if values(out, m, "test_objective")]
    if not ms:
        return None, None
    ref_obj = plots.mean_sd(values(out, ms[-1], "test_objective"))[0]
    ref_nmi = plots.mean_sd(values(out, ms[-1], "nmi"))[0]
    m_obj = next(m for m in ms
                 if plots.mean_sd(values(out, m, "test_objective"))[0] <= (1 + rel_gap) * ref_obj)
    m_nmi = next(m for m in ms if plots.mean_sd(values(out, m, "nmi"))[0] >= ref_nmi - NMI_PLATEAU)
    return m_obj, m_nmi


def report(out, args, kkm, core_note, results_dir, json_path, total):
    R = plots.Report()
    n, sqrt_n = out["n"], out["sqrt_n"]
    R("# Calandriello & Rosasco 2018, Figure 1: uniform Nyström kernel k-means against m "
      "(Fashion-MNIST)\n")
    R(f"n = {n} training rows, {out['n_test']} test rows, d = {out['d']}, k = {args.k}, "
      f"√n = {sqrt_n:.1f}, seeds 0–{args.seeds - 1} (mean ± sd), "
      f"`method=nystrom sampling=uniform n_init=1 gamma=auto`"
      + (" — **quick run**" if args.quick else "") + "\n")
    rows = []
    for m in out["ms"]:
        rows.append([m, f"{m / sqrt_n:.2f}", plots.fmt(values(out, m, "seconds"), 2),
                     plots.fmt(values(out, m, "test_objective"), 5),
                     plots.fmt(values(out, m, "train_objective"), 5),
                     plots.fmt(values(out, m, "nmi"), 4), plots.fmt(values(out, m, "test_nmi"), 4)])
    R.table(["m", "m/√n", "fit time (s)", "test objective", "training objective", "NMI (train)",
             "NMI (test)"], rows)
    m_obj, m_nmi = plateaus(out, args.plateau)
    if m_obj is not None:
        R(f"**Plateau.** Smallest m whose mean test objective is within {100 * args.plateau:g}% of "
          f"the m = {out['ms'][-1]} value: **m = {m_obj} = {m_obj / sqrt_n:.2f}·√n**. Smallest m "
          f"whose mean training-label NMI is within {NMI_PLATEAU} of the m = {out['ms'][-1]} "
          f"value: **m = {m_nmi} = {m_nmi / sqrt_n:.2f}·√n**. (The paper: both curves plateau "
          f"once m ≈ √n.)\n")
    R(f"- data: Fashion-MNIST {args.data_dir}, pixels/255; training rows "
      + (f"a random subsample of {n} (--n)" if args.n else "all 60000 (train)")
      + ", test rows " + (f"a random subsample of {out['n_test']} (--n-test)" if args.n_test
                           else "all 10000 (t10k)"))
    if out["gamma"] is not None:
        R(f"- kernel: rbf, gamma=auto = 1/(2σ²), σ² = mean pairwise squared distance of the "
          f"training rows (Wang et al. eq. 5, β = 1): resolved to {out['gamma']} (numpy, same "
          f"rule: {out['numpy_gamma']:.10g})")
    R("- test objective: mean over the test points of ‖φ(x) − μ_c(x)‖², c(x) from kkm_assign, "
      "μ_j the kernel-space mean of the members the fit labelled j; members: "
      + ("all training rows" if out["objective_n"] == n else
         f"a fixed uniform subsample of {out['objective_n']} training rows (as approximations.py)")
      + "; exact rbf kernel, float64; lower is better")
    R("- training objective: kkm_get_objective / n, the Nyström centres' kernel k-means cost on "
      "all training rows measured with the exact kernel; fit time: the kkm_fit call")
    for r in out["records"]:
        if r.get("empty_test_clusters"):
            R(f"- m={r['m']} seed={r['seed']}: {r['empty_test_clusters']} test points fell in "
              f"clusters without members (objective nan)")
    for e in out["errors"]:
        R(f"- ERROR m={e['m']} seed={e['seed']} ({e['params']}): {e['error']}")
    plots.close_report(R, results_dir / f"{NAME}.md", plot(out, args, results_dir), json_path,
                       "- " + machine_line(kkm, args.threads, core_note, blas=True, total=total))


def plot(out, args, results_dir):
    plt = plots.pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    ms = [m for m in out["ms"] if values(out, m, "test_objective")]
    plots.band(ax1, ms, [values(out, m, "test_objective") for m in ms], label="test objective")
    plots.band(ax1, ms, [values(out, m, "train_objective") for m in ms], marker="s",
               label="training objective (all n rows)")
    plots.band(ax2, ms, [values(out, m, "nmi") for m in ms], label="NMI (train labels)")
    plots.band(ax2, ms, [values(out, m, "test_nmi") for m in ms], label="NMI (test labels)",
               marker="s")
    for ax in (ax1, ax2):
        plots.log_axis(ax, "x")
        ax.axvline(out["sqrt_n"], color="grey", ls="--", lw=1, label=f"√n = {out['sqrt_n']:.0f}")
        ax.set_xlabel("landmarks m (uniform)")
        ax.legend(fontsize=7)
    ax1.set_ylabel("mean ‖φ(x) − μ_c(x)‖²")
    ax2.set_ylabel("NMI")
    fig.suptitle(f"Uniform Nyström kernel k-means, Fashion-MNIST (n = {out['n']}, "
                 f"{args.seeds} seeds, mean ± sd)", fontsize=9)
    return plots.save_svg(fig, results_dir / f"{NAME}.svg")


if __name__ == "__main__":
    plots.reproduce(NAME, parse_args(), run, report)
