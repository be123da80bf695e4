"""fastkkm: kernel k-means at scale (libkkmeans) with scikit-learn's estimator API.

    from fastkkm import KernelKMeans
    km = KernelKMeans(n_clusters=2, method="exact", gamma=0.5, random_state=0).fit(X)
    km.labels_, km.predict(Y), km.transform(Y)   # transform: nystrom, sketch, rff

The import package is named like the distribution (``pip install fastkkm``), so it never
shadows another project's ``kkmeans`` module.
"""

from . import _native
from ._estimator import KernelKMeans
from ._native import MemoryBudgetError, param_info

__version__ = _native.version()

__all__ = ["KernelKMeans", "MemoryBudgetError", "param_info", "__version__"]
