// Random Fourier features (Rahimi & Recht 2007) for shift-invariant kernels:
// z(x) = √(2/m) · cos(W x + b), W's rows drawn from the kernel's spectral density — N(0, 2γI)
// for rbf exp(−γ‖x−y‖²), a product of Cauchy(0, γ) for laplacian exp(−γ‖x−y‖₁) — and b
// uniform on [0, 2π). Then E[z(x)ᵀz(y)] = k(x, y).
#pragma once

#include <cstdint>
#include <vector>

#include "core/params.h"
#include "core/rng.h"
#include "engine/engine.h"
#include "features/feature_map.h"

namespace kkm {

class RffMap final : public FeatureMap {
public:
    /// Throws INVALID_ARGUMENT for kernels other than rbf and laplacian, and for a gamma whose
    /// frequencies do not fit float32.
    /// shift: empty, or d values subtracted from every row first (centring_shift: W x of rows
    /// far from the origin loses the phase digits in float32).
    /// isa: the path of W x (the engine's tiles, W packed once: the map holds W twice).
    RffMap(KernelType kernel, double gamma, int64_t d, int64_t m, Rng& rng, engine::Isa isa,
           std::vector<float> shift = {});
    /// A saved map: W (m × d frequencies), its m phases and the shift (sizes checked by the caller).
    RffMap(Matrix W, std::vector<float> phases, engine::Isa isa, std::vector<float> shift = {})
        : W_(std::move(W)), b_(std::move(phases)), shift_(std::move(shift)), packed_(isa, W_.view(), {}) {}
    MapKind kind() const override { return MapKind::rff; }
    int64_t input_dim() const override { return W_.cols; }
    int64_t dim() const override { return W_.rows; }
    /// out = √(2/m) · cos((rows − shift) · Wᵀ + b): the products on the engine's tiles (each
    /// one fused multiply-add chain over d), then one vectorised elementwise pass;
    /// scratch.kernel holds the shifted rows. Single-threaded. Throws INVALID_DATA when W x
    /// overflows float32.
    void transform_block(ConstMatrix rows, FeatureScratch& scratch, Matrix& out) const override;
    double block_footprint(double rows) const override {
        return block_footprint(rows, static_cast<double>(input_dim()), static_cast<double>(dim())) +
               Matrix::footprint(rows, static_cast<double>(dim()));
    }
    /// Bytes a map of m features over d columns keeps: W and its pack, the phases, the shift.
    static double footprint(double m, double d);
    /// Bytes transform_block of `rows` rows holds besides its output: the copy and the
    /// shifted copy of the rows, the products W x and the tiles' packing.
    static double block_footprint(double rows, double d, double m);
    /// The m × d frequencies W (row j is ω_j).
    const Matrix& frequencies() const { return W_; }
    /// The m phases b, each in [0, 2π).
    const std::vector<float>& phases() const { return b_; }

private:
    Matrix W_;                   ///< m × d frequencies
    std::vector<float> b_;       ///< m phases
    std::vector<float> shift_;   ///< empty, or d values subtracted from every row
    engine::PackedRows packed_;  ///< W for the tiles
};

}  // namespace kkm
