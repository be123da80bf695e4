#!/usr/bin/python3
"""The peer systems of the benchmarks, all given the same rbf kernel exp(-gamma ||x - y||^2),
the same k and the same seed: scikit-learn (Nystroem + KMeans, Nystroem + MiniBatchKMeans,
KMeans on the raw data; in this process) and R's kernlab::kkmeans (an Rscript subprocess),
plus kkmeans itself through ctypes, and the exact-kernel objective of any labelling.

Run with Debian's python, which has numpy and scikit-learn (python3-sklearn); kernlab needs
R (apt-get install --no-install-recommends r-base-core r-cran-kernlab):

    /usr/bin/python3 bench/peers.py [--dataset letter] [--n 2000] [--seeds N] [--threads T]

compares every system on one data set of datasets.py (one Markdown table: fit time, NMI,
ARI, exact-kernel objective where n <= 20000) -- the quick check; bench/peers_board.py runs the full board.

Every system returns a dict: system (its row label), time_s (the fit, in seconds), stages
(name -> seconds), labels (int64, one per row), info (versions, BLAS, parameters), and
error (a message; then labels is None) where the fit failed.

- sklearn_nystroem_kmeans: Nystroem(kernel="rbf", gamma, n_components=m, random_state=seed)
  .fit_transform(X), then KMeans(n_clusters=k, n_init=1, random_state=seed); stages timed apart.
- sklearn_nystroem_minibatch: the same Nystroem, then MiniBatchKMeans(n_clusters=k, n_init=3,
  batch_size=1024, random_state=seed): n_init=3 and batch_size=1024 are scikit-learn 1.2's
  defaults, passed explicitly (from 1.4 the default n_init is "auto", i.e. 1 with k-means++).
- sklearn_kmeans_raw: KMeans(n_clusters=k, n_init=1, random_state=seed) on X itself (no kernel).
- kernlab_kkmeans: kernlab::kkmeans(X, centers=k, kernel="rbfdot", kpar=list(sigma=gamma))
  after set.seed(seed); rbfdot(sigma) is exp(-sigma ||x - y||^2), so sigma = gamma. X goes to
  R as a float64 binary file (readBin); the time is system.time(kkmeans(...))["elapsed"], the
  call alone (R's start-up and the file I/O are the "rscript" stage, not in time_s).
  kernlab starts from a random balanced partition (not k-means++), iterates until no centre
  moves (no iteration cap) and its withinss() is the INPUT-space within-cluster sum of squares
  around the clusters' column means, not a kernel objective: use kernel_objective. It fails
  ("missing value where TRUE/FALSE needed", ...) when a cluster empties: such a fit comes back
  as an error dict. Refused above n = 10000 (it forms n x k kernel blocks in R, per iteration).
- kkmeans_fit: kkm_fit through ctypes (kkm_ctypes.Kkmeans), e.g. method=exact or
  method=nystrom m=M, n_init=1, the same gamma passed explicitly.

Threads: threads=T > 0 limits scikit-learn's OpenBLAS and OpenMP pools (threadpoolctl, as
fashion_mnist.py does), kkmeans' threads parameter, and R's OpenBLAS (OPENBLAS_NUM_THREADS,
OMP_NUM_THREADS in the Rscript environment); 0 = all cores (set explicitly: a BLIS numpy
defaults to one thread). OPENBLAS_CORETYPE: setup_blas()
(kkm_ctypes.choose_openblas_core) must run before numpy is imported; the Rscript child inherits
the variable, so Debian's R, which links OpenBLAS, gets the same kernels.

kernel_objective(X, labels, gamma): the kernel k-means objective of any labelling in the exact
rbf kernel, mean over points of ||phi(x) - mu_c(x)||^2 = 1 - (1/n) sum_j (1/|C_j|) sum_{a,b in
C_j} k(a, b), numpy float64, in row blocks (n = 10000 needs about 100 MB).
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from kkm_ctypes import (OPENBLAS_CORE_HELP, KkmeansError, choose_openblas_core, cpu_name, log,
                        mean_std, numpy_blas, open_library, parse_timings, peer_threads)

__all__ = ["setup_blas", "sklearn_nystroem_kmeans", "sklearn_nystroem_minibatch",
           "sklearn_kmeans_raw", "kernlab_kkmeans", "kkmeans_fit", "kernel_objective",
           "score", "sklearn_info", "kernlab_info", "KERNLAB_MAX_N", "MINIBATCH_N_INIT",
           "MINIBATCH_BATCH_SIZE"]

KERNLAB_MAX_N = 10000
OBJECTIVE_MAX_N = 20000  # the quick check's objective column (n^2 kernel entries per labelling)
KERNLAB_HINT = "apt-get install --no-install-recommends r-base-core r-cran-kernlab"
MINIBATCH_N_INIT = 3         # scikit-learn 1.2's default for MiniBatchKMeans, passed explicitly
MINIBATCH_BATCH_SIZE = 1024  # scikit-learn's default since 1.0

# Reads X (float64, row-major, n x d) from args[1], fits, writes key=value lines then "labels"
# and one label per line to args[2]. An R error becomes error=<message> (exit status 0).
KERNLAB_R = r"""
args <- commandArgs(TRUE)
n <- as.integer(args[3]); d <- as.integer(args[4]); k <- as.integer(args[5])
gamma <- as.numeric(args[6]); seed <- as.integer(args[7])
out <- args[2]
suppressPackageStartupMessages(library(kernlab))
con <- file(args[1], "rb")
x <- matrix(readBin(con, "double", n = n * d, size = 8, endian = "little"), nrow = n, ncol = d,
            byrow = TRUE)
