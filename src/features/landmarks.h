// Landmark samplers for Nyström and sketches: which training points span the approximation.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/comm.h"
#include "core/matrix.h"
#include "core/rng.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"

namespace kkm {

/// What a data-dependent sampler sees: the training rows and their kernel.
struct LandmarkContext {
    ConstMatrix X;  ///< training rows (the caller's memory: never handed to GEMM directly)
    /// The fit's kernel function; empty for kernel=precomputed (X is then the kernel matrix).
    std::optional<Kernel> kernel;
    std::vector<float> diag;  ///< K(x_i, x_i) of every training row
    int threads = 1;
    /// The ranks the rows are spread over (X and diag are this rank's rows; indices are
    /// global). Default: one process.
    const Comm* comm = &solo_comm();
    RowPartition part = {};
};

/// The kernel over training points idx (global indices): basis.evaluate(rows) = K(rows, X[idx]),
/// over those rows gathered from the ranks holding them (collective), or columns idx of a
/// precomputed K.
KernelBasis landmark_basis(const LandmarkContext& ctx, const std::vector<int64_t>& idx);

/// K(X, X[idx]) for every training row: an n × idx.size() Matrix, in parallel row blocks.
Matrix kernel_columns(const LandmarkContext& ctx, const std::vector<int64_t>& idx);

/// m distinct indices drawn uniformly from [0, n), returned in increasing order
/// (partial Fisher–Yates).
std::vector<int64_t> uniform_landmarks(int64_t n, int64_t m, Rng& rng);

/// Size of the uniform sub-sample S behind the scores: twice the landmarks asked for, capped
/// at n. The estimate sharpens as |S| grows but costs O(n|S|d + n|S|²) time and n|S| floats,
/// so |S| is tied to m: 2m keeps that within a small factor of what Nyström itself spends on
/// m landmarks (n·m kernel values, an n×m by m×m product), while giving the sub-sample
/// clearly more points than the m it has to rank. On the far-cluster test data (n = 5000,
/// m = 50, λ = √n) sampling from these scores hit the 20 far points as often as sampling from
/// the exact scores did (97 vs 94 of 100 seeds).
constexpr int64_t rls_subsample_size(int64_t n, int64_t m) {
    return n < 2 * m ? n : 2 * m;
}

/// m distinct indices drawn proportionally to approximate ridge leverage scores
/// τ_i(λ) = [K(K+λI)⁻¹]_ii (Calandriello & Rosasco 2018, Definition 3), estimated from a
/// uniform sub-sample S of min(n, 2m) points (ridge_leverage_scores). Cost O(n|S|d + n|S|²),
/// never n×n. Returned in increasing order.
std::vector<int64_t> rls_landmarks(const LandmarkContext& ctx, int64_t m, double lambda, Rng& rng);

/// The scores behind rls_landmarks, from the sub-sample S (distinct training indices):
/// τ̃_i = (K_ii − K_iS (K_SS + λ|S|/n · I)⁻¹ K_Si) / λ, clamped at 0. The ridge λ|S|/n weighs
/// each point of S by n/|S| (it stands in for n/|S| points); with S = all points τ̃ = τ exactly.
std::vector<double> ridge_leverage_scores(const LandmarkContext& ctx, const std::vector<int64_t>& S, double lambda);

/// m distinct indices by D² sampling in kernel space: the first uniformly, each next one with
/// probability ∝ K_ii + K_cc − 2K_ic to the nearest chosen c. Returned in increasing order.
std::vector<int64_t> kmeanspp_landmarks(const LandmarkContext& ctx, int64_t m, Rng& rng);

/// What a sampler's footprint depends on.
struct SamplerShape {
    double n, d, m;
    int threads;
    bool precomputed;  ///< kernel=precomputed: rows are kernel rows, the basis column indices
};

/// The samplers' footprints (their table's hooks): uniform's index pool; k-means++'s
/// diagonal, D² distances, one kernel column and every thread's row block; ridge leverage
/// scores' n×|S| block, |S|×|S| eigen-decomposition and sort keys, at their largest.
double uniform_footprint(const SamplerShape& s);
double kmeanspp_footprint(const SamplerShape& s);
double rls_footprint(const SamplerShape& s);

/// Each landmark sampler's descriptor (sampling=), in one table (landmarks.cpp): the fit reads
/// it instead of naming samplers.
struct SamplerTraits {
    Sampling sampling;
    /// It reads the training rows (their kernel and diagonal) to choose: the fit fills the
    /// LandmarkContext, and the rows are read before the kernel pass. Without it only the
    /// row count matters.
    bool reads_rows;
    /// It takes a ridge λ (rls_lambda; auto = √n), which the fit reports.
    bool ridge;
    /// m distinct indices of the n training rows (over every rank), in increasing order.
    std::vector<int64_t> (*choose)(const LandmarkContext& ctx, int64_t n, int64_t m, double lambda, Rng& rng);
    /// Bytes choosing m of n rows of d values holds at its peak on `threads` threads
    /// (released once the landmarks are chosen).
    double (*footprint)(const SamplerShape& shape);
};

/// The row of `sampling`.
const SamplerTraits& sampler_traits(Sampling sampling);

/// The ridge λ a fit of n rows samples with: rls_lambda, or auto = √n, for a sampler that
/// takes one (0 otherwise).
double ridge_lambda(const Params& p, int64_t n);

}  // namespace kkm
