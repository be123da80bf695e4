"""fastkkm.KernelKMeans: clustering quality, predict/pickle round trips, parameters, errors,
zero-copy input, Ctrl-C cancellation, the graph kernels and scikit-learn's check_estimator.
The scikit-learn surface of issue 27 has its own files: test_transform.py (transform,
feature_map, feature names), test_scoring.py (score, matr_scorer), test_sklearn_surface.py
(init arrays and spellings, n_jobs, verbose, cluster_centers_, cluster_sizes_, the docstring's
example) and test_install.py (the build backend's message, scripts/install-python.sh)."""
import inspect
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import check_estimator

import fastkkm
from fastkkm import KernelKMeans
from fastkkm._estimator import _KEYS

from conftest import rings

RING_PARAMS = dict(n_clusters=2, kernel="rbf", gamma="auto", bandwidth_scale=0.4, n_init=5, random_state=1)


@pytest.mark.parametrize("params", [dict(method="exact"), dict(method="nystrom", m=200),
                                    dict(method="sketch", m=200), dict(method="rff", m=2000)])
def test_rings_are_separated(ring_data, params):
    X, y = ring_data
    km = KernelKMeans(**RING_PARAMS, **params).fit(X)
    assert adjusted_rand_score(y, km.labels_) >= 0.95, params
    assert km.labels_.shape == (X.shape[0],)
    assert km.n_clusters_ == 2 and km.n_features_in_ == 2
    assert km.cluster_sizes_.sum() == pytest.approx(X.shape[0])
    assert km.inertia_ > 0 and km.n_iter_ >= 1
    # β = 0.4 of the bandwidth rule: γ = 1 / (2 β² σ²), σ² the mean pairwise squared distance
    sigma2 = 2 * (np.mean(np.sum(X**2, axis=1)) - np.sum(X.mean(axis=0) ** 2))
    assert km.gamma_ == pytest.approx(1 / (2 * 0.16 * sigma2), rel=1e-4)


def test_wide_bandwidth_fails_on_rings(ring_data):
    """The quality threshold can fail: the default β = 1 cannot separate the rings."""
    X, y = ring_data
    km = KernelKMeans(**dict(RING_PARAMS, bandwidth_scale=1.0), method="exact").fit(X)
    assert adjusted_rand_score(y, km.labels_) < 0.95


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_predict_on_training_data_equals_labels(ring_data, dtype):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method="nystrom", m=100).fit(X.astype(dtype))
    assert km.predict(X.astype(dtype)).dtype == np.int32
    np.testing.assert_array_equal(km.predict(X.astype(dtype)), km.labels_)
    np.testing.assert_array_equal(km.fit_predict(X.astype(dtype)), km.labels_)


@pytest.mark.parametrize("method", ["exact", "nystrom", "sketch", "rff"])
def test_a_fit_stopped_by_tol_labels_by_its_centres(method):
    """Uniform points: Lloyd still moves a few rows when tol stops it. As KMeans, labels_ are
    then each row's nearest centre (predict's), and inertia_ is -score(X)."""
    X = np.random.default_rng(5).random((3000, 2))
    km = KernelKMeans(n_clusters=9, method=method, gamma=2.0, n_init=1, random_state=1,
                      kernel_rows="f32").fit(X)
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-4)


def test_new_points_go_to_their_ring(ring_data):
    X, y = ring_data
    km = KernelKMeans(**RING_PARAMS, method="exact").fit(X)
    fresh, fresh_y = rings(per_ring=100, seed=99)
    assert adjusted_rand_score(fresh_y, km.predict(fresh)) >= 0.95


def test_score_is_the_negative_objective(ring_data):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method="nystrom", m=100).fit(X)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-4)
    w = np.linspace(0.5, 2, X.shape[0])
    assert km.score(X, sample_weight=w) == pytest.approx(
        -np.dot(w, -np.array([km.score(X[i:i + 1]) for i in range(X.shape[0])])), rel=1e-4)