close(con)
info <- c(sprintf("kernlab=%s", as.character(packageVersion("kernlab"))),
          sprintf("r=%s", R.version.string),
          sprintf("blas=%s", extSoftVersion()[["BLAS"]]),
          sprintf("lapack=%s", La_library()))
set.seed(seed)
fit <- NULL
msg <- NULL
elapsed <- system.time(
  fit <- tryCatch(kkmeans(x, centers = k, kernel = "rbfdot", kpar = list(sigma = gamma)),
                  error = function(e) { msg <<- conditionMessage(e); NULL })
)[["elapsed"]]
lines <- c(info, sprintf("elapsed=%.6f", elapsed))
if (is.null(fit)) {
  lines <- c(lines, paste0("error=", gsub("[\r\n]+", " ", msg)))
} else {
  lines <- c(lines, paste0("size=", paste(size(fit), collapse = ",")),
             paste0("withinss=", paste(sprintf("%.17g", withinss(fit)), collapse = ",")),
             "labels", as.character(as.integer(fit@.Data)))
}
writeLines(lines, out)
"""


def setup_blas(choice="auto"):
    """OPENBLAS_CORETYPE before numpy loads OpenBLAS (see kkm_ctypes); returns the report note."""
    return choose_openblas_core(choice)


# ---------------------------------------------------------------------------- scikit-learn

def sklearn_info(threads=0):
    import numpy
    import sklearn
    return dict(sklearn=sklearn.__version__, numpy=numpy.__version__, blas=numpy_blas(),
                threads=threads, openblas_core=os.environ.get("OPENBLAS_CORETYPE", "unset"))


def _nystroem(X, m, gamma, seed):
    from sklearn.kernel_approximation import Nystroem
    return Nystroem(kernel="rbf", gamma=gamma, n_components=m, random_state=seed).fit_transform(X)


def _record(system, stages, labels, info):
    import numpy as np
    return dict(system=system, time_s=float(sum(stages.values())), stages=stages,
                labels=np.asarray(labels, dtype=np.int64), info=info)


def stages_text(record):
    """A record's stage times as "nystroem=1.234 kmeans=5.678"."""
    return " ".join(f"{name}={seconds:.3f}" for name, seconds in record["stages"].items())


