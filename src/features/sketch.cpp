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

/// Smallest power of two ≥ m (m ≥ 1).
int64_t next_power_of_two(int64_t m) {
    int64_t p = 1;
    while (p < m) p *= 2;
    return p;
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

/// S = I: features are the kernel rows themselves (Example 3).
class IdentityProjection final : public Projection {
public:
    explicit IdentityProjection(int64_t m) : m_(m) {}
    int64_t in_dim() const override { return m_; }
    int64_t out_dim() const override { return m_; }
    void apply(ConstMatrix G, Matrix& out) const override {
        out.reshape(G.rows, m_);
        for (int64_t r = 0; r < G.rows; ++r) std::copy(G.row(r), G.row(r) + m_, out.row(r));
    }

private:
    int64_t m_;
};

/// S = D·H_p/√p on rows zero-padded from m to p (Example 2), through the fast transform.
class RosProjection final : public Projection {
public:
    RosProjection(int64_t m, Rng& rng) : m_(m), p_(next_power_of_two(m)) {
        const float scale = 1.0f / std::sqrt(static_cast<float>(p_));
        scaled_signs_.resize(static_cast<size_t>(p_));
        for (float& s : scaled_signs_) s = random_sign(rng) * scale;
    }
    /// A saved projection: scaled_signs has next_power_of_two(m) entries.
    RosProjection(int64_t m, std::vector<float> scaled_signs)
        : m_(m), p_(next_power_of_two(m)), scaled_signs_(std::move(scaled_signs)) {}
    const std::vector<float>& scaled_signs() const { return scaled_signs_; }
    int64_t in_dim() const override { return m_; }
    int64_t out_dim() const override { return p_; }
    void apply(ConstMatrix G, Matrix& out) const override {
        out.reshape(G.rows, p_);
        for (int64_t r = 0; r < G.rows; ++r) transform_row(G.row(r), out.row(r));
    }

private:
    void transform_row(const float* g, float* y) const {
        std::copy(g, g + m_, y);
        std::fill(y + m_, y + p_, 0.0f);
        fwht(y, p_);
        const float* d = scaled_signs_.data();
#pragma omp simd
        for (int64_t i = 0; i < p_; ++i) y[i] *= d[i];
    }

    int64_t m_;
    int64_t p_;
    std::vector<float> scaled_signs_;  ///< D's signs times 1/√p
};

/// S_ij = σ(i)/√m with probability q = 1/√n, else 0 (Example 1), stored row by row as the
/// columns of its nonzeros (all nonzeros of a row share one value).
class SubgaussianProjection final : public Projection {
public:
    SubgaussianProjection(int64_t m, int64_t n, Rng& rng) : m_(m) {
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
    /// A saved projection (row_start has m + 1 entries, ascending from 0 to columns.size();
    /// every column in [0, m); row_value m entries).
    SubgaussianProjection(int64_t m, std::vector<int64_t> row_start, std::vector<int64_t> columns,
                          std::vector<float> row_value)
        : m_(m), row_start_(std::move(row_start)), columns_(std::move(columns)), row_value_(std::move(row_value)) {}
    int64_t in_dim() const override { return m_; }
    int64_t out_dim() const override { return m_; }
    void apply(ConstMatrix G, Matrix& out) const override {
        out.reshape(G.rows, m_);
        for (int64_t r = 0; r < G.rows; ++r) transform_row(G.row(r), out.row(r));
    }
    const std::vector<int64_t>& row_start() const { return row_start_; }
    const std::vector<int64_t>& columns() const { return columns_; }
    const std::vector<float>& row_value() const { return row_value_; }

private:
    /// Columns j with S_ij ≠ 0 for one row: independent Bernoulli(q) draws, taken by
    /// geometric skips (the gap before the next success) so the cost is O(nonzeros).
    void append_row_pattern(double q, Rng& rng) {
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

    void transform_row(const float* g, float* y) const {
        for (int64_t i = 0; i < m_; ++i) {
            const auto begin = static_cast<size_t>(row_start_[static_cast<size_t>(i)]);
            const auto end = static_cast<size_t>(row_start_[static_cast<size_t>(i) + 1]);
            float sum = 0.0f;
            for (size_t t = begin; t < end; ++t) sum += g[columns_[t]];
            y[i] = row_value_[static_cast<size_t>(i)] * sum;
        }
    }

    int64_t m_;
    std::vector<int64_t> row_start_;  ///< row i's nonzeros are columns_[row_start_[i] .. row_start_[i+1])
    std::vector<int64_t> columns_;
    std::vector<float> row_value_;  ///< σ(i)/√m
};

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
std::unique_ptr<Projection> gaussian_sketch(int64_t m, Rng& rng) {
    const double sd = 1.0 / std::sqrt(static_cast<double>(m));
    NormalSource normal(rng);
    Matrix P(m, m);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) P.row(j)[i] = static_cast<float>(sd * normal.next());
    }
    return std::make_unique<DenseProjection>(std::move(P));
}

}  // namespace

std::unique_ptr<Projection> make_sketch(SketchKind kind, int64_t m, int64_t n, Rng& rng) {
    if (m < 1 || n < 1) {
        fail(KKM_ERR_INTERNAL,
             "make_sketch: m and n must be positive (m=" + std::to_string(m) + ", n=" + std::to_string(n) + ")");
    }
    switch (kind) {
        case SketchKind::subgaussian: return std::make_unique<SubgaussianProjection>(m, n, rng);
        case SketchKind::ros: return std::make_unique<RosProjection>(m, rng);
        case SketchKind::gaussian: return gaussian_sketch(m, rng);
        case SketchKind::identity: return std::make_unique<IdentityProjection>(m);
    }
    fail(KKM_ERR_INTERNAL, "make_sketch: unknown sketch kind");
}

