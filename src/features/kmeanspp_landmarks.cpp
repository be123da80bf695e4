// Landmarks by D² sampling in kernel space (k-means++ seeding, Arthur & Vassilvitskii 2007,
// on the feature map φ): each next landmark is drawn ∝ its squared distance ‖φ_i − φ_c‖² to
// the nearest landmark chosen so far.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/blocking.h"
#include "core/progress.h"
#include "features/landmarks.h"

namespace kkm {
namespace {

/// The `rank`-th (from 0) global index not yet chosen (`chosen`: the indices drawn so far).
int64_t nth_unchosen(std::vector<int64_t> chosen, int64_t rank) {
    std::sort(chosen.begin(), chosen.end());
    int64_t index = rank;
    for (int64_t c : chosen) {
        if (c > index) break;
        ++index;
    }
    return index;
}

/// A local index drawn ∝ d2 at `target` within this rank's share: the first whose running sum
/// passes it. Round-off can leave the target past the last sum; then the last positive entry
/// is taken.
int64_t draw_local(const std::vector<double>& d2, double target) {
    double running = 0.0;
    int64_t last_positive = -1;
    for (int64_t i = 0; i < static_cast<int64_t>(d2.size()); ++i) {
        const double v = d2[static_cast<size_t>(i)];
        if (v <= 0) continue;
        running += v;
        last_positive = i;
        if (running > target) return i;
    }
    return last_positive;
}

/// Lowers d2 to the squared feature-space distance K_ii + K_cc − 2K_ic to the new landmark c
/// (a global index) where that is smaller (clamped at 0: round-off); chosen points stay at
/// exactly 0.
void update_distances(const LandmarkContext& ctx, const RowPartition& part, int64_t c, const std::vector<bool>& chosen,
                      std::vector<double>& d2) {
    const Matrix column = kernel_columns(ctx, {c});
    const int owner = part.owner(c);
    double kcc = ctx.comm->rank() == owner ? ctx.diag[static_cast<size_t>(c - part.offset)] : 0.0;
    broadcast(*ctx.comm, &kcc, sizeof kcc, owner);
    for (size_t i = 0; i < d2.size(); ++i) {
        const double dist = ctx.diag[i] + kcc - 2.0 * column.data()[i];
        d2[i] = chosen[i] ? 0.0 : std::min(d2[i], std::max(dist, 0.0));
    }
}

/// The next landmark after the first (collective): drawn ∝ d2 over all ranks, or uniformly
/// among the unchosen points when every remaining point coincides with a landmark.
int64_t next_landmark(const LandmarkContext& ctx, const RowPartition& part, const std::vector<double>& d2,
                      const std::vector<int64_t>& chosen, Rng& rng) {
    double total = 0.0;  // sequential, in index order: independent of the thread count
    for (double v : d2) total += v;
    const DrawShare share = locate_draw(*ctx.comm, total, rng);
    if (share.rank < 0) {
        const auto left = static_cast<uint64_t>(part.global - static_cast<int64_t>(chosen.size()));
        return nth_unchosen(chosen, static_cast<int64_t>(rng.below(left)));
    }
    const int64_t local = ctx.comm->rank() == share.rank ? draw_local(d2, share.target) : 0;
    return broadcast_index(*ctx.comm, part.offset + local, share.rank);
}

}  // namespace

double kmeanspp_footprint(const SamplerShape& s) {
    const RowBlocks b = row_blocks(s.n, s.threads);
    const double row_block = b.workers * KernelBasis::row_block_footprint(b.rows, s.d, 0, s.precomputed);
    // diagonal, chosen flags, D² distances, one kernel column, every thread's row block, the
    // chosen point's basis
    return 4 * s.n + s.n / 8 + 8 * s.n + 8 * s.m + Matrix::footprint(s.n, 1) + row_block +
           KernelBasis::footprint(1, s.d, s.precomputed) + KernelBasis::build_footprint(1, s.d, s.precomputed);
}

std::vector<int64_t> kmeanspp_landmarks(const LandmarkContext& ctx, int64_t m, Rng& rng) {
    const RowPartition part = ctx.part.starts.empty() ? solo_partition(ctx.X.rows) : ctx.part;
    std::vector<bool> chosen(static_cast<size_t>(part.local), false);
    std::vector<double> d2(static_cast<size_t>(part.local), std::numeric_limits<double>::infinity());
    std::vector<int64_t> result;
    result.reserve(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) {
        progress_range(static_cast<double>(k) / static_cast<double>(m),
                       static_cast<double>(k + 1) / static_cast<double>(m));
        // The first landmark uniformly.
        const int64_t c = k == 0 ? static_cast<int64_t>(rng.below(static_cast<uint64_t>(part.global)))
                                 : next_landmark(ctx, part, d2, result, rng);
        if (part.holds(c)) chosen[static_cast<size_t>(c - part.offset)] = true;
        result.push_back(c);
        if (k + 1 < m) update_distances(ctx, part, c, chosen, d2);
    }
    std::sort(result.begin(), result.end());
    return result;
}

}  // namespace kkm
