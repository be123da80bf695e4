"""KernelKMeans: the scikit-learn estimator over libkkmeans."""

import numbers
import os
import signal
import sys
import threading
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from . import _native

# Constructor argument → library key (kkm_param_info), in the table's order. Two take
# scikit-learn's names (the library accepts both as aliases); the rest keep the library's.
_KEYS = {
    "n_clusters": "k", "k_min": "k_min", "k_max": "k_max", "method": "method", "kernel": "kernel",
    "gamma": "gamma", "search_criterion": "search_criterion", "search_size": "search_size",
    "bandwidth_scale": "bandwidth_scale", "degree": "degree", "coef0": "coef0",
    "n_neighbors": "neighbors", "graph": "graph", "anchors": "anchors", "heat_t": "heat_t", "heat_rank": "heat_rank",
    "heat_normalize": "heat_normalize", "m": "m",
    "nystrom_rcond": "nystrom_rcond", "rank": "rank", "reg_rank": "reg_rank", "sampling": "sampling",
    "rls_lambda": "rls_lambda", "sketch": "sketch", "solver": "solver", "refine": "refine",
    "batch_size": "batch_size", "tau": "tau", "epsilon": "epsilon", "learning_rate": "learning_rate",
    "init": "init", "n_init": "n_init", "max_iter": "max_iter", "tol": "tol", "random_state": "seed",
    "threads": "threads", "isa": "isa", "kernel_rows": "kernel_rows", "max_memory_mb": "max_memory_mb",
}


# scikit-learn's spellings the library knows under another name (both are accepted).
_INIT_ALIASES = {"k-means++": "kmeans++"}
_KERNEL_ALIASES = {"poly": "polynomial"}

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

    def __init__(self, verbose=0):
        self.requested = False
        self._installed = False
        self._verbose = verbose
        self._start = time.perf_counter()
        self._stage = None
        self._seen = {}
        self._printed = 0.0
        self.callback = _native.PROGRESS_FN(self._progress)

    def _progress(self, stage, fraction, user_data):
        if self._verbose:
            try:
                self._report(stage.decode(errors="replace") if stage else "?", fraction)
            except Exception:  # noqa: BLE001 - a broken stderr must not cancel the fit
                pass
        return 1 if self.requested else 0

    def _report(self, stage, fraction):
        """verbose >= 1: one line per stage as it starts (stages repeat per restart) and one at
        the end; verbose >= 2: also the running stage's progress, at most once a second."""
        now = time.perf_counter() - self._start
        if stage == "done":
            line = f"done in {now:.2f} s"
        elif stage != self._stage:
            self._seen[stage] = self._seen.get(stage, 0) + 1
            line = stage if self._seen[stage] == 1 else f"{stage} #{self._seen[stage]}"
        elif self._verbose >= 2 and now - self._printed >= 1.0:
            line = f"{stage} {100 * fraction:.0f}%"
        else:
            return
        self._stage, self._printed = stage, now
        print(f"[KernelKMeans] {now:8.2f} s  {line}", file=sys.stderr, flush=True)

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


def _same_params(a, b):
    """Whether two get_params() dicts hold the same values (arrays compared by content)."""
    if a is None or a.keys() != b.keys():
        return False
    for key, va in a.items():
        vb = b[key]
        if va is vb:
            continue
        try:
            if isinstance(va, np.ndarray) or isinstance(vb, np.ndarray):
                if not np.array_equal(va, vb):
                    return False
            elif va != vb:
                return False
        except Exception:  # noqa: BLE001 - values that cannot be compared count as changed
            return False
    return True


