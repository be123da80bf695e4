// Truncated mini-batch kernel k-means (mini-batch kernel k-means, 2024: Algorithm 1, the
// recursive distance update, and Algorithm 2, truncated centres; Section 4 and Appendix A).
// A centre is a sparse weighted sum of data points in feature space.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "cluster/minibatch_centres.h"
#include "core/blocking.h"
#include "core/matrix.h"
#include "core/params.h"
#include "engine/isa.h"

namespace kkm {

/// The truncated mini-batch fit seeds on min(n, max(batch_size, this)) points.
inline constexpr int64_t kMinibatchSeedSample = 20000;
/// Training rows per K(X, B) block of the untruncated fit (tau = 0).
inline constexpr int64_t kMinibatchRowChunk = 4096;

/// Bytes a PointKernel's block of the rows `rows` describes against `cols` gathered points
/// holds besides its output (the fit's PointKernel states it).
using PointBlockFootprint = std::function<double(double cols, const RowBlocks& rows)>;

/// What minibatch_kernel_kmeans holds on n points: the seeding on its sample (indices,
/// weights, diagonal, the sample against the candidates, their kernel block), and one
/// iteration (the batch, its b × k products, kernel and Gram blocks, the centres' histories
/// and coefficients, at the bounds on their support: τ + b points per centre, or every point
/// without truncation).
struct MinibatchRunFootprint {
    double seeding = 0;
    double iterations = 0;
    double seed_sample = 0;  ///< the points the seeding runs on (a PointKernel may keep their rows)
};
MinibatchRunFootprint minibatch_run_footprint(const Params& p, double n, int threads,
                                              const PointBlockFootprint& point_block);

/// Kernel values between training points, addressed by index.
class PointKernel {
public:
    virtual ~PointKernel() = default;
    /// Number of training points n.
    virtual int64_t size() const = 0;
    /// out (reshaped to rows.size() × cols.size()) = K(x_rows[a], x_cols[b]), computed as
    /// GEMM blocks over gathered rows, on `threads` threads. Not reentrant: an implementation
    /// may keep its scratch from one call to the next (calls come one at a time).
    virtual void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                       int threads) const = 0;
    /// block() for rows that come again call after call (the seeding's sample against each
    /// k-means++ step's candidates): an implementation may keep what it prepared of them
    /// until its next block() call. The same values as block().
    virtual void repeated_rows_block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                                     int threads) const {
        block(rows, cols, out, threads);
    }
    /// K(x_i, x_i).
    virtual float diag(int64_t i) const = 0;
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
    /// centre; ≤ 4γ², ≤ 4 for normalised kernels such as rbf). A negative value never stops.
    /// 1e-3, from experiments (the paper's analysis, γ = 1, only ties ε to b through
    /// b = Ω(k ε⁻² log²(n/ε)), i.e. ε ≈ 0.1 at b = 1024): with beta the improvement never
    /// decays to 0 but settles at batch noise, measured ≈ 2/b for rbf at gamma 0.1–0.3 on
    /// blobs and rings (7e-3 at b = 256, 1.7e-3 at b = 1024, 3e-3 with normalised τ = 200),
    /// far less for smoother kernels. 1e-3 ended untruncated b = 1024 runs once settled
    /// (15–130 iterations on 10 blobs, 21–94 on two rings, every ring run separated);
    /// 2e-3 stopped one ring run in five before it separated, 1e-2 all of them. Where the
    /// noise stays above epsilon the run goes to max_iter.
    double epsilon = 1e-3;
    /// Divide a truncated centre by its coefficient sum 1 − Π_{ℓ∈Q}(1 − α_ℓ) once C_1 is
    /// dropped, so it stays a convex combination (the exponentially weighted mean of its
    /// recent batch means). Not in the paper: equation (1) leaves that mass out, which
    /// shrinks the centres — by up to exp(−sqrt(τ/b)) with beta (Lemma 3's bound; 0.64 at
    /// τ = 200, b = 1024) and towards 0 with sklearn, whose α → 0 — so the batch objective
    /// rises when a window drops a term: at b = 1024, τ = 200 every run on blobs and rings
    /// ended at iteration 3–5 under any epsilon ≥ 0.
    bool normalise = false;
    /// Iteration cap (0 returns the seeds). 100: the rings above need up to ~95 at b = 1024.
    int64_t max_iter = 100;
    /// beta: α_j = sqrt(b_j / b) (Schwartzman 2023; the paper's analysis); sklearn:
    /// α_j = b_j / (1 + points assigned to j so far, this batch included), the seed counting
    /// as one point.
    LearningRate rate = LearningRate::beta;
    /// Seeding of the initial centres (each one data point), run on a uniform sample of
    /// min(n, max(b, 20000)) points.
    Init init = Init::kmeanspp;
    /// The k initial centres' points when not empty (instead of the seeding): the graph kernels
    /// start from the points nearest to the centroids of a spectral clustering.
    std::vector<int64_t> initial;
    /// Threads for kernel blocks; results never depend on it.
    int threads = 1;
    /// The engine path of the products' float64 sums (the same bits on every path).
    engine::Isa isa = engine::Isa::portable;
};

