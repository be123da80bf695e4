// Kernel functions evaluated in blocks: dot products (or squared distances) through GEMM,
// then one fused, vectorised elementwise pass.
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"

namespace kkm {

/// A kernel function k(x, y) on R^d (not `precomputed`, which has no function). Computed in
/// float32: row_aux, block and diagonal throw INVALID_DATA for a row whose squared norm would
/// overflow the dot products (rbf, linear, polynomial, cosine; and for cosine a nonzero row
/// whose squared norm is subnormal), never returning Inf or NaN kernel values.
class Kernel {
public:
    /// Throws INVALID_ARGUMENT when gamma (rbf, laplacian, polynomial) is not a normal float32,
    /// or coef0 (polynomial) is beyond the float32 range.
    Kernel(KernelType type, double gamma, int64_t degree, double coef0);

    KernelType type() const { return type_; }

    /// Per-row quantity the block evaluation needs for the right-hand rows
    /// (squared norms for rbf, inverse norms for cosine, nothing otherwise).
    std::vector<float> row_aux(ConstMatrix Y) const;

    /// out (X.rows × Y.rows, row stride ldo) = k(X_i, Y_j). y_aux from row_aux(Y).
    /// Single-threaded: callers parallelise over blocks of X.
    void block(ConstMatrix X, ConstMatrix Y, const std::vector<float>& y_aux, float* out,
               int64_t ldo) const;

    /// k(x, x) for every row of X.
    void diagonal(ConstMatrix X, float* out) const;

private:
    KernelType type_;
    float gamma_;
    int64_t degree_;
    float coef0_;
};

/// Resolves gamma=auto from the data (weights may be empty) with bandwidth scale β: rbf
/// 1/(2β²σ²) with σ² the (weighted) mean pairwise squared distance (Wang, Gittens & Mahoney
/// 2019, eq. 5), laplacian 1/(β · mean pairwise L1 distance), polynomial 1/d; other kernels
/// do not use gamma (returns 0). Throws INVALID_DATA when the data have zero spread.
double auto_gamma(KernelType type, ConstMatrix X, const std::vector<float>& weights, double beta,
                  int threads);

}  // namespace kkm
