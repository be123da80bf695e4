"""KernelKMeans: the scikit-learn estimator over libkkmeans."""

import numbers
import signal
import sys
import threading

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import _native

# Constructor argument → library key (kkm_param_info), in the table's order. Two take
# scikit-learn's names (the library accepts both as aliases); the rest keep the library's.
_KEYS = {
    "n_clusters": "k", "k_min": "k_min", "k_max": "k_max", "method": "method", "kernel": "kernel",
    "gamma": "gamma", "search_criterion": "search_criterion", "search_size": "search_size",
    "bandwidth_scale": "bandwidth_scale", "degree": "degree", "coef0": "coef0",
    "n_neighbors": "neighbors", "graph": "graph", "heat_t": "heat_t", "heat_rank": "heat_rank",
    "heat_normalize": "heat_normalize", "m": "m",
    "nystrom_rcond": "nystrom_rcond", "rank": "rank", "reg_rank": "reg_rank", "sampling": "sampling",
    "rls_lambda": "rls_lambda", "sketch": "sketch", "solver": "solver", "refine": "refine",
    "batch_size": "batch_size", "tau": "tau", "epsilon": "epsilon", "learning_rate": "learning_rate",
    "init": "init", "n_init": "n_init", "max_iter": "max_iter", "tol": "tol", "random_state": "seed",
    "threads": "threads", "isa": "isa", "kernel_rows": "kernel_rows", "max_memory_mb": "max_memory_mb",
}


# The kernels kkm_fit_graph fits: a scipy.sparse X is their graph's affinity matrix.
_GRAPH_KERNELS = ("knn", "heat")

# scipy.sparse affinity rows reach the library as dense float32 blocks of at most this many
# rows and this many values (128 MiB).
_BLOCK_ROWS = 4096
_BLOCK_VALUES = 1 << 25


def _is_sparse(X):
    """Whether X is a scipy.sparse matrix or array. Nothing is imported: whoever made one has
    imported scipy.sparse (scikit-learn itself depends on scipy)."""
    sparse = sys.modules.get("scipy.sparse")
    return sparse is not None and sparse.issparse(X)


def _check_real(X):
    if X.dtype.kind not in "biuf":
        raise ValueError(f"X: the affinities must be real numbers, got dtype {X.dtype}")


def _check_affinity_rows(X):
    """Sparse affinity rows (CSR, float32) as the library checks them (finite, >= 0, a positive
    one per row), named by their row in X: the library sees one block at a time."""
    data = X.data
    bad = ~(np.isfinite(data) & (data >= 0))
    if bad.any():
        e = int(np.argmax(bad))
        row = int(np.searchsorted(X.indptr, e, side="right")) - 1
        raise ValueError(f"X: row {row}, column {int(X.indices[e])} holds {float(data[e]):.9g}; affinities to the "
                         "training nodes must be finite and >= 0")
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    has_positive = np.bincount(rows[data > 0], minlength=X.shape[0]) > 0
    if not has_positive.all():
        row = int(np.argmin(has_positive))
        raise ValueError(f"X: row {row} has no positive affinity to any training node, so it has no place in "
                         "the graph")


def _text(name, value):
    """A constructor argument as the library's parameter text (validated by the library)."""
    if value is None:
        return "none"
    if name == "heat_normalize" and isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r}: expected a number or a string, not a bool")
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    raise ValueError(f"{name}={value!r}: expected a number or a string, not {type(value).__name__}")


