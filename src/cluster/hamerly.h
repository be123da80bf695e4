// Hamerly's bounds (Hamerly 2010), shared by the Lloyd variants whose distances are Euclidean
// in some feature space (explicit features, or the kernel's feature space through landmark
// rows): the triangle inequality turns last iteration's distances and how far each centre
// moved into bounds that prove most labels without computing a distance. Elkan's (Elkan
// 2003) keep one lower bound per centre instead of one for all: each moves down only by its
// own centre's drift, so more rows are proved (at k floats per row).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/comm.h"

#include "core/matrix.h"

namespace kkm {

/// How far each centre moved since the bounds were made (float64), and the two largest
/// movements.
struct Drift {
    std::vector<double> moved;
    double largest = 0, second = 0;
    int64_t largest_at = -1;
};

Drift centre_drift(const Matrix& now, const Matrix& before);

/// Half the distance from each live centre to its nearest other live centre: a point within
/// it of its own centre is nearer to that centre than to any other.
std::vector<double> half_separation(const Matrix& C, const std::vector<char>& alive);

/// float32 distances carry rounding of about 1e-6 of the terms they cancel (the point's and
/// the largest centre's squared norms): a bound proves a label only beyond this margin.
inline double rounding_slack(float point_term, float top_centre_term) {
    return std::sqrt(4e-6 * (std::fabs(point_term) + top_centre_term));
}

/// What a bounded pass knows before it computes a distance: the centres' drift, their half
/// separations and liveness, and the largest centre term (for rounding_slack).
struct BoundedStep {
    const Drift& drift;
    const std::vector<double>& half;
    const std::vector<char>& alive;
    float top;
};

/// Hamerly's screen of rows [begin, end): moves each row's bounds by the drift, keeps its label
/// (next = labels, dist = distance(i, upper bound)) and returns the rows whose bounds do not
/// prove it, which the caller computes. point_term(i): the row's own term of its distances
/// (its squared norm), for the rounding slack.
template <class PointTerm, class Distance>
std::vector<int64_t> hamerly_screen(int64_t begin, int64_t end, const BoundedStep& step,
                                    const std::vector<int32_t>& labels, std::vector<float>& upper,
                                    std::vector<float>& lower, std::vector<int32_t>& next, std::vector<float>& dist,
                                    PointTerm&& point_term, Distance&& distance) {
    std::vector<int64_t> open;
    for (int64_t i = begin; i < end; ++i) {
        const auto at = static_cast<size_t>(i);
        const int32_t a = labels[at];
        const double up = upper[at] + step.drift.moved[static_cast<size_t>(a)];
        const double low = lower[at] - (a == step.drift.largest_at ? step.drift.second : step.drift.largest);
        // (Tightening the upper bound first would read the whole row for one dot product:
        // most of the cost of all k when the rows are read from memory.)
        const double slack = rounding_slack(point_term(i), step.top);
        next[at] = a;
        upper[at] = static_cast<float>(up);
        lower[at] = static_cast<float>(low);
        dist[at] = distance(i, up);
        if (!step.alive[static_cast<size_t>(a)] || up > std::max(low, step.half[static_cast<size_t>(a)]) - slack) {
            open.push_back(i);
        }
    }
    return open;
}

/// The bounds a Lloyd keeps: none (every distance every iteration), Hamerly's (one lower
/// bound per point) or Elkan's (one per centre; Hamerly's beyond kElkanCentres centres).
enum class Bounds { none, hamerly, elkan };

/// Centres up to which a bounded Lloyd keeps Elkan's k lower bounds per point; beyond, k
/// floats per point would outweigh what they save, and it keeps Hamerly's one.
inline constexpr int64_t kElkanCentres = 32;

/// Lower bounds per point for k centres: k (Elkan) up to kElkanCentres, else 1 (Hamerly).
inline int64_t lower_bounds_per_row(int64_t k) {
    return k <= kElkanCentres ? k : 1;
}

/// ½‖c_a − c_b‖ for every pair of live centres (k×k, row-major; +inf where either is dead or
/// a = b).
std::vector<double> half_distances(const Matrix& C, const std::vector<char>& alive);

/// The smallest value of each row of a k×k half_distances matrix: half_separation's values.
std::vector<double> nearest_half(const std::vector<double>& pairs, int64_t k);

/// Elkan's screen of rows [begin, end), as hamerly_screen with k lower bounds per row
/// (lower[i·k + j] bounds the distance from row i to centre j; step.half from nearest_half):
/// every lower bound moves down by its centre's drift, and a row stays shut when its upper
/// bound is within its centre's half separation, or below max(lower bound, half distance)
/// for every other live centre.
template <class PointTerm, class Distance>
std::vector<int64_t> elkan_screen(int64_t begin, int64_t end, const BoundedStep& step,
                                  const std::vector<double>& pair_half, const std::vector<int32_t>& labels,
                                  std::vector<float>& upper, std::vector<float>& lower, std::vector<int32_t>& next,
                                  std::vector<float>& dist, PointTerm&& point_term, Distance&& distance) {
    const auto k = static_cast<int64_t>(step.alive.size());
    std::vector<int64_t> open;
    for (int64_t i = begin; i < end; ++i) {
        const auto at = static_cast<size_t>(i);
        const int32_t a = labels[at];
        const double up = upper[at] + step.drift.moved[static_cast<size_t>(a)];
        float* low = lower.data() + i * k;
        for (int64_t j = 0; j < k; ++j) low[j] = static_cast<float>(low[j] - step.drift.moved[static_cast<size_t>(j)]);
        const double slack = rounding_slack(point_term(i), step.top);
        next[at] = a;
        upper[at] = static_cast<float>(up);
        dist[at] = distance(i, up);
        bool shut = step.alive[static_cast<size_t>(a)] && up <= step.half[static_cast<size_t>(a)] - slack;
        if (!shut && step.alive[static_cast<size_t>(a)]) {
            shut = true;
            const double* pairs = pair_half.data() + a * k;
            for (int64_t j = 0; j < k && shut; ++j) {
                if (j == a || !step.alive[static_cast<size_t>(j)]) continue;
                shut = up <= std::max(static_cast<double>(low[j]), pairs[j]) - slack;
            }
        }
        if (!shut) open.push_back(i);
    }
    return open;
}

/// True when some cluster of 0..k-1 has no row at all. After a bounded pass that emptied a
/// cluster, the pass is redone in full: the driver refills the cluster with the row farthest
/// by `dist`, which a bounded pass only bounds for the rows it skipped.
/// Over rows spread across ranks (collective): some cluster has no row on any rank.
bool leaves_cluster_empty(const std::vector<int32_t>& labels, int64_t k, const Comm& comm = solo_comm());

/// The bounds a Lloyd keeps from one reassignment to the next, and what they were made for:
/// the labels and the centres (k×r) of that reassignment (labels empty: none yet).
struct LloydBounds {
    explicit LloydBounds(bool on) : enabled(on) {}
    bool enabled;
    std::vector<float> upper, lower;
    std::vector<int32_t> labels;
    Matrix centres;
    int64_t computed = 0;  ///< rows whose distances the last pass computed (the rest were proved)
};

/// One reassignment of a Lloyd that keeps bounds (FeatureLloyd, LandmarkLloyd): `bounded()`
/// when the bounds were made for `labels` on every rank, else `full()`, and `full()` again when
/// the bounded pass left a cluster empty (see leaves_cluster_empty); the bounds are then about
/// `next` and `centres`. Returns the objective over all ranks (the closed form of a bounded
/// pass cancels, and can round below 0: clamped).
template <class Full, class Bounded>
double bounded_reassign(LloydBounds& b, const Comm& comm, int64_t k, const std::vector<int32_t>& labels,
                        const std::vector<int32_t>& next, const Matrix& centres, Full&& full, Bounded&& bounded) {
    const bool use = b.enabled && every_rank(comm, !b.labels.empty() && labels == b.labels);
    double objective = use ? bounded() : full();
    const bool emptied = use && leaves_cluster_empty(next, k, comm);
    if (emptied) objective = full();
    if (b.enabled) {
        b.labels = next;
        b.centres = centres;
    }
    objective = sum_over_ranks(comm, objective);
    return use && !emptied ? std::max(objective, 0.0) : objective;
}

}  // namespace kkm
