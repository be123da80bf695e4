// Landmarks by D² sampling in kernel space (k-means++ seeding, Arthur & Vassilvitskii 2007,
// on the feature map φ): each next landmark is drawn ∝ its squared distance ‖φ_i − φ_c‖² to
// the nearest landmark chosen so far.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/progress.h"
#include "features/landmarks.h"

namespace kkm {
namespace {

/// The `rank`-th (from 0) index not yet chosen.
int64_t nth_unchosen(const std::vector<bool>& chosen, int64_t rank) {
    for (int64_t i = 0;; ++i) {
        if (!chosen[static_cast<size_t>(i)] && rank-- == 0) return i;
    }
}

/// An index drawn ∝ d2 (sum `total` > 0): the first whose running sum passes u·total. Round-off
/// can leave the target past the last sum; then the last positive entry is taken.
int64_t draw_proportional(const std::vector<double>& d2, double total, Rng& rng) {
    const double target = rng.uniform() * total;
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
/// where that is smaller (clamped at 0: round-off); chosen points stay at exactly 0.
void update_distances(const LandmarkContext& ctx, int64_t c, const std::vector<bool>& chosen,
                      std::vector<double>& d2) {
    const Matrix column = kernel_columns(ctx, {c});
    const double kcc = ctx.diag[static_cast<size_t>(c)];
    for (size_t i = 0; i < d2.size(); ++i) {
        const double dist = ctx.diag[i] + kcc - 2.0 * column.data()[i];
        d2[i] = chosen[i] ? 0.0 : std::min(d2[i], std::max(dist, 0.0));
    }
}

}  // namespace

std::vector<int64_t> kmeanspp_landmarks(const LandmarkContext& ctx, int64_t m, Rng& rng) {
    const int64_t n = ctx.X.rows;
    std::vector<bool> chosen(static_cast<size_t>(n), false);
    std::vector<double> d2(static_cast<size_t>(n), std::numeric_limits<double>::infinity());
    std::vector<int64_t> result;
    result.reserve(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) {
        progress_range(static_cast<double>(k) / static_cast<double>(m), static_cast<double>(k + 1) / static_cast<double>(m));
        double total = 0.0;  // sequential, in index order: independent of the thread count
        for (double v : d2) total += v;
        // The first landmark, or every remaining point coincides with a landmark: uniform.
        const bool uniform = k == 0 || !(total > 0);
        const int64_t c = uniform ? nth_unchosen(chosen, static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - k))))
                                  : draw_proportional(d2, total, rng);
        chosen[static_cast<size_t>(c)] = true;
        result.push_back(c);
        if (k + 1 < m) update_distances(ctx, c, chosen, d2);
    }
    std::sort(result.begin(), result.end());
    return result;
}

}  // namespace kkm
