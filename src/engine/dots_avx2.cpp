// row_dots on AVX2+FMA: tiles of 2 rows × up to 5 centres (10 ymm accumulators), 8 lanes
// along m, then a tail of fewer than 8 lanes (zeros beyond m). Half rows are widened in
// registers (F16C vcvtph2ps) as they are loaded.
#include "engine/dots.h"
#include "engine/half.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define KKM_AVX2 __attribute__((target("avx2,fma,f16c")))

namespace kkm::engine {
namespace {

constexpr int64_t R = 2;
constexpr int64_t J = 5;

KKM_AVX2 inline float hsum(__m256 v) {
    const __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 p = _mm_add_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_add_ss(p, _mm_movehdup_ps(p)));
}

KKM_AVX2 inline __m256 load8(const float* p) {
    return _mm256_loadu_ps(p);
}
KKM_AVX2 inline __m256 load8(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
/// The first `left` (< 8) values at p, zeros after them.
KKM_AVX2 inline __m256 load_tail(const float* p, int64_t left) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(left)), lanes));
}
KKM_AVX2 inline __m256 load_tail(const uint16_t* p, int64_t left) {
    alignas(16) uint16_t buf[8] = {};
    for (int64_t l = 0; l < left; ++l) buf[l] = p[l];
    return _mm256_cvtph_ps(_mm_load_si128(reinterpret_cast<const __m128i*>(buf)));
}

/// rows × cols (≤ R × J) dot products, accumulated along m in 8 lanes.
template <int64_t NR, int64_t NJ, class T>
struct Tile {
    KKM_AVX2 static void run(const T* const* A, const T* const* next, const float* B, int64_t ldb, int64_t m,
                             float* out, int64_t ldo) {
        __m256 acc[NR][NJ];
        for (int64_t r = 0; r < NR; ++r) {
            for (int64_t j = 0; j < NJ; ++j) acc[r][j] = _mm256_setzero_ps();
        }
        int64_t t = 0;
        for (; t + 8 <= m; t += 8) {
            if (next != nullptr && (t * static_cast<int64_t>(sizeof(T))) % 64 == 0) {
                for (int64_t r = 0; r < NR; ++r) __builtin_prefetch(next[r] + t);
            }
            __m256 a[NR];
            for (int64_t r = 0; r < NR; ++r) a[r] = load8(A[r] + t);
            for (int64_t j = 0; j < NJ; ++j) {
                __m256 b = load8(B + j * ldb + t);
                // One load per centre: GCC folded it into each row's FMA (NR loads of it).
                asm("" : "+x"(b));
                for (int64_t r = 0; r < NR; ++r) acc[r][j] = _mm256_fmadd_ps(a[r], b, acc[r][j]);
            }
        }
        if (t < m) {
            __m256 a[NR];
            for (int64_t r = 0; r < NR; ++r) a[r] = load_tail(A[r] + t, m - t);
            for (int64_t j = 0; j < NJ; ++j) {
                const __m256 b = load_tail(B + j * ldb + t, m - t);
                for (int64_t r = 0; r < NR; ++r) acc[r][j] = _mm256_fmadd_ps(a[r], b, acc[r][j]);
            }
        }
        for (int64_t r = 0; r < NR; ++r) {
            for (int64_t j = 0; j < NJ; ++j) out[r * ldo + j] = hsum(acc[r][j]);
        }
    }
};

}  // namespace

void row_dots_avx2(const float* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                   int64_t ldb, int64_t m, float* out, int64_t ldo) {
    for_each_dot_tile<R, J, Tile>(A, idx, rows, lda, B, cols, ldb, m, out, ldo);
}

void row_dots_avx2(const uint16_t* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                   int64_t ldb, int64_t m, float* out, int64_t ldo) {
    for_each_dot_tile<R, J, Tile>(A, idx, rows, lda, B, cols, ldb, m, out, ldo);
}

namespace {

// The plain loops round the product, then the sum; GCC would fuse mul and add into one FMA
// here (one rounding: other bits). The empty asm hides the product from it.
KKM_AVX2 inline __m256 add_product(__m256 sum, __m256 a, __m256 b) {
    __m256 product = _mm256_mul_ps(a, b);
    asm("" : "+x"(product));
    return _mm256_add_ps(sum, product);
}
KKM_AVX2 inline __m256d add_product(__m256d sum, __m256d a, __m256d b) {
    __m256d product = _mm256_mul_pd(a, b);
    asm("" : "+x"(product));
    return _mm256_add_pd(sum, product);
}

/// Scalar tails alike.
template <class F>
KKM_AVX2 inline F add_product(F sum, F a, F b) {
    F product = a * b;
    asm("" : "+x"(product));
    return sum + product;
}

template <class T>
KKM_AVX2 void axpy8(float g, const T* p, float* o, int64_t count) {
    const __m256 gv = _mm256_set1_ps(g);
    int64_t s = 0;
    for (; s + 8 <= count; s += 8) {
        _mm256_storeu_ps(o + s, add_product(_mm256_loadu_ps(o + s), gv, load8(p + s)));
    }
    for (; s < count; ++s) o[s] = add_product(o[s], g, widen(p[s]));
}

}  // namespace

void axpy_avx2(float g, const float* p, float* o, int64_t count) {
    axpy8(g, p, o, count);
}

void axpy_avx2(float g, const uint16_t* p, float* o, int64_t count) {
    axpy8(g, p, o, count);
}

KKM_AVX2 void axpy_widen_avx2(double g, const float* p, double* o, int64_t count) {
    const __m256d gv = _mm256_set1_pd(g);
    int64_t s = 0;
    for (; s + 4 <= count; s += 4) {
        _mm256_storeu_pd(o + s, add_product(_mm256_loadu_pd(o + s), gv, _mm256_cvtps_pd(_mm_loadu_ps(p + s))));
    }
    for (; s < count; ++s) o[s] = add_product(o[s], g, static_cast<double>(p[s]));
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void axpy_widen_avx2(double, const float*, double*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
void axpy_avx2(float, const float*, float*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
void axpy_avx2(float, const uint16_t*, float*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
void row_dots_avx2(const float*, const int64_t*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*,
                   int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
void row_dots_avx2(const uint16_t*, const int64_t*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*,
                   int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
}  // namespace kkm::engine

#endif