def test_precomputed_kernel(ring_data):
    X, y = ring_data
    sq = (X**2).sum(axis=1)
    K = np.exp(-0.4 * (sq[:, None] + sq[None, :] - 2 * X @ X.T))
    km = KernelKMeans(n_clusters=2, method="exact", kernel="precomputed", n_init=5, random_state=1).fit(K)
    assert adjusted_rand_score(y, km.labels_) >= 0.95
    np.testing.assert_array_equal(km.predict(K[:50]), km.labels_[:50])
    with pytest.raises(ValueError, match="kernel='precomputed' and method='exact'"):
        km.score(K[:50])
    mb = KernelKMeans(n_clusters=2, method="minibatch", kernel="precomputed", batch_size=64, random_state=1).fit(K)
    with pytest.raises(ValueError, match="kernel='precomputed' and method='minibatch'"):
        mb.score(K[:50])


def test_sample_weight_moves_the_fit(ring_data):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method="exact").fit(X, sample_weight=np.full(X.shape[0], 2.0))
    plain = KernelKMeans(**RING_PARAMS, method="exact").fit(X)
    np.testing.assert_array_equal(km.labels_, plain.labels_)
    assert km.inertia_ == pytest.approx(2 * plain.inertia_, rel=1e-6)
    assert km.cluster_sizes_.sum() == pytest.approx(2 * X.shape[0])


@pytest.mark.parametrize("method", ["exact", "nystrom", "sketch", "rff", "minibatch"])
def test_pickle_round_trip_predicts_identically(ring_data, method):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method=method, m=300).fit(X)
    copy = pickle.loads(pickle.dumps(km))
    fresh, _ = rings(per_ring=200, seed=5)
    np.testing.assert_array_equal(copy.predict(fresh), km.predict(fresh))
    np.testing.assert_array_equal(copy.labels_, km.labels_)
    assert copy.get_params() == km.get_params()
    np.testing.assert_array_equal(copy.transform(fresh), km.transform(fresh))
    if km.feature_dim_:
        np.testing.assert_array_equal(copy.feature_map(fresh), km.feature_map(fresh))
        # a loaded nystrom model recomputes its centres (H K_LL P): equal to float32 rounding
        np.testing.assert_allclose(copy.cluster_centers_, km.cluster_centers_, rtol=1e-4, atol=1e-5)
    assert b"KMEANS" in pickle.dumps(km)  # the model travels as the library's buffer


def test_pickle_of_an_unfitted_estimator():
    copy = pickle.loads(pickle.dumps(KernelKMeans(n_clusters=3, method="exact")))
    assert copy.get_params()["n_clusters"] == 3 and not hasattr(copy, "labels_")


def test_feature_map_is_what_kmeans_ran_on(ring_data):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method="nystrom", m=100).fit(X)
    F = km.feature_map(X)
    assert F.shape == (X.shape[0], km.feature_dim_) and F.dtype == np.float32
    # k-means on the features is what the fit solved: labels are nearest feature centroids
    centroids = np.array([F[km.labels_ == j].mean(axis=0) for j in range(2)])
    nearest = np.argmin(((F[:, None, :] - centroids[None]) ** 2).sum(axis=2), axis=1)
    assert np.mean(nearest == km.labels_) > 0.99
    exact = KernelKMeans(**RING_PARAMS, method="exact").fit(X)
    with pytest.raises(ValueError, match="feature_map: method='exact' has no explicit feature map.*transform"):
        exact.feature_map(X)


