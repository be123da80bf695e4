#include "kernels/elementwise.h"

#include <cmath>

#include "core/hot.h"


namespace kkm::elementwise {

KKM_HOT void rbf(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* xn, const float* yn,
         float gamma) {
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

KKM_HOT void polynomial(float* out, int64_t rows, int64_t cols, int64_t ldo, float gamma, float coef0,
                int64_t degree) {
    for (int64_t i = 0; i < rows; ++i) {
        float* r = out + i * ldo;
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) {
            const float base = gamma * r[j] + coef0;
            float p = base;
            for (int64_t t = 1; t < degree; ++t) p *= base;
            r[j] = p;
        }
    }
}

KKM_HOT void cosine(float* out, int64_t rows, int64_t cols, int64_t ldo, const float* xinv,
            const float* yinv) {
    for (int64_t i = 0; i < rows; ++i) {
        float* r = out + i * ldo;
        const float x = xinv[i];
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) r[j] = r[j] * x * yinv[j];
    }
}

KKM_HOT void laplacian(const float* X, int64_t rows, const float* Y, int64_t cols, int64_t d, float* out,
               int64_t ldo, float gamma) {
    for (int64_t i = 0; i < rows; ++i) {
        const float* x = X + i * d;
        for (int64_t j = 0; j < cols; ++j) {
            const float* y = Y + j * d;
            float s = 0.0f;
#pragma omp simd reduction(+ : s)
            for (int64_t t = 0; t < d; ++t) s += std::fabs(x[t] - y[t]);
            out[i * ldo + j] = s;
        }
        float* r = out + i * ldo;
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) r[j] = std::exp(-gamma * r[j]);
    }
}

KKM_HOT void cosine_features(float* out, int64_t rows, int64_t cols, int64_t ldo,
                             const float* phase, float scale) {
    for (int64_t i = 0; i < rows; ++i) {
        float* r = out + i * ldo;
#pragma omp simd
        for (int64_t j = 0; j < cols; ++j) r[j] = scale * std::cos(r[j] + phase[j]);
    }
}

}  // namespace kkm::elementwise
