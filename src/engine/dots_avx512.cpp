// row_dots on AVX-512: tiles of 4 rows × up to 6 centres (24 zmm accumulators), 16 lanes
// along m, then a tail of fewer than 16 lanes (zeros beyond m). Half rows are widened in
// registers (vcvtph2ps) as they are loaded.
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

KKM_AVX512 inline __m512 load16(const float* p) {
    return _mm512_loadu_ps(p);
}
KKM_AVX512 inline __m512 load16(const uint16_t* p) {
    return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
/// The first `left` (< 16) values at p, zeros after them.
KKM_AVX512 inline __m512 load_tail(const float* p, int64_t left) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << left) - 1u), p);
}
KKM_AVX512 inline __m512 load_tail(const uint16_t* p, int64_t left) {
    alignas(32) uint16_t buf[16] = {};  // masked 16-bit loads would need AVX-512BW
    for (int64_t l = 0; l < left; ++l) buf[l] = p[l];
    return _mm512_cvtph_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(buf)));
}

/// rows × cols (≤ R × J) dot products, accumulated along m in 16 lanes.
template <int64_t NR, int64_t NJ, class T>
struct Tile {
    KKM_AVX512 static void run(const T* const* A, const T* const* next, const float* B, int64_t ldb, int64_t m,
                               float* out, int64_t ldo) {
        __m512 acc[NR][NJ];
        for (int64_t r = 0; r < NR; ++r) {
            for (int64_t j = 0; j < NJ; ++j) acc[r][j] = _mm512_setzero_ps();
        }
        int64_t t = 0;
        for (; t + 16 <= m; t += 16) {
            if (next != nullptr && (t * static_cast<int64_t>(sizeof(T))) % 64 == 0) {
                for (int64_t r = 0; r < NR; ++r) __builtin_prefetch(next[r] + t);
            }
            __m512 a[NR];
            for (int64_t r = 0; r < NR; ++r) a[r] = load16(A[r] + t);
            for (int64_t j = 0; j < NJ; ++j) {
                __m512 b = load16(B + j * ldb + t);
                asm("" : "+v"(b));  // one load per centre, as on AVX2 (not measured on AVX-512)
                for (int64_t r = 0; r < NR; ++r) acc[r][j] = _mm512_fmadd_ps(a[r], b, acc[r][j]);
            }
        }
        if (t < m) {
            __m512 a[NR];
            for (int64_t r = 0; r < NR; ++r) a[r] = load_tail(A[r] + t, m - t);
            for (int64_t j = 0; j < NJ; ++j) {
                const __m512 b = load_tail(B + j * ldb + t, m - t);
                for (int64_t r = 0; r < NR; ++r) acc[r][j] = _mm512_fmadd_ps(a[r], b, acc[r][j]);
            }
        }
        for (int64_t r = 0; r < NR; ++r) {
            for (int64_t j = 0; j < NJ; ++j) out[r * ldo + j] = hsum(acc[r][j]);
        }
    }
};

}  // namespace

void row_dots_avx512(const float* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                     int64_t ldb, int64_t m, float* out, int64_t ldo) {
    for_each_dot_tile<R, J, Tile>(A, idx, rows, lda, B, cols, ldb, m, out, ldo);
}

void row_dots_avx512(const uint16_t* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                     int64_t ldb, int64_t m, float* out, int64_t ldo) {
    for_each_dot_tile<R, J, Tile>(A, idx, rows, lda, B, cols, ldb, m, out, ldo);
}

namespace {

// The plain loops round the product, then the sum; GCC would fuse mul and add into one FMA
// here (one rounding: other bits). The empty asm hides the product from it.
KKM_AVX512 inline __m512 add_product(__m512 sum, __m512 a, __m512 b) {
    __m512 product = _mm512_mul_ps(a, b);
    asm("" : "+v"(product));
    return _mm512_add_ps(sum, product);
}
KKM_AVX512 inline __m512d add_product(__m512d sum, __m512d a, __m512d b) {
    __m512d product = _mm512_mul_pd(a, b);
    asm("" : "+v"(product));
    return _mm512_add_pd(sum, product);
}

/// Scalar tails alike.
template <class F>
KKM_AVX512 inline F add_product(F sum, F a, F b) {
    F product = a * b;
    asm("" : "+x"(product));
    return sum + product;
}

template <class T>
KKM_AVX512 void axpy16(float g, const T* p, float* o, int64_t count) {
    const __m512 gv = _mm512_set1_ps(g);
    int64_t s = 0;
    for (; s + 16 <= count; s += 16) {
        _mm512_storeu_ps(o + s, add_product(_mm512_loadu_ps(o + s), gv, load16(p + s)));
    }
    if (s < count) {
        const __mmask16 mask = static_cast<__mmask16>((1u << (count - s)) - 1u);
        const __m512 sum = add_product(_mm512_maskz_loadu_ps(mask, o + s), gv, load_tail(p + s, count - s));
        _mm512_mask_storeu_ps(o + s, mask, sum);
    }
}

}  // namespace

void axpy_avx512(float g, const float* p, float* o, int64_t count) {
    axpy16(g, p, o, count);
}

void axpy_avx512(float g, const uint16_t* p, float* o, int64_t count) {
    axpy16(g, p, o, count);
}

KKM_AVX512 void axpy_widen_avx512(double g, const float* p, double* o, int64_t count) {
    const __m512d gv = _mm512_set1_pd(g);
    int64_t s = 0;
    for (; s + 8 <= count; s += 8) {
        _mm512_storeu_pd(o + s, add_product(_mm512_loadu_pd(o + s), gv, _mm512_cvtps_pd(_mm256_loadu_ps(p + s))));
    }
    for (; s < count; ++s) o[s] = add_product(o[s], g, static_cast<double>(p[s]));
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void axpy_widen_avx512(double, const float*, double*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
void axpy_avx512(float, const float*, float*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
void axpy_avx512(float, const uint16_t*, float*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
void row_dots_avx512(const float*, const int64_t*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*,
                     int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
void row_dots_avx512(const uint16_t*, const int64_t*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*,
                     int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
}  // namespace kkm::engine

#endif
