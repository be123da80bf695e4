// The Lloyd loop shared by linear k-means on features and exact kernel k-means: both only
// differ in how a reassignment step is computed from the current labels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/comm.h"
#include "core/matrix.h"
#include "core/params.h"

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
    /// Σ w_i · (squared distance of point i to the centre of cluster labels_i), the centres
    /// being those of `members` (the clusters' means), computed exactly (float64 reductions;
    /// members == labels: the objective of the labels).
    virtual double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) = 0;
    /// The objective of the labels against their own centres.
    double objective(const std::vector<int32_t>& labels) { return objective_of(labels, labels); }
    /// The centres the last reassign measured its labels against, in the problem's own
    /// coordinates (k × columns), for the model to keep bit for bit: centres computed again
    /// from the same labels round differently (the reassignments move cached sums by the rows
    /// that moved), and a training row at a tie could then go elsewhere in kkm_assign. Empty
    /// where the problem keeps none (its model's centres come from the labels alone).
    virtual Matrix measured_centres() const { return {}; }
};

struct LloydResult {
    /// Every point's cluster: its nearest centre (as scikit-learn's KMeans labels them), or,
    /// after refine=hartigan, the labelling whose means are the centres.
    std::vector<int32_t> labels;
    double objective = 0;  ///< objective_of(centre_members(), labels)
    int32_t iterations = 0;
    /// The labelling whose clusters' means are the centres, when it is not `labels` (empty:
    /// it is): a Lloyd stopped by tol or max_iter before a fixed point keeps the centres its
    /// last reassignment measured, the means of the labels before it.
    std::vector<int32_t> centre_labels;
    const std::vector<int32_t>& centre_members() const { return centre_labels.empty() ? labels : centre_labels; }
    /// The centres every label was measured against (the problem's measured_centres() after
    /// the last reassignment; the centres of centre_members()), for the model; empty when the
    /// problem keeps none, when the run ended on a relocation (the labels' own means are the
    /// centres then) or after refine=hartigan.
    Matrix centres;
};

struct LloydOptions {
    int64_t k = 1;
    int64_t max_iter = 100;
    double tol = 1e-4;
};

/// Runs Lloyd from the given labels until no label changes, the objective improves by less
/// than tol · objective, or max_iter reassignments. A cluster left empty is given the point
/// farthest from its centre (among points whose cluster keeps another member). Stopped by tol
/// or max_iter before a fixed point, the result keeps the centres the last reassignment used
/// (the means of the labels before it: LloydResult::centre_labels), so that every label is its
/// point's nearest centre, as scikit-learn's KMeans leaves them and as kkm_assign labels the
/// training rows; with init labels and max_iter=1, the labels are each point's nearest mean
/// of those labels. It never ends on a relocation: where max_iter comes right after one, or a
/// reassignment undoes the last (fewer distinct points than k: a relocated duplicate goes back
/// to its tied centre of lower index), the result is that reassignment's labels, each point's
/// nearest centre, and the clusters it left empty stay empty.
/// Over rows spread across ranks (collective): labels and weights are this rank's rows',
/// `offset` the global index of its first row, and the problem's reassign and objective
/// return the objective over all ranks.
LloydResult run_lloyd(LloydProblem& problem, std::vector<int32_t> labels, const std::vector<float>& weights,
                      const LloydOptions& options, const Comm& comm = solo_comm(), int64_t offset = 0);

/// Bytes run_lloyd over n points holds besides the problem: the larger of the seeding and its
/// label and distance vectors (labels, next, distances, two copies of the assignment), and
/// the best restart's labels while another runs (n_init > 1).
double lloyd_driver_footprint(const Params& p, double n);

/// How far Lloyd is from its stopping rule, for the progress callback: the relative
/// improvement (previous − objective) / objective on a log scale, 0 at 1 or more (or before
/// there is a previous objective) and 1 at tol or less. Lloyd usually stops long before
/// max_iter, so iterations / max_iter alone left progress bars stalled near 0.
double convergence_fraction(double previous, double objective, double tol);

