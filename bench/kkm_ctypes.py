"""Shared parts of the benchmarks: kkmeans through ctypes on libkkmeans.so, the Fashion-MNIST
loader, the papers' gamma, the OpenBLAS core choice and small report helpers.

numpy is imported inside the functions that need it, never at module level: the scripts set
OPENBLAS_CORETYPE (choose_openblas_core) before numpy loads OpenBLAS.
"""

import ctypes
import gzip
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def _load_signatures():
    """The Python package's table of the C API's signatures (bindings/python/fastkkm/
    _signatures.py), loaded by path: importing the package would import numpy, which must
    wait for choose_openblas_core."""
    import importlib.util
    path = REPO_ROOT / "bindings" / "python" / "fastkkm" / "_signatures.py"
    spec = importlib.util.spec_from_file_location("kkm_signatures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SIGNATURES = _load_signatures()
DEFAULT_FASHION_DIR = Path("/usr/share/datasets/fashion-mnist")
SUBSAMPLE_SEED = 12345  # the --n subsample of every benchmark


def log(message):
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- machine / BLAS

def cpu_flags():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_name():
    """The CPU's model name with its family and model (a virtual machine often says only "AMD
    EPYC": family 25 model 1 is Zen 3, 25/17 Zen 4, 26/2 Zen 5) and whether it has AVX-512."""
    try:
        fields = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if not key.strip() and fields:
                break  # the first processor's block is enough
            fields.setdefault(key.strip(), value.strip())
        isa = "AVX-512" if "avx512f" in fields.get("flags", "").split() else "no AVX-512"
        return (f"{fields['model name']} (family {fields.get('cpu family', '?')} model "
                f"{fields.get('model', '?')}, {isa})")
    except (OSError, KeyError):
        pass
    return platform.processor() or "unknown"


def blis_threads_note():
    """Where numpy's libblas.so.3 is Debian's blis-openmp (the only provider installed), it
    threads by BLIS_NUM_THREADS (else OMP_NUM_THREADS) read once at start-up, one thread when
    both are unset, and threadpoolctl cannot see or limit it (it exports no bli_ symbols). So
    that the peers get every core, as OpenBLAS gives them by default, BLIS_NUM_THREADS is set
    to the core count before numpy loads, unless the environment sets it. The same copy of
    BLIS serves the LAPACK that kkmeans calls, so both sides get it."""
    if "BLIS_NUM_THREADS" in os.environ:
        return f"BLIS_NUM_THREADS={os.environ['BLIS_NUM_THREADS']} (from the environment)"
    os.environ["BLIS_NUM_THREADS"] = str(os.cpu_count())
    return f"BLIS_NUM_THREADS={os.cpu_count()} (set: every core)"


def choose_openblas_core(choice):
    """Sets OPENBLAS_CORETYPE (and BLIS_NUM_THREADS, blis_threads_note) before numpy loads its
    BLAS; returns a note for the report."""
    return f"{_openblas_core(choice)}; {blis_threads_note()}"


def _openblas_core(choice):
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


OPENBLAS_CORE_HELP = ("OPENBLAS_CORETYPE for numpy/scikit-learn's OpenBLAS (and kkmeans if built "
                      "with blas=openblas): 'auto' picks SkylakeX on AVX-512 CPUs and Haswell on AVX2 "
                      "ones when the variable is unset (OpenBLAS 0.3.21 falls back to slow Prescott "
                      "kernels on CPUs newer than it); 'none' leaves it alone (default: auto)")


def peer_threads(threads):
    """A peer's thread limit (threadpoolctl), as a context manager. threads > 0: that many; 0:
    every core, set explicitly. Left alone (limits=None), a BLIS numpy (Debian's libblas.so.3
    where blis-openmp is the only provider) keeps its default of one thread while OpenBLAS
    takes every core, so the peer's speed would depend on which BLAS the machine happens to
    have. (threadpoolctl cannot see that BLIS: its count is BLIS_NUM_THREADS, which
    blis_threads_note sets before numpy loads.)"""
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=threads if threads and threads > 0 else os.cpu_count())


