// The kernels' hooks (kernel_traits.h): row validation, the diagonal, positive definiteness.
#include "kernels/kernel_traits.h"

#include <cfloat>
#include <cmath>
#include <string>

#include "core/enum_text.h"
#include "core/error.h"

namespace kkm {
namespace {

/// Largest squared row norm the dot-product kernels accept: |x|^2 + |y|^2 - 2 x.y and every
/// x.y then stay below FLT_MAX, so no kernel value overflows float32 (NaN downstream).
constexpr double kMaxSquaredNorm = FLT_MAX / 4.0;

const char* const kRescale = "rescale the data (e.g. standardize the columns)";

}  // namespace

void check_dot_row(KernelType type, float sq, const KernelScalars&) {
    if (!(sq <= kMaxSquaredNorm)) {
        invalid_data(std::string("X has a row with squared norm ") + message_number(sq) + ": kernel=" + to_text(type) +
                     " computes dot products in float32, which overflow beyond a squared norm of " +
                     message_number(kMaxSquaredNorm) + "; " + kRescale);
    }
}

void check_cosine_row(KernelType type, float sq, const KernelScalars& s) {
    check_dot_row(type, sq, s);
    if (sq > 0.0f && sq < FLT_MIN) {
        invalid_data("X has a row with squared norm " + message_number(sq) + ", below the smallest normal float32 (" +
                     message_number(FLT_MIN) + "): kernel=cosine cannot normalise it in float32; " + kRescale);
    }
}

void check_polynomial_row(KernelType type, float sq, const KernelScalars& s) {
    check_dot_row(type, sq, s);
    const double gamma = s.gamma, coef0 = s.coef0;
    const double bound = std::pow(gamma * sq + std::fabs(coef0), static_cast<double>(s.degree));
    if (!(bound <= kMaxSquaredNorm)) {
        invalid_data("kernel=polynomial: (gamma |x|^2 + |coef0|)^degree = " + message_number(bound) +
                     " for a row of X overflows float32 (at most " + message_number(kMaxSquaredNorm) +
                     "); lower degree or gamma, or " + kRescale);
    }
}

float unit_diagonal(float, const KernelScalars&) {
    return 1.0f;
}

float cosine_diagonal(float sq, const KernelScalars&) {
    return sq > 0.0f ? 1.0f : 0.0f;
}

float linear_diagonal(float sq, const KernelScalars&) {
    return sq;
}

float polynomial_diagonal(float sq, const KernelScalars& s) {
    const float base = s.gamma * sq + s.coef0;
    float p = base;
    for (int64_t t = 1; t < s.degree; ++t) p *= base;
    return p;
}

bool always_psd(double) {
    return true;
}

bool never_known_psd(double) {
    return false;  // whatever the caller gave (kernel=precomputed)
}

bool psd_when_coef0_nonnegative(double coef0) {
    return !(coef0 < 0);
}

}  // namespace kkm
