#!/usr/bin/python3
"""Fashion-MNIST: kkmeans (Nystrom kernel k-means, through ctypes) against scikit-learn
(Nystroem + KMeans), same data, same gamma, same number of landmarks, in one process.

Run with Debian's python, which has numpy and scikit-learn (python3-sklearn):

    /usr/bin/python3 bench/fashion_mnist.py [--seeds N] [--threads T] [--m M] [--n N]

Prints a Markdown table (system | fit time (s) | NMI | ARI), the speed ratio and the NMI
difference. Target: kkmeans >= 10x faster at NMI >= scikit-learn's - 0.005.
"""

import argparse
import ctypes
import gzip
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = Path("/usr/share/datasets/fashion-mnist")
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
    p.add_argument("--openblas-core", default="auto",
                   help="OPENBLAS_CORETYPE for numpy/scikit-learn's OpenBLAS (and kkmeans if built "
                   "with blas=openblas): 'auto' picks SkylakeX on AVX-512 CPUs and Haswell on AVX2 "
                   "ones when the variable is unset (OpenBLAS 0.3.21 falls back to slow Prescott "
                   "kernels on CPUs newer than it); 'none' leaves it alone (default: auto)")
    p.add_argument("--skip-sklearn", action="store_true", help="run kkmeans only")
    p.add_argument("--json", help="also write the results to this JSON file")
    args = p.parse_args()
    if args.seeds < 1 or args.threads < 0 or args.m < 1 or args.k < 2 or args.n < 0:
        p.error("need --seeds >= 1, --threads >= 0, --m >= 1, --k >= 2, --n >= 0")
    return args


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- BLAS set-up

def cpu_flags():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def choose_openblas_core(choice):
    """Sets OPENBLAS_CORETYPE before numpy loads OpenBLAS; returns a note for the report."""
    if "OPENBLAS_CORETYPE" in os.environ:
        return f"OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} (from the environment)"
    if choice == "none":
        return "OPENBLAS_CORETYPE unset"
    core = choice
    if choice == "auto":
        flags = cpu_flags()
        if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
            core = "SkylakeX"
        elif {"avx2", "fma"} <= flags:
            core = "Haswell"
        else:
            return "OPENBLAS_CORETYPE unset"
    os.environ["OPENBLAS_CORETYPE"] = core
    return f"OPENBLAS_CORETYPE={core} (set by --openblas-core {choice})"


# ---------------------------------------------------------------------------- data

def read_idx(path, magic):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndims = magic & 0xFF
    found = int.from_bytes(raw[0:4], "big")
    if found != magic:
        raise SystemExit(f"{path}: bad IDX magic {found:#010x}, expected {magic:#010x}")
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndims)]
    header = 4 * (1 + ndims)
    if len(raw) - header != _product(dims):
        raise SystemExit(f"{path}: header announces {_product(dims)} bytes, file has {len(raw) - header}")
    return dims, raw[header:]


def _product(values):
    out = 1
    for v in values:
        out *= v
    return out


def load_fashion_mnist(data_dir, n, np):
    data_dir = Path(data_dir)
    images_path = data_dir / "train-images-idx3-ubyte.gz"
    labels_path = data_dir / "train-labels-idx1-ubyte.gz"
    for path in (images_path, labels_path):
        if not path.exists():
            raise SystemExit(f"{path} not found: apt-get install dataset-fashion-mnist, or pass --data-dir")
    dims, pixels = read_idx(images_path, 0x00000803)
    _, labels = read_idx(labels_path, 0x00000801)
    X = np.frombuffer(pixels, dtype=np.uint8).reshape(dims[0], dims[1] * dims[2])
    X = X.astype(np.float32) / np.float32(255.0)
    y = np.frombuffer(labels, dtype=np.uint8).astype(np.int32)
    if n and n < X.shape[0]:
        keep = np.sort(np.random.default_rng(12345).permutation(X.shape[0])[:n])
        X, y = X[keep], y[keep]
    return np.ascontiguousarray(X, dtype=np.float32), y


