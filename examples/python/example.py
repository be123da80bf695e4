"""Kernel k-means in Python: two concentric rings that plain k-means cannot separate.

    pip install --no-build-isolation ./bindings/python      (see bindings/python/README.md)
    python3 examples/python/example.py
"""
import pickle

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

import fastkkm
from fastkkm import KernelKMeans

# 600 points on two rings of radii 1 and 4 with a little Gaussian noise.
rng = np.random.default_rng(2024)
angle = rng.uniform(0, 2 * np.pi, 600)
radius = np.repeat([1.0, 4.0], 300)
X = np.column_stack([radius * np.cos(angle), radius * np.sin(angle)]) + rng.normal(0, 0.1, (600, 2))
ring = np.repeat([0, 1], 300)

print(f"fastkkm {fastkkm.__version__}\n")

# Plain k-means splits the plane in two halves ...
plain = KMeans(n_clusters=2, n_init=5, random_state=0).fit(X)
print(f"sklearn KMeans:             ARI vs rings = {adjusted_rand_score(ring, plain.labels_):.3f}")

# ... kernel k-means with an rbf kernel finds the rings, exactly or with Nystrom landmarks,
# with the library's defaults (gamma=auto, n_init=auto): nothing hand-picked.
exact = KernelKMeans(n_clusters=2, method="exact", random_state=0).fit(X)
print(f"kernel k-means (exact):     ARI vs rings = {adjusted_rand_score(ring, exact.labels_):.3f}"
      f"  (objective {exact.inertia_:.2f}, {exact.n_iter_} iterations)")
approx = KernelKMeans(n_clusters=2, method="nystrom", m=100, random_state=0).fit(X)
print(f"kernel k-means (nystrom):   ARI vs rings = {adjusted_rand_score(ring, approx.labels_):.3f}"
      f"  (features: {approx.feature_map(X).shape[1]} per point)")
print(f"cluster sizes: {exact.cluster_sizes_}")

# New points are assigned to the nearest cluster; a pickled model keeps working.
new_points = np.array([[0.9, 0.1], [-4.1, 0.2], [0.0, 3.9]])
restored = pickle.loads(pickle.dumps(exact))
print(f"new points -> clusters {exact.predict(new_points)}, after pickling {restored.predict(new_points)}")
