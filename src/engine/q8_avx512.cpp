// The exact 8-bit rbf tiles (q8.h) on AVX-512 VNNI: the avx512 path's 14×32 register tile of
// 32-bit integer sums (vpdpbusd: four byte products per lane per instruction), and the
// packing of float32 rows into the bytes they hold.
#include "engine/q8_loops.h"
#include "engine/tiles.h"

#if defined(__x86_64__) && defined(__GNUC__)
#if !defined(__clang__)
// GCC 12's avx512fintrin.h seeds masked builtins with _mm512_undefined_*(), which its own
// -W(maybe-)uninitialized then flags in every caller (a known false positive).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#include "engine/exp_avx512.h"

#define KKM_AVX512_VNNI __attribute__((target("avx512f,avx512dq,avx512bw,avx512vnni,fma")))

namespace kkm::engine {
namespace {

constexpr int64_t MR = 14;
constexpr int64_t NR = 32;

/// acc + the four products of unsigned bytes a and signed bytes b in each 32-bit lane
/// (vpdpbusd). Inline assembly: GCC 12 keeps the accumulators of _mm512_dpbusd_epi32 on the
/// stack through the whole loop (a load and a store around every instruction).
KKM_AVX512_VNNI inline __m512i dot4(__m512i acc, __m512i a, __m512i b) {
    __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
    return acc;
}

/// One MR×NR tile of a Q8Job: the integer dot products of the whole rows in registers (exact),
/// then ‖q_x − q_y‖² = terms_x + norms_y − 2·dot (exact: below 2^31), rounded to float32 once.
KKM_AVX512_VNNI void q8_tile(const int32_t* a, const int32_t* b, int64_t d4, const int32_t* xterm, const int32_t* ynorm,
                             float scale, float* dst, int64_t ld) {
    __m512i acc[MR][2];
#pragma GCC unroll 14
    for (int64_t i = 0; i < MR; ++i) {
        acc[i][0] = _mm512_setzero_si512();
        acc[i][1] = _mm512_setzero_si512();
    }
    for (int64_t u = 0; u < d4; ++u) {
        const __m512i b0 = _mm512_loadu_si512(b + u * NR), b1 = _mm512_loadu_si512(b + u * NR + 16);
        const int32_t* au = a + u * MR;
#pragma GCC unroll 14
        for (int64_t i = 0; i < MR; ++i) {
            const __m512i ai = _mm512_set1_epi32(au[i]);
            acc[i][0] = dot4(acc[i][0], ai, b0);
            acc[i][1] = dot4(acc[i][1], ai, b1);
        }
    }
    const __m512i y0 = _mm512_loadu_si512(ynorm), y1 = _mm512_loadu_si512(ynorm + 16);
    const __m512 s = _mm512_set1_ps(scale);
    for (int64_t i = 0; i < MR; ++i) {
        const __m512i x = _mm512_set1_epi32(xterm[i]);
        const __m512i d0 = _mm512_sub_epi32(_mm512_add_epi32(x, y0), _mm512_slli_epi32(acc[i][0], 1));
        const __m512i d1 = _mm512_sub_epi32(_mm512_add_epi32(x, y1), _mm512_slli_epi32(acc[i][1], 1));
        _mm512_storeu_ps(dst + i * ld, exp16(_mm512_mul_ps(s, _mm512_cvtepi32_ps(d0))));
        _mm512_storeu_ps(dst + i * ld + 16, exp16(_mm512_mul_ps(s, _mm512_cvtepi32_ps(d1))));
    }
}

/// One row into its panel column (words `stride` apart); false at a value that is not q/c.
KKM_AVX512_VNNI bool pack_row(const float* x, int64_t d, int64_t d4, float c, bool signed_bytes, int32_t* out,
                              int64_t stride, int32_t& sq, int32_t& sum) {
    const __m512 cv = _mm512_set1_ps(c), top = _mm512_set1_ps(255.0f);
    const __m512 relative = _mm512_set1_ps(c == 255.0f ? 0x1p-22f : 0.0f);  // as q8_value
    const __m128i flip = _mm_set1_epi8(signed_bytes ? static_cast<char>(0x80) : 0);
    __m512i s2 = _mm512_setzero_si512(), s1 = _mm512_setzero_si512();
    for (int64_t t0 = 0; t0 < d4 * 4; t0 += 16) {
        const int64_t left = d - t0;
        const __mmask16 live = left >= 16 ? __mmask16(0xFFFF) : left > 0 ? __mmask16((1u << left) - 1) : 0;
        const __m512 r = _mm512_mul_ps(_mm512_maskz_loadu_ps(live, x + t0), cv);
        const __m512 q = _mm512_roundscale_ps(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m512 off = _mm512_abs_ps(_mm512_sub_ps(r, q)), slack = _mm512_mul_ps(q, relative);
        const __mmask16 good = _mm512_cmp_ps_mask(q, _mm512_setzero_ps(), _CMP_GE_OQ) &
                               _mm512_cmp_ps_mask(q, top, _CMP_LE_OQ) & _mm512_cmp_ps_mask(off, slack, _CMP_LE_OQ);
        if (good != 0xFFFF) return false;
        const __m512i qi = _mm512_cvtps_epi32(q);
        s2 = _mm512_add_epi32(s2, _mm512_mullo_epi32(qi, qi));
        s1 = _mm512_add_epi32(s1, qi);
        alignas(16) int32_t words[4];
        _mm_store_si128(reinterpret_cast<__m128i*>(words), _mm_xor_si128(_mm512_cvtepi32_epi8(qi), flip));
        for (int64_t k = 0; k < 4 && t0 / 4 + k < d4; ++k) out[(t0 / 4 + k) * stride] = words[k];
    }
    sq = _mm512_reduce_add_epi32(s2);
    sum = _mm512_reduce_add_epi32(s1);
    return true;
}

}  // namespace

bool pack_q8_avx512(const float* X, int64_t rows, int64_t d, int64_t ld, float c, int64_t width, bool signed_bytes,
                    int32_t* dst, int32_t* sq, int32_t* sum, const int64_t* idx) {
    return pack_q8_rows(pack_row, X, rows, d, ld, c, width, signed_bytes, dst, sq, sum, idx);
}

void run_q8_tiles_avx512(const Q8Job& job) {
    for_each_q8_tile<MR, NR>(job, q8_tile);
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
bool pack_q8_avx512(const float*, int64_t, int64_t, int64_t, float, int64_t, bool, int32_t*, int32_t*, int32_t*,
                    const int64_t*) {
    return false;
}
void run_q8_tiles_avx512(const Q8Job&) {
    fail(KKM_ERR_INTERNAL, "the 8-bit tiles are not built on this platform");
}
}  // namespace kkm::engine

#endif