def numpy_blas():
    """numpy's BLAS as the process mapped it. A libblas.so.3 that is Debian's blis-openmp
    build is invisible to threadpoolctl (no bli_ symbols), which would report the libblis.so.4
    that kkmeans links instead: it is named from the mapping, with the thread count it read."""
    import numpy  # noqa: F401 (maps numpy's BLAS)
    with open("/proc/self/maps") as maps:
        mapped = {line.split()[-1] for line in maps if "libblas.so" in line}
    for path in sorted({os.path.realpath(path) for path in mapped}):
        if "blis" in path:
            threads = os.environ.get("BLIS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "1"
            return f"blis ({path}, {threads} threads)"
    from threadpoolctl import threadpool_info
    for info in threadpool_info():
        if info.get("user_api") == "blas":
            return (f"{info.get('internal_api')} {info.get('version')} "
                    f"(core {info.get('architecture')}, {info.get('num_threads')} threads)")
    return "unknown"


# ---------------------------------------------------------------------------- Fashion-MNIST

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


def subsample(X, y, n):
    """The first n of a fixed random permutation of the rows, in their original order."""
    import numpy as np
    if n and n < X.shape[0]:
        keep = np.sort(np.random.default_rng(SUBSAMPLE_SEED).permutation(X.shape[0])[:n])
        X, y = X[keep], y[keep]
    return np.ascontiguousarray(X, dtype=np.float32), np.ascontiguousarray(y, dtype=np.int32)


def load_fashion_mnist(data_dir, n=0, split="train"):
    """Fashion-MNIST images as float32 pixels/255 (rows × 784) and int32 classes.
    split: "train" (60000 rows) or "test" (10000, the t10k files); n > 0 keeps a random
    subsample of n rows (fixed seed)."""
    import numpy as np
    data_dir = Path(data_dir)
    prefix = {"train": "train", "test": "t10k"}[split]
    images_path = data_dir / f"{prefix}-images-idx3-ubyte.gz"
    labels_path = data_dir / f"{prefix}-labels-idx1-ubyte.gz"
    for path in (images_path, labels_path):
        if not path.exists():
            raise SystemExit(f"{path} not found: apt-get install dataset-fashion-mnist, or pass --data-dir")
    dims, pixels = read_idx(images_path, 0x00000803)
    _, labels = read_idx(labels_path, 0x00000801)
    X = np.frombuffer(pixels, dtype=np.uint8).reshape(dims[0], dims[1] * dims[2])
    X = X.astype(np.float32) / np.float32(255.0)
    y = np.frombuffer(labels, dtype=np.uint8).astype(np.int32)
    return subsample(X, y, n)


def papers_gamma(X):
    """gamma = 1/(2 sigma^2), sigma^2 = mean pairwise squared distance = 2(mean|x|^2 - |mean x|^2)."""
    import numpy as np
    total_sq, total = 0.0, np.zeros(X.shape[1])
    for start in range(0, X.shape[0], 65536):  # float64 in chunks: no n x d float64 copy
        X64 = X[start:start + 65536].astype(np.float64)
        total_sq += float(np.einsum("ij,ij->", X64, X64))
        total += X64.sum(axis=0)
    mean = total / X.shape[0]
    sigma2 = 2.0 * (total_sq / X.shape[0] - float(mean @ mean))
    return 1.0 / (2.0 * sigma2)


# ---------------------------------------------------------------------------- kkmeans via ctypes

class KkmeansError(RuntimeError):
    pass


def default_lib_path():
    if os.environ.get("KKMEANS_LIB"):
        return Path(os.environ["KKMEANS_LIB"])
    return REPO_ROOT / "build" / "src" / "libkkmeans.so"


def open_library(lib_arg):
    """Kkmeans on --lib, else $KKMEANS_LIB, else build/src/libkkmeans.so; exits if missing."""
    lib_path = Path(lib_arg) if lib_arg else default_lib_path()
    if not lib_path.exists():
        raise SystemExit(f"{lib_path} not found: build the library first "
                         "(meson setup build && ninja -C build) or pass --lib / set KKMEANS_LIB")
    return Kkmeans(lib_path)


def parse_timings(text):
    pairs = {}
    for item in text.split():
        key, _, value = item.partition("=")
        pairs[key] = value
    return pairs


class Kkmeans:
    """The entry points of the C API the benchmarks need."""

    def __init__(self, path):
        self.path = Path(path)
        self.lib = SIGNATURES.declare(ctypes.CDLL(str(path)))

    def version(self):
        return self.lib.kkm_version().decode()

    def check(self, status, what):
        if status != 0:
            name = self.lib.kkm_status_string(status).decode()
            message = self.lib.kkm_last_error().decode()
            raise KkmeansError(f"{what} failed: {name}: {message}")

    def text(self, getter, what):
        """Reads a string through a (buf, len, out_len) getter, growing the buffer if needed."""
        size = ctypes.c_size_t(0)
        buf = ctypes.create_string_buffer(256)
        status = getter(buf, len(buf), ctypes.byref(size))
        if status != 0 and size.value >= len(buf):
            buf = ctypes.create_string_buffer(size.value + 1)
            status = getter(buf, len(buf), ctypes.byref(size))
        self.check(status, what)
        return buf.value.decode()

    def model(self):
        return Model(self)

    def fitted(self, params, X):
        """A Model with params set and fitted on X, for a `with` block (kkm_destroy on exit);
        the wall seconds of kkm_fit are in its .seconds."""
        model = Model(self)
        try:
            model.set_params(params)
            model.seconds = model.fit(X)
        except BaseException:
            model.close()
            raise
        return model

    def fit(self, X, params, np=None):
        """One fit; returns labels, wall seconds of kkm_fit, stage timings, resolved params."""
        with self.fitted(params, X) as model:
            resolved = {key: model.param(key) for key in ("gamma", "m", "threads", "isa")}
            return model.labels(), model.seconds, model.timings(), resolved


class Model:
    """One kkm_model; use as a context manager (kkm_destroy on exit)."""

    def __init__(self, kkm):
        self.kkm = kkm
        self.handle = ctypes.c_void_p()
        self.n = None
        self.d = None
        self.seconds = None
        kkm.check(kkm.lib.kkm_create(ctypes.byref(self.handle)), "kkm_create")

    def close(self):
        if self.handle:
            self.kkm.lib.kkm_destroy(self.handle)
            self.handle = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def set_params(self, params):
        self.kkm.check(self.kkm.lib.kkm_set_params(self.handle, params.encode()),
                       f"kkm_set_params({params!r})")

    def fit(self, X):
        """kkm_fit on a C-contiguous float32 matrix; returns its wall-clock seconds."""
        import numpy as np
        X = np.ascontiguousarray(X, dtype=np.float32)
        n, d = X.shape
        start = time.perf_counter()
        status = self.kkm.lib.kkm_fit(self.handle, X.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                      n, d, None)
        seconds = time.perf_counter() - start
        self.kkm.check(status, "kkm_fit")
        self.n, self.d = n, d
        return seconds

    def labels(self):
        import numpy as np
        labels = np.empty(self.n, dtype=np.int32)
        self.kkm.check(self.kkm.lib.kkm_get_labels(
            self.handle, labels.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)), self.n),
            "kkm_get_labels")
        return labels

    def assign(self, Y):
        """kkm_assign: (labels int32, distances float32) of the rows of Y."""
        import numpy as np
        Y = np.ascontiguousarray(Y, dtype=np.float32)
        n, d = Y.shape
        labels = np.empty(n, dtype=np.int32)
        distances = np.empty(n, dtype=np.float32)
        self.kkm.check(self.kkm.lib.kkm_assign(
            self.handle, Y.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), n, d,
            labels.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)),
            distances.ctypes.data_as(ctypes.POINTER(ctypes.c_float))), "kkm_assign")
        return labels, distances

    def param(self, key):
        L = self.kkm.lib
        return self.kkm.text(lambda b, l, s: L.kkm_get_param(self.handle, key.encode(), b, l, s),
                             f"kkm_get_param({key})")

    def timings(self):
        L = self.kkm.lib
        return self.kkm.text(lambda b, l, s: L.kkm_get_timings(self.handle, b, l, s), "kkm_get_timings")

    def objective(self):
        value = ctypes.c_double()
        self.kkm.check(self.kkm.lib.kkm_get_objective(self.handle, ctypes.byref(value)),
                       "kkm_get_objective")
        return value.value

    def iterations(self):
        value = ctypes.c_int32()
        self.kkm.check(self.kkm.lib.kkm_get_iterations(self.handle, ctypes.byref(value)),
                       "kkm_get_iterations")
        return value.value

    def k(self):
        k = ctypes.c_int32(0)
        self.kkm.check(self.kkm.lib.kkm_get_k(self.handle, ctypes.byref(k)), "kkm_get_k")
        return k.value

    def search(self):
        """What gamma=search / k=auto scored: a list of (gamma, k, score, criterion name)."""
        lib, c = self.kkm.lib, ctypes
        count = c.c_int64(0)
        self.kkm.check(lib.kkm_get_search(self.handle, None, None, None, None, 0, c.byref(count)), "kkm_get_search")
        n = count.value
        gammas, scores = (c.c_double * n)(), (c.c_double * n)()
        ks, criteria = (c.c_int32 * n)(), (c.c_int32 * n)()
        self.kkm.check(lib.kkm_get_search(self.handle, gammas, ks, scores, criteria, n, c.byref(count)),
                       "kkm_get_search")
        names = {0: "stability", 1: "matr"}
        return [(gammas[i], ks[i], scores[i], names[criteria[i]]) for i in range(n)]

    def feature_dim(self):
        value = ctypes.c_int64()
        self.kkm.check(self.kkm.lib.kkm_get_feature_dim(self.handle, ctypes.byref(value)),
                       "kkm_get_feature_dim")
        return value.value


