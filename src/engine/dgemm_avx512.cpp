// The avx512 register tile of the float64 products (engine/dgemm.h): 16 rows × 12 columns,
// 24 accumulators, one fused multiply-add per lane and step, in step order.
#include "engine/dgemm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define KKM_AVX512 __attribute__((target("avx512f,avx512dq,fma")))

namespace kkm::engine {
namespace {

constexpr int64_t kRows = 16, kCols = 12;

/// The finished columns of a whole tile, two vectors each: C = alpha·S, or fma(alpha, S, beta·C).
KKM_AVX512 void finish_whole(__m512d (&lo)[kCols], __m512d (&hi)[kCols], double alpha, double beta, double* C,
                             int64_t ldc) {
    const __m512d va = _mm512_set1_pd(alpha), vb = _mm512_set1_pd(beta);
    for (int64_t j = 0; j < kCols; ++j) {
        double* c = C + j * ldc;
        if (beta == 0) {
            _mm512_storeu_pd(c, _mm512_mul_pd(va, lo[j]));
            _mm512_storeu_pd(c + 8, _mm512_mul_pd(va, hi[j]));
        } else {
            _mm512_storeu_pd(c, _mm512_fmadd_pd(va, lo[j], _mm512_mul_pd(vb, _mm512_loadu_pd(c))));
            _mm512_storeu_pd(c + 8, _mm512_fmadd_pd(va, hi[j], _mm512_mul_pd(vb, _mm512_loadu_pd(c + 8))));
        }
    }
}

KKM_AVX512 void tile_avx512(int64_t k, const double* a, const double* b, double alpha, double beta, double* C,
                            int64_t ldc, int64_t h, int64_t w) {
    __m512d lo[kCols], hi[kCols];
    for (int64_t j = 0; j < kCols; ++j) lo[j] = hi[j] = _mm512_setzero_pd();
    for (int64_t p = 0; p < k; ++p, a += kRows, b += kCols) {
        const __m512d a0 = _mm512_loadu_pd(a), a1 = _mm512_loadu_pd(a + 8);
        for (int64_t j = 0; j < kCols; ++j) {
            const __m512d bj = _mm512_set1_pd(b[j]);
            lo[j] = _mm512_fmadd_pd(a0, bj, lo[j]);
            hi[j] = _mm512_fmadd_pd(a1, bj, hi[j]);
        }
    }
    if (h == kRows && w == kCols) {
        finish_whole(lo, hi, alpha, beta, C, ldc);
        return;
    }
    double s[kRows * kCols];
    for (int64_t j = 0; j < kCols; ++j) {
        _mm512_storeu_pd(s + j * kRows, lo[j]);
        _mm512_storeu_pd(s + j * kRows + 8, hi[j]);
    }
    for (int64_t j = 0; j < w; ++j) {
        for (int64_t i = 0; i < h; ++i) C[i + j * ldc] = dgemm_finish(s[i + j * kRows], alpha, beta, C[i + j * ldc]);
    }
}

}  // namespace

DgemmKernel dgemm_kernel_avx512() {
    return {tile_avx512, kRows, kCols};
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
DgemmKernel dgemm_kernel_avx512() {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
}  // namespace kkm::engine

#endif
