#include "cluster/seeding.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/progress.h"
#include "core/weights.h"

namespace kkm {
namespace {

/// Global index drawn with probability ∝ mass[i] over all ranks (cumulative: this rank's
/// running sums in double, in index order; the ranks' totals added in rank order).
int64_t draw_proportional(const std::vector<double>& cumulative, const Comm& comm, const RowPartition& part, Rng& rng) {
    const DrawShare share = locate_draw(comm, cumulative.empty() ? 0.0 : cumulative.back(), rng);
    if (share.rank < 0) return static_cast<int64_t>(rng.below(static_cast<uint64_t>(part.global)));
    int64_t index = 0;
    if (share.rank == comm.rank()) {
        auto it = std::upper_bound(cumulative.begin(), cumulative.end(), share.target);
        if (it == cumulative.end()) --it;
        index = part.offset + (it - cumulative.begin());
    }
    return broadcast_index(comm, index, share.rank);
}

std::vector<double> cumulative_mass(const std::vector<float>& w, const std::vector<float>& d) {
    std::vector<double> c(d.size());
    double s = 0;
    for (size_t i = 0; i < d.size(); ++i) {
        s += weight_at(w, static_cast<int64_t>(i)) * (d.empty() ? 1.0 : static_cast<double>(d[i]));
        c[i] = s;
    }
    return c;
}

/// Merges centre number `index` (distances `dist`) into the running nearest assignment.
void absorb(Seeding& s, std::vector<float>& closest, const float* dist, int32_t index) {
    for (size_t i = 0; i < closest.size(); ++i) {
        if (dist[i] < closest[i]) {
            closest[i] = dist[i];
            s.labels[i] = index;
        }
    }
}

double potential(const std::vector<float>& w, const std::vector<float>& closest, const float* candidate) {
    double p = 0;
    for (size_t i = 0; i < closest.size(); ++i) {
        p += weight_at(w, static_cast<int64_t>(i)) * std::min(closest[i], candidate[i]);
    }
    return p;
}

}  // namespace

int64_t seeding_candidates(Init init, int64_t k) {
    return init == Init::random ? 16 : 2 + static_cast<int64_t>(std::log(static_cast<double>(k)));
}

double seeding_footprint(const Params& p, double n) {
    const auto t = static_cast<double>(seeding_candidates(p.init, p.k));
    if (p.init == Init::random) return n * (4 + 4) + 4 * t * n;
    return n * (4 + 4 + 4 + 8) + 4 * t * n;
}

namespace {

Seeding seed_kmeanspp(const Comm& comm, const RowPartition& part, int64_t k, const std::vector<float>& w,
                      const SquaredDistanceToPoint& distance_to, Rng& rng) {
    const int64_t n = part.local;
    Seeding s;
    s.labels.assign(static_cast<size_t>(n), 0);
    std::vector<float> closest(static_cast<size_t>(n));
    const std::vector<float> unit(static_cast<size_t>(n), 1.0f);
    s.centres.push_back(draw_proportional(cumulative_mass(w, unit), comm, part, rng));
    progress_range(0.0, 1.0 / static_cast<double>(k));
    distance_to({s.centres[0]}, closest.data());
    const auto trials = static_cast<int>(seeding_candidates(Init::kmeanspp, k));
    std::vector<float> candidates(static_cast<size_t>(trials * n));
    for (int64_t c = 1; c < k; ++c) {
        // Step c's share of the stage: the oracle's parallel loops report within it.
        progress_range(static_cast<double>(c) / static_cast<double>(k),
                       static_cast<double>(c + 1) / static_cast<double>(k));
        const std::vector<double> cumulative = cumulative_mass(w, closest);
        std::vector<int64_t> ids(static_cast<size_t>(trials));
        for (int64_t& id : ids) id = draw_proportional(cumulative, comm, part, rng);
        distance_to(ids, candidates.data());
        std::vector<double> potentials(static_cast<size_t>(trials));
        for (int t = 0; t < trials; ++t)
            potentials[static_cast<size_t>(t)] = potential(w, closest, candidates.data() + t * n);
        sum_over_ranks(comm, potentials.data(), potentials.size());
        const auto best = static_cast<int>(std::min_element(potentials.begin(), potentials.end()) - potentials.begin());
        s.centres.push_back(ids[static_cast<size_t>(best)]);
        absorb(s, closest, candidates.data() + best * n, static_cast<int32_t>(c));
    }
    return s;
}

Seeding seed_random(const RowPartition& part, int64_t k, const SquaredDistanceToPoint& distance_to, Rng& rng) {
    Seeding s;
    const int64_t n = part.local;
    // Floyd's algorithm: k distinct indices, in draw order.
    for (int64_t j = part.global - k; j < part.global; ++j) {
        const int64_t t = static_cast<int64_t>(rng.below(static_cast<uint64_t>(j + 1)));
        s.centres.push_back(std::find(s.centres.begin(), s.centres.end(), t) == s.centres.end() ? t : j);
    }
    s.labels.assign(static_cast<size_t>(n), 0);
    std::vector<float> closest(static_cast<size_t>(n), std::numeric_limits<float>::infinity());
    const int64_t kGroup = seeding_candidates(Init::random, k);  // centres per pass over the data
    std::vector<float> dist(static_cast<size_t>(kGroup * n));
    for (int64_t first = 0; first < k; first += kGroup) {
        progress_range(static_cast<double>(first) / static_cast<double>(k),
                       static_cast<double>(std::min(k, first + kGroup)) / static_cast<double>(k));
        const std::vector<int64_t> group(s.centres.begin() + first, s.centres.begin() + std::min(k, first + kGroup));
        distance_to(group, dist.data());
        for (size_t t = 0; t < group.size(); ++t) {
            absorb(s, closest, dist.data() + static_cast<int64_t>(t) * n,
                   static_cast<int32_t>(first + static_cast<int64_t>(t)));
        }
    }
    return s;
}

}  // namespace

Seeding seed_centres(Init init, int64_t n, int64_t k, const std::vector<float>& weights,
                     const SquaredDistanceToPoint& distance_to, Rng& rng) {
    return seed_centres(init, solo_comm(), solo_partition(n), k, weights, distance_to, rng);
}

Seeding seed_centres(Init init, const Comm& comm, const RowPartition& part, int64_t k,
                     const std::vector<float>& weights, const SquaredDistanceToPoint& distance_to, Rng& rng) {
    if (init == Init::random) return seed_random(part, k, distance_to, rng);
    return seed_kmeanspp(comm, part, k, weights, distance_to, rng);
}

}  // namespace kkm
