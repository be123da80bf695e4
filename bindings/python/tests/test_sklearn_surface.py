"""scikit-learn's spellings and parameters (issue 27, item 5): init="k-means++", kernel="poly",
init= an array of centres or labels (kkm_set_init_centres / kkm_set_init_labels), n_jobs,
verbose, cluster_centers_ (kkm_get_centres), integer cluster_sizes_, and the class docstring's
Examples section run as a doctest."""
import doctest

import numpy as np
import pytest
from scipy import sparse
from sklearn.base import clone
from sklearn.datasets import make_circles
from sklearn.metrics import adjusted_rand_score

import fastkkm
from fastkkm import KernelKMeans

RING_PARAMS = dict(n_clusters=2, kernel="rbf", gamma="auto", bandwidth_scale=0.4, n_init=5, random_state=1)
CENTRES = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])


def _blobs(per=100, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, 0.3, (per, 2)) for c in CENTRES])
    return X, np.repeat([0, 1, 2], per)


def _needs(name):
    return pytest.mark.skipif(name in fastkkm._native.MISSING,
                              reason=f"{fastkkm._native.library_path()} predates {name}")


# ---------------------------------------------------------------- spellings

def test_k_means_plus_plus_is_kmeans_plus_plus(ring_data):
    X, _ = ring_data
    a = KernelKMeans(**RING_PARAMS, method="exact", init="k-means++").fit(X)
    b = KernelKMeans(**RING_PARAMS, method="exact", init="kmeans++").fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.inertia_ == b.inertia_ and a.resolved_params()["init"] == "kmeans++"
    assert a.get_params()["init"] == "k-means++"  # stored as given


def test_poly_is_polynomial():
    X, _ = _blobs()
    params = dict(n_clusters=3, method="exact", gamma=0.5, degree=2, random_state=0)
    a = KernelKMeans(kernel="poly", **params).fit(X)
    b = KernelKMeans(kernel="polynomial", **params).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.resolved_params()["kernel"] == "polynomial"


@pytest.mark.parametrize("params, message", [
    (dict(init="kmeans+"), r"init='kmeans\+'.*kmeans\+\+\|random \(also scikit-learn's 'k-means\+\+', or an array"),
    (dict(kernel="pol"), r"kernel='pol'.*\(also scikit-learn's 'poly' for polynomial\)"),
    (dict(init=None), r"init=None: expected 'kmeans\+\+', 'k-means\+\+', 'random', an array"),
])
def test_bad_spellings_name_the_alternatives(params, message):
    X, _ = _blobs()
    with pytest.raises(ValueError, match=message):
        KernelKMeans(n_clusters=3, **params).fit(X)


# ---------------------------------------------------------------- n_jobs

@pytest.mark.parametrize("n_jobs, threads", [(1, "1"), (2, "2"), (-1, "0"), (None, "0")])
def test_n_jobs_is_threads(n_jobs, threads):
    X, _ = _blobs()
    km = KernelKMeans(n_clusters=3, method="exact", n_jobs=n_jobs, random_state=0).fit(X)
    assert km.resolved_params()["threads"] == threads


def test_n_jobs_counts_from_the_cores_and_does_not_change_the_fit():
    import os
    X, _ = _blobs()
    cores = len(os.sched_getaffinity(0))
    km = KernelKMeans(n_clusters=3, method="nystrom", m=50, n_jobs=-2, random_state=0).fit(X)
    assert km.resolved_params()["threads"] == str(max(1, cores - 1))
    one = KernelKMeans(n_clusters=3, method="nystrom", m=50, n_jobs=1, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, one.labels_)
    assert KernelKMeans(n_clusters=3, threads=3, random_state=0).fit(X).resolved_params()["threads"] == "3"
    assert KernelKMeans(n_clusters=3, threads=3, n_jobs=3).fit(X).resolved_params()["threads"] == "3"


