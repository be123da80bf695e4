#include "engine/half.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kkm::engine {

uint16_t to_half(float v) {
    uint32_t x = 0;
    std::memcpy(&x, &v, sizeof x);
    const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    const uint32_t ax = x & 0x7FFFFFFFu;
    if (ax > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u | ((ax >> 13) & 0x3FFu));  // NaN
    if (ax >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // 65520 and up round to ∞
    if (ax < 0x38800000u) {
        // Below 2^-14: a subnormal half, in units of 2^-24. The scaling and the split into
        // whole and fraction are exact; ties go to even whatever rounding mode the host set.
        const float units = std::fabs(v) * 0x1p24f;
        auto whole = static_cast<uint32_t>(units);
        const float fraction = units - static_cast<float>(whole);
        if (fraction > 0.5f || (fraction == 0.5f && (whole & 1u) != 0)) ++whole;
        return static_cast<uint16_t>(sign | whole);
    }
    // Normal: re-bias the exponent (127 → 15) and round the 13 dropped mantissa bits to the
    // nearest, ties to even; a carry moves into the exponent as it should.
    const uint32_t odd = (ax >> 13) & 1u;
    return static_cast<uint16_t>(sign | ((ax - 0x38000000u + 0xFFFu + odd) >> 13));
}

float from_half(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu;
    if (exponent == 0) {
        const float v = static_cast<float>(mantissa) * 0x1p-24f;
        return sign != 0 ? -v : v;
    }
    const uint32_t bits =
        exponent == 31 ? sign | 0x7F800000u | (mantissa << 13) : sign | ((exponent + 112) << 23) | (mantissa << 13);
    float v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

void encode_half(Isa isa, const float* src, int64_t count, uint16_t* dst) {
    switch (isa) {
        case Isa::avx512: encode_half_avx512(src, count, dst); return;
        case Isa::avx2: encode_half_avx2(src, count, dst); return;
        case Isa::portable: break;
    }
    for (int64_t i = 0; i < count; ++i) dst[i] = to_half(src[i]);
}

void decode_half(Isa isa, const uint16_t* src, int64_t count, float* dst) {
    switch (isa) {
        case Isa::avx512: decode_half_avx512(src, count, dst); return;
        case Isa::avx2: decode_half_avx2(src, count, dst); return;
        case Isa::portable: break;
    }
    for (int64_t i = 0; i < count; ++i) dst[i] = from_half(src[i]);
}

void round_through_half(Isa isa, float* values, int64_t count) {
    constexpr int64_t kPiece = 1024;  // halves per round trip, on the stack
    uint16_t halves[kPiece];
    for (int64_t first = 0; first < count; first += kPiece) {
        const int64_t piece = std::min(kPiece, count - first);
        encode_half(isa, values + first, piece, halves);
        decode_half(isa, halves, piece, values + first);
    }
}

}  // namespace kkm::engine
