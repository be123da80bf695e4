#include "kernels/elementwise.h"

#include <cmath>

#include "core/hot.h"

namespace kkm::elementwise {

KKM_HOT void rbf(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* xn, const float* yn, float gamma) {
    for (int64_t i = 0; i < rows; ++i) {
        float* r = out + i * ldo;
        const float x = xn[i];
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) {
            const float d2 = std::fmax(x + yn[j] - 2.0f * r[j], 0.0f);
            r[j] = std::exp(-gamma * d2);
        }
    }
}

KKM_HOT void cosine_features(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* phase, float scale) {
    for (int64_t i = 0; i < rows; ++i) {
        float* r = out + i * ldo;
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) r[j] = scale * std::cos(r[j] + phase[j]);
    }
}

}  // namespace kkm::elementwise