@pytest.mark.parametrize("method", ["exact", "minibatch", "nystrom", "sketch", "rff"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_distances_to_every_centre(ring_data, method, dtype):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method=method, m=100).fit(X)
    fresh = rings(per_ring=100, seed=11)[0].astype(dtype)
    D = km.distances(fresh)
    assert D.shape == (fresh.shape[0], km.n_clusters_) and D.dtype == dtype
    assert (D >= 0).all()
    # The first minimum of each row is predict's label, and its value the row's term of -score.
    np.testing.assert_array_equal(np.argmin(D, axis=1), km.predict(fresh))
    assert -D.min(axis=1).sum(dtype=np.float64) == km.score(fresh)


def test_distances_with_a_linear_kernel_are_euclidean():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.5, (60, 3)) for c in (0.0, 4.0, 8.0)])
    km = KernelKMeans(n_clusters=3, method="exact", kernel="linear", n_init=3, random_state=1).fit(X)
    means = np.array([X[km.labels_ == j].mean(axis=0) for j in range(3)])
    fresh = rng.normal(4.0, 4.0, (50, 3))
    expected = ((fresh[:, None, :] - means[None]) ** 2).sum(axis=2)
    np.testing.assert_allclose(km.distances(fresh), expected, rtol=1e-4, atol=1e-3)


def test_distances_need_k_x_x_with_a_precomputed_kernel(ring_data):
    X, _ = ring_data
    sq = (X**2).sum(axis=1)
    K = np.exp(-0.4 * (sq[:, None] + sq[None, :] - 2 * X @ X.T))
    km = KernelKMeans(n_clusters=2, method="exact", kernel="precomputed", random_state=1).fit(K)
    with pytest.raises(ValueError, match="kernel=precomputed"):
        km.distances(K[:10])


def test_get_and_set_params():
    km = KernelKMeans(n_clusters=3, method="exact", gamma=0.5)
    params = km.get_params()
    assert params["n_clusters"] == 3 and params["method"] == "exact" and params["gamma"] == 0.5
    assert set(params) == set(_KEYS) | {"n_jobs", "verbose"}  # the library's table and two of scikit-learn's
    assert km.set_params(n_clusters=4, kernel="laplacian") is km
    assert km.n_clusters == 4 and km.kernel == "laplacian"
    assert clone(km).get_params() == km.get_params()
    with pytest.raises(ValueError, match="Invalid parameter 'colour'"):
        km.set_params(colour="red")
    with pytest.raises(TypeError, match="colour"):
        KernelKMeans(colour="red")


def test_defaults_are_the_librarys():
    """Every library parameter is a constructor argument whose default is the library's."""
    signature = inspect.signature(KernelKMeans.__init__).parameters
    info = {p["name"]: p for p in fastkkm.param_info()}
    assert set(info) == set(_KEYS.values())
    assert info["k"]["aliases"] == ["n_clusters", "centers"]  # kkm_param_aliases
    assert info["tol"]["aliases"] == []
    for name, key in _KEYS.items():
        default = signature[name].default
        if name == "random_state":
            assert default is None  # sklearn's convention: a fresh seed per fit
            continue
        want = info[key]["default"]
        if default is None:
            assert want == "none", name
        elif isinstance(default, bool):
            assert ("true" if default else "false") == want, name
        elif isinstance(default, str):
            assert default == want, name
        else:
            assert float(default) == float(want), name


def test_random_state(ring_data):
    X, _ = ring_data
    params = dict(n_clusters=5, method="nystrom", m=50)
    a = KernelKMeans(**params, random_state=3).fit(X)
    b = KernelKMeans(**params, random_state=3).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.resolved_params()["seed"] == "3"  # an int is the library's seed itself
    c = KernelKMeans(**params, random_state=np.random.RandomState(0)).fit(X)
    d = KernelKMeans(**params, random_state=np.random.RandomState(0)).fit(X)
    np.testing.assert_array_equal(c.labels_, d.labels_)
    seeds = {KernelKMeans(**params).fit(X).resolved_params()["seed"] for _ in range(3)}
    assert len(seeds) > 1  # None: a new seed each fit


def test_nan_is_an_error_naming_row_and_column(ring_data):
    X, _ = ring_data
    bad = X.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match=r"row 7, column 1.*NaN"):
        KernelKMeans(**RING_PARAMS).fit(bad)
    km = KernelKMeans(**RING_PARAMS, method="nystrom", m=50).fit(X)
    bad[7, 1] = np.inf
    with pytest.raises(ValueError, match=r"row 7, column 1"):
        km.predict(bad)