def sklearn_nystroem_kmeans(X, k, m, gamma, seed, threads=0):
    """Nystroem(rbf, gamma, n_components=m) + KMeans(k, n_init=1), both seeded with seed."""
    from sklearn.cluster import KMeans
    with peer_threads(threads):
        start = time.perf_counter()
        features = _nystroem(X, m, gamma, seed)
        middle = time.perf_counter()
        km = KMeans(n_clusters=k, n_init=1, random_state=seed).fit(features)
        end = time.perf_counter()
    info = sklearn_info(threads)
    info.update(params=f"Nystroem(kernel='rbf', gamma={gamma!r}, n_components={m}, "
                f"random_state={seed}) + KMeans(n_clusters={k}, n_init=1, random_state={seed})",
                iterations=int(km.n_iter_), inertia=float(km.inertia_))
    return _record("scikit-learn Nystroem + KMeans", dict(nystroem=middle - start, kmeans=end - middle),
                   km.labels_, info)


def sklearn_nystroem_minibatch(X, k, m, gamma, seed, threads=0, n_init=MINIBATCH_N_INIT,
                               batch_size=MINIBATCH_BATCH_SIZE):
    """Nystroem(rbf, gamma, n_components=m) + MiniBatchKMeans(k, n_init=3, batch_size=1024)."""
    from sklearn.cluster import MiniBatchKMeans
    with peer_threads(threads):
        start = time.perf_counter()
        features = _nystroem(X, m, gamma, seed)
        middle = time.perf_counter()
        km = MiniBatchKMeans(n_clusters=k, n_init=n_init, batch_size=batch_size,
                             random_state=seed).fit(features)
        end = time.perf_counter()
    info = sklearn_info(threads)
    info.update(params=f"Nystroem(kernel='rbf', gamma={gamma!r}, n_components={m}, "
                f"random_state={seed}) + MiniBatchKMeans(n_clusters={k}, n_init={n_init}, "
                f"batch_size={batch_size}, random_state={seed})",
                iterations=int(km.n_iter_), steps=int(km.n_steps_), inertia=float(km.inertia_))
    return _record("scikit-learn Nystroem + MiniBatchKMeans",
                   dict(nystroem=middle - start, minibatch_kmeans=end - middle), km.labels_, info)


def sklearn_kmeans_raw(X, k, seed, threads=0):
    """KMeans(k, n_init=1) on the raw rows (linear k-means, no kernel)."""
    from sklearn.cluster import KMeans
    with peer_threads(threads):
        start = time.perf_counter()
        km = KMeans(n_clusters=k, n_init=1, random_state=seed).fit(X)
        end = time.perf_counter()
    info = sklearn_info(threads)
    info.update(params=f"KMeans(n_clusters={k}, n_init=1, random_state={seed}) on X",
                iterations=int(km.n_iter_), inertia=float(km.inertia_))
    return _record("scikit-learn KMeans (raw data)", dict(kmeans=end - start), km.labels_, info)


# ---------------------------------------------------------------------------- kernlab

_KERNLAB_INFO = {}


