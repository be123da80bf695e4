// Seeding of k centres among the data points, in any feature space reachable through a
// squared-distance oracle: greedy k-means++ (scikit-learn's variant: 2 + ⌊ln k⌋ candidates
// per step, the one lowering the potential most wins) or k distinct random points.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/comm.h"
#include "core/params.h"
#include "core/rng.h"

namespace kkm {

/// Fills out[t·n + i] = squared feature-space distance between point i and point centres[t],
/// for all n points and every t (one pass over the data serves several centres).
using SquaredDistanceToPoint = std::function<void(const std::vector<int64_t>& centres, float* out)>;

/// Points whose distances one pass of the seeding computes: greedy k-means++'s candidates per
/// step (scikit-learn's 2 + ⌊ln k⌋), or the random seeding's group of centres.
int64_t seeding_candidates(Init init, int64_t k);

/// Bytes seed_centres over n points holds: labels, nearest distances, the cumulative masses
/// (and k-means++'s unit masses), the candidates' distances.
double seeding_footprint(const Params& p, double n);

struct Seeding {
    std::vector<int64_t> centres;  ///< k point indices
    std::vector<int32_t> labels;   ///< nearest centre of every point
};

/// weights: empty (all ones) or n values ≥ 0 with a positive sum.
Seeding seed_centres(Init init, int64_t n, int64_t k, const std::vector<float>& weights,
                     const SquaredDistanceToPoint& distance_to, Rng& rng);

/// The same over rows spread across ranks (collective): weights and the labels returned are
/// this rank's rows'; centre indices and the oracle's `centres` are global row indices, and
/// the oracle fills this rank's rows' distances (out[t·part.local + i]). Every rank draws the
/// same centres.
Seeding seed_centres(Init init, const Comm& comm, const RowPartition& part, int64_t k,
                     const std::vector<float>& weights, const SquaredDistanceToPoint& distance_to, Rng& rng);

}  // namespace kkm
