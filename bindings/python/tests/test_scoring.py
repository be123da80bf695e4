"""score() (minus the objective, not comparable across gammas or kernels) and the label-free
matr_scorer that is (issue 27, item 3): the library's own MATR, GridSearchCV over gamma on
circles, kernels compared, subsampling, refusals."""
import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import make_circles
from sklearn.metrics import adjusted_rand_score
from sklearn.model_selection import GridSearchCV

import fastkkm
from fastkkm import KernelKMeans, make_matr_scorer, matr_score, matr_scorer

GAMMAS = [0.1, 1.0, 5.0, 20.0]


@pytest.fixture(scope="module")
def circles():
    return make_circles(600, factor=0.4, noise=0.05, random_state=0)


def _blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.3, (100, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    return X, np.repeat([0, 1, 2], 100)


def test_score_docstring_says_what_it_is_and_is_not():
    doc = " ".join(KernelKMeans.score.__doc__.split())
    assert "Minus the k-means objective" in doc
    assert "NOT comparable across kernels, gammas or methods" in doc
    assert "fastkkm.matr_scorer" in doc


def test_matr_is_the_librarys_search_criterion():
    """gamma=search (search_criterion=matr) scores each gamma by MATR on its subsample (here all
    300 rows); where its fit finds the three blobs, its score is matr_score of the blobs' labels:
    the same reference kernel (kNN scale, 10% quantile) and the same trace."""
    X, y = _blobs()
    km = KernelKMeans(n_clusters=3, method="exact", gamma="search", random_state=0).fit(X)
    scores = [score for _, k, score, criterion in km.search_ if criterion == "matr"]
    assert len(scores) > 5
    assert max(scores) == pytest.approx(matr_score(X, y), rel=1e-5)
    assert adjusted_rand_score(y, km.labels_) == 1.0


def test_matr_counts_kept_neighbours():
    """Higher for the partition that keeps neighbours together; label names do not matter; one
    point per cluster keeps all of S's diagonal (s); one cluster less than that."""
    X, y = _blobs()
    true = matr_score(X, y)
    assert matr_score(X, (y + 1) % 3 * 10) == pytest.approx(true, rel=1e-12)
    by_x = np.digitize(X[:, 0], np.quantile(X[:, 0], [1 / 3, 2 / 3]))  # three vertical slabs
    assert matr_score(X, by_x) < 0.9 * true
    assert matr_score(X, np.arange(X.shape[0])) == pytest.approx(X.shape[0])
    assert matr_score(X, np.zeros(X.shape[0])) < true < X.shape[0]


def test_grid_search_over_gamma_picks_a_separating_gamma_with_matr(circles):
    """The issue's experiment: score() picks the smallest gamma, whose fit cuts both circles in
    half; matr_scorer picks one whose fit separates them."""
    X, y = circles
    est = KernelKMeans(n_clusters=2, method="exact", n_init=20, random_state=0)
    plain = GridSearchCV(est, {"gamma": GAMMAS}, cv=3).fit(X)
    assert plain.best_params_["gamma"] == min(GAMMAS)
    assert adjusted_rand_score(y, plain.best_estimator_.labels_) < 0.1
    matr = GridSearchCV(est, {"gamma": GAMMAS}, scoring=matr_scorer, cv=3).fit(X)
    assert adjusted_rand_score(y, matr.best_estimator_.labels_) >= 0.95, matr.cv_results_["mean_test_score"]
    assert matr.best_params_["gamma"] != min(GAMMAS)
    # every fold ranks the separating gamma first
    separating = matr.best_index_
    for split in range(3):
        fold = matr.cv_results_[f"split{split}_test_score"]
        assert np.argmax(fold) == separating, fold


def test_matr_compares_kernels_and_methods(circles):
    X, y = circles
    rbf = KernelKMeans(n_clusters=2, method="exact", gamma=5.0, n_init=20, random_state=0).fit(X)
    linear = KernelKMeans(n_clusters=2, method="exact", kernel="linear", n_init=5, random_state=0).fit(X)
    laplacian = KernelKMeans(n_clusters=2, method="exact", kernel="laplacian", gamma=0.5, n_init=5,
                             random_state=0).fit(X)
    assert adjusted_rand_score(y, rbf.labels_) >= 0.95 and adjusted_rand_score(y, linear.labels_) < 0.1
    assert matr_scorer(rbf, X) > 1.03 * max(matr_scorer(linear, X), matr_scorer(laplacian, X))
    search = GridSearchCV(KernelKMeans(n_clusters=2, method="exact", n_init=20, random_state=0),
                          [{"kernel": ["linear"]}, {"kernel": ["laplacian"], "gamma": [0.5]},
                           {"kernel": ["rbf"], "gamma": [5.0]}], scoring=matr_scorer, cv=3).fit(X)
    assert search.best_params_ == {"kernel": "rbf", "gamma": 5.0}


def test_scorer_subsamples_the_same_rows(circles):
    X, _ = circles
    km = KernelKMeans(n_clusters=2, method="exact", gamma=5.0, n_init=5, random_state=0).fit(X)
    small = make_matr_scorer(max_samples=100, random_state=3)
    assert small(km, X) == matr_score(X, km.predict(X), max_samples=100, random_state=3)
    assert small(km, X) == small(km, X) and small(km, X) < 100  # at most s
    assert matr_scorer(km, X) == matr_score(X, km.predict(X))  # 600 rows <= 1000: all of them
    assert make_matr_scorer(max_samples=None)(km, X) == matr_scorer(km, X)
    assert matr_scorer(km, X.tolist()) == pytest.approx(matr_scorer(km, X))


def test_scorer_refuses_kernel_rows_and_graphs(circles):
    X, _ = circles
    K = np.exp(-5.0 * ((X[:, None, :] - X[None]) ** 2).sum(axis=2))
    km = KernelKMeans(n_clusters=2, method="exact", kernel="precomputed", random_state=0).fit(K)
    with pytest.raises(ValueError, match="kernel='precomputed': X holds kernel values, not points"):
        matr_scorer(km, K)
    A = sparse.block_diag([np.ones((5, 5)) - np.eye(5)] * 2, format="csr")
    graph = KernelKMeans(n_clusters=2, kernel="knn", random_state=0).fit(A)
    with pytest.raises(TypeError, match="scipy.sparse"):
        matr_scorer(graph, A)
    with pytest.raises(ValueError, match=r"labels has shape \(3,\), expected \(600,\)"):
        matr_score(X, [0, 1, 0])


def test_exports():
    assert {"matr_scorer", "make_matr_scorer", "matr_score"} <= set(fastkkm.__all__)
    assert "GridSearchCV" in fastkkm.matr_scorer.__doc__
