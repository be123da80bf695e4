// Mini-batch k-means on explicit features (Sculley 2010, "Web-scale k-means clustering"),
// for n too large for full Lloyd passes: per batch, each point goes to its nearest centre and
// every centre moves to the running mean of all points it has received, c ← (v·c + Σx)/(v + b_c)
// with per-centre counts v (scikit-learn's batch form of Sculley's per-point update).
#pragma once

#include <cstdint>
#include <vector>

#include "core/comm.h"
#include "core/matrix.h"
#include "core/params.h"
#include "engine/isa.h"

namespace kkm {

/// What minibatch_lloyd runs with (solver=minibatch: k, batch_size, max_iter, epsilon and init
/// are the fit's parameters of those names).
struct MinibatchLloydOptions {
    int64_t k = 8;              ///< clusters
    int64_t batch_size = 1024;  ///< rows per batch (b)
    int64_t max_iter = 100;     ///< batches at most
    /// Stop when the batch's mean squared distance improves by less than epsilon.
    double epsilon = 1e-3;
    Init init = Init::kmeanspp;
    int threads = 1;
    /// Engine path of the distance products.
    engine::Isa isa = engine::Isa::portable;
};

struct MinibatchLloydResult {
    Matrix centroids;  ///< k × r
    int32_t iterations = 0;
};

/// Rows of the uniform sample the initial centres are seeded on: max(3b, 10k), at most n.
int64_t minibatch_seed_sample(int64_t n, int64_t batch_size, int64_t k);

/// Bytes minibatch_lloyd on n×r features holds (solver=minibatch; besides the features): the
/// weights and the batch sampler's sums, the seeding on its sample, one batch with its
/// distances, every row's label and distance, the best restart's labels and centroids.
double minibatch_lloyd_footprint(const Params& p, double n, double r, int threads, bool weighted);

/// F: n×r features (a Matrix, GEMM-safe). Batches are drawn with replacement, with
/// probability ∝ weights when given. The initial centres are k-means++ (or random) seeds
/// on a uniform sample of max(3b, 10k) rows (scikit-learn's init_size is 3b).
/// restart numbers the independent runs of one seed (their streams do not overlap).
/// Over rows spread across ranks (collective; F and weights are this rank's rows, `part` its
/// place): the batches and the initial sample are drawn over the global rows and their rows
/// shared with every rank, which then all make the same updates (b×r floats per batch).
MinibatchLloydResult minibatch_lloyd(ConstMatrix F, const std::vector<float>& weights,
                                     const MinibatchLloydOptions& options, uint64_t seed, uint64_t restart = 0,
                                     const Comm& comm = solo_comm(), const RowPartition* part = nullptr);

}  // namespace kkm
