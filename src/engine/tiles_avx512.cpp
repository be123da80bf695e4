// AVX-512 path: 14×32 register tile (28 zmm accumulators, two Y vectors, one broadcast).
#include "engine/tiles.h"

#if defined(__x86_64__) && defined(__GNUC__)
#if !defined(__clang__)
// GCC 12's avx512fintrin.h seeds masked builtins with _mm512_undefined_ps(), which its own
// -Wmaybe-uninitialized then flags in every caller (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <algorithm>

#include "engine/exp_avx512.h"

namespace kkm::engine {
namespace {

constexpr int64_t MR = 14;
constexpr int64_t NR = 32;

/// The kernel function on 16 accumulators of one X row (xa broadcast) against 16 Y rows (ya).
KKM_AVX512 inline __m512 finish(__m512 v, __m512 xa, __m512 ya, const TileOp& op) {
    switch (op.fn) {
        case TileFn::dot: return v;
        case TileFn::rbf: {
            const __m512 d2 =
                _mm512_max_ps(_mm512_fnmadd_ps(_mm512_set1_ps(2.0f), v, _mm512_add_ps(xa, ya)), _mm512_setzero_ps());
            return exp16(_mm512_mul_ps(_mm512_set1_ps(-op.gamma), d2));
        }
        case TileFn::polynomial: {
            const __m512 base = _mm512_fmadd_ps(_mm512_set1_ps(op.gamma), v, _mm512_set1_ps(op.coef0));
            __m512 p = base;
            for (int64_t t = 1; t < op.degree; ++t) p = _mm512_mul_ps(p, base);
            return p;
        }
        case TileFn::cosine: return _mm512_mul_ps(v, _mm512_mul_ps(xa, ya));  // symmetric in x, y
        case TileFn::laplacian: return exp16(_mm512_mul_ps(_mm512_set1_ps(-op.gamma), v));
    }
    return v;
}

/// One MR×NR tile: the reduction over d (or one depth block of it) in registers, then finish,
/// then one store (or the raw sums stored, when more blocks follow).
template <bool L1>
KKM_AVX512 void tile(const float* a, const float* b, int64_t d, TileSpan span, const float* xaux, const float* yaux,
                     const TileOp& op, float* dst, int64_t ld) {
    __m512 acc[MR][2];
#pragma GCC unroll 14
    for (int64_t i = 0; i < MR; ++i) {
        acc[i][0] = span.resume ? _mm512_loadu_ps(dst + i * ld) : _mm512_setzero_ps();
        acc[i][1] = span.resume ? _mm512_loadu_ps(dst + i * ld + 16) : _mm512_setzero_ps();
    }
    const __m512 sign = _mm512_set1_ps(-0.0f);
    for (int64_t t = 0; t < d; ++t) {
        const __m512 b0 = _mm512_loadu_ps(b + t * NR), b1 = _mm512_loadu_ps(b + t * NR + 16);
        const float* at = a + t * MR;
#pragma GCC unroll 14
        for (int64_t i = 0; i < MR; ++i) {
            const __m512 ai = _mm512_set1_ps(at[i]);
            if constexpr (L1) {
                acc[i][0] = _mm512_add_ps(acc[i][0], _mm512_andnot_ps(sign, _mm512_sub_ps(ai, b0)));
                acc[i][1] = _mm512_add_ps(acc[i][1], _mm512_andnot_ps(sign, _mm512_sub_ps(ai, b1)));
            } else {
                acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
                acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
            }
        }
    }
    if (span.partial) {
        for (int64_t i = 0; i < MR; ++i) {
            _mm512_storeu_ps(dst + i * ld, acc[i][0]);
            _mm512_storeu_ps(dst + i * ld + 16, acc[i][1]);
        }
        return;
    }
    const __m512 y0 = yaux != nullptr ? _mm512_loadu_ps(yaux) : _mm512_setzero_ps();
    const __m512 y1 = yaux != nullptr ? _mm512_loadu_ps(yaux + 16) : _mm512_setzero_ps();
    for (int64_t i = 0; i < MR; ++i) {
        const __m512 xa = _mm512_set1_ps(xaux != nullptr ? xaux[i] : 0.0f);
        _mm512_storeu_ps(dst + i * ld, finish(acc[i][0], xa, y0, op));
        _mm512_storeu_ps(dst + i * ld + 16, finish(acc[i][1], xa, y1, op));
    }
}

}  // namespace

void run_tiles_avx512(const TileJob& job) {
    if (job.op.fn == TileFn::laplacian) {
        for_each_tile<MR, NR>(job, tile<true>);
    } else {
        for_each_tile<MR, NR>(job, tile<false>);
    }
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void run_tiles_avx512(const TileJob&) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
}  // namespace kkm::engine

#endif
