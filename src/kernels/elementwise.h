// Fused elementwise passes over a block of dot products (compiled with -ffast-math for the
// vectorised expf; inputs are validated finite before they get here).
#pragma once

#include <cstdint>

namespace kkm::elementwise {

/// out_ij = exp(-gamma · max(xn_i + yn_j − 2·out_ij, 0))
void rbf(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* xn, const float* yn,
         float gamma);

/// out_ij = (gamma · out_ij + coef0)^degree
void polynomial(float* out, int64_t rows, int64_t cols, int64_t ldo, float gamma, float coef0,
                int64_t degree);

/// out_ij = out_ij · xinv_i · yinv_j
void cosine(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* xinv,
            const float* yinv);

/// out_ij = exp(-gamma · Σ_t |x_it − y_jt|)
void laplacian(const float* X, int64_t rows, const float* Y, int64_t cols, int64_t d, float* out,
               int64_t ldo, float gamma);

/// out_ij = scale · cos(out_ij + phase_j) (random Fourier features; arguments of any size)
void cosine_features(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* phase,
                     float scale);

}  // namespace kkm::elementwise
