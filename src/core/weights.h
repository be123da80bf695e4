// Sample weights as every stage reads them: empty means all ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kkm {

/// Weight of row i (1 when weights is empty), as a double for float64 sums.
inline double weight_at(const std::vector<float>& weights, int64_t i) {
    return weights.empty() ? 1.0 : static_cast<double>(weights[static_cast<size_t>(i)]);
}

/// The same as a float, for float32 arithmetic (the landmark Lloyd's per-row terms).
inline float weight_at_f32(const std::vector<float>& weights, int64_t i) {
    return weights.empty() ? 1.0f : weights[static_cast<size_t>(i)];
}

}  // namespace kkm
