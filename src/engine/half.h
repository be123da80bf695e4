// IEEE 754 binary16 ("half") storage of kernel rows (`kernel_rows=f16`): float32 values are
// rounded to the nearest half (ties to even) when stored and widened exactly when read. The
// vector paths use the CPU's conversion instructions (AVX-512F, F16C); the portable path
// computes the same bits in integer arithmetic, so every path stores and reads identical
// values.
#pragma once

#include <cstdint>

#include "engine/isa.h"

namespace kkm::engine {

/// The half nearest to v (ties to even; beyond the largest half, ±infinity).
uint16_t to_half(float v);
/// The float equal to half h.
float from_half(uint16_t h);

/// A stored kernel-row value as float32: itself, or the float equal to a half. (Lets loops
/// over float32 or half rows share one template.)
inline float widen(float v) {
    return v;
}
inline float widen(uint16_t h) {
    return from_half(h);
}

/// dst[i] = to_half(src[i]) for i < count, on path `isa`.
void encode_half(Isa isa, const float* src, int64_t count, uint16_t* dst);
/// dst[i] = from_half(src[i]) for i < count, on path `isa`.
void decode_half(Isa isa, const uint16_t* src, int64_t count, float* dst);
/// values[i] = from_half(to_half(values[i])) for i < count, on path `isa`: the floats a half
/// store gives back for them (kkm_assign of a model fitted on half kernel rows rounds its own
/// rows so, and so assigns a training row as its fit did).
void round_through_half(Isa isa, float* values, int64_t count);

void encode_half_avx512(const float* src, int64_t count, uint16_t* dst);
void decode_half_avx512(const uint16_t* src, int64_t count, float* dst);
void encode_half_avx2(const float* src, int64_t count, uint16_t* dst);
void decode_half_avx2(const uint16_t* src, int64_t count, float* dst);

}  // namespace kkm::engine