def test_wrong_shapes_are_errors(ring_data):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method="nystrom", m=50).fit(X)
    with pytest.raises(ValueError, match="3 features, but KernelKMeans is expecting 2"):
        km.predict(np.ones((4, 3)))
    with pytest.raises(ValueError, match="Expected 2D array"):
        km.fit(np.ones(10))
    with pytest.raises(ValueError, match="n_samples=3 should be >= n_clusters=8"):
        KernelKMeans().fit(np.random.rand(3, 2))
    with pytest.raises(ValueError, match="sample_weight"):
        KernelKMeans(n_clusters=2).fit(X, sample_weight=np.ones(5))
    with pytest.raises(ValueError, match=r"weights\[3\]"):
        w = np.ones(X.shape[0])
        w[3] = -1
        KernelKMeans(n_clusters=2).fit(X, sample_weight=w)


@pytest.mark.parametrize("params, message", [
    (dict(method="exactly"), r"method='exactly'.*exact\|nystrom"),
    (dict(n_clusters=0), r"n_clusters=0.*\[1, 2147483647\]"),
    (dict(gamma=-1.0), r"gamma=-1.0.*\(0, inf\)"),
    (dict(tol=1.5), r"tol=1.5"),
    (dict(kernel="gaussian"), r"kernel='gaussian'"),
    (dict(n_init=True), r"n_init=True: expected a number or a string"),
    (dict(m=[3]), r"m=\[3\]: expected a number or a string"),
])
def test_bad_parameter_values_are_errors_naming_them(ring_data, params, message):
    X, _ = ring_data
    with pytest.raises(ValueError, match=message):
        KernelKMeans(**dict(dict(n_clusters=2), **params)).fit(X)


def test_memory_budget_is_a_runtime_error():
    X = np.random.default_rng(0).normal(size=(100000, 20)).astype(np.float32)
    with pytest.raises(RuntimeError, match="needs an estimated .* MiB .* max_memory_mb=1") as caught:
        KernelKMeans(n_clusters=2, method="exact", max_memory_mb=1).fit(X)
    assert isinstance(caught.value, MemoryError) and isinstance(caught.value, fastkkm.MemoryBudgetError)


def test_unfitted_estimator_raises():
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        KernelKMeans().predict(np.ones((2, 2)))