@pytest.mark.parametrize("params, message", [
    (dict(n_jobs=0), r"n_jobs=0: expected a positive number of threads, -1 for all cores"),
    (dict(n_jobs=1.5), r"n_jobs=1.5: expected"),
    (dict(n_jobs=2, threads=3), r"n_jobs=2 and threads=3: both set the number of threads; give one"),
    (dict(n_jobs=5000), r"n_jobs=5000: .*\[0, 1024\]"),
])
def test_bad_n_jobs_are_errors(params, message):
    X, _ = _blobs()
    with pytest.raises(ValueError, match=message):
        KernelKMeans(n_clusters=3, **params).fit(X)


# ---------------------------------------------------------------- verbose

def test_verbose_prints_the_stages(capsys):
    X, _ = _blobs()
    KernelKMeans(n_clusters=3, method="nystrom", m=50, n_init=2, verbose=1, random_state=0).fit(X)
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert lines and all(line.startswith("[KernelKMeans] ") for line in lines), err
    stages = [line.split("s  ", 1)[1] for line in lines]
    for stage in ("landmarks", "kernel+eigen", "features", "seeding", "lloyd", "seeding #2", "lloyd #2"):
        assert stage in stages, err
    assert stages[-1].startswith("done in ")
    KernelKMeans(n_clusters=3, method="nystrom", m=50, random_state=0).fit(X)
    assert capsys.readouterr().err == ""  # verbose=0: silent


def test_verbose_two_and_bad_values(capsys):
    X, _ = _blobs()
    KernelKMeans(n_clusters=3, method="exact", verbose=2, random_state=0).fit(X)
    assert "done in" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"verbose=-1: expected an integer >= 0"):
        KernelKMeans(n_clusters=3, verbose=-1).fit(X)


# ---------------------------------------------------------------- cluster_sizes_

def test_cluster_sizes_are_counts_without_weights_and_sums_with():
    X, y = _blobs()
    km = KernelKMeans(n_clusters=3, method="exact", random_state=0).fit(X)
    assert km.cluster_sizes_.dtype == np.int64
    np.testing.assert_array_equal(km.cluster_sizes_, np.bincount(km.labels_, minlength=3))
    assert sorted(km.cluster_sizes_.tolist()) == [100, 100, 100]
    w = np.linspace(0.5, 2.0, X.shape[0])
    kw = KernelKMeans(n_clusters=3, method="exact", random_state=0).fit(X, sample_weight=w)
    assert kw.cluster_sizes_.dtype == np.float64
    np.testing.assert_allclose(kw.cluster_sizes_, np.bincount(kw.labels_, weights=w, minlength=3), rtol=1e-6)
    A = sparse.block_diag([np.ones((s, s)) - np.eye(s) for s in (20, 30)], format="csr")
    graph = KernelKMeans(n_clusters=2, kernel="knn", random_state=0).fit(A)
    assert graph.cluster_sizes_.dtype == np.int64 and sorted(graph.cluster_sizes_.tolist()) == [20, 30]


# ---------------------------------------------------------------- cluster_centers_

