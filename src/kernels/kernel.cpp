#include "kernels/kernel.h"

#include <cmath>

#include "core/error.h"
#include "core/linalg.h"
#include "kernels/elementwise.h"

namespace kkm {
namespace {

float squared_norm(const float* x, int64_t d) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int64_t t = 0; t < d; ++t) s += x[t] * x[t];
    return s;
}

std::vector<float> squared_norms(ConstMatrix X) {
    std::vector<float> out(static_cast<size_t>(X.rows));
    for (int64_t i = 0; i < X.rows; ++i) out[static_cast<size_t>(i)] = squared_norm(X.row(i), X.cols);
    return out;
}

std::vector<float> inverse_norms(ConstMatrix X) {
    std::vector<float> out = squared_norms(X);
    for (float& v : out) v = v > 0.0f ? 1.0f / std::sqrt(v) : 0.0f;
    return out;
}

}  // namespace

Kernel::Kernel(KernelType type, double gamma, int64_t degree, double coef0)
    : type_(type), gamma_(static_cast<float>(gamma)), degree_(degree),
      coef0_(static_cast<float>(coef0)) {
    if (type == KernelType::precomputed) fail(KKM_ERR_INTERNAL, "Kernel built for kernel=precomputed");
}

std::vector<float> Kernel::row_aux(ConstMatrix Y) const {
    if (type_ == KernelType::rbf) return squared_norms(Y);
    if (type_ == KernelType::cosine) return inverse_norms(Y);
    return {};
}

void Kernel::block(ConstMatrix X, ConstMatrix Y, const std::vector<float>& y_aux, float* out,
                   int64_t ldo) const {
    if (type_ == KernelType::laplacian) {
        elementwise::laplacian(X.data, X.rows, Y.data, Y.rows, X.cols, out, ldo, gamma_);
        return;
    }
    linalg::sgemm(linalg::Trans::no, linalg::Trans::yes, X.rows, Y.rows, X.cols, 1.0f, X.data,
                  X.cols, Y.data, Y.cols, 0.0f, out, ldo, 1);
    switch (type_) {
        case KernelType::rbf: {
            const std::vector<float> xn = squared_norms(X);
            elementwise::rbf(out, X.rows, Y.rows, ldo, xn.data(), y_aux.data(), gamma_);
            break;
        }
        case KernelType::polynomial:
            elementwise::polynomial(out, X.rows, Y.rows, ldo, gamma_, coef0_, degree_);
            break;
        case KernelType::cosine: {
            const std::vector<float> xinv = inverse_norms(X);
            elementwise::cosine(out, X.rows, Y.rows, ldo, xinv.data(), y_aux.data());
            break;
        }
        default:
            break;  // linear: the dot products are the kernel
    }
}

void Kernel::diagonal(ConstMatrix X, float* out) const {
    for (int64_t i = 0; i < X.rows; ++i) {
        const float sq = squared_norm(X.row(i), X.cols);
        switch (type_) {
            case KernelType::rbf:
            case KernelType::laplacian: out[i] = 1.0f; break;
            case KernelType::cosine: out[i] = sq > 0.0f ? 1.0f : 0.0f; break;
            case KernelType::linear: out[i] = sq; break;
            case KernelType::polynomial: {
                const float base = gamma_ * sq + coef0_;
                float p = base;
                for (int64_t t = 1; t < degree_; ++t) p *= base;
                out[i] = p;
                break;
            }
            default: break;
        }
    }
}

}  // namespace kkm