Matrix dense_matrix(const Projection& projection) {
    Matrix identity(projection.in_dim(), projection.in_dim()), out;
    for (int64_t i = 0; i < projection.in_dim(); ++i) identity.row(i)[i] = 1.0f;
    projection.apply(identity.view(), out);  // row j of out = S e_j = column j of S
    Matrix S(projection.out_dim(), projection.in_dim());
    for (int64_t j = 0; j < projection.in_dim(); ++j) {
        for (int64_t i = 0; i < projection.out_dim(); ++i) S.row(i)[j] = out.row(j)[i];
    }
    return S;
}

}  // namespace kkm

// ---------------------------------------------------------------- model files

namespace kkm {
namespace {

enum class ProjectionKind : uint32_t { dense = 1, identity = 2, ros = 3, subgaussian = 4 };

[[noreturn]] void bad_projection(const std::string& message) {
    fail(KKM_ERR_FORMAT, "corrupted model: projection " + message);
}

void check_subgaussian(int64_t m, const std::vector<int64_t>& row_start, const std::vector<int64_t>& columns,
                       const std::vector<float>& row_value) {
    if (static_cast<int64_t>(row_start.size()) != m + 1 || static_cast<int64_t>(row_value.size()) != m) {
        bad_projection("(subgaussian) has " + std::to_string(row_start.size()) + " row starts and " +
                       std::to_string(row_value.size()) + " row values for m=" + std::to_string(m));
    }
    if (row_start.front() != 0 || row_start.back() != static_cast<int64_t>(columns.size()) ||
        !std::is_sorted(row_start.begin(), row_start.end())) {
        bad_projection("(subgaussian) row starts are not ascending from 0 to the column count");
    }
    for (int64_t j : columns) {
        if (j < 0 || j >= m) bad_projection("(subgaussian) column " + std::to_string(j) + " is outside [0, m)");
    }
}

}  // namespace

void save_projection(const Projection& projection, Writer& w) {
    w.section(tag("PROJ"), [&] {
        w.scalar<int64_t>(projection.in_dim());
        if (const auto* dense = dynamic_cast<const DenseProjection*>(&projection)) {
            w.scalar(static_cast<uint32_t>(ProjectionKind::dense));
            w.matrix(tag("PDNS"), dense->matrix());
        } else if (dynamic_cast<const IdentityProjection*>(&projection) != nullptr) {
            w.scalar(static_cast<uint32_t>(ProjectionKind::identity));
        } else if (const auto* ros = dynamic_cast<const RosProjection*>(&projection)) {
            w.scalar(static_cast<uint32_t>(ProjectionKind::ros));
            w.array<float>(tag("PSGN"), ros->scaled_signs());
        } else if (const auto* sub = dynamic_cast<const SubgaussianProjection*>(&projection)) {
            w.scalar(static_cast<uint32_t>(ProjectionKind::subgaussian));
            w.array<int64_t>(tag("PROW"), sub->row_start());
            w.array<int64_t>(tag("PCOL"), sub->columns());
            w.array<float>(tag("PVAL"), sub->row_value());
        } else {
            fail(KKM_ERR_INTERNAL, "save_projection: unknown projection type");
        }
    });
}

std::unique_ptr<Projection> load_projection(Reader& outer, int64_t in_dim) {
    Reader r = outer.section(tag("PROJ"));
    const auto m = r.scalar<int64_t>("landmark count");
    if (m != in_dim) {
        bad_projection("maps " + std::to_string(m) + " kernel values but the basis has " + std::to_string(in_dim));
    }
    std::unique_ptr<Projection> out;
    switch (static_cast<ProjectionKind>(r.scalar<uint32_t>("projection kind"))) {
        case ProjectionKind::dense: {
            Matrix P = r.matrix(tag("PDNS"));
            if (P.rows != m)
                bad_projection("(dense) has " + std::to_string(P.rows) + " rows for m=" + std::to_string(m));
            out = std::make_unique<DenseProjection>(std::move(P));
            break;
        }
        case ProjectionKind::identity: out = std::make_unique<IdentityProjection>(m); break;
        case ProjectionKind::ros: {
            std::vector<float> signs = r.array<float>(tag("PSGN"));
            if (static_cast<int64_t>(signs.size()) != next_power_of_two(m)) {
                bad_projection("(ros) has " + std::to_string(signs.size()) + " signs for m=" + std::to_string(m));
            }
            // Each entry is a sign times 1/√p, as the fit wrote it (float rounding aside).
            const float scale = 1.0f / std::sqrt(static_cast<float>(signs.size()));
            for (size_t i = 0; i < signs.size(); ++i) {
                if (!(std::abs(std::abs(signs[i]) - scale) <= 1e-6f * scale)) {
                    bad_projection("(ros) sign " + std::to_string(i) + " is " + message_number(signs[i]) +
                                   ", not +-1/sqrt(" + std::to_string(signs.size()) + ")");
                }
            }
            out = std::make_unique<RosProjection>(m, std::move(signs));
            break;
        }
        case ProjectionKind::subgaussian: {
            std::vector<int64_t> row_start = r.array<int64_t>(tag("PROW"));
            std::vector<int64_t> columns = r.array<int64_t>(tag("PCOL"));
            std::vector<float> row_value = r.array<float>(tag("PVAL"));
            check_subgaussian(m, row_start, columns, row_value);
            out = std::make_unique<SubgaussianProjection>(m, std::move(row_start), std::move(columns),
                                                          std::move(row_value));
            break;
        }
        default: bad_projection("kind is unknown");
    }
    r.finish();
    return out;
}

}  // namespace kkm