def _python_bytes_during(fn):
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_c_order_float_input_is_not_copied(dtype):
    """numpy reports its buffers to tracemalloc: a fit or predict of C-order float32/float64
    allocates far less than X in Python (no converted copy), a Fortran-order X one copy."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20000, 64)).astype(dtype)
    km = KernelKMeans(n_clusters=3, method="nystrom", m=20, max_iter=2, random_state=0)
    assert _python_bytes_during(lambda: km.fit(X)) < X.nbytes / 4
    assert _python_bytes_during(lambda: km.predict(X)) < X.nbytes / 4
    assert _python_bytes_during(lambda: km.fit(np.asfortranarray(X))) >= X.nbytes


def test_ctrl_c_cancels_a_running_fit():
    """SIGINT from a timer thread while a large exact fit runs: KeyboardInterrupt within a
    second or so, the estimator keeps its previous fit, and Python's handler is restored."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(12000, 20)).astype(np.float32)
    small = rng.normal(size=(50, 20)).astype(np.float32)
    # exact, K not stored (64 MiB): about 2 s per restart on 2 cores, so 50 restarts run for
    # minutes unless cancelled
    km = KernelKMeans(n_clusters=3, method="exact", n_init=50, max_iter=1000, tol=0, max_memory_mb=64,
                      random_state=0).fit(small)
    labels_before = km.labels_.copy()
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            km.fit(X)
    finally:
        timer.cancel()
    elapsed = time.perf_counter() - start
    assert elapsed < 4, elapsed
    np.testing.assert_array_equal(km.labels_, labels_before)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_fit_releases_the_gil():
    """A Python thread keeps running while the main thread is inside kkm_fit."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(8000, 20)).astype(np.float32)
    ticks = []
    stop = threading.Event()

    def tick():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    # A fit long enough to tell (>= 0.3 s): more restarts until it is, whatever the machine.
    for n_init in (2, 8, 32, 128):
        km = KernelKMeans(n_clusters=3, method="exact", n_init=n_init, max_memory_mb=64, random_state=0)
        ticks.clear()
        stop.clear()
        thread = threading.Thread(target=tick)
        thread.start()
        start = time.perf_counter()
        try:
            km.fit(X)
        finally:
            stop.set()
            thread.join()
        end = time.perf_counter()
        if end - start >= 0.3:
            break
    during = [t for t in ticks if start < t < end]
    assert end - start >= 0.3, end - start
    assert len(during) >= 0.2 * (end - start) / 0.005, (len(during), end - start)


def test_version_is_the_projects():
    root = Path(os.environ.get("KKMEANS_SOURCE_ROOT", Path(__file__).resolve().parents[3]))
    import re
    want = re.search(r"version\s*:\s*'([^']+)'", (root / "meson.build").read_text()).group(1)
    assert fastkkm.__version__ == want


def test_example_runs():
    root = Path(os.environ.get("KKMEANS_SOURCE_ROOT", Path(__file__).resolve().parents[3]))
    out = subprocess.run([sys.executable, str(root / "examples" / "python" / "example.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "kernel k-means (exact)" in out.stdout


# ---------------------------------------------------------------- graph kernels (knn, heat)

GRAPH_KERNELS = ["knn", "heat"]


def _cliques(sizes, fmt="csr"):
    """Disconnected cliques (every pair inside one clique an edge of weight 1, no self-loops)
    and each node's clique."""
    A = sparse.block_diag([np.ones((s, s)) - np.eye(s) for s in sizes], format=fmt)
    return A, np.repeat(np.arange(len(sizes)), sizes)


def _symmetric_integers(half=150, seed=0, spread=300):
    """Integer points and their negations (tests/test_api_graph.cpp symmetric_integers): the
    mean is exactly 0, so the library's float32 neighbour search on centred rows computes
    every squared distance exactly (all below 2^24). The spread leaves no ties between a
    row's 10th and 11th neighbours (checked by the test), so the neighbour sets of
    scikit-learn and of the library are the same whatever their tie-breaking."""
    rng = np.random.default_rng(seed)
    pts = np.column_stack([rng.integers(-spread, spread + 1, half)
                           + np.where(np.arange(half) % 2 == 0, 2 * spread, -2 * spread),
                           rng.integers(-spread, spread + 1, half)])
    return np.vstack([pts, -pts]).astype(np.float64)