def _seed(random_state):
    """random_state → the library's seed: an int is the seed itself; None (numpy's global
    generator) or a RandomState draws one."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


class _CancelOnSigint:
    """While a fit runs on the main thread with Python's default SIGINT handler, Ctrl-C sets a
    flag instead of raising inside the progress callback (where ctypes would swallow the
    exception); the callback then returns non-zero, the library cancels the fit within about
    0.1 s, and fit() raises KeyboardInterrupt."""

    def __init__(self):
        self.requested = False
        self._installed = False
        self.callback = _native.PROGRESS_FN(self._progress)

    def _progress(self, stage, fraction, user_data):
        return 1 if self.requested else 0

    def _handler(self, signum, frame):
        self.requested = True

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            signal.signal(signal.SIGINT, self._handler)
            self._installed = True
        return self

    def __exit__(self, *exc):
        if self._installed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        return False


class KernelKMeans(ClusterMixin, TransformerMixin, BaseEstimator):
    """Kernel k-means (libkkmeans): exact, Nyström, sketched, random-Fourier-feature and
    mini-batch kernel k-means, and the graph kernels (normalized cut, heat kernel) behind
    scikit-learn's estimator API.

    Every parameter is stored as given and validated by the library when ``fit`` runs (a bad
    name is a TypeError of the constructor, a bad value a ValueError naming the parameter
    and its accepted range). The defaults are the library's (``fastkkm.param_info()`` lists
    each with its type, range and description; see also the table at the end of this
    docstring), except ``random_state``.

    Parameters
    ----------
    n_clusters : int or "auto", default=8
        Number of clusters (the library's ``k``); "auto" chooses it in [k_min, k_max] by the
        stability of fits on halves of a subsample (``n_clusters_`` reports the choice).
    method : {"auto", "nystrom", "exact", "sketch", "rff", "minibatch"}, default="auto"
        "auto" is "exact" for the graph kernels (knn, heat) and "nystrom" otherwise.
    kernel : {"rbf", "laplacian", "polynomial", "linear", "cosine", "precomputed", "knn", "heat"}, default="rbf"
        "knn" and "heat" are graph kernels, the clusters of spectral clustering at kernel
        k-means' speed: "knn" is normalized cut (weighted kernel k-means with
        K = sigma D^-1 + D^-1 A D^-1, sigma a shift that makes K positive definite, and degree
        weights), "heat" the heat kernel
        exp(-heat_t L) through the top heat_rank eigenpairs of D^-1/2 A D^-1/2. A is the
        symmetrised n_neighbors-nearest-neighbour graph of the rows, or, when X is scipy.sparse,
        X itself: a graph's affinity matrix (see ``fit``).
    n_neighbors : int or "auto", default="auto"
        Graph kernels on points: each row's neighbours q in the graph (B + B.T) / 2 (the
        library's ``neighbors``); "auto" is 10, raised to 15, 20, 30 while a connected
        component is too small to be a cluster.
    graph : {"auto", "exact", "nndescent"}, default="auto"
        Graph kernels on points: how the neighbours are searched ("exact": every distance;
        "nndescent": NN-descent; "auto": exact when 2 n² d <= 5e10).
    heat_t : float, default=80.0
        kernel="heat": the time t of exp(-t L).
    heat_rank : int or "auto", default="auto"
        kernel="heat": eigenpairs kept (``feature_dim_``); "auto" is max(2 n_clusters, 20).
    heat_normalize : bool or {"true", "false"}, default=True
        kernel="heat": scale each row's features to unit length.
    gamma : float, "auto" or "search", default="auto"
        Kernel scale; ``gamma_`` reports the value the fit used.
    m : int or "auto", default="auto"
        Landmarks / features of the approximate methods.
    n_init : int or "auto", default="auto"
        Restarts; "auto" is 10 for the graph kernels and 1 otherwise.
    max_iter : int, default=100
    tol : float, default=1e-4
    init : {"kmeans++", "random"}, default="kmeans++"
    random_state : int, RandomState instance or None, default=None
        An int is the library's ``seed`` itself (the same fit as the C API or the command
        line with that seed); None or a RandomState draws a seed.
    threads : int, default=0
        Threads of a fit or an assignment; 0 = all cores.
    k_min, k_max, search_criterion, search_size, bandwidth_scale, degree, coef0, nystrom_rcond,
    rank, reg_rank, sampling, rls_lambda, sketch, solver, refine, batch_size, tau, epsilon,
    learning_rate, isa, kernel_rows, max_memory_mb :
        The library's parameters of the same names (``rank=None`` is the library's ``none``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,), int32
    inertia_ : float
        The fit's objective: the weighted sum of squared kernel-space distances to the centres.
    n_iter_ : int
        Lloyd iterations of the best restart.
    cluster_sizes_ : ndarray of shape (n_clusters_,)
        Rows (or their weights) per cluster.
    n_clusters_ : int
    gamma_ : float
        The kernel scale the fit used (0 for kernels without one).
    feature_dim_ : int
        Width of ``transform``'s output (0 for method="exact" and kernel="knn", which have no
        feature map; the kept eigenpairs for kernel="heat").
    search_ : list of (gamma, k, score, criterion)
        What gamma="search" / n_clusters="auto" scored (empty otherwise).
    n_features_in_ : int
        Columns of X; after a fit on a graph (scipy.sparse X), its n_samples nodes.
    feature_names_in_ : ndarray of str (only when X has feature names)

    Notes
    -----
    float32 and float64 input in C order reaches the library without a copy; any other input
    is converted once (to float32, or float64 when it is already float64). ``transform`` works
    in float32 (float64 input is converted). The GIL is released during fit, predict and
    transform; Ctrl-C cancels a running fit on the main thread (KeyboardInterrupt). A fitted
    estimator may predict / transform / score from several threads at once; ``fit`` builds a
    new model and swaps it in when done. Pickling stores the library's model buffer.

    A fit on a graph (kernel="knn" or "heat", X a scipy.sparse affinity matrix) places new
    nodes by their affinity rows: predict, distances, score and transform take X of shape
    (n, n_samples of the fit), dense or scipy.sparse (any format; sparse rows go to the
    library as dense float32 blocks of at most 4096 rows), each row a new node's weights
    (>= 0, one positive at least) to the training nodes. A row equal to a training node's row
    of the affinity matrix is that node and gets its label.
    """

    def __init__(self, n_clusters=8, *, method="auto", kernel="rbf", gamma="auto", m="auto",
                 n_init="auto", max_iter=100, tol=1e-4, init="kmeans++", random_state=None, threads=0,
                 k_min=2, k_max=10, search_criterion="matr", search_size=1000, bandwidth_scale=1.0,
                 degree=3, coef0=1.0, n_neighbors="auto", graph="auto", heat_t=80.0, heat_rank="auto",
                 heat_normalize=True, nystrom_rcond=1e-6, rank=None, reg_rank="auto",
                 sampling="uniform", rls_lambda="auto", sketch="subgaussian", solver="lloyd",
                 refine="none", batch_size=1024, tau=200, epsilon=1e-3, learning_rate="beta",
                 isa="auto", kernel_rows="auto", max_memory_mb=4096):
        self.n_clusters = n_clusters
        self.method = method
        self.kernel = kernel
        self.gamma = gamma
        self.m = m
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.random_state = random_state
        self.threads = threads
        self.k_min = k_min
        self.k_max = k_max
        self.search_criterion = search_criterion
        self.search_size = search_size
        self.bandwidth_scale = bandwidth_scale
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.heat_t = heat_t
        self.heat_rank = heat_rank
        self.heat_normalize = heat_normalize
        self.nystrom_rcond = nystrom_rcond
        self.rank = rank
        self.reg_rank = reg_rank
        self.sampling = sampling
        self.rls_lambda = rls_lambda
        self.sketch = sketch
        self.solver = solver
        self.refine = refine
        self.batch_size = batch_size
        self.tau = tau
        self.epsilon = epsilon
        self.learning_rate = learning_rate
        self.isa = isa
        self.kernel_rows = kernel_rows
        self.max_memory_mb = max_memory_mb

    # ------------------------------------------------------------------ helpers

    def _new_model(self):
        model = _native.Model()
        for name, key in _KEYS.items():
            value = getattr(self, name)
            text = str(_seed(value)) if name == "random_state" else _text(name, value)
            try:
                model.set_param(key, text)
            except ValueError as e:
                raise ValueError(f"{name}={value!r}: {e}") from None
        return model

    def _check_X(self, X, reset):
        return self._validate_data(X, reset=reset, accept_sparse=False, dtype=[np.float32, np.float64],
                                   order="C", force_all_finite=False)

    def _blocks(self, X):
        """The rows of predict, distances, score and transform: (X validated, the C-contiguous
        arrays the library takes in turn). Points, and a graph fit's dense affinity rows, are
        one block (X itself, not copied when C-contiguous float32 or float64); a graph fit's
        scipy.sparse affinity rows become dense float32 blocks of at most _BLOCK_ROWS rows and
        _BLOCK_VALUES values, made one at a time."""
        if not (_is_sparse(X) and getattr(self, "_graph_fit", False)):
            X = self._check_X(X, reset=False)  # refuses sparse input to a fit on points
            return X, [X]
        X = self._validate_data(X, reset=False, accept_sparse="csr", dtype=None, force_all_finite=False)
        _check_real(X)
        X = X.astype(np.float32, copy=False)
        _check_affinity_rows(X)
        step = max(1, min(_BLOCK_ROWS, _BLOCK_VALUES // X.shape[1]))
        return X, (X[i:i + step].toarray() for i in range(0, X.shape[0], step))

    def _fitted(self, model, graph):
        """Swaps in a fitted model and reads its results."""
        self._model = model
        self._graph_fit = graph
        self.labels_ = model.labels()
        self.inertia_ = model.objective()
        self.n_iter_ = model.iterations()
        self.cluster_sizes_ = model.cluster_sizes()
        self.n_clusters_ = model.k()
        self.feature_dim_ = model.feature_dim()
        self.gamma_ = self._resolved_gamma(model)
        self.search_ = model.search()
        return self

    def _check_n_clusters(self, n):
        if isinstance(self.n_clusters, numbers.Integral) and n < self.n_clusters:
            raise ValueError(f"n_samples={n} should be >= n_clusters={self.n_clusters}.")

    # ------------------------------------------------------------------ estimator API

    def fit(self, X, y=None, sample_weight=None):
        """Clusters the rows of X. Returns self.

        X : array-like of shape (n_samples, n_features), or scipy.sparse of shape (n_samples, n_samples)
            The points, one per row; with kernel="precomputed" the n_samples × n_samples kernel
            matrix. With kernel="knn" or "heat", a scipy.sparse X (any format) is instead the
            affinity matrix A of a graph whose nodes are the samples (the library's
            kkm_fit_graph): A[i, j] >= 0 the weight of the edge between i and j, A symmetric
            (pass (A + A.T) / 2 for a directed graph), every node with an edge (a self-loop
            counts). predict, distances, score and transform of such a fit take affinity rows,
            and n_features_in_ is n_samples. A sparse X with any other kernel is a TypeError.
        sample_weight : None or array-like of shape (n_samples,)
            Non-negative weights (at least one positive). Not with the graph kernels (knn
            weighs every row by its degree in the graph, heat all rows alike).
        """
        if _is_sparse(X):
            return self._fit_graph(X, sample_weight)
        X = self._check_X(X, reset=True)
        n = X.shape[0]
        self._check_n_clusters(n)
        if n == 1 and self.gamma in ("auto", "search") and self.kernel in ("rbf", "laplacian"):
            raise ValueError(f"n_samples=1: gamma={self.gamma!r} cannot derive a kernel scale from one "
                             "sample; pass a number")
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=X.dtype)
        model = self._new_model()
        with _CancelOnSigint() as cancel:
            status = model.fit(X, sample_weight, cancel.callback)
        if cancel.requested:
            raise KeyboardInterrupt
        _native.check(status, "kkm_fit")
        return self._fitted(model, graph=False)

    def _fit_graph(self, A, sample_weight):
        """fit on a scipy.sparse affinity matrix: canonical CSR (int64 offsets and columns, float32
        weights, duplicates summed; a copy only where A is not that already) to kkm_fit_graph."""
        if self.kernel not in _GRAPH_KERNELS:
            raise TypeError(f"kernel={self.kernel!r}: X is a scipy.sparse matrix, which fastkkm takes as a graph's "
                            "affinity matrix, and graph input needs kernel='knn' or kernel='heat'; pass the points "
                            "of other kernels as a dense array (X.toarray())")
        if sample_weight is not None:
            raise ValueError("sample_weight: a graph fit (scipy.sparse X) takes no sample weights (kernel='knn' "
                             "weighs every node by its degree, kernel='heat' all nodes alike); pass "
                             "sample_weight=None")
        if A.ndim != 2 or A.shape[0] != A.shape[1]:
            raise ValueError(f"X: a graph's affinity matrix is square (n_samples × n_samples), got shape {A.shape} "
                             "(the points of the graph kernels go in as a dense array)")
        A = self._validate_data(A, reset=True, accept_sparse="csr", dtype=None, force_all_finite=False)
        _check_real(A)
        self._check_n_clusters(A.shape[0])
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()  # sorts each row's columns too
        indptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(A.indices, dtype=np.int64)
        values = np.ascontiguousarray(A.data, dtype=np.float32)
        model = self._new_model()
        with _CancelOnSigint() as cancel:
            status = model.fit_graph(indptr, indices, values, cancel.callback)
        if cancel.requested:
            raise KeyboardInterrupt
        _native.check(status, "kkm_fit_graph")
        return self._fitted(model, graph=True)

    @staticmethod
    def _resolved_gamma(model):
        try:
            return float(model.get_param("gamma"))
        except ValueError:
            return 0.0

    @staticmethod
    def _join(parts):
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def predict(self, X):
        """The nearest fitted centre of each row of X (int32 labels). After a fit on a graph,
        X holds affinity rows (n, n_features_in_), dense or scipy.sparse: each new node's
        weights to the training nodes; a training node's row of the affinity matrix gets its
        label."""
        check_is_fitted(self)
        _, blocks = self._blocks(X)
        return self._join([self._model.assign(block)[0] for block in blocks])

    def fit_predict(self, X, y=None, sample_weight=None):
        """fit(X) and return labels_."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def transform(self, X):
        """The fitted feature map of X (n_samples, feature_dim_), float32: k-means on these
        features is what the fit solved. Only for methods and kernels with a feature map
        (nystrom, sketch, rff; kernel="heat", whose features have unit length by default).
        X as for predict."""
        check_is_fitted(self)
        _, blocks = self._blocks(X)
        if self.feature_dim_ == 0:
            if self._model.get_param("kernel") == "knn":
                raise ValueError("transform: kernel='knn' has no explicit feature map (its kernel is a sparse matrix "
                                 "over the training graph); distances gives each row's distance to every centre, "
                                 "and kernel='heat' has features")
            raise ValueError(f"transform: method={self._model.get_param('method')!r} has no explicit "
                             "feature map (nystrom, sketch, rff and kernel='heat' have one)")
        return self._join([self._model.transform(np.ascontiguousarray(block, dtype=np.float32), self.feature_dim_)
                           for block in blocks])

    def distances(self, X):
        """Squared distance of each row of X to every fitted centre, (n_samples, n_clusters_),
        in X's dtype (the library computes in float32; float32 for scipy.sparse affinity rows):
        kernel-space distances for exact, minibatch and nystrom, feature-space ones for sketch
        and rff, as the fit measures inertia_. Each row's first minimum is at predict's label,
        and its value is that row's term of -score. Unlike transform, this is defined for
        every method; with kernel="precomputed" only sketch and rff have it (the others need
        k(x, x)). X as for predict."""
        check_is_fitted(self)
        _, blocks = self._blocks(X)
        return self._join([self._model.distances(block) for block in blocks])

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the objective of X under the fitted centres (as KMeans.score):
        -Σ w_i · squared distance of row i to its nearest centre. X as for predict."""
        check_is_fitted(self)
        X, blocks = self._blocks(X)
        method = self._model.get_param("method")
        if self._model.get_param("kernel") == "precomputed" and method in ("exact", "minibatch", "nystrom"):
            raise ValueError(f"score: with kernel='precomputed' and method={method!r} the distances of new "
                             "rows are unknown (their k(x, x) is not given); predict works")
        dist = self._join([self._model.assign(block, distances=True)[1] for block in blocks])
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64)
            return -float(np.dot(sample_weight, dist.astype(np.float64)))
        return -float(dist.sum(dtype=np.float64))

    def resolved_params(self):
        """The fitted model's parameters as the library reports them (gamma, m, isa ... as
        resolved by the fit), a dict of library key → text."""
        check_is_fitted(self)
        return {key: self._model.get_param(key) for key in _KEYS.values()}

    # ------------------------------------------------------------------ pickling

    def __getstate__(self):
        state = dict(super().__getstate__())  # a copy: Python 3.11 returns __dict__ itself
        model = state.pop("_model", None)
        if model is not None:
            state["_model_buffer"] = model.save()
        return state

    def __setstate__(self, state):
        state = dict(state)
        buffer = state.pop("_model_buffer", None)
        super().__setstate__(state)
        if buffer is not None:
            self._model = _native.Model.load(buffer)

    def _more_tags(self):
        return {
            # transform returns float32 for any input: the library's features are float32.
            "preserves_dtype": [np.float32],
            "_xfail_checks": {
                # As sklearn's own KMeans: the seeding draws depend on n, so zero weights on
                # extra rows do not give the fit without them.
                "check_sample_weights_invariance": "zero sample_weight is not equivalent to removing samples",
            },
        }


def _params_table():
    lines = ["", "    Library parameters (kkm_param_info)", "    -----------------------------------"]
    names = {key: name for name, key in _KEYS.items()}
    for p in _native.param_info():
        lines.append(f"    {names.get(p['name'], p['name'])} ({p['type']}, default {p['default']}, "
                     f"{p['range']}): {p['doc']}")
    return "\n".join(lines) + "\n"


if KernelKMeans.__doc__:
    KernelKMeans.__doc__ += _params_table()
