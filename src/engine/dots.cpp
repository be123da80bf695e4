#include "engine/dots.h"

namespace kkm::engine {

void row_dots_portable(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
                       float* out, int64_t ldo) {
    for (int64_t i = 0; i < rows; ++i) {
        const float* a = A + i * lda;
        for (int64_t j = 0; j < cols; ++j) {
            const float* b = B + j * ldb;
            float s = 0.0f;
            for (int64_t t = 0; t < m; ++t) s += a[t] * b[t];
            out[i * ldo + j] = s;
        }
    }
}

void row_dots(Isa isa, const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
              float* out, int64_t ldo) {
    if (rows <= 0 || cols <= 0) return;
    switch (isa) {
        case Isa::avx512: row_dots_avx512(A, rows, lda, B, cols, ldb, m, out, ldo); return;
        case Isa::avx2: row_dots_avx2(A, rows, lda, B, cols, ldb, m, out, ldo); return;
        case Isa::portable: row_dots_portable(A, rows, lda, B, cols, ldb, m, out, ldo); return;
    }
}

}  // namespace kkm::engine
