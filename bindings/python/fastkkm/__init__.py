"""fastkkm: kernel k-means at scale (libkkmeans) with scikit-learn's estimator API.

    from fastkkm import KernelKMeans
    km = KernelKMeans(n_clusters=2, method="exact", gamma=0.5, random_state=0).fit(X)
    km.labels_, km.predict(Y), km.transform(Y)   # transform: distances to the centres
    km.feature_map(Y)                            # nystrom, sketch, rff, heat: the features

fastkkm.matr_scorer scores a fit without labels in a way that compares gammas and kernels
(GridSearchCV(..., scoring=fastkkm.matr_scorer)); KernelKMeans.score does not.

The import package is named like the distribution (``pip install fastkkm``), so it never
shadows another project's ``kkmeans`` module.
"""

from . import _native
from ._estimator import KernelKMeans
from ._native import MemoryBudgetError, param_info
from ._scoring import make_matr_scorer, matr_score, matr_scorer

__version__ = _native.version()

__all__ = ["KernelKMeans", "MemoryBudgetError", "make_matr_scorer", "matr_score", "matr_scorer", "param_info",
           "__version__"]