def papers_gamma(X, np):
    """gamma = 1/(2 sigma^2), sigma^2 = mean pairwise squared distance = 2(mean|x|^2 - |mean x|^2)."""
    X64 = X.astype(np.float64)
    mean_sq_norm = float(np.einsum("ij,ij->", X64, X64)) / X.shape[0]
    mean = X64.mean(axis=0)
    sigma2 = 2.0 * (mean_sq_norm - float(mean @ mean))
    return 1.0 / (2.0 * sigma2)


# ---------------------------------------------------------------------------- kkmeans via ctypes

class KkmeansError(RuntimeError):
    pass


class Kkmeans:
    """The few entry points of the C API the benchmark needs."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        L, c = self.lib, ctypes
        model_pp = c.POINTER(c.c_void_p)
        L.kkm_version.restype = c.c_char_p
        L.kkm_version.argtypes = []
        L.kkm_status_string.restype = c.c_char_p
        L.kkm_status_string.argtypes = [c.c_int]
        L.kkm_last_error.restype = c.c_char_p
        L.kkm_last_error.argtypes = []
        L.kkm_create.restype = c.c_int
        L.kkm_create.argtypes = [model_pp]
        L.kkm_destroy.restype = None
        L.kkm_destroy.argtypes = [c.c_void_p]
        L.kkm_set_params.restype = c.c_int
        L.kkm_set_params.argtypes = [c.c_void_p, c.c_char_p]
        L.kkm_get_param.restype = c.c_int
        L.kkm_get_param.argtypes = [c.c_void_p, c.c_char_p, c.c_char_p, c.c_size_t, c.POINTER(c.c_size_t)]
        L.kkm_fit.restype = c.c_int
        L.kkm_fit.argtypes = [c.c_void_p, c.POINTER(c.c_float), c.c_int64, c.c_int64, c.POINTER(c.c_float)]
        L.kkm_get_labels.restype = c.c_int
        L.kkm_get_labels.argtypes = [c.c_void_p, c.POINTER(c.c_int32), c.c_int64]
        L.kkm_get_timings.restype = c.c_int
        L.kkm_get_timings.argtypes = [c.c_void_p, c.c_char_p, c.c_size_t, c.POINTER(c.c_size_t)]
        L.kkm_get_objective.restype = c.c_int
        L.kkm_get_objective.argtypes = [c.c_void_p, c.POINTER(c.c_double)]

    def version(self):
        return self.lib.kkm_version().decode()

    def check(self, status, what):
        if status != 0:
            name = self.lib.kkm_status_string(status).decode()
            message = self.lib.kkm_last_error().decode()
            raise KkmeansError(f"{what} failed: {name}: {message}")

    def _text(self, getter, what):
        size = ctypes.c_size_t(0)
        buf = ctypes.create_string_buffer(256)
        status = getter(buf, len(buf), ctypes.byref(size))
        if status != 0 and size.value >= len(buf):
            buf = ctypes.create_string_buffer(size.value + 1)
            status = getter(buf, len(buf), ctypes.byref(size))
        self.check(status, what)
        return buf.value.decode()

    def fit(self, X, params, np):
        """One fit; returns labels, wall seconds of kkm_fit, stage timings, resolved params."""
        L, c = self.lib, ctypes
        model = c.c_void_p()
        self.check(L.kkm_create(c.byref(model)), "kkm_create")
        try:
            self.check(L.kkm_set_params(model, params.encode()), f"kkm_set_params({params!r})")
            n, d = X.shape
            start = time.perf_counter()
            self.check(L.kkm_fit(model, X.ctypes.data_as(c.POINTER(c.c_float)), n, d, None), "kkm_fit")
            seconds = time.perf_counter() - start
            labels = np.empty(n, dtype=np.int32)
            self.check(L.kkm_get_labels(model, labels.ctypes.data_as(c.POINTER(c.c_int32)), n),
                       "kkm_get_labels")
            timings = self._text(lambda b, l, s: L.kkm_get_timings(model, b, l, s), "kkm_get_timings")
            resolved = {key: self._text(lambda b, l, s, k=key: L.kkm_get_param(model, k.encode(), b, l, s),
                                        f"kkm_get_param({key})")
                        for key in ("gamma", "m", "threads")}
            return labels, seconds, timings, resolved
        finally:
            L.kkm_destroy(model)


def default_lib_path():
    if os.environ.get("KKMEANS_LIB"):
        return Path(os.environ["KKMEANS_LIB"])
    return REPO_ROOT / "build" / "src" / "libkkmeans.so"


def parse_timings(text):
    pairs = {}
    for item in text.split():
        key, _, value = item.partition("=")
        pairs[key] = value
    return pairs


# ---------------------------------------------------------------------------- the two systems

def run_kkmeans(kkm, X, y, args, gamma, np, metrics):
    runs = []
    for seed in range(args.seeds):
        params = (f"k={args.k} method=nystrom m={args.m} gamma={gamma!r} seed={seed} n_init=1 "
                  f"threads={args.threads}")
        log(f"kkmeans: fit seed={seed} ({params})...")
        labels, seconds, timings, resolved = kkm.fit(X, params, np)
        runs.append(score(seconds, labels, y, metrics, timings=timings, resolved=resolved))
        log(f"kkmeans: {seconds:.2f} s, NMI {runs[-1]['nmi']:.4f}, stages: {timings}")
    return runs


def run_sklearn(X, y, args, gamma, metrics):
    from sklearn.cluster import KMeans
    from sklearn.kernel_approximation import Nystroem
    from threadpoolctl import threadpool_limits

    runs = []
    limits = args.threads if args.threads > 0 else None
    for seed in range(args.seeds):
        log(f"scikit-learn: Nystroem(n_components={args.m}) + KMeans(n_clusters={args.k}) seed={seed}...")
        with threadpool_limits(limits=limits):
            start = time.perf_counter()
            features = Nystroem(kernel="rbf", gamma=gamma, n_components=args.m,
                                random_state=seed).fit_transform(X)
            middle = time.perf_counter()
            labels = KMeans(n_clusters=args.k, n_init=1, random_state=seed).fit(features).labels_
            end = time.perf_counter()
        stages = f"nystroem={middle - start:.3f} kmeans={end - middle:.3f}"
        runs.append(score(end - start, labels, y, metrics, timings=stages))
        log(f"scikit-learn: {end - start:.2f} s, NMI {runs[-1]['nmi']:.4f}, stages: {stages}")
    return runs


def score(seconds, labels, y, metrics, **extra):
    return dict(seconds=seconds,
                nmi=float(metrics.normalized_mutual_info_score(y, labels)),
                ari=float(metrics.adjusted_rand_score(y, labels)), **extra)


# ---------------------------------------------------------------------------- report

def mean_std(values, digits):
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.mean(values):.{digits}f} ± {statistics.stdev(values):.{digits}f}"


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


def numpy_blas():
    from threadpoolctl import threadpool_info
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            return (f"{info.get('internal_api')} {info.get('version')} "
                    f"(core {info.get('architecture')}, {info.get('num_threads')} threads)")
    return "unknown"


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


def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    args = parse_args()
    core_note = choose_openblas_core(args.openblas_core)  # before numpy loads OpenBLAS
    import numpy as np
    from sklearn import metrics

    lib_path = Path(args.lib) if args.lib else default_lib_path()
    if not lib_path.exists():
        raise SystemExit(f"{lib_path} not found: build the library first "
                         "(meson setup build && ninja -C build) or pass --lib / set KKMEANS_LIB")
    kkm = Kkmeans(lib_path)

    log(f"loading Fashion-MNIST from {args.data_dir}...")
    X, y = load_fashion_mnist(args.data_dir, args.n, np)
    gamma = papers_gamma(X, np)
    log(f"n={X.shape[0]} d={X.shape[1]} gamma={gamma!r}")

    try:
        kkm_runs = run_kkmeans(kkm, X, y, args, gamma, np, metrics)
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