class KernelKMeans(ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin, BaseEstimator):
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
        "poly" (scikit-learn's spelling) is "polynomial".
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
        component is too small to be a cluster. With graph="anchor": each row's nearest
        anchors ("auto": 3).
    graph : {"auto", "exact", "nndescent", "anchor"}, default="auto"
        Graph kernels on points: how the graph is built ("exact": every distance;
        "nndescent": NN-descent; "anchor": each row to its nearest of ``anchors`` k-means
        anchors, one pass over the rows, a model without the training rows; kernel="knn"
        cuts it through heat_rank eigenpairs); "auto": anchor above 20000 rows for
        kernel="heat" and above 60000 for kernel="knn", else exact when 2 n² d <= 5e10,
        else nndescent).
    anchors : int or "auto", default="auto"
        graph="anchor": the anchors p; "auto" is min(n, max(1000, 10 n_clusters)).
    heat_t : float, default=80.0
        kernel="heat": the time t of exp(-t L).
    heat_rank : int or "auto", default="auto"
        kernel="heat": eigenpairs kept (``feature_dim_``); "auto" is max(2 n_clusters, 20)
        (kernel="knn" with graph="anchor": max(5 n_clusters, 50)), one more per connected
        component.
    heat_normalize : bool or {"true", "false"}, default=True
        kernel="heat": scale each row's features to unit length.
    gamma : float, "auto" or "search", default="auto"
        Kernel scale; ``gamma_`` reports the value the fit used.
    m : int or "auto", default="auto"
        Landmarks / features of the approximate methods.
    n_init : int or "auto", default="auto"
        Restarts; "auto" is 10 up to 10000 rows (and always for the graph kernels, but 3 on graph="anchor"), 1 beyond
        and for method="minibatch" with the other kernels (each of its restarts repeats the fit).
    max_iter : int, default=100
    tol : float, default=1e-4
    init : {"kmeans++", "k-means++", "random"} or array-like, default="kmeans++"
        How the first restart starts. "kmeans++" (scikit-learn's spelling "k-means++" is the
        same) seeds greedy k-means++ in the kernel's feature space; "random" takes k distinct
        random rows. An array starts restart 0 from a partition you give:

        - shape (n_clusters, n_features): initial centres in input space; each row starts in
          the cluster of the nearest centre in the kernel's feature space (for rbf and
          laplacian the nearest centre in input space). Not with kernel="precomputed".
        - shape (n_samples,), integers in [0, n_clusters): initial labels of the rows of X;
          fitting with a fit's own labels reproduces that fit.

        With an array, n_init="auto" runs that one start only (as scikit-learn's KMeans); an
        explicit n_init > 1 adds n_init - 1 k-means++ restarts and keeps the lowest
        objective. Not with gamma="search", n_clusters="auto", method="minibatch" or the
        graph kernels knn and heat (a ValueError at fit).
    random_state : int, RandomState instance or None, default=None
        An int is the library's ``seed`` itself (the same fit as the C API or the command
        line with that seed); None or a RandomState draws a seed.
    threads : int, default=0
        Threads of a fit or an assignment; 0 = all cores.
    n_jobs : int or None, default=None
        scikit-learn's name for ``threads``: None leaves ``threads`` in charge; a positive
        number is the thread count, -1 all cores (``threads=0``), -2 all but one, and so on
        (joblib's convention). Giving both n_jobs and a non-zero ``threads`` that differ is
        an error.
    verbose : int, default=0
        0: silent; 1: a line on stderr as each stage of a fit starts (``gamma``,
        ``landmarks``, ``kernel+eigen``, ``features``, ``seeding``, ``lloyd`` ... once per
        restart) and when it ends, with the seconds elapsed; 2: also the running stage's
        progress, about once a second. Through the library's progress callback.
    k_min, k_max, search_criterion, search_size, bandwidth_scale, degree, coef0, nystrom_rcond,
    rank, reg_rank, sampling, rls_lambda, sketch, solver, refine, batch_size, tau, epsilon,
    learning_rate, isa, kernel_rows, max_memory_mb :
        The library's parameters of the same names (``rank=None`` is the library's ``none``).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,), int32
        Each training row's nearest centre, what ``predict`` gives it (as KMeans' labels_; for
        nystrom with rank or features of half kernel rows, up to their rounding at near-ties). A fit stopped by tol or max_iter
        keeps the centres its last step measured (the means of the labels before it); at a
        fixed point (tol=0) they are the means of labels_. refine="hartigan": the centres are
        the means of labels_.
    inertia_ : float
        The fit's objective: the weighted sum of squared kernel-space distances of the training
        rows to their centres (feature-space ones for sketch and rff), ``-score(X)``; for
        kernel="knn" each row weighted by its degree in the neighbour graph (the normalized
        cut's weighted kernel k-means), so not ``-score(X)`` there.
    cluster_centers_ : ndarray of shape (n_clusters_, feature_dim_), float32
        The centres in the feature space of ``feature_map`` (nystrom, sketch, rff,
        kernel="heat"): each training row's label is its nearest centre there. Absent
        (AttributeError saying why) for method="exact", "minibatch" and kernel="knn", whose
        centres are weighted sums of training rows in a feature space without coordinates;
        ``transform`` and ``distances`` give every method's distances to its centres.
    n_iter_ : int
        Lloyd iterations of the best restart.
    cluster_sizes_ : ndarray of shape (n_clusters_,)
        Rows per cluster (int64) after a fit without sample weights; the sum of the weights of
        each cluster's rows (float64) after a fit with them.
    n_clusters_ : int
    gamma_ : float
        The kernel scale the fit used (0 for kernels without one).
    feature_dim_ : int
        Width of ``feature_map``'s output (0 for method="exact", "minibatch" and kernel="knn",
        which have no feature map; the kept eigenpairs for kernel="heat").
    search_ : list of (gamma, k, score, criterion)
        What gamma="search" / n_clusters="auto" scored (empty otherwise).
    n_features_in_ : int
        Columns of X; after a fit on a graph (scipy.sparse X), its n_samples nodes.
    feature_names_in_ : ndarray of str (only when X has feature names)

    See Also
    --------
    fastkkm.matr_scorer : a label-free score of a fitted clustering that, unlike ``score``,
        compares fits with different gammas and kernels (for GridSearchCV).

    Notes
    -----
    ``transform`` is scikit-learn's KMeans.transform: each row's distance to every centre
    (the square roots of ``distances``), for every method. The explicit feature map of the
    approximate methods, on which k-means runs, is ``feature_map``.

    float32 and float64 input in C order reaches the library without a copy; any other input
    is converted once (to float32, or float64 when it is already float64). ``feature_map``
    works in float32 (float64 input is converted). The GIL is released during fit, predict and
    transform; Ctrl-C cancels a running fit on the main thread (KeyboardInterrupt). A fitted
    estimator may predict / transform / score from several threads at once; ``fit`` builds a
    new model and swaps it in when done. Pickling stores the library's model buffer.

    A fit on a graph (kernel="knn" or "heat", X a scipy.sparse affinity matrix) places new
    nodes by their affinity rows: predict, distances, score, transform and feature_map take X of shape
    (n, n_samples of the fit), dense or scipy.sparse (any format; sparse rows go to the
    library as dense float32 blocks of at most 4096 rows), each row a new node's weights
    (>= 0, one positive at least) to the training nodes. A row equal to a training node's row
    of the affinity matrix is that node and gets its label.

    Examples
    --------
    Two concentric circles, which k-means with the Euclidean distance cuts in halves:

    >>> from sklearn.datasets import make_circles
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from fastkkm import KernelKMeans
    >>> X, y = make_circles(n_samples=400, factor=0.4, noise=0.05, random_state=0)
    >>> km = KernelKMeans(n_clusters=2, method="exact", gamma=5.0, n_init=10,
    ...                   random_state=0).fit(X)
    >>> round(adjusted_rand_score(y, km.labels_), 2)
    1.0
    >>> inner, outer = km.predict([[0.0, 0.4], [0.0, 1.0]])   # new points, one per circle
    >>> inner != outer
    True
    >>> km.transform(X[:3]).shape            # distances to the 2 centres
    (3, 2)
    >>> km.cluster_sizes_.tolist()
    [200, 200]
    """

    def __init__(self, n_clusters=8, *, method="auto", kernel="rbf", gamma="auto", m="auto",
                 n_init="auto", max_iter=100, tol=1e-4, init="kmeans++", random_state=None, threads=0,
                 n_jobs=None, verbose=0,
                 k_min=2, k_max=10, search_criterion="matr", search_size=1000, bandwidth_scale=0.4,
                 degree=3, coef0=1.0, n_neighbors="auto", graph="auto", anchors="auto", heat_t=80.0, heat_rank="auto",
                 heat_normalize=True, nystrom_rcond=1e-6, rank=None, reg_rank="auto",
                 sampling="uniform", rls_lambda="auto", sketch="subgaussian", solver="lloyd",
                 refine="none", batch_size=1024, tau=200, epsilon=1e-3, learning_rate="beta",
                 isa="auto", kernel_rows="auto", max_memory_mb="auto"):
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
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.k_min = k_min
        self.k_max = k_max
        self.search_criterion = search_criterion
        self.search_size = search_size
        self.bandwidth_scale = bandwidth_scale
        self.degree = degree
        self.coef0 = coef0
        self.n_neighbors = n_neighbors
        self.graph = graph
        self.anchors = anchors
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

    def _new_model(self, n_samples, n_features):
        """A model with every parameter set (scikit-learn's spellings translated) and, when
        init is an array, its starting partition; n_samples and n_features are the fit's."""
        init = self._init_array(n_samples, n_features)
        model = _native.Model()
        for name, key in _KEYS.items():
            value = getattr(self, name)
            if name == "random_state":
                text = str(_seed(value))
            elif name == "threads" and self.n_jobs is not None:
                name, value = "n_jobs", self.n_jobs
                text = str(self._threads_of_n_jobs())
            elif name == "init" and init is not None:
                text = "kmeans++"  # the seeding of restarts 1 .. n_init-1
            elif name == "n_init" and init is not None and isinstance(value, str) and value == "auto":
                text = "1"  # scikit-learn's rule: an explicit start is the only one
            else:
                if isinstance(value, str):
                    value_text = {"init": _INIT_ALIASES, "kernel": _KERNEL_ALIASES}.get(name, {}).get(value, value)
                else:
                    value_text = value
                text = _text(name, value_text)
            try:
                model.set_param(key, text)
            except ValueError as e:
                also = {"init": " (also scikit-learn's 'k-means++', or an array of initial centres or labels)",
                        "kernel": " (also scikit-learn's 'poly' for polynomial)"}.get(name, "")
                raise ValueError(f"{name}={value!r}: {e}{also}") from None
        if init is not None:
            (model.set_init_labels if init.ndim == 1 else model.set_init_centres)(init)
        return model

    def _threads_of_n_jobs(self):
        """n_jobs as the library's threads: -1 is 0 (all cores), -2 all but one, ..."""
        n_jobs, threads = self.n_jobs, self.threads
        if (not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, (bool, np.bool_)) or n_jobs == 0):
            raise ValueError(f"n_jobs={n_jobs!r}: expected a positive number of threads, -1 for all cores, -2 for "
                             "all but one ..., or None (threads decides)")
        if threads != 0 and threads != n_jobs:
            raise ValueError(f"n_jobs={n_jobs!r} and threads={threads!r}: both set the number of threads; give one")
        if n_jobs > 0:
            return int(n_jobs)
        if n_jobs == -1:
            return 0
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return max(1, cores + 1 + int(n_jobs))

    def _verbosity(self):
        v = self.verbose
        if isinstance(v, (bool, np.bool_)):
            return int(v)
        if not isinstance(v, numbers.Integral) or v < 0:
            raise ValueError(f"verbose={v!r}: expected an integer >= 0 (0 silent, 1 stages, 2 progress)")
        return int(v)

    def _init_array(self, n_samples, n_features):
        """init as the library's starting partition: None for a seeding by name, else int32
        labels (n_samples,) or float32 centres (n_clusters, n_features), C-contiguous."""
        init = self.init
        if isinstance(init, str):
            return None
        if init is None or callable(init) or isinstance(init, (numbers.Number, bytes)):
            raise ValueError(f"init={init!r}: expected 'kmeans++', 'k-means++', 'random', an array of initial "
                             "centres (n_clusters, n_features) or an array of initial labels (n_samples,)")
        try:
            a = np.asarray(init)
        except Exception as e:  # noqa: BLE001
            raise ValueError(f"init: cannot read it as an array: {e}") from None
        k = self.n_clusters if isinstance(self.n_clusters, numbers.Integral) else None
        if a.ndim == 1:
            if a.shape[0] != n_samples:
                raise ValueError(f"init: an array of initial labels has one label per sample (n_samples="
                                 f"{n_samples}), got {a.shape[0]}")
            if a.dtype.kind not in "iuf" or a.dtype.kind == "f" and not np.all(np.isfinite(a) & (a == np.round(a))):
                raise ValueError(f"init: initial labels must be integers, got dtype {a.dtype}"
                                 + (" with non-integer values" if a.dtype.kind == "f" else ""))
            if a.size:
                hi = k if k is not None else np.iinfo(np.int32).max
                bad = (a < 0) | (a >= hi)
                if bad.any():
                    i = int(np.argmax(bad))
                    raise ValueError(f"init: initial label {a[i]!r} of sample {i} is not in [0, "
                                     f"{'n_clusters=' + str(k) if k is not None else hi})")
            return np.ascontiguousarray(a, dtype=np.int32)
        if a.ndim == 2:
            if a.dtype.kind not in "biuf":
                raise ValueError(f"init: initial centres must be real numbers, got dtype {a.dtype}")
            if k is not None and a.shape != (k, n_features):
                raise ValueError(f"init: an array of initial centres has shape (n_clusters, n_features) = "
                                 f"({k}, {n_features}), got {a.shape}")
            return np.ascontiguousarray(a, dtype=np.float32)
        raise ValueError(f"init: an array of initial centres has shape (n_clusters, n_features), one of initial "
                         f"labels shape (n_samples,); got shape {a.shape}")

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

    def _fitted(self, model, graph, weighted, stream=False):
        """Swaps in a fitted model and reads its results (stream: partial_fit's, whose labels
        are the last batch's and cluster sizes what each centre received over the stream)."""
        self._model = model
        self._graph_fit = graph
        self._fitted_params = self.get_params(deep=False)
        self.labels_ = model.labels()
        self.inertia_ = model.objective()
        self.n_iter_ = model.iterations()
        self.n_clusters_ = model.k()
        # Without weights, counts (as KMeans would report them); with weights, their sums.
        if stream:
            sizes = model.cluster_sizes()
            self.cluster_sizes_ = sizes if weighted else np.rint(sizes).astype(np.int64)
        else:
            self.cluster_sizes_ = (model.cluster_sizes() if weighted
                                   else np.bincount(self.labels_, minlength=self.n_clusters_).astype(np.int64))
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
        model = self._new_model(n, X.shape[1])
        with _CancelOnSigint(self._verbosity()) as cancel:
            status = model.fit(X, sample_weight, cancel.callback)
        if cancel.requested:
            raise KeyboardInterrupt
        self._check_fit(status, "kkm_fit")
        return self._fitted(model, graph=False, weighted=sample_weight is not None)

    def partial_fit(self, X, y=None, sample_weight=None):
        """Clusters one batch of a stream (the library's kkm_partial_fit). Returns self.

        For the feature methods (method "nystrom", "sketch", "rff", or "auto" with a kernel
        that resolves to one) and method="minibatch" with tau > 0. The first call (or the
        first after fit with other parameters) fits its batch as fit does: the landmarks (at
        least m rows in that batch), random features, gamma="auto" and the centring come from
        it and stay. Each later call of a feature method moves the centres by Sculley's
        mini-batch update in that feature space (each centre the running mean of every sample
        assigned to it), as MiniBatchKMeans.partial_fit does in input space. Each later call
        of method="minibatch" runs min(max_iter, ceil(n / batch_size)) more truncated
        mini-batch iterations (one pass over the batch in expectation, no early stopping) from
        the model's centres, drawing from the batch's samples; the model keeps copies of at
        most n_clusters * (tau + batch_size) samples. A partial_fit after fit goes on from the
        fitted centres.

        Afterwards labels_ and inertia_ are the batch's (assigned after the update),
        cluster_sizes_ the weight each centre has received over the stream, n_iter_ the
        first fit's iterations plus one per later batch (minibatch: plus the iterations each
        ran). predict labels any samples with the current centres. X may be an np.memmap: a
        C-contiguous float32 one is not copied.
        """
        previous = getattr(self, "_model", None)
        # A stream goes on only under the parameters it was fitted with (set_params starts anew).
        first = (previous is None or getattr(self, "_graph_fit", False)
                 or not _same_params(getattr(self, "_fitted_params", None), self.get_params(deep=False)))
        X = self._check_X(X, reset=first)
        n, d = X.shape
        if first:
            self._check_n_clusters(n)
            if not isinstance(self.init, str):
                raise ValueError("partial_fit does not start from an init array (it seeds its first batch); "
                                 "use init='k-means++' or 'random'")
            model = self._new_model(n, d)
        else:
            model = previous
        X = np.ascontiguousarray(X, dtype=np.float32)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float32)
        with _CancelOnSigint(self._verbosity()) as cancel:
            status = model.partial_fit(X, sample_weight, cancel.callback)
        if cancel.requested:
            raise KeyboardInterrupt
        self._check_fit(status, "kkm_partial_fit")
        return self._fitted(model, graph=False, weighted=sample_weight is not None, stream=True)

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
        if not isinstance(self.init, str):
            raise ValueError(f"init: an init array (a starting partition) cannot be used with kernel={self.kernel} "
                             "(a graph fit seeds on its heat coordinates); pass init='kmeans++' or 'random'")
        A = self._validate_data(A, reset=True, accept_sparse="csr", dtype=None, force_all_finite=False)
        _check_real(A)
        self._check_n_clusters(A.shape[0])
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()  # sorts each row's columns too
        indptr = np.ascontiguousarray(A.indptr, dtype=np.int64)
        indices = np.ascontiguousarray(A.indices, dtype=np.int64)
        values = np.ascontiguousarray(A.data, dtype=np.float32)
        model = self._new_model(A.shape[0], A.shape[1])
        with _CancelOnSigint(self._verbosity()) as cancel:
            status = model.fit_graph(indptr, indices, values, cancel.callback)
        if cancel.requested:
            raise KeyboardInterrupt
        self._check_fit(status, "kkm_fit_graph")
        return self._fitted(model, graph=True, weighted=False)

    def _check_fit(self, status, what):
        """_native.check, with the library's refusal of a starting partition in init's words."""
        try:
            _native.check(status, what)
        except ValueError as e:
            text = str(e)
            if isinstance(self.init, str) or "starting partition" not in text:
                raise
            text = (text.replace("a starting partition (kkm_set_init_labels / kkm_set_init_centres)",
                                 "an init array (a starting partition)")
                    .replace("clear it (NULL)", "pass init='kmeans++' or 'random'"))
            raise ValueError(f"init: {text}") from None

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
        """Distance of each row of X to every fitted centre, (n_samples, n_clusters_), as
        scikit-learn's KMeans.transform: the square roots of ``distances(X)`` (kernel-space
        distances for exact, minibatch, nystrom and the graph kernels, feature-space ones for
        sketch and rff), in X's dtype (float32 for scipy.sparse affinity rows). Every method has
        it; with kernel="precomputed" only sketch and rff (the others need k(x, x)). Each row's
        first minimum is at predict's label. The feature map itself is ``feature_map``.
        X as for predict."""
        D = self.distances(X)
        return np.sqrt(np.maximum(D, 0, out=D), out=D)

    def fit_transform(self, X, y=None, sample_weight=None):
        """fit(X, sample_weight=sample_weight).transform(X): the training rows' distances to
        the fitted centres."""
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def feature_map(self, X):
        """The fitted explicit feature map of X, (n_samples, feature_dim_) float32: k-means on
        these features is what the fit solved, and ``cluster_centers_`` are its centres there.
        Only methods and kernels with a feature map have one: nystrom, sketch, rff, and
        kernel="heat" (whose features have unit length by default); method="exact",
        "minibatch" and kernel="knn" raise a ValueError. X as for predict."""
        check_is_fitted(self)
        _, blocks = self._blocks(X)
        if self.feature_dim_ == 0:
            if self._model.get_param("kernel") == "knn":
                raise ValueError("feature_map: kernel='knn' has no explicit feature map (its kernel is a sparse matrix "
                                 "over the training graph); transform and distances give each row's distance to "
                                 "every centre, and kernel='heat' has features")
            raise ValueError(f"feature_map: method={self._model.get_param('method')!r} has no explicit feature map "
                             "(nystrom, sketch, rff and kernel='heat' have one); transform and distances give each "
                             "row's distance to every centre")
        return self._join([self._model.transform(np.ascontiguousarray(block, dtype=np.float32), self.feature_dim_)
                           for block in blocks])

    def distances(self, X):
        """Squared distance of each row of X to every fitted centre, (n_samples, n_clusters_),
        in X's dtype (the library computes in float32; float32 for scipy.sparse affinity rows):
        kernel-space distances for exact, minibatch and nystrom, feature-space ones for sketch
        and rff, as the fit measures inertia_. Each row's first minimum is at predict's label,
        and its value is that row's term of -score; ``transform`` is its square root. Defined
        for every method; with kernel="precomputed" only sketch and rff have it (the others
        need k(x, x)). X as for predict."""
        check_is_fitted(self)
        _, blocks = self._blocks(X)
        return self._join([self._model.distances(block) for block in blocks])

    def score(self, X, y=None, sample_weight=None):
        """Minus the k-means objective of X under the fitted centres, as KMeans.score:
        -sum_i w_i * (squared distance of row i to its nearest centre), the distances of
        ``distances`` (kernel space for exact, minibatch and nystrom, feature space for sketch
        and rff). Higher is better for the same kernel, and it is what the fit minimised.

        It is NOT comparable across kernels, gammas or methods: each kernel measures distances
        in its own feature space (an rbf kernel's squared distances lie in [0, 2] and shrink as
        gamma does), so GridSearchCV with this score always picks the smallest gamma, however
        poor its clusters. To choose gamma or the kernel, score with ``fastkkm.matr_scorer``
        (label-free, comparable across gammas and kernels) or use gamma="search". X as for
        predict."""
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

    @property
    def cluster_centers_(self):
        """The fitted centres in the feature space of ``feature_map``, (n_clusters_,
        feature_dim_) float32 (kkm_get_centres): nystrom, sketch, rff and kernel="heat". Exact,
        minibatch and kernel="knn" have no explicit centres (AttributeError)."""
        check_is_fitted(self)
        kernel, method = self._model.get_param("kernel"), self._model.get_param("method")
        if self.feature_dim_ == 0:
            what = f"kernel={kernel!r}" if kernel == "knn" else f"method={method!r}"
            raise AttributeError(f"cluster_centers_: a fit with {what} has no explicit centres (they are weighted "
                                 "sums of training rows in the kernel's feature space); transform(X) and "
                                 "distances(X) give each row's distance to every centre, and method='nystrom', "
                                 "'sketch', 'rff' and kernel='heat' have cluster_centers_")
        try:
            return self._model.centres(self.n_clusters_, self.feature_dim_)
        except ValueError as e:
            raise AttributeError(f"cluster_centers_: {e}") from None

    @property
    def _n_features_out(self):
        """Columns of transform (get_feature_names_out: kernelkmeans0 .. kernelkmeans{k-1})."""
        return self.n_clusters_

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
            # transform (distances) returns X's dtype.
            "preserves_dtype": [np.float64, np.float32],
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
