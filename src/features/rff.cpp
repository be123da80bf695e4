// Random Fourier features (Rahimi & Recht 2007). Draw order, fixed so that one seed gives one
// map: W row by row (m × d entries), then the m phases b.
#include "features/rff.h"

#include <cfloat>
#include <cmath>
#include <numbers>
#include <string>

#include "core/enum_text.h"
#include "core/error.h"
#include "core/linalg.h"
#include "kernels/elementwise.h"
#include "kernels/kernel_traits.h"

namespace kkm {
namespace {

void check_arguments(KernelType kernel, double gamma, int64_t d, int64_t m) {
    if (!kernel_traits(kernel).shift_invariant) {
        invalid_argument(std::string("method=rff needs a shift-invariant kernel (rbf or laplacian), got kernel=") +
                         to_text(kernel));
    }
    if (!(gamma > 0.0) || !std::isfinite(gamma)) {
        invalid_argument("method=rff needs a finite gamma > 0, got gamma=" + std::to_string(gamma));
    }
    if (!(gamma >= FLT_MIN && gamma <= FLT_MAX)) {  // the frequencies are float32
        invalid_argument("gamma=" + message_number(gamma) + " is outside [" + message_number(FLT_MIN) + ", " +
                         message_number(FLT_MAX) + "], the float32 range method=rff draws its frequencies in");
    }
    if (d < 1 || m < 1) {
        invalid_argument("method=rff needs d >= 1 and m >= 1, got d=" + std::to_string(d) + " m=" + std::to_string(m));
    }
}

/// Uniform on the open interval (0, 1): 53 random bits, centred in their cell.
double open_uniform(Rng& rng) {
    return (static_cast<double>(rng.next_u64() >> 11) + 0.5) * 0x1.0p-53;
}

/// Stores v as a float32 frequency; false (and 0 stored) when v is beyond the float32 range
/// (converting it would be undefined behaviour).
bool store(float* at, double v) {
    const bool fits = std::fabs(v) <= FLT_MAX;
    *at = fits ? static_cast<float>(v) : 0.0f;
    return fits;
}

/// Fills `out` with i.i.d. N(0, std²) draws, Box–Muller, both values of each pair used in
/// order (the second of the last pair is dropped when the count is odd). False if a draw
/// does not fit a float32.
bool fill_normal(float* out, size_t count, double std, Rng& rng) {
    bool fits = true;
    for (size_t i = 0; i < count; i += 2) {
        const double radius = std * std::sqrt(-2.0 * std::log(open_uniform(rng)));
        const double angle = 2.0 * std::numbers::pi * open_uniform(rng);
        fits &= store(out + static_cast<std::ptrdiff_t>(i), radius * std::cos(angle));
        if (i + 1 < count) fits &= store(out + static_cast<std::ptrdiff_t>(i + 1), radius * std::sin(angle));
    }
    return fits;
}

/// Fills `out` with i.i.d. Cauchy(0, scale) draws: scale · tan(π(u − ½)), u ∈ (0, 1). False if
/// a draw does not fit a float32 (|tan| reaches about 6e15).
bool fill_cauchy(float* out, size_t count, double scale, Rng& rng) {
    bool fits = true;
    for (size_t i = 0; i < count; ++i) {
        const double u = open_uniform(rng);
        fits &= store(out + static_cast<std::ptrdiff_t>(i), scale * std::tan(std::numbers::pi * (u - 0.5)));
    }
    return fits;
}

}  // namespace

RffMap::RffMap(KernelType kernel, double gamma, int64_t d, int64_t m, Rng& rng, engine::Isa isa,
               std::vector<float> shift)
    : shift_(std::move(shift)) {
    check_arguments(kernel, gamma, d, m);
    W_ = Matrix(m, d);
    const auto entries = static_cast<size_t>(m * d);
    // The kernel's spectral density: Gaussian for the squared distance, Cauchy for L1.
    const bool fits = kernel_traits(kernel).distance == KernelDistance::squared
                          ? fill_normal(W_.values.begin(), entries, std::sqrt(2.0 * gamma), rng)
                          : fill_cauchy(W_.values.begin(), entries, gamma, rng);
    if (!fits) {
        invalid_argument("gamma=" + message_number(gamma) +
                         " is too large for method=rff with kernel=" + to_text(kernel) +
                         ": its random frequencies overflow float32; lower gamma or "
                         "rescale the data");
    }
    b_.resize(static_cast<size_t>(m));
    for (float& phase : b_) phase = static_cast<float>(2.0 * std::numbers::pi * rng.uniform());
    packed_.assign(isa, W_.view(), {});
}

void RffMap::transform_block(ConstMatrix given, FeatureScratch& scratch, Matrix& out) const {
    ConstMatrix rows = given;
    if (!shift_.empty()) {
        Matrix& shifted = scratch.kernel;  // unused otherwise by this map
        shifted.reshape(given.rows, given.cols);
        for (int64_t i = 0; i < given.rows; ++i) {
            for (int64_t t = 0; t < given.cols; ++t)
                shifted.row(i)[t] = given.row(i)[t] - shift_[static_cast<size_t>(t)];
        }
        rows = shifted.view();
    }
    const int64_t m = dim();
    out.reshape(rows.rows, m);
    if (rows.cols != input_dim()) {
        fail(KKM_ERR_INTERNAL,
             "rff: rows have " + std::to_string(rows.cols) + " columns, the map " + std::to_string(input_dim()));
    }
    if (rows.rows == 0) return;
    engine::kernel_block(rows, nullptr, packed_, engine::TileOp{{}, engine::TileFn::dot}, out.data(), m,
                         &scratch.block);
    // cos(W x + b) of an overflowed W x would be NaN (the cosine pass assumes finite input).
    bool finite = true;
    const float* projected = out.data();
#pragma omp simd reduction(&& : finite)
    for (int64_t i = 0; i < rows.rows * m; ++i) finite = finite && std::isfinite(projected[i]);
    if (!finite) {
        invalid_data(
            "method=rff: the random projection W x of a row of X overflows float32 (the "
            "data's scale times the frequencies' scale, from gamma, exceeds 3.4e38); lower "
            "gamma or rescale the data (e.g. standardize the columns)");
    }
    const auto scale = static_cast<float>(std::sqrt(2.0 / static_cast<double>(m)));
    elementwise::cosine_features(out.data(), rows.rows, m, m, b_.data(), scale);
}

double RffMap::footprint(double m, double d) {
    return Matrix::footprint(m, d) + engine::PackedRows::footprint(m, d) + 4 * m + 4 * d;
}

double RffMap::block_footprint(double rows, double d, double m) {
    return 2 * Matrix::footprint(rows, d) + Matrix::footprint(rows, m) + engine::FixedRight::block_footprint(rows, d);
}

}  // namespace kkm