# ---------------------------------------------------------------------------- report helpers

def mean_std(values, digits):
    if len(values) == 1:
        return f"{values[0]:.{digits}f}"
    return f"{statistics.mean(values):.{digits}f} ± {statistics.stdev(values):.{digits}f}"


def threads_text(threads):
    """The --threads value as the reports print it."""
    return f"{threads}" if threads else f"0 = all cores ({os.cpu_count()})"


def machine_line(kkm, threads, core_note, blas=False, total=None):
    """The closing line of the reports: kkmeans version and path, threads, CPU, numpy's BLAS
    (with blas=True, for scripts whose objective runs in numpy), the OpenBLAS core note, the
    python version and (when given) the total seconds."""
    text = f"kkmeans {kkm.version()} ({kkm.path}); threads: {threads_text(threads)}; CPU: {cpu_name()}; "
    if blas:
        text += f"numpy BLAS (objective only): {numpy_blas()}; "
    text += f"{core_note}; python {platform.python_version()}"
    if total is not None:
        text += f"; total {total:.0f} s"
    return text


def fit_failed(error, key, runs, errors, where=None):
    """Logs a fit's KkmeansError and keeps it: dict(key, error=...) in runs and, after the
    fields of where (which row failed), in errors."""
    log(f"  error: {error}")
    runs.append(dict(key, error=str(error)))
    errors.append(dict(where or {}, **key, error=str(error)))
