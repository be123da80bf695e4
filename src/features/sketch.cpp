#include "features/sketch.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/hot.h"

namespace kkm {
namespace {

/// A random sign ±1 from one bit of the generator.
float random_sign(Rng& rng) {
    return (rng.next_u64() >> 63) != 0 ? -1.0f : 1.0f;
}

/// In-place unnormalised fast Walsh–Hadamard transform of x (length p, a power of two):
/// x ← H_p x with H_p the Sylvester Hadamard matrix, O(p log p).
KKM_HOT void fwht(float* x, int64_t p) {
    for (int64_t h = 1; h < p; h *= 2) {
        for (int64_t i = 0; i < p; i += 2 * h) {
            float* lo = x + i;
            float* hi = x + i + h;
#pragma omp simd
            for (int64_t j = 0; j < h; ++j) {
                const float a = lo[j], b = hi[j];
                lo[j] = a + b;
                hi[j] = a - b;
            }
        }
    }
}

}  // namespace

void IdentityProjection::apply(ConstMatrix G, Matrix& out, engine::BlockScratch* /*scratch*/) const {
    out.reshape(G.rows, m_);
    for (int64_t r = 0; r < G.rows; ++r) std::copy(G.row(r), G.row(r) + m_, out.row(r));
}

int64_t RosProjection::padded_dim(int64_t m) {
    int64_t p = 1;
    while (p < m) p *= 2;
    return p;
}

RosProjection::RosProjection(int64_t m, Rng& rng) : m_(m), p_(padded_dim(m)) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(p_));
    scaled_signs_.resize(static_cast<size_t>(p_));
    for (float& s : scaled_signs_) s = random_sign(rng) * scale;
}

void RosProjection::apply(ConstMatrix G, Matrix& out, engine::BlockScratch* /*scratch*/) const {
    out.reshape(G.rows, p_);
    for (int64_t r = 0; r < G.rows; ++r) transform_row(G.row(r), out.row(r));
}

void RosProjection::transform_row(const float* g, float* y) const {
    std::copy(g, g + m_, y);
    std::fill(y + m_, y + p_, 0.0f);
    fwht(y, p_);
    const float* d = scaled_signs_.data();
#pragma omp simd
    for (int64_t i = 0; i < p_; ++i) y[i] *= d[i];
}

SubgaussianProjection::SubgaussianProjection(int64_t m, int64_t n, Rng& rng) : m_(m) {
    const double q = 1.0 / std::sqrt(static_cast<double>(n));
    const float magnitude = 1.0f / std::sqrt(static_cast<float>(m));
    row_start_.reserve(static_cast<size_t>(m + 1));
    row_value_.reserve(static_cast<size_t>(m));
    row_start_.push_back(0);
    for (int64_t i = 0; i < m; ++i) {
        row_value_.push_back(random_sign(rng) * magnitude);
        append_row_pattern(q, rng);
        row_start_.push_back(static_cast<int64_t>(columns_.size()));
    }
}

void SubgaussianProjection::apply(ConstMatrix G, Matrix& out, engine::BlockScratch* /*scratch*/) const {
    out.reshape(G.rows, m_);
    for (int64_t r = 0; r < G.rows; ++r) transform_row(G.row(r), out.row(r));
}

/// Columns j with S_ij ≠ 0 for one row: independent Bernoulli(q) draws, taken by geometric
/// skips (the gap before the next success) so the cost is O(nonzeros).
void SubgaussianProjection::append_row_pattern(double q, Rng& rng) {
    if (q >= 1.0) {
        for (int64_t j = 0; j < m_; ++j) columns_.push_back(j);
        return;
    }
    const double log_miss = std::log1p(-q);
    for (int64_t j = -1;;) {
        const double gap = std::floor(std::log1p(-rng.uniform()) / log_miss);
        if (gap >= static_cast<double>(m_ - 1 - j)) return;
        j += 1 + static_cast<int64_t>(gap);
        columns_.push_back(j);
    }
}

void SubgaussianProjection::transform_row(const float* g, float* y) const {
    for (int64_t i = 0; i < m_; ++i) {
        const auto begin = static_cast<size_t>(row_start_[static_cast<size_t>(i)]);
        const auto end = static_cast<size_t>(row_start_[static_cast<size_t>(i) + 1]);
        float sum = 0.0f;
        for (size_t t = begin; t < end; ++t) sum += g[columns_[t]];
        y[i] = row_value_[static_cast<size_t>(i)] * sum;
    }
}

namespace {

/// Standard normals by Box–Muller from the generator's uniforms, one pair per two draws.
class NormalSource {
public:
    explicit NormalSource(Rng& rng) : rng_(rng) {}
    double next() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double radius = std::sqrt(-2.0 * std::log1p(-rng_.uniform()));  // 1 − u ∈ (0, 1]
        const double angle = 2.0 * std::numbers::pi * rng_.uniform();
        spare_ = radius * std::sin(angle);
        has_spare_ = true;
        return radius * std::cos(angle);
    }

private:
    Rng& rng_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

/// Dense S with i.i.d. N(0, 1/m) entries, drawn in row-major order of S, returned as the
/// DenseProjection P = Sᵀ (so that a block of rows G maps to G·Sᵀ by one GEMM).
std::unique_ptr<Projection> gaussian_sketch(int64_t m, Rng& rng, engine::Isa isa) {
    const double sd = 1.0 / std::sqrt(static_cast<double>(m));
    NormalSource normal(rng);
    Matrix P(m, m);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) P.row(j)[i] = static_cast<float>(sd * normal.next());
    }
    return std::make_unique<DenseProjection>(std::move(P), isa);
}

}  // namespace

std::unique_ptr<Projection> make_sketch(SketchKind kind, int64_t m, int64_t n, Rng& rng, engine::Isa isa) {
    if (m < 1 || n < 1) {
        fail(KKM_ERR_INTERNAL,
             "make_sketch: m and n must be positive (m=" + std::to_string(m) + ", n=" + std::to_string(n) + ")");
    }
    switch (kind) {
        case SketchKind::subgaussian: return std::make_unique<SubgaussianProjection>(m, n, rng);
        case SketchKind::ros: return std::make_unique<RosProjection>(m, rng);
        case SketchKind::gaussian: return gaussian_sketch(m, rng, isa);
        case SketchKind::identity: return std::make_unique<IdentityProjection>(m);
    }
    fail(KKM_ERR_INTERNAL, "make_sketch: unknown sketch kind");
}

Matrix dense_matrix(const Projection& projection) {
    Matrix identity(projection.in_dim(), projection.in_dim()), out;
    for (int64_t i = 0; i < projection.in_dim(); ++i) identity.row(i)[i] = 1.0f;
    projection.apply(identity.view(), out, nullptr);  // row j of out = S e_j = column j of S
    Matrix S;
    transpose_into(out.view(), S);
    return S;
}

int64_t sketch_dim(SketchKind kind, int64_t m) {
    return kind == SketchKind::ros ? RosProjection::padded_dim(m) : m;
}

double sketch_footprint(SketchKind kind, double m, double n) {
    switch (kind) {
        case SketchKind::subgaussian: {
            const double q = std::min(1.0, 1.0 / std::sqrt(n));
            return 8 * (m + 1) + 4 * m + 2 * 8 * (m * m * q + 6 * m * std::sqrt(q) + 8);
        }
        case SketchKind::ros: return 4 * static_cast<double>(sketch_dim(kind, static_cast<int64_t>(m)));
        case SketchKind::gaussian: return DenseProjection::footprint(m, m);
        case SketchKind::identity: return 0;
    }
    return 0;
}

}  // namespace kkm
