// Landmark samplers for Nyström: which training points span the approximation.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"

namespace kkm {

/// m distinct indices drawn uniformly from [0, n), returned in increasing order
/// (partial Fisher–Yates).
std::vector<int64_t> uniform_landmarks(int64_t n, int64_t m, Rng& rng);

}  // namespace kkm