def kernlab_info():
    """Versions of R, kernlab and R's BLAS (cached); raises SystemExit if kernlab is missing."""
    if not _KERNLAB_INFO:
        rscript = shutil.which("Rscript")
        if rscript is None:
            raise SystemExit(f"Rscript not found: kernlab needs R; {KERNLAB_HINT}")
        expr = ('suppressPackageStartupMessages(library(kernlab)); cat(sprintf("kernlab=%s\\nr=%s\\n'
                'blas=%s\\nlapack=%s\\n", packageVersion("kernlab"), R.version.string, '
                'extSoftVersion()[["BLAS"]], La_library()))')
        done = subprocess.run([rscript, "-e", expr], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            raise SystemExit(f"R cannot load kernlab ({KERNLAB_HINT}):\n{done.stdout.strip()}")
        _KERNLAB_INFO.update(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        _KERNLAB_INFO["rscript"] = rscript
    return dict(_KERNLAB_INFO)


def kernlab_kkmeans(X, k, gamma, seed, threads=0, timeout=None):
    """kernlab::kkmeans(X, centers=k, kernel="rbfdot", kpar=list(sigma=gamma)) under
    set.seed(seed) in an Rscript subprocess. Raises ValueError above n = 10000; an R error (an
    empty cluster) or a timeout comes back as a dict with error set and labels None."""
    import numpy as np
    n, d = X.shape
    if n > KERNLAB_MAX_N:
        raise ValueError(f"kernlab_kkmeans: n={n} > {KERNLAB_MAX_N}: kernlab's kkmeans is only run "
                         f"where n <= {KERNLAB_MAX_N} (it recomputes n x |cluster| kernel blocks in R "
                         f"every iteration); subsample the data")
    info = kernlab_info()
    info.update(params=f"set.seed({seed}); kkmeans(X, centers={k}, kernel='rbfdot', "
                f"kpar=list(sigma={gamma!r}))", threads=threads,
                openblas_core=os.environ.get("OPENBLAS_CORETYPE", "unset"))
    env = dict(os.environ)
    if threads and threads > 0:
        env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    system = "kernlab kkmeans (exact)"
    with tempfile.TemporaryDirectory(prefix="kkm-kernlab-") as tmp:
        data, out, script = Path(tmp) / "x.f64", Path(tmp) / "out.txt", Path(tmp) / "fit.R"
        np.ascontiguousarray(X, dtype="<f8").tofile(data)
        script.write_text(KERNLAB_R)
        start = time.perf_counter()
        try:
            done = subprocess.run([info["rscript"], "--vanilla", str(script), str(data), str(out),
                                   str(n), str(d), str(k), repr(float(gamma)), str(int(seed))],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  env=env, timeout=timeout)
        except subprocess.TimeoutExpired:
            return dict(system=system, time_s=None, stages={}, labels=None, info=info,
                        error=f"timed out after {timeout} s")
        wall = time.perf_counter() - start
        if done.returncode != 0 or not out.exists():
            return dict(system=system, time_s=None, stages=dict(rscript=wall), labels=None,
                        info=info, error=f"Rscript failed (status {done.returncode}): "
                        f"{done.stdout.strip()[-500:]}")
        lines = out.read_text().splitlines()
    head = lines[:lines.index("labels")] if "labels" in lines else lines
    values = dict(line.split("=", 1) for line in head if "=" in line)
    elapsed = float(values["elapsed"])
    stages = dict(kkmeans=elapsed, rscript=wall - elapsed)
    if "error" in values:
        return dict(system=system, time_s=elapsed, stages=stages, labels=None, info=info,
                    error=f"kernlab: {values['error']}")
    labels = np.array([int(v) for v in lines[lines.index("labels") + 1:]], dtype=np.int64) - 1
    if labels.shape[0] != n:
        return dict(system=system, time_s=elapsed, stages=stages, labels=None, info=info,
                    error=f"kernlab returned {labels.shape[0]} labels for {n} rows")
    info.update(size=[int(v) for v in values["size"].split(",")],
                withinss_input_space=[float(v) for v in values["withinss"].split(",")])
    return dict(system=system, time_s=elapsed, stages=stages, labels=labels, info=info)


# ---------------------------------------------------------------------------- kkmeans

def kkmeans_fit(kkm, X, k, gamma, seed, threads=0, method="nystrom", m=None, extra=""):
    """One kkm_fit (k, method, m, gamma, seed, n_init=1, threads); a KkmeansError becomes an
    error dict."""
    import numpy as np
    params = f"k={k} method={method}" + (f" m={m}" if m else "") + \
        f" gamma={gamma!r} seed={seed} n_init=1 threads={threads}" + (f" {extra}" if extra else "")
    system = f"kkmeans {method}" + (f" m={m}" if m else "")
    info = dict(version=kkm.version(), library=str(kkm.path), params=params)
    try:
        with kkm.model() as model:
            model.set_params(params)
            seconds = model.fit(X)
            labels = model.labels().astype(np.int64)
            timings = model.timings()
            info.update(timings=timings, objective_library=model.objective() / X.shape[0],
                        iterations=model.iterations(),
                        resolved={key: model.param(key) for key in ("gamma", "m", "threads")})
    except KkmeansError as e:
        return dict(system=system, time_s=None, stages={}, labels=None, info=info, error=str(e))
    stages = {}
    for key, value in parse_timings(timings).items():
        try:
            stages[key] = float(value)
        except ValueError:
            info.setdefault("timing_notes", {})[key] = value
    info["blas"] = info.get("timing_notes", {}).get("blas", "see the build's meson option blas")
    return dict(system=system, time_s=seconds, stages=stages, labels=labels, info=info)


# ---------------------------------------------------------------------------- evaluation

def kernel_objective(X, labels, gamma, block_elements=1 << 24):
    """Exact rbf kernel k-means objective of a labelling (or of each of a list of labellings):
    mean over points of ||phi(x) - mu_c(x)||^2 with mu_j the kernel-space mean of the points
    labelled j, = 1 - (1/n) sum_j W_j / |C_j|, W_j = sum_{a,b in C_j} exp(-gamma ||a - b||^2).
    float64; kernel rows are formed block_elements at a time (16M doubles = 128 MB)."""
    import numpy as np
    single = not isinstance(labels, (list, tuple))
    runs = [labels] if single else list(labels)
    X = np.asarray(X, dtype=np.float64)
    n = X.shape[0]
    codes = []
    for lab in runs:
        _, inverse = np.unique(np.asarray(lab), return_inverse=True)
        if inverse.shape[0] != n:
            raise ValueError(f"{inverse.shape[0]} labels for {n} rows")
        H = np.zeros((n, int(inverse.max()) + 1))
        H[np.arange(n), inverse] = 1.0
        codes.append((inverse, H, np.zeros(H.shape[1])))
    sq = np.einsum("ij,ij->i", X, X)
    step = max(1, min(n, block_elements // max(n, 1)))
    for start in range(0, n, step):
        A = X[start:start + step]
        K = sq[start:start + step, None] + sq[None, :] - 2.0 * (A @ X.T)
        np.maximum(K, 0.0, out=K)
        np.exp(-gamma * K, out=K)
        for inverse, H, W in codes:
            cross = K @ H  # sum over the members of each cluster, per block row
            rows = inverse[start:start + step]
            W += np.bincount(rows, weights=cross[np.arange(rows.shape[0]), rows],
                             minlength=W.shape[0])
    values = []
    for inverse, H, W in codes:
        sizes = H.sum(axis=0)
        values.append(float(1.0 - (W / sizes).sum() / n))
    return values[0] if single else values


def score(record, y, metrics):
    """Adds NMI and ARI against the true classes y (sklearn.metrics) to a record with labels."""
    if record.get("labels") is not None:
        record["nmi"] = float(metrics.normalized_mutual_info_score(y, record["labels"]))
        record["ari"] = float(metrics.adjusted_rand_score(y, record["labels"]))
    return record


# ---------------------------------------------------------------------------- quick check

SYSTEMS = ["kkmeans-exact", "kkmeans-nystrom", "sklearn-nystroem-kmeans",
           "sklearn-nystroem-minibatch", "sklearn-kmeans-raw", "kernlab"]


def parse_args():
    import datasets
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", help="path of libkkmeans.so (default: $KKMEANS_LIB, else "
                   "build/src/libkkmeans.so under the repository root)")
    p.add_argument("--dataset", default="letter", choices=datasets.NAMES,
                   help="a data set of datasets.py (default: %(default)s)")
    p.add_argument("--n", type=int, default=2000,
                   help="random subsample of N rows; 0 = all (default: %(default)s)")
    p.add_argument("--m", type=int, default=0, help="Nystrom landmarks; 0 = min(500, n // 2)")
    p.add_argument("--seeds", type=int, default=1, help="seeds 0..N-1, one fit each (default: 1)")
    p.add_argument("--threads", type=int, default=0,
                   help="threads for every system; 0 = all cores (default: 0)")
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help="comma-separated subset of: " + ", ".join(SYSTEMS) + " (default: all)")
    p.add_argument("--openblas-core", default="auto", help=OPENBLAS_CORE_HELP)
    p.add_argument("--json", help="also write the records (labels left out) to this JSON file")
    args = p.parse_args()
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    bad = [s for s in args.systems if s not in SYSTEMS]
    if bad or not args.systems:
        p.error(f"--systems: unknown {bad}; choose from {', '.join(SYSTEMS)}")
    if args.seeds < 1 or args.threads < 0 or args.n < 0 or args.m < 0:
        p.error("need --seeds >= 1, --threads >= 0, --n >= 0, --m >= 0")
    return args


def main():
    args = parse_args()
    core_note = setup_blas(args.openblas_core)  # before numpy loads OpenBLAS
    import datasets
    from sklearn import metrics

    X, y = loaded = datasets.load(args.dataset, n=args.n,
                                  split="all" if args.dataset == "letter" else "train")
    n, d = X.shape
    k = loaded.meta["classes_present"]
    m = args.m or min(500, n // 2)
    gamma = datasets.papers_gamma(X)
    log(f"{args.dataset}: n={n} d={d} k={k} m={m} gamma={gamma!r}")
    kkm = open_library(args.lib) if any(s.startswith("kkmeans") for s in args.systems) else None
    records = []
    for seed in range(args.seeds):
        for system in args.systems:
            log(f"{system} seed={seed}...")
            if system == "kkmeans-exact":
                r = kkmeans_fit(kkm, X, k, gamma, seed, args.threads, method="exact")
            elif system == "kkmeans-nystrom":
                r = kkmeans_fit(kkm, X, k, gamma, seed, args.threads, method="nystrom", m=m)
            elif system == "sklearn-nystroem-kmeans":
                r = sklearn_nystroem_kmeans(X, k, m, gamma, seed, args.threads)
            elif system == "sklearn-nystroem-minibatch":
                r = sklearn_nystroem_minibatch(X, k, m, gamma, seed, args.threads)
            elif system == "sklearn-kmeans-raw":
                r = sklearn_kmeans_raw(X, k, seed, args.threads)
            else:
                r = kernlab_kkmeans(X, k, gamma, seed, args.threads)
            r.update(key=system, seed=seed)
            score(r, y, metrics)
            if r.get("labels") is not None:
                if n <= OBJECTIVE_MAX_N:
                    r["objective"] = kernel_objective(X, r["labels"], gamma)
                log(f"  {r['time_s']:.3f} s, NMI {r['nmi']:.4f}, ARI {r['ari']:.4f}, "
                    f"objective {r.get('objective', float('nan')):.6f}, stages {r['stages']}")
            else:
                log(f"  error: {r['error']}")
            records.append(r)
    print(f"## {args.dataset}: n={n}, d={d}, k={k}, m={m}, gamma={gamma:.6g}, seeds={args.seeds}\n")
    print("| system | fit time (s) | NMI | ARI | objective (exact kernel) |")
    print("|---|---:|---:|---:|---:|")
    for system in args.systems:
        runs = [r for r in records if r["key"] == system]
        ok = [r for r in runs if r.get("labels") is not None]
        failed = len(runs) - len(ok)
        cells = [(mean_std([r[key] for r in ok], digits) if key in ok[0] else "—") if ok else "error"
                 for key, digits in (("time_s", 3), ("nmi", 4), ("ari", 4), ("objective", 6))]
        print(f"| {runs[0]['system']} | " + " | ".join(cells) + " |" +
              (f" ({failed} failed)" if failed else ""))
    print()
    for r in records:
        if r.get("error"):
            print(f"- ERROR {r['system']} seed={r['seed']}: {r['error']}")
    threads = f"{args.threads}" if args.threads else f"0 = all cores ({os.cpu_count()})"
    print(f"- threads: {threads}; CPU: {cpu_name()}; numpy BLAS: {numpy_blas()}; {core_note}; "
          f"python {platform.python_version()}")
    if "kernlab" in args.systems:
        ki = kernlab_info()
        print(f"- kernlab {ki['kernlab']}, {ki['r']}, R BLAS {ki['blas']}")
    if args.json:
        Path(args.json).write_text(json.dumps(
            [{key: value for key, value in r.items() if key != "labels"} for r in records],
            indent=2) + "\n")


if __name__ == "__main__":
    main()
