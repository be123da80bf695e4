// The subsample that gamma=search and k=auto fit on, its pairwise distances and the kernel
// matrices built from them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"
#include "core/rng.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"

namespace kkm::search {

/// Rows drawn uniformly without replacement among the rows of positive weight (all rows when
/// there are at most `size` of them), in ascending order, with their weights (empty: none).
struct Subsample {
    std::vector<int64_t> rows;
    std::vector<float> weights;
    int64_t size() const { return static_cast<int64_t>(rows.size()); }
};

Subsample draw_subsample(int64_t n, const std::vector<float>& weights, int64_t size, uint64_t seed);

/// 0..s-1 in a random order (Fisher-Yates from the last place down).
std::vector<int64_t> random_order(int64_t s, Rng& rng);

/// The distances p.kernel (rbf or laplacian) reads between the subsample's rows: squared
/// Euclidean for rbf, L1 for laplacian (s x s, symmetric, zero diagonal, float64 sums).
Matrix pairwise_distances(const Params& p, ConstMatrix X, const Subsample& sub, int threads);

/// K = exp(-gamma D) entry by entry: the rbf or laplacian kernel matrix from
/// pairwise_distances (K's storage is reused when large enough).
void kernel_from_distances(const Matrix& D, double gamma, int threads, Matrix& K);

/// The kernel matrix of a kernel without a searched scale (any kernel, precomputed included:
/// then X is the n x n kernel and this picks the subsample's rows and columns).
Matrix kernel_matrix(const Params& p, double gamma, ConstMatrix X, const Subsample& sub, int threads);

/// The kernel against the subsample's rows, as kernel_matrix computes it among them: what a
/// model fitted on the subsample's kernel matrix assigns new rows with (evaluate: rows of X,
/// or any rows, against the subsample). The kernel's centring shift is the subsample's own;
/// with kernel=precomputed, X is the n x n kernel and the basis picks the subsample's columns.
KernelBasis subsample_basis(const Params& p, double gamma, ConstMatrix X, const Subsample& sub, int threads);

/// Rows `rows` and columns `cols` (indices into K) of a square matrix.
Matrix submatrix(const Matrix& K, const std::vector<int64_t>& rows, const std::vector<int64_t>& cols);

/// The two data scales the gamma grid is centred on, as gammas of the kernel's convention
/// (rbf exp(-gamma D) with D squared distances: 1/(2 scale); laplacian: 1/scale): the
/// weighted mean pairwise distance (as gamma=auto) and the mean distance to the q-th nearest
/// neighbour, q = round(log2 s) + 1 (Berlinski & Maitra's get_mknn_dist).
struct Scales {
    double mean_gamma = 0;
    double knn_gamma = 0;
};
Scales data_scales(KernelType kernel, const Matrix& D, const std::vector<float>& weights);

}  // namespace kkm::search
