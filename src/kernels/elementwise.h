// Elementwise passes over a block of dot products (compiled with -ffast-math for the
// vectorised expf; inputs are validated finite before they get here).
#pragma once

#include <cstdint>

namespace kkm::elementwise {

/// out_ij = exp(-gamma · max(xn_i + yn_j − 2·out_ij, 0)): the pass after a BLAS GEMM that the
/// kernel blocks used before the engine (src/engine); bench/engine/kernel_block.cpp times it as
/// the engine's peer.
void rbf(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* xn, const float* yn, float gamma);

/// out_ij = scale · cos(out_ij + phase_j) (random Fourier features; arguments of any size)
void cosine_features(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* phase, float scale);

}  // namespace kkm::elementwise