def _ties_at(X, q):
    """Rows whose q-th and (q+1)-th nearest other rows are at the same distance."""
    D = ((X[:, None, :] - X[None]) ** 2).sum(axis=2)
    np.fill_diagonal(D, np.inf)
    nearest = np.sort(D, axis=1)
    return int((nearest[:, q - 1] == nearest[:, q]).sum())


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
@pytest.mark.parametrize("fmt", ["csr", "coo", "csc", "lil"])
def test_disconnected_cliques_separate_exactly(kernel, fmt):
    A, y = _cliques([20, 30, 25], fmt)
    km = KernelKMeans(n_clusters=3, kernel=kernel, random_state=0).fit(A)
    assert adjusted_rand_score(y, km.labels_) == 1.0
    assert km.n_features_in_ == 75 and km.labels_.shape == (75,)
    assert km.resolved_params()["method"] == "exact"
    np.testing.assert_array_equal(km.cluster_sizes_ > 0, [True] * 3)


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
def test_a_graph_fit_is_the_same_in_any_layout(kernel):
    """The same graph with each row's columns reversed and one weight split into two
    duplicates (a CSR that is not canonical), as COO, CSC, a sparse array, with float32 or
    int32 weights: the same fit. The caller's matrix is left as it was."""
    A, _ = _cliques([15, 25])
    A = A.tocsr()
    A[0, 1] = A[1, 0] = 0.25
    ref = KernelKMeans(n_clusters=2, kernel=kernel, random_state=4).fit(A)
    indptr, indices, data = [0], [], []
    for i in range(A.shape[0]):
        cols = list(A.indices[A.indptr[i]:A.indptr[i + 1]][::-1])
        vals = list(A.data[A.indptr[i]:A.indptr[i + 1]][::-1])
        if i == 5:  # A[5, 6] = 1 as 0.5 + 0.5
            vals[cols.index(6)] = 0.5
            cols.append(6)
            vals.append(0.5)
        indices += cols
        data += vals
        indptr.append(len(indices))
    messy = sparse.csr_matrix((np.array(data), np.array(indices, dtype=np.int32), np.array(indptr, dtype=np.int32)),
                              shape=A.shape)
    assert not messy.has_canonical_format
    before = [a.copy() for a in (messy.indptr, messy.indices, messy.data)]
    for X in (messy, A.tocoo(), A.tocsc(), sparse.csr_array(A), A.astype(np.float32)):
        km = KernelKMeans(n_clusters=2, kernel=kernel, random_state=4).fit(X)
        np.testing.assert_array_equal(km.labels_, ref.labels_)
        assert km.inertia_ == ref.inertia_
    for array, kept in zip((messy.indptr, messy.indices, messy.data), before):
        np.testing.assert_array_equal(array, kept)
    unweighted, _ = _cliques([15, 25])
    ints = KernelKMeans(n_clusters=2, kernel=kernel, random_state=4).fit(unweighted.astype(np.int32))
    floats = KernelKMeans(n_clusters=2, kernel=kernel, random_state=4).fit(unweighted)
    np.testing.assert_array_equal(ints.labels_, floats.labels_)
    assert ints.inertia_ == floats.inertia_


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
def test_scikit_learn_knn_graph_fits_as_the_points(kernel):
    """kkm_fit_graph on scikit-learn's symmetrised 10-NN graph (weights 1 and 0.5) gives the
    fit kkm_fit computes from the points with graph=exact, neighbors=10."""
    from sklearn.neighbors import kneighbors_graph
    X = _symmetric_integers()
    assert X.mean(axis=0).tolist() == [0.0, 0.0]
    assert _ties_at(X, 10) == 0  # else the two searches may pick different 10th neighbours
    B = kneighbors_graph(X, 10, include_self=False)
    A = 0.5 * (B + B.T)
    params = dict(n_clusters=3, kernel=kernel, random_state=2)
    points = KernelKMeans(**params, graph="exact", n_neighbors=10).fit(X)
    graph = KernelKMeans(**params).fit(A)
    np.testing.assert_array_equal(graph.labels_, points.labels_)
    assert graph.inertia_ == points.inertia_
    assert len(set(graph.labels_)) == 3
    assert graph.n_features_in_ == X.shape[0] and points.n_features_in_ == 2


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
def test_graph_predict_takes_affinity_rows(kernel, monkeypatch):
    A, _ = _cliques([20, 30, 25])
    km = KernelKMeans(n_clusters=3, kernel=kernel, random_state=0).fit(A)
    dense = A.toarray()
    for X in (A, A.tocoo(), dense, dense.astype(np.float32)):
        np.testing.assert_array_equal(km.predict(X), km.labels_)
    D = km.distances(A)
    assert D.shape == (75, 3) and D.dtype == np.float32
    np.testing.assert_array_equal(np.argmin(D, axis=1), km.labels_)
    np.testing.assert_array_equal(km.distances(dense.astype(np.float32)), D)
    assert km.score(A) == pytest.approx(-D.min(axis=1).sum(dtype=np.float64), rel=1e-6)
    # a new node tied to three nodes of the third clique joins it
    row = np.zeros((1, 75))
    row[0, [50, 60, 70]] = 1
    assert km.predict(row)[0] == km.labels_[50] == km.predict(sparse.csr_matrix(row))[0]
    # sparse rows go to the library in blocks: any block size gives the same outputs, and an
    # error names the row of X, not of its block
    monkeypatch.setattr(fastkkm._estimator, "_BLOCK_ROWS", 7)
    np.testing.assert_array_equal(km.predict(A), km.labels_)
    np.testing.assert_array_equal(km.distances(A), D)
    assert km.score(A) == pytest.approx(-D.min(axis=1).sum(dtype=np.float64), rel=1e-6)
    bad = A.tolil()
    bad[23, 4] = -2.0
    with pytest.raises(ValueError, match=r"X: row 23, column 4 holds -2; affinities .* >= 0"):
        km.predict(bad)
    with pytest.raises(ValueError, match=r"X: row 23, column 4 holds -2; affinities .* >= 0"):
        km.predict(bad.toarray())  # the library's own check, one block
    bad[23, 4] = np.nan
    with pytest.raises(ValueError, match=r"X: row 23, column 4 holds nan"):
        km.predict(bad)
    empty = A.tolil()
    empty[40, :] = 0
    with pytest.raises(ValueError, match=r"X: row 40 has no positive affinity"):
        km.predict(empty.tocsr())
    with pytest.raises(ValueError, match=r"X: row 40 has no positive affinity"):
        km.predict(empty.toarray())
    # a graph fit's predict takes n_train columns; points are refused by their width
    with pytest.raises(ValueError, match="2 features, but KernelKMeans is expecting 75"):
        km.predict(np.ones((4, 2)))
    with pytest.raises(ValueError, match="2 features, but KernelKMeans is expecting 75"):
        km.predict(sparse.csr_matrix(np.ones((4, 2))))


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
def test_pickled_graph_model_predicts_the_same(kernel):
    A, _ = _cliques([20, 30, 25])
    km = KernelKMeans(n_clusters=3, kernel=kernel, random_state=0).fit(A)
    copy = pickle.loads(pickle.dumps(km))
    np.testing.assert_array_equal(copy.labels_, km.labels_)
    np.testing.assert_array_equal(copy.predict(A), km.labels_)
    np.testing.assert_array_equal(copy.distances(A), km.distances(A))
    rows = sparse.random(30, 75, density=0.1, random_state=1, format="csr") + sparse.eye(30, 75)
    np.testing.assert_array_equal(copy.predict(rows), km.predict(rows))
    assert copy.n_features_in_ == 75


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
@pytest.mark.parametrize("shape", ["circles", "moons"])
def test_graph_kernels_need_only_the_number_of_clusters(kernel, shape):
    """Every other parameter at its default, whatever the seed: the library seeds on the
    leading k heat coordinates (seeding in all of them at once split the moons for 4 seeds of
    20)."""
    from sklearn.datasets import make_circles, make_moons
    X, y = (make_circles(1000, factor=0.4, noise=0.05, random_state=0) if shape == "circles"
            else make_moons(1000, noise=0.05, random_state=0))
    for seed in range(8):
        labels = KernelKMeans(n_clusters=2, kernel=kernel, random_state=seed).fit(X).labels_
        assert adjusted_rand_score(y, labels) >= 0.95, seed
    km = KernelKMeans(n_clusters=2, kernel=kernel, random_state=0).fit(X)
    resolved = km.resolved_params()
    assert (resolved["method"], resolved["n_init"], resolved["neighbors"]) == ("exact", "10", "10")
    assert km.n_features_in_ == 2
    np.testing.assert_array_equal(km.predict(X), km.labels_)


