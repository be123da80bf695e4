#include "cluster/lloyd_driver.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "cluster/seeding.h"
#include "core/progress.h"

namespace kkm {
namespace {

/// A candidate for an empty cluster: this rank's farthest movable point.
struct Candidate {
    float dist;
    int32_t label;  ///< its cluster now
    int64_t index;  ///< global row index; -1: none on this rank
};

/// The farthest candidate over all ranks (ties: the lowest global index, as one process's
/// scan in index order finds).
Candidate farthest_over_ranks(const Comm& comm, const Candidate& mine) {
    if (comm.size() == 1) return mine;
    std::vector<Candidate> all(static_cast<size_t>(comm.size()));
    comm.allgather(&mine, sizeof mine, all.data());
    Candidate best = {0.0f, 0, -1};
    for (const Candidate& c : all) {
        if (c.index >= 0 && (best.index < 0 || c.dist > best.dist)) best = c;
    }
    return best;
}

/// Gives every empty cluster the farthest point whose own cluster keeps another member.
/// Returns true if anything moved (on every rank alike).
bool fill_empty_clusters(std::vector<int32_t>& labels, std::vector<float>& dist, const std::vector<float>& weights,
                         int64_t k, const Comm& comm, int64_t offset) {
    std::vector<double> counts(static_cast<size_t>(k), 0.0);  // exact below 2^53 points
    for (int32_t l : labels) counts[static_cast<size_t>(l)] += 1.0;
    sum_over_ranks(comm, counts.data(), counts.size());
    bool moved = false;
    for (int64_t j = 0; j < k; ++j) {
        if (counts[static_cast<size_t>(j)] > 0) continue;
        int64_t far = -1;
        for (size_t i = 0; i < labels.size(); ++i) {
            const bool positive = weights.empty() || weights[i] > 0;
            if (!positive || counts[static_cast<size_t>(labels[i])] < 2) continue;
            if (far < 0 || dist[i] > dist[static_cast<size_t>(far)]) far = static_cast<int64_t>(i);
        }
        const Candidate mine =
            far < 0 ? Candidate{0.0f, 0, -1}
                    : Candidate{dist[static_cast<size_t>(far)], labels[static_cast<size_t>(far)], offset + far};
        const Candidate chosen = farthest_over_ranks(comm, mine);
        if (chosen.index < 0) break;  // fewer movable points than clusters: leave the rest empty
        counts[static_cast<size_t>(chosen.label)] -= 1.0;
        counts[static_cast<size_t>(j)] = 1.0;
        if (chosen.index == mine.index) {
            labels[static_cast<size_t>(far)] = static_cast<int32_t>(j);
            dist[static_cast<size_t>(far)] = 0.0f;
        }
        moved = true;
    }
    return moved;
}

}  // namespace

std::vector<double> cluster_weights(const std::vector<int32_t>& labels, const std::vector<float>& weights, int64_t k) {
    std::vector<double> w(static_cast<size_t>(k), 0.0);
    for (size_t i = 0; i < labels.size(); ++i) {
        w[static_cast<size_t>(labels[i])] += weights.empty() ? 1.0 : static_cast<double>(weights[i]);
    }
    return w;
}

std::pair<std::vector<double>, std::vector<double>> sums_and_mass_over_ranks(const Comm& comm, std::vector<double> sums,
                                                                             const std::vector<int32_t>& labels,
                                                                             const std::vector<float>& weights,
                                                                             int64_t k) {
    const std::vector<double> mass = cluster_weights(labels, weights, k);
    const size_t head = sums.size();
    sums.insert(sums.end(), mass.begin(), mass.end());
    sum_over_ranks(comm, sums.data(), sums.size());
    std::vector<double> total(sums.begin() + static_cast<std::ptrdiff_t>(head), sums.end());
    sums.resize(head);
    return {std::move(sums), std::move(total)};
}

double convergence_fraction(double previous, double objective, double tol) {
    if (!std::isfinite(previous) || !(tol > 0) || !(objective > 0)) return 0;
    const double gain = (previous - objective) / objective;
    if (gain <= tol) return 1;
    if (gain >= 1) return 0;
    return std::clamp(std::log(gain) / std::log(tol), 0.0, 1.0);
}

LloydResult run_lloyd(LloydProblem& problem, std::vector<int32_t> labels, const std::vector<float>& weights,
                      const LloydOptions& options, const Comm& comm, int64_t offset) {
    const size_t n = static_cast<size_t>(problem.size());
    std::vector<int32_t> next(n);
    std::vector<float> dist(n);
    double previous = std::numeric_limits<double>::infinity();
    LloydResult result;
    fill_empty_clusters(labels, dist, weights, options.k, comm, offset);
    const auto max_iter = static_cast<double>(std::max<int64_t>(options.max_iter, 1));
    std::vector<int32_t> assigned, previous_assigned;  // reassignments before relocation
    double done = 0;                                   // the fraction reported: never decreases
    bool settled = true;                               // false: stopped by tol or max_iter right after labels moved
    bool measured = false;                             // the labels are nearest centres of the last reassignment's
    for (int64_t it = 1; it <= options.max_iter; ++it) {
        progress_range(done, std::max(done, static_cast<double>(it) / max_iter));
        const double objective = problem.reassign(labels, next, dist);
        done = std::max(
            {done, static_cast<double>(it) / max_iter, convergence_fraction(previous, objective, options.tol)});
        progress_poll(done);
        result.iterations = static_cast<int32_t>(it);
        assigned = next;
        const bool relocated = fill_empty_clusters(next, dist, weights, options.k, comm, offset);
        // The reassignment undid the last relocation (with fewer distinct points than k, a
        // relocated duplicate goes back to its tied centre, the one of lower index): the same
        // step would repeat until max_iter. Neither that nor max_iter may end on a
        // relocation: its labels are not each point's nearest centre (a relocated point's own
        // mean is its centre, the others' centres move with it; kkm_assign would label the
        // training rows otherwise). Stop with the reassignment's labels, the nearest centres
        // of the labels before it, and the clusters it left empty empty.
        const bool undone = relocated && every_rank(comm, assigned == previous_assigned);
        if (relocated && (undone || it == options.max_iter)) {
            next.swap(assigned);
            measured = true;
            settled = false;  // the centres are the means of the labels before (centre_labels)
            labels.swap(next);
            break;
        }
        measured = !relocated;
        const bool unchanged = !relocated && every_rank(comm, next == labels);
        labels.swap(next);
        settled = unchanged || relocated;
        if (unchanged) break;
        previous_assigned.swap(assigned);
        if (!relocated && previous - objective < options.tol * objective) break;
        previous = objective;
    }
    // Stopped by tol or max_iter after a reassignment that moved points, or right after a
    // relocation (above): the labels are each point's nearest centre of the labels before
    // (next, after the swap), which stay the model's centres.
    if (!settled) result.centre_labels = std::move(next);
    if (measured) result.centres = problem.measured_centres();
    result.objective = problem.objective_of(result.centre_labels.empty() ? labels : result.centre_labels, labels);
    result.labels = std::move(labels);
    return result;
}

double lloyd_driver_footprint(const Params& p, double n) {
    const double run = 5 * 4 * n;  // labels, next, distances, and two copies of the assignment
    return std::max(seeding_footprint(p, n), run) + (p.n_init > 1 ? 4 * n : 0.0);
}

std::vector<int64_t> moved_points(const std::vector<int32_t>& labels, const std::vector<int32_t>& next) {
    std::vector<int64_t> movers;
    for (size_t i = 0; i < next.size(); ++i) {
        if (next[i] != labels[i]) movers.push_back(static_cast<int64_t>(i));
    }
    return movers;
}

}  // namespace kkm
