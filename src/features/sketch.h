// Randomized sketches of landmark kernel rows (Yin et al. 2022, Algorithm 1 and Examples 1–3):
// features(x) = S · k_Q(x) for m uniformly sampled points Q and S:
//  - subgaussian: S_ij = σ(i)/√m with probability 1/√n, else 0 (random signs σ), sparse;
//  - ros: S = D·A, D diagonal random ±1, A the normalised Hadamard matrix (m padded to the
//    next power of two p, so features have p components), applied by an in-place fast
//    Walsh–Hadamard transform, never as a dense matrix;
//  - gaussian: dense i.i.d. N(0, 1/m);
//  - identity: S = I (the paper's "Nyström (Ours)": raw kernel rows, no whitening).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/params.h"
#include "core/rng.h"
#include "features/feature_map.h"

namespace kkm {

/// S = I: features are the kernel rows themselves (Example 3).
class IdentityProjection final : public Projection {
public:
    explicit IdentityProjection(int64_t m) : m_(m) {}
    ProjectionKind kind() const override { return ProjectionKind::identity; }
    int64_t in_dim() const override { return m_; }
    int64_t out_dim() const override { return m_; }
    void apply(ConstMatrix G, Matrix& out, engine::BlockScratch* scratch) const override;

private:
    int64_t m_;
};

/// S = D·H_p/√p on rows zero-padded from m to p (Example 2), through the fast transform.
class RosProjection final : public Projection {
public:
    RosProjection(int64_t m, Rng& rng);
    /// A saved projection: scaled_signs has padded_dim(m) entries.
    RosProjection(int64_t m, std::vector<float> scaled_signs)
        : m_(m), p_(padded_dim(m)), scaled_signs_(std::move(scaled_signs)) {}
    /// p: the smallest power of two ≥ m (m ≥ 1), the feature dimension.
    static int64_t padded_dim(int64_t m);
    const std::vector<float>& scaled_signs() const { return scaled_signs_; }
    ProjectionKind kind() const override { return ProjectionKind::ros; }
    int64_t in_dim() const override { return m_; }
    int64_t out_dim() const override { return p_; }
    void apply(ConstMatrix G, Matrix& out, engine::BlockScratch* scratch) const override;

private:
    void transform_row(const float* g, float* y) const;

    int64_t m_;
    int64_t p_;
    std::vector<float> scaled_signs_;  ///< D's signs times 1/√p
};

/// S_ij = σ(i)/√m with probability q = 1/√n, else 0 (Example 1), stored row by row as the
/// columns of its nonzeros (all nonzeros of a row share one value).
class SubgaussianProjection final : public Projection {
public:
    SubgaussianProjection(int64_t m, int64_t n, Rng& rng);
    /// A saved projection (row_start has m + 1 entries, ascending from 0 to columns.size();
    /// every column in [0, m); row_value m entries).
    SubgaussianProjection(int64_t m, std::vector<int64_t> row_start, std::vector<int64_t> columns,
                          std::vector<float> row_value)
        : m_(m), row_start_(std::move(row_start)), columns_(std::move(columns)), row_value_(std::move(row_value)) {}
    ProjectionKind kind() const override { return ProjectionKind::subgaussian; }
    int64_t in_dim() const override { return m_; }
    int64_t out_dim() const override { return m_; }
    void apply(ConstMatrix G, Matrix& out, engine::BlockScratch* scratch) const override;
    const std::vector<int64_t>& row_start() const { return row_start_; }
    const std::vector<int64_t>& columns() const { return columns_; }
    const std::vector<float>& row_value() const { return row_value_; }

private:
    void append_row_pattern(double q, Rng& rng);
    void transform_row(const float* g, float* y) const;

    int64_t m_;
    std::vector<int64_t> row_start_;  ///< row i's nonzeros are columns_[row_start_[i] .. row_start_[i+1])
    std::vector<int64_t> columns_;
    std::vector<float> row_value_;  ///< σ(i)/√m
};

/// Feature columns of a sketch of m landmarks (ros pads m to a power of two).
int64_t sketch_dim(SketchKind kind, int64_t m);

/// Bytes the sketch S of m landmarks over n training rows keeps: the sub-Gaussian one's
/// nonzeros (Binomial(m², 1/√n): the mean plus six standard deviations) and row starts, ros's
/// signs, the gaussian's dense matrix, nothing for identity.
double sketch_footprint(SketchKind kind, double m, double n);

/// The sketch S as a Projection on kernel rows of length m; n is the number of training rows
/// (the sub-Gaussian density is 1/√n). All randomness comes from rng. isa: the path of the
/// gaussian sketch's dense products.
std::unique_ptr<Projection> make_sketch(SketchKind kind, int64_t m, int64_t n, Rng& rng, engine::Isa isa);

/// The dense matrix a projection applies, as out_dim × in_dim (row i, column j = S_ij), for
/// tests and small sizes.
Matrix dense_matrix(const Projection& projection);

}  // namespace kkm