def test_heat_feature_map_has_unit_rows_and_knn_has_none():
    A, _ = _cliques([20, 30, 25])
    heat = KernelKMeans(n_clusters=3, kernel="heat", random_state=0).fit(A)
    F = heat.feature_map(A)
    assert heat.feature_dim_ > 0 and F.shape == (75, heat.feature_dim_) and F.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(F, axis=1), 1.0, rtol=1e-5)
    X, _ = rings(per_ring=150)
    points = KernelKMeans(n_clusters=2, kernel="heat", random_state=0).fit(X)
    np.testing.assert_allclose(np.linalg.norm(points.feature_map(X), axis=1), 1.0, rtol=1e-5)
    for fitted in (KernelKMeans(n_clusters=3, kernel="knn", random_state=0).fit(A),
                   KernelKMeans(n_clusters=2, kernel="knn", random_state=0).fit(X)):
        assert fitted.feature_dim_ == 0
        with pytest.raises(ValueError, match="kernel='knn' has no explicit feature map"):
            fitted.feature_map(A if fitted.n_features_in_ == 75 else X)


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
def test_bad_graphs_are_errors_naming_the_entry(kernel):
    A, _ = _cliques([10, 12])
    km = KernelKMeans(n_clusters=2, kernel=kernel, random_state=0)
    asymmetric = A.tolil()
    asymmetric[3, 5] = 2.0
    with pytest.raises(ValueError, match=r"not symmetric: A\[3,5\]=2 but A\[5,3\]=1"):
        km.fit(asymmetric)
    negative = A.tolil()
    negative[3, 5] = negative[5, 3] = -1.0
    with pytest.raises(ValueError, match=r"values\[\d+\]=-1 \(entry 3, 5\) is not a finite non-negative weight"):
        km.fit(negative)
    isolated = A.tolil()
    isolated[7, :] = 0
    isolated[:, 7] = 0
    with pytest.raises(ValueError, match=r"node 7 has no edge"):
        km.fit(isolated.tocsr())
    with pytest.raises(ValueError, match=r"square .* got shape \(22, 21\)"):
        km.fit(A.tocsr()[:, :21])
    with pytest.raises(ValueError, match="sample_weight: a graph fit"):
        km.fit(A, sample_weight=np.ones(22))
    with pytest.raises(ValueError, match="n_samples=22 should be >= n_clusters=30"):
        KernelKMeans(n_clusters=30, kernel=kernel).fit(A)
    assert not hasattr(km, "labels_")  # every failed fit left the estimator unfitted


