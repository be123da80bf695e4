// Half-precision conversion with F16C (the avx2 path): 8 values per instruction; the tail
// goes through the portable conversion, which gives the same bits.
#include "engine/half.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define KKM_F16C __attribute__((target("avx2,f16c")))

namespace kkm::engine {

KKM_F16C void encode_half_avx2(const float* src, int64_t count, uint16_t* dst) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
    }
    for (; i < count; ++i) dst[i] = to_half(src[i]);
}

KKM_F16C void decode_half_avx2(const uint16_t* src, int64_t count, float* dst) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    }
    for (; i < count; ++i) dst[i] = from_half(src[i]);
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void encode_half_avx2(const float*, int64_t, uint16_t*) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
void decode_half_avx2(const uint16_t*, int64_t, float*) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
}  // namespace kkm::engine

#endif
