// Checks on a caller's precomputed kernel matrix (kernel=precomputed): kernel k-means needs a
// symmetric positive semi-definite K, and a matrix that is clearly not one (a typo, a distance
// matrix, a similarity that is not a kernel) otherwise fits with status OK, a negative
// objective and assignments that disagree with the training labels.
#pragma once

#include "core/matrix.h"

namespace kkm {

/// Throws INVALID_DATA, naming the entry, unless the n×n matrix K
///  - has a diagonal ≥ 0 (K_ii = ‖φ(x_i)‖²),
///  - is symmetric: |K_ij − K_ji| ≤ 1e-4 · (√(K_ii K_jj) + |K_ij| + |K_ji|) + 1e-6 · s,
///  - satisfies Cauchy–Schwarz: |K_ij| ≤ (1 + 1e-3) · √(K_ii K_jj) + 1e-6 · s,
/// with s the largest diagonal value (the tolerances leave room for float32 rounding of a
/// kernel computed elsewhere). These are necessary conditions of positive semi-definiteness,
/// not sufficient: an indefinite K that passes them still fits. O(n²), multithreaded.
void check_precomputed_kernel(ConstMatrix K, int threads);

}  // namespace kkm
