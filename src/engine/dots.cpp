#include "engine/dots.h"

#include "engine/half.h"

namespace kkm::engine {
namespace {

template <class T>
void row_dots_portable(const T* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                       int64_t ldb, int64_t m, float* out, int64_t ldo) {
    for (int64_t i = 0; i < rows; ++i) {
        const T* a = A + (idx != nullptr ? idx[i] : i) * lda;
        for (int64_t j = 0; j < cols; ++j) {
            const float* b = B + j * ldb;
            float s = 0.0f;
            for (int64_t t = 0; t < m; ++t) s += widen(a[t]) * b[t];
            out[i * ldo + j] = s;
        }
    }
}

template <class T>
void dispatch(Isa isa, const T* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
              int64_t ldb, int64_t m, float* out, int64_t ldo) {
    if (rows <= 0 || cols <= 0) return;
    switch (isa) {
        case Isa::avx512: row_dots_avx512(A, idx, rows, lda, B, cols, ldb, m, out, ldo); return;
        case Isa::avx2: row_dots_avx2(A, idx, rows, lda, B, cols, ldb, m, out, ldo); return;
        case Isa::portable: row_dots_portable(A, idx, rows, lda, B, cols, ldb, m, out, ldo); return;
    }
}

}  // namespace

void row_dots(Isa isa, const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
              float* out, int64_t ldo) {
    dispatch(isa, A, nullptr, rows, lda, B, cols, ldb, m, out, ldo);
}

void row_dots_at(Isa isa, const float* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                 int64_t ldb, int64_t m, float* out, int64_t ldo) {
    dispatch(isa, A, idx, rows, lda, B, cols, ldb, m, out, ldo);
}

void row_dots_half(Isa isa, const uint16_t* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B,
                   int64_t cols, int64_t ldb, int64_t m, float* out, int64_t ldo) {
    dispatch(isa, A, idx, rows, lda, B, cols, ldb, m, out, ldo);
}

void axpy_widen(Isa isa, double g, const float* p, double* o, int64_t count) {
    switch (isa) {
        case Isa::avx512: axpy_widen_avx512(g, p, o, count); return;
        case Isa::avx2: axpy_widen_avx2(g, p, o, count); return;
        case Isa::portable: break;
    }
    for (int64_t s = 0; s < count; ++s) o[s] += g * p[s];
}

namespace {

template <class T>
void axpy_dispatch(Isa isa, float g, const T* p, float* o, int64_t count) {
    switch (isa) {
        case Isa::avx512: axpy_avx512(g, p, o, count); return;
        case Isa::avx2: axpy_avx2(g, p, o, count); return;
        case Isa::portable: break;
    }
    for (int64_t s = 0; s < count; ++s) o[s] += g * widen(p[s]);
}

}  // namespace

void axpy(Isa isa, float g, const float* p, float* o, int64_t count) {
    axpy_dispatch(isa, g, p, o, count);
}

void axpy(Isa isa, float g, const uint16_t* p, float* o, int64_t count) {
    axpy_dispatch(isa, g, p, o, count);
}

}  // namespace kkm::engine
