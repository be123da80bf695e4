// The Lloyd loop shared by linear k-means on features and exact kernel k-means: both only
// differ in how a reassignment step is computed from the current labels.
#pragma once

#include <cstdint>
#include <vector>

#include "core/comm.h"

namespace kkm {

/// One Lloyd problem: points, their weights, and a way to reassign them.
class LloydProblem {
public:
    virtual ~LloydProblem() = default;
    virtual int64_t size() const = 0;
    /// Given labels (clusters with zero total weight have no centre), computes every
    /// cluster's centre, writes each point's nearest centre to next and the squared
    /// distance to it to dist, and returns Σ w_i dist_i.
    virtual double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                            std::vector<float>& dist) = 0;
    /// The objective of the labels, computed exactly (float64 reductions).
    virtual double objective(const std::vector<int32_t>& labels) = 0;
};

struct LloydResult {
    std::vector<int32_t> labels;
    double objective = 0;
    int32_t iterations = 0;
};

struct LloydOptions {
    int64_t k = 1;
    int64_t max_iter = 100;
    double tol = 1e-4;
};

/// Runs Lloyd from the given labels until no label changes, the objective improves by less
/// than tol · objective, or max_iter reassignments. A cluster left empty is given the point
/// farthest from its centre (among points whose cluster keeps another member).
/// Over rows spread across ranks (collective): labels and weights are this rank's rows',
/// `offset` the global index of its first row, and the problem's reassign and objective
/// return the objective over all ranks.
LloydResult run_lloyd(LloydProblem& problem, std::vector<int32_t> labels,
                      const std::vector<float>& weights, const LloydOptions& options,
                      const Comm& comm = solo_comm(), int64_t offset = 0);

/// Total weight per cluster (weights empty = all ones).
std::vector<double> cluster_weights(const std::vector<int32_t>& labels,
                                    const std::vector<float>& weights, int64_t k);

}  // namespace kkm