/// Draws mini-batches: b point indices with replacement, uniformly, or with probability
/// ∝ weight (cumulative sums and binary search; weight-0 points are never drawn). Batch i is
/// a function of (seed, restart, i) only: it comes from restart_rng(seed, Stream::batches,
/// restart, i).
class BatchSampler {
public:
    /// weights: empty, or n values ≥ 0 with a positive sum.
    BatchSampler(int64_t n, const std::vector<float>& weights, uint64_t seed, uint64_t restart = 0);
    /// out = the b indices of batch `iteration`.
    void draw(int64_t iteration, int64_t b, std::vector<int64_t>& out) const;

private:
    int64_t n_;
    std::vector<double> cumulative_;  ///< empty when uniform
    int64_t last_positive_ = 0;       ///< the last index with positive weight
    uint64_t seed_;
    uint64_t restart_;
};

/// The batch objective of one iteration: f_B(C_i) with the centres the batch was assigned
/// to, f_B(C_{i+1}) with the updated ones; the epsilon rule compares the two.
struct BatchObjective {
    double before = 0;
    double after = 0;
};

/// What a run leaves for a later run to go on from (kkm_partial_fit): every centre's history
/// and the sklearn rate's counts.
struct MinibatchState {
    std::vector<CentreHistory> centres;  ///< k centres: their batch terms (and C_1 while kept)
    std::vector<double> seen;            ///< 1 (the seed) + points assigned to j so far
};

struct MinibatchResult {
    std::vector<SparseCentre> centres;    ///< k centres
    int32_t iterations = 0;               ///< mini-batch iterations run
    bool stopped_early = false;           ///< the epsilon rule fired (at iteration `iterations`)
    std::vector<BatchObjective> history;  ///< one per iteration, in order
    MinibatchState state;                 ///< the centres' histories, over K's point indices
};

/// Runs the algorithm. weights: empty, or n values ≥ 0 (batches are drawn with probability
/// ∝ weight). Every random choice comes from restart_rng(seed, Stream::batches /
/// Stream::seeding, restart, ...): restart numbers the independent runs of one seed.
MinibatchResult minibatch_kernel_kmeans(const PointKernel& K, const std::vector<float>& weights,
                                        const MinibatchOptions& options, uint64_t seed, uint64_t restart = 0);

/// Where a truncated run goes on from instead of a seeding (kkm_partial_fit's later batches):
/// K's points are the centres' support, then the new points, from which alone batches are drawn.
struct MinibatchResume {
    MinibatchState state;          ///< k centres over points [0, drawn_from)
    std::vector<double> self_dot;  ///< ⟨C_j, C_j⟩ of those centres
    int64_t drawn_from = 0;        ///< batches are drawn from points [drawn_from, K.size())
    int64_t done = 0;              ///< iterations run before: batch i of this run is batch done + i
};

/// Goes on with options.max_iter more iterations (tau > 0; options.epsilon as in a fresh run,
/// its initial and init unused) from `resume`. weights: empty, or K.size() − drawn_from values
/// ≥ 0 with a positive sum, one per point drawn from. Batch done + i comes from
/// restart_rng(seed, Stream::batches, 0, done + i), its indices offset by drawn_from.
MinibatchResult resume_minibatch(const PointKernel& K, const std::vector<float>& weights,
                                 const MinibatchOptions& options, uint64_t seed, MinibatchResume resume);

}  // namespace kkm
