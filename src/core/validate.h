// Input checks shared by fit, assign and transform. Each throws kkm::Error with a message
// naming what is wrong (argument, row, column).
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"

namespace kkm {

/// Throws INVALID_ARGUMENT unless ptr is non-NULL.
void require_pointer(const void* ptr, const char* name);

/// Throws INVALID_ARGUMENT unless n > 0 and d > 0.
void require_shape(int64_t n, int64_t d);

/// Throws INVALID_DATA naming the first row and column holding NaN or ±Inf.
void require_finite(ConstMatrix X, const char* name);

/// Checks weights (finite, ≥ 0, positive sum) and returns them as float (empty when NULL).
std::vector<float> checked_weights(const float* w, int64_t n);
std::vector<float> checked_weights(const double* w, int64_t n);

/// Converts float64 rows to float32, throwing INVALID_DATA on NaN/Inf or values beyond the
/// float32 range (naming row and column).
Matrix to_float32(const double* X, int64_t n, int64_t d, const char* name);

}  // namespace kkm
