// A squared distance as the library reports it, from its parts: a + b − 2c with a = ‖x‖² (or
// k(x, x)), b = ‖centre‖², c the cross term. Rounding can take a distance of about 0 below 0:
// that is reported as 0. A value below 0 beyond rounding (more than 1e-3 of the terms' size,
// plus 1e-30 for terms near float32's denormals, whose rounding is coarser) or a non-finite one cannot come from a valid model and finite rows (an overflow, a damaged
// file): it is NaN, which the C API reports as an error, never as a distance of 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace kkm {

/// full = a + b − 2c; size = |a| + |b| + 2|c|.
inline float reported_distance(double full, double size) {
    if (!std::isfinite(full) || !std::isfinite(size)) return std::numeric_limits<float>::quiet_NaN();
    if (full >= 0) return static_cast<float>(full);
    return full >= -1e-3 * size - 1e-30 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
}

/// The nearest live centre of one row, its distances offered in centre order: the first
/// minimum (centre, distance, terms' size), the runner-up's distance, and whether a live
/// centre's reported distance was NaN (then so is the row's: an error at the C API).
template <class Real>
struct NearestCentre {
    Real best = std::numeric_limits<Real>::infinity();
    Real next = std::numeric_limits<Real>::infinity();
    double best_size = 0;
    int32_t arg = 0;
    bool poisoned = false;

    /// Centre j at distance d with terms' size `size`, reported as `reported`, which is also
    /// stored at *each when `each` is not NULL.
    void offer(int64_t j, Real d, double size, float reported, float* each) {
        poisoned = poisoned || std::isnan(reported);
        if (each != nullptr) *each = reported;
        if (d < best) {
            next = best;
            best = d;
            best_size = size;
            arg = static_cast<int32_t>(j);
        } else if (d < next) {
            next = d;
        }
    }

    /// The row's reported distance: NaN when poisoned, else `report` of the best.
    template <class Report>
    float distance(Report&& report) const {
        return poisoned ? std::numeric_limits<float>::quiet_NaN() : report(best, best_size);
    }
};

}  // namespace kkm
