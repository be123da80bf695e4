"""libkkmeans through ctypes: loading, the signatures of include/kkmeans.h, status → exception.

The shared library is the one the wheel carries beside this file (``libkkmeans.so``), or the
one named by the environment variable ``FASTKKM_LIBRARY`` (the test suite of the main build
points it at the freshly built ``build/src/libkkmeans.so``). ctypes releases the GIL for the
duration of every foreign call.
"""

import ctypes
import os
from pathlib import Path

from ._signatures import MISSING, PROGRESS_FN, declare

LIBRARY_ENV = "FASTKKM_LIBRARY"

# kkm_status (include/kkmeans.h): the numbers are part of the ABI.
OK = 0
INVALID_ARGUMENT = 1
INVALID_DATA = 2
NOT_FITTED = 3
OUT_OF_MEMORY = 4
IO = 5
FORMAT = 6
CANCELLED = 7
INTERNAL = 8


def library_path():
    """The libkkmeans this process loads: $FASTKKM_LIBRARY, else the package's own copy."""
    env = os.environ.get(LIBRARY_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parent / "libkkmeans.so"


def _load():
    path = library_path()
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as e:
        raise ImportError(f"fastkkm: cannot load the kkmeans library {path}: {e} (install the package "
                          f"with pip, or set {LIBRARY_ENV} to a built libkkmeans.so)") from e
    return declare(lib)


lib = _load()


def _fn(name):
    """lib's function name; a RuntimeError naming the library when it is older than the package
    (FASTKKM_LIBRARY pointing at a build that predates the function)."""
    if name in MISSING:
        raise RuntimeError(f"{name}: the kkmeans library {library_path()} does not have it (it is older than "
                           f"this fastkkm); rebuild it, or unset {LIBRARY_ENV} to use the package's own copy")
    return getattr(lib, name)


class MemoryBudgetError(MemoryError, RuntimeError):
    """KKM_ERR_OUT_OF_MEMORY: a fit's estimate or a stage over max_memory_mb, or an allocation
    that failed (a MemoryError and a RuntimeError)."""


def version():
    return lib.kkm_version().decode()


def check(status, what):
    """Raises the exception of a non-OK status with kkm_last_error()'s text (read at once:
    it is thread-local and valid until this thread's next kkm_* call)."""
    if status == OK:
        return
    message = lib.kkm_last_error().decode(errors="replace")
    name = lib.kkm_status_string(status).decode()
    text = f"{what}: {name}: {message}"
    if status == INVALID_DATA and "non-finite value" in message:
        text += " (the input contains NaN or infinity)"
    if status in (INVALID_ARGUMENT, INVALID_DATA, FORMAT):
        raise ValueError(text)
    if status == OUT_OF_MEMORY:
        raise MemoryBudgetError(text)
    raise RuntimeError(text)


def param_info():
    """Every parameter of the library's table: a list of dicts with name, type, default,
    range and doc (kkm_param_info) and aliases, the other keys it takes (kkm_param_aliases)."""
    out = []
    for i in range(lib.kkm_param_count()):
        fields = [ctypes.c_char_p() for _ in range(5)]
        check(lib.kkm_param_info(i, *(ctypes.byref(f) for f in fields)), "kkm_param_info")
        name, type_, default, range_, doc = (f.value.decode() for f in fields)
        aliases = ctypes.c_char_p()
        check(lib.kkm_param_aliases(i, ctypes.byref(aliases)), "kkm_param_aliases")
        out.append(dict(name=name, type=type_, default=default, range=range_, doc=doc,
                        aliases=aliases.value.decode().split()))
    return out


def _ptr(array, ctype):
    return array.ctypes.data_as(ctypes.POINTER(ctype)) if array is not None else None


class Model:
    """One kkm_model handle, destroyed with the object. Fitting and setting parameters must
    not overlap any other call on the same handle; the const calls (assign, transform,
    getters, save) may run concurrently on a fitted one (include/kkmeans.h)."""

    def __init__(self):
        self._handle = ctypes.c_void_p()
        check(lib.kkm_create(ctypes.byref(self._handle)), "kkm_create")

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle and lib is not None:
            lib.kkm_destroy(handle)
            self._handle = None

    def set_param(self, key, value):
        check(lib.kkm_set_param(self._handle, key.encode(), value.encode()), f"parameter {key}={value}")

    def get_param(self, key):
        size = ctypes.c_size_t(0)
        buf = ctypes.create_string_buffer(128)
        status = lib.kkm_get_param(self._handle, key.encode(), buf, len(buf), ctypes.byref(size))
        if status != OK and size.value >= len(buf):
            buf = ctypes.create_string_buffer(size.value + 1)
            status = lib.kkm_get_param(self._handle, key.encode(), buf, len(buf), ctypes.byref(size))
        check(status, f"kkm_get_param({key})")
        return buf.value.decode()

    def fit(self, X, weights, progress):
        """X: C-contiguous float32 or float64 (n, d); weights: None or n of the same dtype;
        progress: a PROGRESS_FN kept alive by the caller, or None. Releases the GIL."""
        import numpy as np
        n, d = X.shape
        check(lib.kkm_set_progress(self._handle, progress or PROGRESS_FN(), None), "kkm_set_progress")
        try:
            if X.dtype == np.float32:
                status = lib.kkm_fit(self._handle, _ptr(X, ctypes.c_float), n, d, _ptr(weights, ctypes.c_float))
            else:
                status = lib.kkm_fit_f64(self._handle, _ptr(X, ctypes.c_double), n, d,
                                         _ptr(weights, ctypes.c_double))
        finally:
            lib.kkm_set_progress(self._handle, PROGRESS_FN(), None)
        return status

    def partial_fit(self, X, weights, progress):
        """One batch of a stream (kkm_partial_fit): X C-contiguous float32 (n, d); weights None
        or n float32; progress as for fit. Releases the GIL."""
        n, d = X.shape
        check(lib.kkm_set_progress(self._handle, progress or PROGRESS_FN(), None), "kkm_set_progress")
        try:
            return _fn("kkm_partial_fit")(self._handle, _ptr(X, ctypes.c_float), n, d, _ptr(weights, ctypes.c_float))
        finally:
            lib.kkm_set_progress(self._handle, PROGRESS_FN(), None)

    def set_init_labels(self, labels):
        """The next fits' first restart starts from these training labels (C-contiguous int32,
        one per training row), or, with None, from the seeding again (kkm_set_init_labels)."""
        n = 0 if labels is None else labels.shape[0]
        check(_fn("kkm_set_init_labels")(self._handle, _ptr(labels, ctypes.c_int32), n), "init")

    def set_init_centres(self, centres):
        """The next fits' first restart starts from these centres in input space (C-contiguous
        float32, k x d), or, with None, from the seeding again (kkm_set_init_centres)."""
        k, d = (0, 0) if centres is None else centres.shape
        check(_fn("kkm_set_init_centres")(self._handle, _ptr(centres, ctypes.c_float), k, d), "init")

    def fit_graph(self, indptr, indices, values, progress):
        """Fits kernel=knn or heat on a graph (kkm_fit_graph): the n x n affinity matrix in
        compressed sparse rows, indptr C-contiguous int64 (n + 1 offsets), indices int64 and
        values float32 (or None: every weight 1) of indptr[n] entries. progress as for fit.
        Releases the GIL; returns the status, as fit."""
        n = indptr.shape[0] - 1
        check(lib.kkm_set_progress(self._handle, progress or PROGRESS_FN(), None), "kkm_set_progress")
        try:
            status = lib.kkm_fit_graph(self._handle, n, _ptr(indptr, ctypes.c_int64), _ptr(indices, ctypes.c_int64),
                                       _ptr(values, ctypes.c_float))
        finally:
            lib.kkm_set_progress(self._handle, PROGRESS_FN(), None)
        return status

    def assign(self, X, distances=False):
        import numpy as np
        n, d = X.shape
        labels = np.empty(n, dtype=np.int32)
        dist = np.empty(n, dtype=X.dtype) if distances else None
        if X.dtype == np.float32:
            status = lib.kkm_assign(self._handle, _ptr(X, ctypes.c_float), n, d, _ptr(labels, ctypes.c_int32),
                                    _ptr(dist, ctypes.c_float))
        else:
            status = lib.kkm_assign_f64(self._handle, _ptr(X, ctypes.c_double), n, d,
                                        _ptr(labels, ctypes.c_int32), _ptr(dist, ctypes.c_double))
        check(status, "kkm_assign")
        return labels, dist

    def distances(self, X):
        """Squared distance of each row of X (C-contiguous float32 or float64, (n, d)) to every
        centre: an (n, k) array of X's dtype (kkm_distances / kkm_distances_f64)."""
        import numpy as np
        n, d = X.shape
        out = np.empty((n, self.k()), dtype=X.dtype)
        if X.dtype == np.float32:
            status = lib.kkm_distances(self._handle, _ptr(X, ctypes.c_float), n, d, _ptr(out, ctypes.c_float),
                                       out.size)
        else:
            status = lib.kkm_distances_f64(self._handle, _ptr(X, ctypes.c_double), n, d,
                                           _ptr(out, ctypes.c_double), out.size)
        check(status, "kkm_distances")
        return out

    def transform(self, X, dim):
        import numpy as np
        n, d = X.shape
        out = np.empty((n, dim), dtype=np.float32)
        check(lib.kkm_transform(self._handle, _ptr(X, ctypes.c_float), n, d, _ptr(out, ctypes.c_float),
                                out.size), "kkm_transform")
        return out

    def _int(self, getter, ctype, what):
        value = ctype()
        check(getter(self._handle, ctypes.byref(value)), what)
        return value.value

    def n_train(self):
        return self._int(lib.kkm_get_n_train, ctypes.c_int64, "kkm_get_n_train")

    def n_features(self):
        return self._int(lib.kkm_get_n_features, ctypes.c_int64, "kkm_get_n_features")

    def k(self):
        return self._int(lib.kkm_get_k, ctypes.c_int32, "kkm_get_k")

    def objective(self):
        return self._int(lib.kkm_get_objective, ctypes.c_double, "kkm_get_objective")

    def iterations(self):
        return self._int(lib.kkm_get_iterations, ctypes.c_int32, "kkm_get_iterations")

    def feature_dim(self):
        return self._int(lib.kkm_get_feature_dim, ctypes.c_int64, "kkm_get_feature_dim")

    def labels(self):
        import numpy as np
        n = self.n_train()
        out = np.empty(n, dtype=np.int32)
        check(lib.kkm_get_labels(self._handle, _ptr(out, ctypes.c_int32), n), "kkm_get_labels")
        return out

    def cluster_sizes(self):
        import numpy as np
        out = np.empty(self.k(), dtype=np.float64)
        check(lib.kkm_get_cluster_sizes(self._handle, _ptr(out, ctypes.c_double), out.size),
              "kkm_get_cluster_sizes")
        return out

    def centres(self, k, dim):
        """The k fitted centres in the feature space of transform (k x dim float32,
        kkm_get_centres); a ValueError for a model without explicit centres."""
        import numpy as np
        out = np.empty((k, dim), dtype=np.float32)
        check(_fn("kkm_get_centres")(self._handle, _ptr(out, ctypes.c_float), out.size), "kkm_get_centres")
        return out

    def search(self):
        """The gamma=search / k=auto scan: a list of (gamma, k, score, criterion) tuples."""
        c = ctypes
        count = c.c_int64(0)
        check(lib.kkm_get_search(self._handle, None, None, None, None, 0, c.byref(count)), "kkm_get_search")
        n = count.value
        gammas, scores = (c.c_double * n)(), (c.c_double * n)()
        ks, criteria = (c.c_int32 * n)(), (c.c_int32 * n)()
        check(lib.kkm_get_search(self._handle, gammas, ks, scores, criteria, n, c.byref(count)),
              "kkm_get_search")
        names = {0: "stability", 1: "matr"}
        return [(gammas[i], ks[i], scores[i], names.get(criteria[i], str(criteria[i]))) for i in range(n)]

    def save(self):
        """The model buffer (kkm_save_buffer) as bytes."""
        size = ctypes.c_int64(0)
        check(lib.kkm_save_buffer(self._handle, None, 0, ctypes.byref(size)), "kkm_save_buffer")
        buf = ctypes.create_string_buffer(size.value)
        check(lib.kkm_save_buffer(self._handle, buf, size.value, ctypes.byref(size)), "kkm_save_buffer")
        return buf.raw[:size.value]

    @classmethod
    def load(cls, data):
        model = cls()
        data = bytes(data)
        check(lib.kkm_load_buffer(model._handle, data, len(data)), "kkm_load_buffer")
        return model
