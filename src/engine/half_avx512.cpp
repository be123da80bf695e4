// Half-precision conversion on AVX-512F.
#include "engine/half.h"

#if defined(__x86_64__) && defined(__GNUC__)
#if !defined(__clang__)
// GCC 12 avx512fintrin.h seeds masked builtins with undefined vectors: false positives.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>

#define KKM_AVX512 __attribute__((target("avx512f")))

namespace kkm::engine {

// 16 values per instruction; the tail (< 16) goes through the portable conversion, which
// gives the same bits (masked 16-bit loads and stores would need AVX-512BW).
KKM_AVX512 void encode_half_avx512(const float* src, int64_t count, uint16_t* dst) {
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) {
        const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), h);
    }
    for (; i < count; ++i) dst[i] = to_half(src[i]);
}

KKM_AVX512 void decode_half_avx512(const uint16_t* src, int64_t count, float* dst) {
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) {
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i))));
    }
    for (; i < count; ++i) dst[i] = from_half(src[i]);
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void encode_half_avx512(const float*, int64_t, uint16_t*) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
void decode_half_avx512(const uint16_t*, int64_t, float*) {
    fail(KKM_ERR_INTERNAL, "isa=avx512 is not built on this platform");
}
}  // namespace kkm::engine

#endif