@_needs("kkm_get_centres")
@pytest.mark.parametrize("method", ["nystrom", "sketch", "rff"])
def test_cluster_centers_are_the_feature_space_centres(ring_data, method):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method=method, m=200).fit(X)
    C = km.cluster_centers_
    assert C.shape == (2, km.feature_dim_) and C.dtype == np.float32
    F = km.feature_map(X)
    D = ((F[:, None, :].astype(np.float64) - C[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(np.argmin(D, axis=1), km.labels_)  # the fit's labels: nearest centre
    if method != "nystrom":  # sketch and rff measure distances in this feature space
        np.testing.assert_allclose(D, km.distances(X), rtol=1e-3, atol=1e-4)
    # the centres are the means of their clusters' features (Lloyd's fixed point; float32 sums)
    means = np.array([F[km.labels_ == j].mean(axis=0) for j in range(2)])
    np.testing.assert_allclose(C, means, atol=2e-3)
    assert np.abs(means[0] - means[1]).max() > 0.05  # far apart, next to that tolerance


@_needs("kkm_get_centres")
def test_heat_has_cluster_centers():
    X, y = make_circles(400, factor=0.4, noise=0.05, random_state=0)
    km = KernelKMeans(n_clusters=2, kernel="heat", random_state=0).fit(X)
    C = km.cluster_centers_
    assert C.shape == (2, km.feature_dim_)
    F = km.feature_map(X)
    D = ((F[:, None, :].astype(np.float64) - C[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(np.argmin(D, axis=1), km.labels_)


@pytest.mark.parametrize("params, what", [(dict(method="exact"), "method='exact'"),
                                          (dict(method="minibatch"), "method='minibatch'"),
                                          (dict(kernel="knn"), "kernel='knn'")])
def test_no_cluster_centers_without_explicit_centres(ring_data, params, what):
    X, _ = ring_data
    km = KernelKMeans(**{**RING_PARAMS, **params}).fit(X)
    with pytest.raises(AttributeError, match=rf"cluster_centers_: a fit with {what} has no explicit centres"):
        km.cluster_centers_
    assert not hasattr(km, "cluster_centers_")
    assert not hasattr(KernelKMeans(), "cluster_centers_")  # unfitted: NotFittedError, an AttributeError


# ---------------------------------------------------------------- init= an array

@_needs("kkm_set_init_centres")
def test_init_centres_decide_which_cluster_is_which():
    """Blob j's rows start in the cluster of the centre nearest blob j, so the order of the
    given centres is the order of the labels (a k-means++ seeding numbers them arbitrarily)."""
    X, y = _blobs()
    for order in ([0, 1, 2], [2, 0, 1], [1, 2, 0]):
        init = CENTRES[order] + 0.5
        km = KernelKMeans(n_clusters=3, method="exact", gamma=0.5, init=init, random_state=0).fit(X)
        np.testing.assert_array_equal(km.labels_, np.argsort(order)[y])
        assert km.resolved_params()["n_init"] == "1"  # an explicit start is the only one


@_needs("kkm_set_init_labels")
def test_init_labels_reproduce_a_fit():
    """Starting from a fit's own labels is starting at its fixed point: the same partition and
    objective (one Lloyd step that moves nothing)."""
    X, _ = make_circles(400, factor=0.4, noise=0.05, random_state=0)
    params = dict(n_clusters=2, method="exact", gamma=5.0, random_state=0)
    first = KernelKMeans(n_init=10, **params).fit(X)
    again = KernelKMeans(init=first.labels_, **params).fit(X)
    np.testing.assert_array_equal(again.labels_, first.labels_)
    assert again.inertia_ == pytest.approx(first.inertia_, rel=1e-6)
    assert again.n_iter_ <= 2


@_needs("kkm_set_init_labels")
def test_init_labels_keep_a_partition_the_seeding_misses():
    """Circles at gamma=5: single k-means++ starts often end cutting both circles in half; a
    start from the true circles stays there. With n_init=5 the given start competes with four
    seedings and the lowest objective wins."""
    X, y = make_circles(400, factor=0.4, noise=0.05, random_state=0)
    params = dict(n_clusters=2, method="exact", gamma=5.0)
    seeded = [adjusted_rand_score(y, KernelKMeans(n_init=1, random_state=s, **params).fit(X).labels_)
              for s in range(6)]
    assert min(seeded) < 0.5  # the seeding alone can miss the circles
    given = KernelKMeans(init=y, random_state=0, **params).fit(X)
    assert adjusted_rand_score(y, given.labels_) == 1.0
    more = KernelKMeans(init=y, n_init=5, random_state=0, **params).fit(X)
    assert more.resolved_params()["n_init"] == "5" and more.inertia_ <= given.inertia_ * (1 + 1e-6)
    floats = KernelKMeans(init=y.astype(float).tolist(), random_state=0, **params).fit(X)
    np.testing.assert_array_equal(floats.labels_, given.labels_)


@_needs("kkm_set_init_labels")
@pytest.mark.parametrize("kernel", ["knn", "heat"])
def test_graph_kernels_refuse_init_arrays(kernel):
    """The graph kernels seed on their heat coordinates; an array start is refused, on points
    and on a graph, in init's words."""
    A = sparse.block_diag([np.ones((s, s)) - np.eye(s) for s in (20, 30, 25)], format="csr")
    y = np.repeat([2, 0, 1], [20, 30, 25])
    with pytest.raises(ValueError, match=rf"init: .*an init array \(a starting partition\) cannot be used with "
                                         rf"kernel={kernel} .*; pass init='kmeans\+\+' or 'random'"):
        KernelKMeans(n_clusters=3, kernel=kernel, init=y, random_state=0).fit(A)
    X, y = _blobs()
    with pytest.raises(ValueError, match=rf"init: .*kernel={kernel}"):
        KernelKMeans(n_clusters=3, kernel=kernel, init=y, random_state=0).fit(X)


def test_an_init_array_clones_and_pickles():
    import pickle
    X, y = _blobs()
    km = KernelKMeans(n_clusters=3, init=y)
    assert clone(km).get_params()["init"] is not y and np.array_equal(clone(km).init, y)
    assert np.array_equal(pickle.loads(pickle.dumps(km)).init, y)


@pytest.mark.parametrize("init, message", [
    (np.zeros(10, dtype=int), r"init: an array of initial labels has one label per sample \(n_samples=300\), got 10"),
    (np.full(300, 3), r"init: initial label 3 of sample 0 is not in \[0, n_clusters=3\)"),
    (np.r_[np.zeros(299), 0.5], r"init: initial labels must be integers, got dtype float64 with non-integer"),
    (np.array(["a"] * 300), r"init: initial labels must be integers, got dtype <U1"),
    (np.zeros((2, 2)), r"init: an array of initial centres has shape \(n_clusters, n_features\) = \(3, 2\), "
                       r"got \(2, 2\)"),
    (np.zeros((3, 2, 1)), r"init: .* got shape \(3, 2, 1\)"),
])
def test_bad_init_arrays_are_errors(init, message):
    X, _ = _blobs()
    with pytest.raises(ValueError, match=message):
        KernelKMeans(n_clusters=3, init=init).fit(X)


@_needs("kkm_set_init_centres")
@pytest.mark.parametrize("params, why", [(dict(gamma="search"), "gamma=search or k=auto"),
                                         (dict(method="minibatch"), "method=minibatch"),
                                         (dict(n_clusters="auto"), "gamma=search or k=auto")])
def test_the_library_refuses_init_arrays_where_it_cannot_use_them(params, why):
    X, y = _blobs()
    for init in (y, CENTRES):
        with pytest.raises(ValueError, match=rf"^init: kkm_fit: invalid argument: an init array \(a starting "
                                             rf"partition\) cannot be used with {why}"):
            KernelKMeans(**{"n_clusters": 3, "init": init, **params}).fit(X)
    with pytest.raises(ValueError, match=r"init: .*kernel=precomputed"):
        K = np.exp(-((X[:, None] - X[None]) ** 2).sum(axis=2))
        KernelKMeans(n_clusters=3, kernel="precomputed", init=np.ones((3, K.shape[0]))).fit(K)


@_needs("kkm_set_init_centres")
def test_nan_centres_name_the_row():
    X, _ = _blobs()
    bad = CENTRES.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="row 1"):
        KernelKMeans(n_clusters=3, init=bad).fit(X)


# ---------------------------------------------------------------- the docstring

def test_the_class_docstring_example_runs():
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(KernelKMeans, "KernelKMeans", globs={})
    assert tests and tests[0].examples
    for test in tests:
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 5 and result.failed == 0, result
