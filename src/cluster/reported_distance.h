// A squared distance as the library reports it, from its parts: a + b − 2c with a = ‖x‖² (or
// k(x, x)), b = ‖centre‖², c the cross term. Rounding can take a distance of about 0 below 0:
// that is reported as 0. A value below 0 beyond rounding (more than 1e-3 of the terms' size,
// plus 1e-30 for terms near float32's denormals, whose rounding is coarser) or a non-finite one cannot come from a valid model and finite rows (an overflow, a damaged
// file): it is NaN, which the C API reports as an error, never as a distance of 0.
#pragma once

#include <cmath>
#include <limits>

namespace kkm {

/// full = a + b − 2c; size = |a| + |b| + 2|c|.
inline float reported_distance(double full, double size) {
    if (!std::isfinite(full) || !std::isfinite(size)) return std::numeric_limits<float>::quiet_NaN();
    if (full >= 0) return static_cast<float>(full);
    return full >= -1e-3 * size - 1e-30 ? 0.0f : std::numeric_limits<float>::quiet_NaN();
}

}  // namespace kkm
