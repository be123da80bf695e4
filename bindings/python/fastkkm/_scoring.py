"""MATR, a label-free score of a clustering that compares kernels and kernel scales.

KernelKMeans.score is minus the k-means objective in the fitted kernel's own feature space,
so it cannot compare two gammas or two kernels (a smaller rbf gamma always scores higher).
MATR (Berlinski & Maitra; CRAN kkmeans::matr) scores the partition instead, under one fixed
reference kernel S built from the data alone:

    MATR = sum over clusters c of (sum_{i, j in c} S_ij) / |c|  =  tr(S Z (Z^T Z)^-1 Z^T)

with Z the rows' cluster indicators: the part of S's (local) similarity that the clusters keep
together. S is the rbf kernel exp(-g ||x_i - x_j||^2) at a local scale: g = min(1 / (2 knn),
1 / (2 q10)), knn the mean squared distance to the q-th nearest neighbour (q = round(log2 s) +
1) and q10 the 10% quantile of the pairwise squared distances, s the rows scored. This is the
criterion the library computes for gamma="search" (search_criterion="matr",
src/search/criteria.cpp), here on the labels a fitted estimator predicts.
"""

import numpy as np
from sklearn.utils import _safe_indexing, check_array

from . import _estimator


def _sample(n, max_samples, random_state):
    """At most max_samples row indices (ascending) drawn without replacement; all rows when
    n <= max_samples."""
    if max_samples is None or n <= max_samples:
        return np.arange(n)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n, size=int(max_samples), replace=False))


def _reference_kernel(X):
    """The reference kernel S of the rows of X (float64, s x s)."""
    X = X - X.mean(axis=0)  # the squared distances of centred rows cancel less in floating point
    sq = np.einsum("ij,ij->i", X, X)
    D = sq[:, None] + sq[None, :] - 2.0 * (X @ X.T)
    np.maximum(D, 0.0, out=D)
    np.fill_diagonal(D, 0.0)
    s = D.shape[0]
    q = min(s - 1, int(np.floor(np.log2(s) + 0.5)) + 1)
    knn = float(np.partition(D, q, axis=1)[:, q].mean())  # column 0 is the row itself
    upper = D[np.triu_indices(s, 1)]
    q10 = float(np.partition(upper, upper.size // 10)[upper.size // 10])
    if not knn > 0:  # more duplicates than neighbours: the mean scale stands in
        knn = float(D.mean())
    if not knn > 0:  # every row the same point: any scale gives S = 1
        return np.ones_like(D)
    gamma = min(1.0 / (2.0 * knn), 1.0 / (2.0 * max(q10, 1e-30)))
    np.multiply(D, -gamma, out=D)
    return np.exp(D, out=D)


def matr_score(X, labels, *, max_samples=1000, random_state=0):
    """MATR of the partition `labels` of the rows of X (higher is better; see the module
    docstring for the definition).

    X : array-like (n_samples, n_features)
        Points (not a kernel matrix or a graph: the reference kernel is computed from them).
    labels : array-like (n_samples,)
        Any cluster labels (any integers or other hashable values).
    max_samples : int or None, default=1000
        The score reads an s x s kernel matrix, s = min(n_samples, max_samples): larger X is
        scored on max_samples rows drawn without replacement (the same rows for the same n
        and random_state, so scores of several partitions of one X compare). None: every row.
    random_state : int or None, default=0
        Seed of that draw.

    Scores compare partitions of the same rows with the same number of clusters: any
    kernels, gammas or methods. They do not compare across numbers of clusters (MATR grows
    with k, up to s when every row is its own cluster) or across data sets.
    """
    X = check_array(X, dtype=np.float64)
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"matr_score: labels has shape {labels.shape}, expected ({X.shape[0]},): one per row of X")
    rows = _sample(X.shape[0], max_samples, random_state)
    return _matr(X[rows], labels[rows])


def _matr(X, labels):
    if X.shape[0] < 2:
        return float(X.shape[0])
    S = _reference_kernel(X)
    _, cluster = np.unique(labels, return_inverse=True)
    Z = np.zeros((X.shape[0], int(cluster.max()) + 1))
    Z[np.arange(X.shape[0]), cluster] = 1.0
    within = np.einsum("ic,ic->c", Z, S @ Z)
    return float(np.sum(within / Z.sum(axis=0)))


def make_matr_scorer(max_samples=1000, random_state=0):
    """A scorer (callable(estimator, X, y=None) -> float, higher is better) for GridSearchCV,
    cross_validate and the like: the MATR (matr_score) of the labels estimator.predict gives
    the rows of X (at most max_samples of them, drawn with random_state; y is ignored).

    Every candidate of a search is scored on the same rows, so gammas, kernels and methods
    compare; keep n_clusters fixed in the grid (MATR grows with the number of clusters). Any
    clustering estimator with predict works; X must hold points (not kernel="precomputed"
    kernel rows or a graph's affinity rows).
    """
    def matr_scorer(estimator, X, y=None):
        if _estimator._is_sparse(X):
            raise TypeError("matr_scorer: X is a scipy.sparse matrix (a graph's affinity rows?); MATR measures a "
                            "partition by the distances between points, so X must hold dense points")
        if getattr(estimator, "kernel", None) == "precomputed":
            raise ValueError("matr_scorer: kernel='precomputed': X holds kernel values, not points, and MATR "
                             "measures a partition by the distances between points; score the points instead "
                             "(fastkkm.matr_score(points, estimator.predict(K)))")
        rows = _sample(_num_rows(X), max_samples, random_state)
        subset = _safe_indexing(X, rows)
        labels = estimator.predict(subset)
        return _matr(check_array(subset, dtype=np.float64), np.asarray(labels))

    matr_scorer.__doc__ = (f"MATR of estimator.predict(X) on at most {max_samples} rows of X (random_state="
                           f"{random_state}); see fastkkm.make_matr_scorer.")
    return matr_scorer


def _num_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


matr_scorer = make_matr_scorer()
matr_scorer.__doc__ = """matr_scorer(estimator, X, y=None) -> float: MATR (fastkkm.matr_score) of the labels
estimator.predict gives at most 1000 rows of X (drawn with seed 0; y ignored); higher is
better. A label-free score that compares fits with different gammas, kernels and methods on
the same rows and the same n_clusters, unlike KernelKMeans.score:

    GridSearchCV(KernelKMeans(n_clusters=2, method="exact", n_init=10),
                 {"gamma": [0.1, 1, 5, 20]}, scoring=fastkkm.matr_scorer).fit(X)

fastkkm.make_matr_scorer(max_samples, random_state) makes one with other settings."""
