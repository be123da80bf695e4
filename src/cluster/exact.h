// Exact kernel k-means in the dual (Dhillon et al.): a centre is the weighted mean of its
// members in feature space, and ‖φ(x) − μ_j‖² = k(x,x) − 2 Σ_{a∈j} w_a k(x,a) / W_j + C_j
// with C_j = Σ_{a,b∈j} w_a w_b k(a,b) / W_j². The sums Σ_a w_a k(x,a) for all clusters are
// one GEMM of kernel rows with the n×k weighted indicator matrix Z.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "kernels/kernel_basis.h"

namespace kkm {

/// Kernel rows K(x_i, all n training points): from a stored n×n matrix (owned, or the
/// caller's precomputed matrix) or recomputed block by block from a KernelBasis.
class KernelRows {
public:
    /// Rows recomputed from the basis in blocks of at most block_rows rows.
    KernelRows(const KernelBasis& basis, ConstMatrix train, int64_t block_rows, int threads);
    /// Rows read from an n×n matrix (not copied). caller_owned: the matrix is the caller's
    /// memory, without GEMM slack, so its last block is copied before GEMM reads it.
    KernelRows(ConstMatrix matrix, int64_t block_rows, bool caller_owned);

    int64_t size() const { return n_; }
    int64_t block_rows() const { return block_rows_; }
    bool stored() const { return stored_ != nullptr; }
    /// Rows [begin, begin+count) as a count×n matrix safe to hand to GEMM: a pointer into
    /// the stored matrix, or into scratch (filled here).
    const float* rows(int64_t begin, int64_t count, Matrix& scratch) const;

private:
    const KernelBasis* basis_ = nullptr;
    ConstMatrix train_;
    const float* stored_ = nullptr;
    int64_t n_ = 0;
    int64_t block_rows_ = 256;
    bool caller_owned_ = false;
};

/// The implicit centres of a labelling.
struct DualCentres {
    Matrix Z;                      ///< n×k, Z[a][j] = w_a if a ∈ j
    std::vector<double> mass;      ///< W_j
    std::vector<double> self_dot;  ///< C_j
};

/// Nearest centre for `count` rows given their kernel rows against the training points
/// (count×n, with GEMM slack behind), their k(x,x) (may be NULL: then distances omit it), and the centres.
/// Single-threaded.
void dual_nearest(const float* krows, int64_t count, const float* self, const DualCentres& c,
                  int32_t* labels, float* dist);

class ExactLloyd final : public LloydProblem {
public:
    /// diag: k(x_i, x_i) for the n training points.
    ExactLloyd(const KernelRows& rows, std::vector<float> diag, const std::vector<float>& weights,
               int64_t k, int threads);

    int64_t size() const override { return rows_.size(); }
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                    std::vector<float>& dist) override;
    double objective(const std::vector<int32_t>& labels) override;

    /// Centres of a labelling (one pass over the kernel rows).
    DualCentres centres(const std::vector<int32_t>& labels);
    SquaredDistanceToPoint distance_oracle();

private:
    /// G = K · Z (n×k) over all kernel rows.
    Matrix kernel_times(const Matrix& Z);
    Matrix& scratch();

    const KernelRows& rows_;
    std::vector<float> diag_;
    std::vector<float> weights_;
    int64_t k_;
    int threads_;
    std::vector<Matrix> scratch_;  // one kernel-row block per thread
};

}  // namespace kkm
