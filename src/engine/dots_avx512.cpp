// row_dots on AVX-512: tiles of 4 rows × up to 6 centres (24 zmm accumulators), 16 lanes
// along m, a masked tail.
#include "engine/dots.h"

#if defined(__x86_64__) && defined(__GNUC__)
#if !defined(__clang__)
// GCC 12 avx512fintrin.h seeds masked builtins with undefined vectors: false positives.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#define KKM_AVX512 __attribute__((target("avx512f,avx512dq,fma")))

namespace kkm::engine {
namespace {

constexpr int64_t R = 4;
constexpr int64_t J = 6;

KKM_AVX512 inline float hsum(__m512 v) {
    const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
    const __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
    const __m128 p = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(p, _mm_movehdup_ps(p)));
}

/// rows × cols (≤ R × J) dot products, accumulated along m in 16 lanes.
template <int64_t NR, int64_t NJ>
struct Tile {
    KKM_AVX512 static void run(const float* A, int64_t lda, const float* B, int64_t ldb, int64_t m, float* out,
                               int64_t ldo) {
        __m512 acc[NR][NJ];
        for (int64_t r = 0; r < NR; ++r) {
            for (int64_t j = 0; j < NJ; ++j) acc[r][j] = _mm512_setzero_ps();
        }
        for (int64_t t = 0; t < m; t += 16) {
            const __mmask16 mask =
                m - t >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (m - t)) - 1u);
            __m512 a[NR];
            for (int64_t r = 0; r < NR; ++r) a[r] = _mm512_maskz_loadu_ps(mask, A + r * lda + t);
            for (int64_t j = 0; j < NJ; ++j) {
                const __m512 b = _mm512_maskz_loadu_ps(mask, B + j * ldb + t);
                for (int64_t r = 0; r < NR; ++r) acc[r][j] = _mm512_fmadd_ps(a[r], b, acc[r][j]);
            }
        }
        for (int64_t r = 0; r < NR; ++r) {
            for (int64_t j = 0; j < NJ; ++j) out[r * ldo + j] = hsum(acc[r][j]);
        }
    }
};

}  // namespace

void row_dots_avx512(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
                     float* out, int64_t ldo) {
    for_each_dot_tile<R, J, Tile>(A, rows, lda, B, cols, ldb, m, out, ldo);
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void row_dots_avx512(const float*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
}  // namespace kkm::engine

#endif
