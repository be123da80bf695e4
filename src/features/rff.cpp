// Random Fourier features (Rahimi & Recht 2007). Draw order, fixed so that one seed gives one
// map: W row by row (m × d entries), then the m phases b.
#include "features/rff.h"

#include <cmath>
#include <numbers>
#include <string>

#include "core/error.h"
#include "core/linalg.h"
#include "kernels/elementwise.h"

namespace kkm {
namespace {

void check_arguments(KernelType kernel, double gamma, int64_t d, int64_t m) {
    if (kernel != KernelType::rbf && kernel != KernelType::laplacian) {
        invalid_argument(std::string("method=rff needs a shift-invariant kernel (rbf or laplacian), got kernel=") +
                         kernel_name(kernel));
    }
    if (!(gamma > 0.0) || !std::isfinite(gamma)) {
        invalid_argument("method=rff needs a finite gamma > 0, got gamma=" + std::to_string(gamma));
    }
    if (d < 1 || m < 1) {
        invalid_argument("method=rff needs d >= 1 and m >= 1, got d=" + std::to_string(d) +
                         " m=" + std::to_string(m));
    }
}

/// Uniform on the open interval (0, 1): 53 random bits, centred in their cell.
double open_uniform(Rng& rng) {
    return (static_cast<double>(rng.next_u64() >> 11) + 0.5) * 0x1.0p-53;
}

/// Fills `out` with i.i.d. N(0, std²) draws, Box–Muller, both values of each pair used in
/// order (the second of the last pair is dropped when the count is odd).
void fill_normal(std::vector<float>::iterator out, size_t count, double std, Rng& rng) {
    for (size_t i = 0; i < count; i += 2) {
        const double radius = std * std::sqrt(-2.0 * std::log(open_uniform(rng)));
        const double angle = 2.0 * std::numbers::pi * open_uniform(rng);
        out[static_cast<std::ptrdiff_t>(i)] = static_cast<float>(radius * std::cos(angle));
        if (i + 1 < count) out[static_cast<std::ptrdiff_t>(i + 1)] = static_cast<float>(radius * std::sin(angle));
    }
}

/// Fills `out` with i.i.d. Cauchy(0, scale) draws: scale · tan(π(u − ½)), u ∈ (0, 1).
void fill_cauchy(std::vector<float>::iterator out, size_t count, double scale, Rng& rng) {
    for (size_t i = 0; i < count; ++i) {
        const double u = open_uniform(rng);
        out[static_cast<std::ptrdiff_t>(i)] = static_cast<float>(scale * std::tan(std::numbers::pi * (u - 0.5)));
    }
}

}  // namespace

RffMap::RffMap(KernelType kernel, double gamma, int64_t d, int64_t m, Rng& rng) {
    check_arguments(kernel, gamma, d, m);
    W_ = Matrix(m, d);
    const auto entries = static_cast<size_t>(m * d);
    if (kernel == KernelType::rbf) {
        fill_normal(W_.values.begin(), entries, std::sqrt(2.0 * gamma), rng);
    } else {
        fill_cauchy(W_.values.begin(), entries, gamma, rng);
    }
    b_.resize(static_cast<size_t>(m));
    for (float& phase : b_) phase = static_cast<float>(2.0 * std::numbers::pi * rng.uniform());
}

void RffMap::transform_block(ConstMatrix rows, FeatureScratch&, Matrix& out) const {
    const int64_t m = dim();
    out.reshape(rows.rows, m);
    if (rows.cols != input_dim()) {
        fail(KKM_ERR_INTERNAL, "rff: rows have " + std::to_string(rows.cols) + " columns, the map " +
                                   std::to_string(input_dim()));
    }
    if (rows.rows == 0) return;
    linalg::sgemm(linalg::Trans::no, linalg::Trans::yes, rows.rows, m, input_dim(), 1.0f,
                  rows.data, rows.cols, W_.data(), W_.cols, 0.0f, out.data(), m, 1);
    const auto scale = static_cast<float>(std::sqrt(2.0 / static_cast<double>(m)));
    elementwise::cosine_features(out.data(), rows.rows, m, m, b_.data(), scale);
}

}  // namespace kkm
