// Truncated mini-batch kernel k-means (mini-batch kernel k-means, 2024: Algorithm 1, the
// recursive distance update, and Algorithm 2, truncated centres; Section 4 and Appendix A).
// A centre is a sparse weighted sum of data points in feature space.
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"

namespace kkm {

/// Kernel values between training points, addressed by index.
class PointKernel {
public:
    virtual ~PointKernel() = default;
    /// Number of training points n.
    virtual int64_t size() const = 0;
    /// out (reshaped to rows.size() × cols.size()) = K(x_rows[a], x_cols[b]), computed as
    /// GEMM blocks over gathered rows, on `threads` threads.
    virtual void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                       Matrix& out, int threads) const = 0;
    /// K(x_i, x_i).
    virtual float diag(int64_t i) const = 0;
};

/// Σ_s coef[s] · φ(x_{points[s]}), points distinct.
struct SparseCentre {
    std::vector<int64_t> points;
    std::vector<double> coef;
};

struct MinibatchOptions {
    /// Number of clusters.
    int64_t k = 8;
    /// Points drawn per iteration, with replacement (b).
    int64_t batch_size = 1024;
    /// Truncation τ: each centre keeps its newest batches whose counts add up to at least τ;
    /// 0 = no truncation (Algorithm 1 with the O(n(b+k)) recursive update).
    int64_t tau = 200;
    /// Early stopping: stop when f_B(C_i) − f_B(C_{i+1}) < epsilon (batch objective, mean
    /// squared distance over the batch).
    double epsilon = 1e-4;
    /// Iteration cap.
    int64_t max_iter = 100;
    /// beta: α_j = sqrt(b_j / b); sklearn: α_j = b_j / (points assigned to j so far).
    LearningRate rate = LearningRate::beta;
    /// Seeding of the initial centres (each one data point) on a uniform sample.
    Init init = Init::kmeanspp;
    /// Threads for kernel blocks; results never depend on it.
    int threads = 1;
};

struct MinibatchResult {
    std::vector<SparseCentre> centres;  ///< k centres
    int32_t iterations = 0;             ///< mini-batch iterations run
    bool stopped_early = false;         ///< the epsilon rule ended the run (not max_iter)
};

/// Runs the algorithm. weights: empty, or n values ≥ 0 (batches are drawn with probability
/// ∝ weight). Every random choice comes from (seed, Stream::batches / Stream::seeding).
MinibatchResult minibatch_kernel_kmeans(const PointKernel& K, const std::vector<float>& weights,
                                        const MinibatchOptions& options, uint64_t seed);

}  // namespace kkm