/// Total weight per cluster (weights empty = all ones).
std::vector<double> cluster_weights(const std::vector<int32_t>& labels, const std::vector<float>& weights, int64_t k);

/// The points whose label differs between labels and next, in index order (the rows an
/// incremental update of the centre sums moves).
std::vector<int64_t> moved_points(const std::vector<int32_t>& labels, const std::vector<int32_t>& next);

/// This rank's per-cluster sums and the weights of its labels, added over all ranks in one
/// reduction (collective): {sums, weight per cluster}.
std::pair<std::vector<double>, std::vector<double>> sums_and_mass_over_ranks(const Comm& comm, std::vector<double> sums,
                                                                             const std::vector<int32_t>& labels,
                                                                             const std::vector<float>& weights,
                                                                             int64_t k);

/// Hartigan's choice for a point of weight w in cluster a: the cluster b ≠ a with the lowest
/// cost w·W_b/(W_b + w)·distance(b) of receiving it (an empty cluster costs 0), if that is
/// below `limit`; else {-1, limit}.
template <class Distance>
std::pair<int32_t, double> cheapest_receiver(int64_t k, int32_t a, double w, const std::vector<double>& mass,
                                             double limit, Distance&& distance) {
    std::pair<int32_t, double> best{-1, limit};
    for (int64_t b = 0; b < k; ++b) {
        if (b == a) continue;
        const double wb = mass[static_cast<size_t>(b)];
        const double cost = wb > 0 ? w * wb / (wb + w) * std::max(distance(b), 0.0) : 0.0;
        if (cost < best.second) best = {static_cast<int32_t>(b), cost};
    }
    return best;
}

/// Hartigan's single-point transfers, sweep after sweep until one moves nothing (or
/// max_sweeps): each point i of weight w > 0 not alone in its cluster a moves to the cluster
/// b of cheapest_receiver when b's cost is below a's gain w·W_a/(W_a − w)·d_a by a strict
/// relative margin (rounding cannot make a move look profitable, and every move lowers the
/// objective, so the sweeps end). The problem supplies:
///   sweep(mass)                at each sweep's start: recompute its exact state;
///   point(i)                   before point i is weighed;
///   distance(j, mass)          d_j of the current point to centre j;
///   transfer(i, a, b, w, mass) its state after the move, before the masses change.
/// Returns the number of moves.
template <class Sweep, class Point, class Distance, class Transfer>
int64_t hartigan_sweeps(std::vector<int32_t>& labels, const std::vector<float>& weights, int64_t k, int64_t max_sweeps,
                        Sweep&& sweep, Point&& point, Distance&& distance, Transfer&& transfer) {
    const auto n = static_cast<int64_t>(labels.size());
    int64_t transfers = 0;
    for (int64_t s = 0; s < max_sweeps; ++s) {
        std::vector<double> mass = cluster_weights(labels, weights, k);
        sweep(mass);
        int64_t moved = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double w = weights.empty() ? 1.0 : static_cast<double>(weights[static_cast<size_t>(i)]);
            const int32_t a = labels[static_cast<size_t>(i)];
            const double wa = mass[static_cast<size_t>(a)];
            if (!(w > 0) || !(wa - w > 1e-12 * wa)) continue;  // no weight, or alone in a
            point(i);
            const auto d = [&](int64_t j) { return distance(j, mass); };
            const double gain = w * wa / (wa - w) * std::max(d(a), 0.0);
            const int32_t b = cheapest_receiver(k, a, w, mass, gain * (1.0 - 1e-9), d).first;
            if (b < 0) continue;
            transfer(i, a, b, w, mass);
            mass[static_cast<size_t>(a)] = wa - w;
            mass[static_cast<size_t>(b)] += w;
            labels[static_cast<size_t>(i)] = b;
            ++moved;
        }
        transfers += moved;
        if (moved == 0) break;
    }
    return transfers;
}

}  // namespace kkm
