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
    /// Number of clusters (1 ≤ k ≤ n).
    int64_t k = 8;
    /// Points drawn per iteration, with replacement (b). 1024: the paper's Figure 1 setting
    /// (its experiments use 256–2048); an iteration costs O(kb(τ + b)).
    int64_t batch_size = 1024;
    /// Truncation τ: each centre keeps its newest batches whose counts add up to at least τ,
    /// so it holds at most τ + b points; 0 = no truncation (Algorithm 1 with the recursive
    /// update of ⟨φ(x), C_j⟩ for all n points, O(n(b + k)) per iteration). 200: the paper's
    /// Figure 1 setting, which it reports on par with the untruncated algorithm.
    int64_t tau = 200;
    /// Early stopping: stop when f_B(C_i) − f_B(C_{i+1}) < epsilon, f_B being the batch
    /// objective (mean squared feature-space distance of the batch's points to their nearest
    /// centre, ≤ 4γ², i.e. ≤ 4 for normalised kernels such as rbf). 1e-4 stops once the
    /// centres have settled: on well-separated data the improvement then falls to sampling
    /// noise in a few tens of iterations, far below the O(γ²/ε) bound of the paper's
    /// analysis. 0 stops only when a batch got worse; a negative value never stops early.
    double epsilon = 1e-4;
    /// Iteration cap (0 returns the seeds).
    int64_t max_iter = 100;
    /// beta: α_j = sqrt(b_j / b) (Schwartzman 2023; the paper's analysis); sklearn:
    /// α_j = b_j / (1 + points assigned to j so far, this batch included), the seed counting
    /// as one point.
    LearningRate rate = LearningRate::beta;
    /// Seeding of the initial centres (each one data point), run on a uniform sample of
    /// min(n, max(b, 20000)) points.
    Init init = Init::kmeanspp;
    /// Threads for kernel blocks; results never depend on it.
    int threads = 1;
};

/// Draws mini-batches: b point indices with replacement, uniformly, or with probability
/// ∝ weight (cumulative sums and binary search; weight-0 points are never drawn). Batch i is
/// a function of (seed, i) only: it comes from Rng(seed, Stream::batches, i).
class BatchSampler {
public:
    /// weights: empty, or n values ≥ 0 with a positive sum.
    BatchSampler(int64_t n, const std::vector<float>& weights, uint64_t seed);
    /// out = the b indices of batch `iteration`.
    void draw(int64_t iteration, int64_t b, std::vector<int64_t>& out) const;

private:
    int64_t n_;
    std::vector<double> cumulative_;  ///< empty when uniform
    int64_t last_positive_ = 0;       ///< the last index with positive weight
    uint64_t seed_;
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
