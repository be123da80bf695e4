// Skinny products of the Lloyd and seeding steps: the dot products of many long rows (kernel
// rows or features, n×m) with a few (k centres or seeding candidates, t×m). Memory-bound:
// each row of A is read once, the few rows of B stay in L1/L2, and register tiles of
// R rows × J centres accumulate in vector lanes along m.
#pragma once

#include <cstdint>

#include "engine/isa.h"

namespace kkm::engine {

/// out[i·ldo + j] = Σ_t A[i·lda + t] · B[j·ldb + t] for i < rows, j < cols, over m terms, on
/// path `isa`. Single-threaded; each value depends only on its two rows (any blocking gives
/// the same bits).
void row_dots(Isa isa, const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols,
              int64_t ldb, int64_t m, float* out, int64_t ldo);

void row_dots_avx512(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols,
                     int64_t ldb, int64_t m, float* out, int64_t ldo);
void row_dots_avx2(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols,
                   int64_t ldb, int64_t m, float* out, int64_t ldo);
void row_dots_portable(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols,
                       int64_t ldb, int64_t m, float* out, int64_t ldo);

}  // namespace kkm::engine