@pytest.mark.parametrize("kernel", ["rbf", "precomputed", "linear"])
def test_sparse_input_needs_a_graph_kernel(kernel, ring_data):
    A, _ = _cliques([10, 12])
    with pytest.raises(TypeError, match=rf"kernel='{kernel}': .*sparse.*kernel='knn' or kernel='heat'"):
        KernelKMeans(n_clusters=2, kernel=kernel).fit(A)
    X, _ = ring_data
    km = KernelKMeans(n_clusters=2, kernel="knn", random_state=0).fit(X)
    with pytest.raises(TypeError, match="sparse"):  # a fit on points predicts points
        km.predict(sparse.csr_matrix(X))


def test_check_estimator():
    check_estimator(KernelKMeans())


@pytest.mark.parametrize("kernel", GRAPH_KERNELS)
@pytest.mark.parametrize("graph", ["exact", "anchor"])
def test_rows_whose_squared_distances_overflow_float32_are_errors_naming_the_row(kernel, graph):
    # Issue 60: such rows left -1 in the neighbour lists and the interpreter died (heap corruption).
    X, _ = rings(per_ring=100)
    X = X.astype(np.float64)
    far = X.copy()
    far[17] = [3e38, -3e38]
    km = KernelKMeans(n_clusters=2, kernel=kernel, graph=graph, anchors=40 if graph == "anchor" else "auto",
                      random_state=0)
    with pytest.raises(ValueError, match=r"row \d+ is too far from the training rows' mean.*rescale"):
        km.fit(X * 1e20)
    with pytest.raises(ValueError, match=r"row 17 is too far from the training rows' mean"):
        km.fit(far)
    km.fit(X)
    with pytest.raises(ValueError, match=r"row 1\b"):
        km.predict(np.array([X[0], [3e38, -3e38]]))
    np.testing.assert_array_equal(km.predict(X[:5]), km.labels_[:5])
