// The avx2 register tile of the float64 products (engine/dgemm.h): 8 rows × 6 columns,
// 12 accumulators, one fused multiply-add per lane and step, in step order.
#include "engine/dgemm.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define KKM_AVX2 __attribute__((target("avx2,fma")))

namespace kkm::engine {
namespace {

constexpr int64_t kRows = 8, kCols = 6;

/// The finished columns of a whole tile, two vectors each: C = alpha·S, or fma(alpha, S, beta·C).
KKM_AVX2 void finish_whole(__m256d (&lo)[kCols], __m256d (&hi)[kCols], double alpha, double beta, double* C,
                           int64_t ldc) {
    const __m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
    for (int64_t j = 0; j < kCols; ++j) {
        double* c = C + j * ldc;
        if (beta == 0) {
            _mm256_storeu_pd(c, _mm256_mul_pd(va, lo[j]));
            _mm256_storeu_pd(c + 4, _mm256_mul_pd(va, hi[j]));
        } else {
            _mm256_storeu_pd(c, _mm256_fmadd_pd(va, lo[j], _mm256_mul_pd(vb, _mm256_loadu_pd(c))));
            _mm256_storeu_pd(c + 4, _mm256_fmadd_pd(va, hi[j], _mm256_mul_pd(vb, _mm256_loadu_pd(c + 4))));
        }
    }
}

KKM_AVX2 void tile_avx2(int64_t k, const double* a, const double* b, double alpha, double beta, double* C, int64_t ldc,
                        int64_t h, int64_t w) {
    __m256d lo[kCols], hi[kCols];
    for (int64_t j = 0; j < kCols; ++j) lo[j] = hi[j] = _mm256_setzero_pd();
    for (int64_t p = 0; p < k; ++p, a += kRows, b += kCols) {
        const __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4);
        for (int64_t j = 0; j < kCols; ++j) {
            const __m256d bj = _mm256_set1_pd(b[j]);
            lo[j] = _mm256_fmadd_pd(a0, bj, lo[j]);
            hi[j] = _mm256_fmadd_pd(a1, bj, hi[j]);
        }
    }
    if (h == kRows && w == kCols) {
        finish_whole(lo, hi, alpha, beta, C, ldc);
        return;
    }
    double s[kRows * kCols];
    for (int64_t j = 0; j < kCols; ++j) {
        _mm256_storeu_pd(s + j * kRows, lo[j]);
        _mm256_storeu_pd(s + j * kRows + 4, hi[j]);
    }
    for (int64_t j = 0; j < w; ++j) {
        for (int64_t i = 0; i < h; ++i) C[i + j * ldc] = dgemm_finish(s[i + j * kRows], alpha, beta, C[i + j * ldc]);
    }
}

}  // namespace

DgemmKernel dgemm_kernel_avx2() {
    return {tile_avx2, kRows, kCols};
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
DgemmKernel dgemm_kernel_avx2() {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
}  // namespace kkm::engine

#endif
