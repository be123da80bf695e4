"""transform (KMeans's: distances to the centres, every method), feature_map (the explicit
feature map of nystrom, sketch, rff, heat), fit_transform, get_feature_names_out and
set_output (issue 27, item 4)."""
import numpy as np
import pytest
from scipy import sparse
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from fastkkm import KernelKMeans

from conftest import rings

RING_PARAMS = dict(n_clusters=2, kernel="rbf", gamma="auto", bandwidth_scale=0.4, n_init=5, random_state=1)
METHODS = ["exact", "minibatch", "nystrom", "sketch", "rff"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transform_is_the_distance_to_every_centre(ring_data, method, dtype):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method=method, m=100).fit(X)
    fresh = rings(per_ring=100, seed=11)[0].astype(dtype)
    T = km.transform(fresh)
    assert T.shape == (fresh.shape[0], 2) and T.dtype == dtype
    np.testing.assert_allclose(T**2, km.distances(fresh), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(np.argmin(T, axis=1), km.predict(fresh))
    # the training rows' nearest centre is their label
    np.testing.assert_array_equal(np.argmin(km.transform(X), axis=1), km.labels_)


def test_transform_of_exact_and_nystrom_is_the_kernel_space_distance():
    """A linear kernel's feature space is the input space: transform is then the Euclidean
    distance to the cluster means, as KMeans.transform (nystrom with m = n reproduces it)."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.5, (60, 3)) for c in (0.0, 4.0, 8.0)])
    for method in ("exact", "nystrom"):
        km = KernelKMeans(n_clusters=3, method=method, m=X.shape[0], kernel="linear", n_init=3,
                          random_state=1).fit(X)
        means = np.array([X[km.labels_ == j].mean(axis=0) for j in range(3)])
        fresh = rng.normal(4.0, 4.0, (50, 3))
        expected = np.sqrt(((fresh[:, None, :] - means[None]) ** 2).sum(axis=2))
        np.testing.assert_allclose(km.transform(fresh), expected, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("method", ["exact", "nystrom"])
def test_fit_transform_is_fit_then_transform(ring_data, method):
    X, _ = ring_data
    w = np.linspace(0.5, 2.0, X.shape[0])
    a = KernelKMeans(**RING_PARAMS, method=method, m=100).fit_transform(X, sample_weight=w)
    km = KernelKMeans(**RING_PARAMS, method=method, m=100).fit(X, sample_weight=w)
    np.testing.assert_array_equal(a, km.transform(X))
    assert a.shape == (X.shape[0], 2)


def test_a_pipeline_ending_in_exact_kernel_kmeans_transforms(ring_data):
    X, _ = ring_data
    pipe = make_pipeline(StandardScaler(), KernelKMeans(**RING_PARAMS, method="exact")).fit(X)
    assert pipe.transform(X).shape == (X.shape[0], 2)


@pytest.mark.parametrize("method", ["nystrom", "sketch", "rff"])
def test_feature_map_has_feature_dim_columns(ring_data, method):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method=method, m=100).fit(X)
    F = km.feature_map(X.astype(np.float64))
    assert F.shape == (X.shape[0], km.feature_dim_) and F.dtype == np.float32 and km.feature_dim_ > 2


@pytest.mark.parametrize("method", ["exact", "minibatch"])
def test_methods_without_a_feature_map_say_so(ring_data, method):
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method=method).fit(X)
    with pytest.raises(ValueError, match=rf"feature_map: method='{method}' has no explicit feature map \(nystrom, "
                                         r"sketch, rff and kernel='heat' have one\); transform and distances"):
        km.feature_map(X)


def test_graph_fit_transforms_affinity_rows():
    A = sparse.block_diag([np.ones((s, s)) - np.eye(s) for s in (20, 30)], format="csr")
    for kernel in ("knn", "heat"):
        km = KernelKMeans(n_clusters=2, kernel=kernel, random_state=0).fit(A)
        T = km.transform(A)
        assert T.shape == (50, 2) and T.dtype == np.float32
        np.testing.assert_array_equal(np.argmin(T, axis=1), km.labels_)


def test_feature_names_out_are_kmeans_style(ring_data):
    X, _ = ring_data
    km = KernelKMeans(**dict(RING_PARAMS, n_clusters=3), method="exact").fit(X)
    assert km.get_feature_names_out().tolist() == ["kernelkmeans0", "kernelkmeans1", "kernelkmeans2"]
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        KernelKMeans().get_feature_names_out()


def test_set_output_pandas(ring_data):
    pd = pytest.importorskip("pandas")
    X, _ = ring_data
    frame = pd.DataFrame(X, columns=["a", "b"])
    km = KernelKMeans(**RING_PARAMS, method="exact").set_output(transform="pandas").fit(frame)
    out = km.transform(frame)
    assert isinstance(out, pd.DataFrame)
    assert out.columns.tolist() == ["kernelkmeans0", "kernelkmeans1"]
    np.testing.assert_allclose(out.to_numpy(), km.set_output(transform="default").transform(X))


def test_set_output_wraps_transform(ring_data):
    """Without pandas installed (Debian's test machine): scikit-learn's wrapping is configured for
    transform and fit_transform, which needs get_feature_names_out."""
    from sklearn.utils._set_output import _auto_wrap_is_configured
    X, _ = ring_data
    km = KernelKMeans(**RING_PARAMS, method="exact").fit(X)
    assert _auto_wrap_is_configured(km)
    assert {"transform"} == KernelKMeans._sklearn_auto_wrap_output_keys
    assert hasattr(KernelKMeans.fit_transform, "__wrapped__") and hasattr(KernelKMeans.transform, "__wrapped__")
