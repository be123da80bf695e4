// The exact 8-bit rbf tiles (q8.h) on AVX-VNNI (the VEX-encoded vpdpbusd of Intel's Alder Lake
// and later and of AMD Zen 5, on CPUs with or without AVX-512): the avx2 path's 6×16 register
// tile of 32-bit integer sums, and the packing of float32 rows into the bytes they hold.
#include "engine/q8_loops.h"
#include "engine/tiles.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>

#include "engine/exp_avx2.h"

#define KKM_AVX_VNNI __attribute__((target("avx2,fma,avxvnni")))

namespace kkm::engine {
namespace {

constexpr int64_t MR = 6;
constexpr int64_t NR = 16;

/// acc + the four products of unsigned bytes a and signed bytes b in each 32-bit lane, VEX
/// encoded (an assembler given ymm registers would otherwise pick AVX-512's EVEX form, which
/// a CPU with AVX-VNNI alone does not run). Inline assembly, as q8_avx512.cpp's dot4.
KKM_AVX_VNNI inline __m256i dot4(__m256i acc, __m256i a, __m256i b) {
    __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
    return acc;
}

/// One MR×NR tile of a Q8Job, as q8_avx512.cpp's.
KKM_AVX_VNNI void q8_tile(const int32_t* a, const int32_t* b, int64_t d4, const int32_t* xterm, const int32_t* ynorm,
                          float scale, float* dst, int64_t ld) {
    __m256i acc[MR][2];
#pragma GCC unroll 6
    for (int64_t i = 0; i < MR; ++i) {
        acc[i][0] = _mm256_setzero_si256();
        acc[i][1] = _mm256_setzero_si256();
    }
    for (int64_t u = 0; u < d4; ++u) {
        const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + u * NR));
        const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + u * NR + 8));
        const int32_t* au = a + u * MR;
#pragma GCC unroll 6
        for (int64_t i = 0; i < MR; ++i) {
            const __m256i ai = _mm256_set1_epi32(au[i]);
            acc[i][0] = dot4(acc[i][0], ai, b0);
            acc[i][1] = dot4(acc[i][1], ai, b1);
        }
    }
    const __m256i y0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ynorm));
    const __m256i y1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ynorm + 8));
    const __m256 s = _mm256_set1_ps(scale);
    for (int64_t i = 0; i < MR; ++i) {
        const __m256i x = _mm256_set1_epi32(xterm[i]);
        const __m256i d0 = _mm256_sub_epi32(_mm256_add_epi32(x, y0), _mm256_slli_epi32(acc[i][0], 1));
        const __m256i d1 = _mm256_sub_epi32(_mm256_add_epi32(x, y1), _mm256_slli_epi32(acc[i][1], 1));
        _mm256_storeu_ps(dst + i * ld, exp8(_mm256_mul_ps(s, _mm256_cvtepi32_ps(d0))));
        _mm256_storeu_ps(dst + i * ld + 8, exp8(_mm256_mul_ps(s, _mm256_cvtepi32_ps(d1))));
    }
}

KKM_AVX2 int32_t sum8(__m256i v) {
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
}

/// One row into its panel column (words `stride` apart); false at a value that is not q/c.
/// The same tests as q8_avx512.cpp's pack_row, 8 values at a time (the last ones through a
/// zero-padded copy).
KKM_AVX2 bool pack_row(const float* x, int64_t d, int64_t d4, float c, bool signed_bytes, int32_t* out, int64_t stride,
                       int32_t& sq, int32_t& sum) {
    const __m256 cv = _mm256_set1_ps(c), top = _mm256_set1_ps(255.0f), zero = _mm256_setzero_ps();
    const __m256 relative = _mm256_set1_ps(c == 255.0f ? 0x1p-22f : 0.0f);  // as q8_value
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
    // The low byte of each 32-bit lane, gathered into the lane's first word.
    const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                               -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const int32_t flip = signed_bytes ? static_cast<int32_t>(0x80808080u) : 0;
    __m256i s2 = _mm256_setzero_si256(), s1 = _mm256_setzero_si256();
    for (int64_t t0 = 0; t0 < d4 * 4; t0 += 8) {
        alignas(32) float tail[8] = {};
        const float* src = x + t0;
        if (d - t0 < 8) {
            std::copy(x + std::min(t0, d), x + d, tail);
            src = tail;
        }
        const __m256 r = _mm256_mul_ps(_mm256_loadu_ps(src), cv);
        const __m256 q = _mm256_round_ps(r, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        const __m256 off = _mm256_and_ps(_mm256_sub_ps(r, q), magnitude), slack = _mm256_mul_ps(q, relative);
        const __m256 good =
            _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(q, zero, _CMP_GE_OQ), _mm256_cmp_ps(q, top, _CMP_LE_OQ)),
                          _mm256_cmp_ps(off, slack, _CMP_LE_OQ));
        if (_mm256_movemask_ps(good) != 0xFF) return false;
        const __m256i qi = _mm256_cvtps_epi32(q);
        s2 = _mm256_add_epi32(s2, _mm256_mullo_epi32(qi, qi));
        s1 = _mm256_add_epi32(s1, qi);
        const __m256i bytes = _mm256_shuffle_epi8(qi, low_bytes);
        out[(t0 / 4) * stride] = _mm256_extract_epi32(bytes, 0) ^ flip;
        if (t0 / 4 + 1 < d4) out[(t0 / 4 + 1) * stride] = _mm256_extract_epi32(bytes, 4) ^ flip;
    }
    sq = sum8(s2);
    sum = sum8(s1);
    return true;
}

}  // namespace

bool pack_q8_avx2(const float* X, int64_t rows, int64_t d, int64_t ld, float c, int64_t width, bool signed_bytes,
                  int32_t* dst, int32_t* sq, int32_t* sum, const int64_t* idx) {
    return pack_q8_rows(pack_row, X, rows, d, ld, c, width, signed_bytes, dst, sq, sum, idx);
}

void run_q8_tiles_avx2(const Q8Job& job) {
    for_each_q8_tile<MR, NR>(job, q8_tile);
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
bool pack_q8_avx2(const float*, int64_t, int64_t, int64_t, float, int64_t, bool, int32_t*, int32_t*, int32_t*,
                  const int64_t*) {
    return false;
}
void run_q8_tiles_avx2(const Q8Job&) {
    fail(KKM_ERR_INTERNAL, "the 8-bit tiles are not built on this platform");
}
}  // namespace kkm::engine

#endif
