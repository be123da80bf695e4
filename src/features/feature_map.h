// Feature maps of the approximate methods: features(x) ∈ R^r for a row x, computed in blocks.
// Landmark maps are "kernel row against landmarks, times a projection":
// features(x) = S · k_L(x); random Fourier features map x directly.
#pragma once

#include <cstdint>
#include <memory>

#include "core/matrix.h"
#include "engine/products.h"
#include "kernels/kernel_basis.h"

namespace kkm {

/// What a projection is: the model file's codes for it (never renumbered).
enum class ProjectionKind : uint32_t { dense = 1, identity = 2, ros = 3, subgaussian = 4 };

/// A linear map S from kernel rows g ∈ R^m to features S·g ∈ R^r, applied to blocks of rows.
class Projection {
public:
    virtual ~Projection() = default;
    virtual ProjectionKind kind() const = 0;
    virtual int64_t in_dim() const = 0;   ///< m
    virtual int64_t out_dim() const = 0;  ///< r
    /// out (reshaped to G.rows × out_dim()) = each row g of G mapped to S·g. G has GEMM
    /// slack behind it (a Matrix). Single-threaded; scratch (the caller's, kept from block to
    /// block, or NULL) holds the packed rows of G where the map packs them (DenseProjection).
    virtual void apply(ConstMatrix G, Matrix& out, engine::BlockScratch* scratch) const = 0;
};

/// S·g = Pᵀg for a dense m×r matrix P: a block's product G·P on the engine's tiles of path
/// isa (engine::FixedRight, P packed once when the projection is made: the model holds P
/// twice).
class DenseProjection final : public Projection {
public:
    DenseProjection(Matrix P, engine::Isa isa) : P_(std::move(P)), right_(isa, P_.view()) {}
    ProjectionKind kind() const override { return ProjectionKind::dense; }
    int64_t in_dim() const override { return P_.rows; }
    int64_t out_dim() const override { return P_.cols; }
    void apply(ConstMatrix G, Matrix& out, engine::BlockScratch* scratch) const override;
    const Matrix& matrix() const { return P_; }

    /// Bytes a projection of an m×r matrix holds (P and its pack), and while it is made.
    static double footprint(double m, double r);

private:
    Matrix P_;
    engine::FixedRight right_;
};

/// Per-thread buffers of a block transform.
struct FeatureScratch {
    Matrix rows;                 ///< a copy of the caller's rows
    Matrix kernel;               ///< kernel rows against the landmarks
    Kernel::Scratch basis;       ///< the kernel's centred copy and packs of those rows
    engine::BlockScratch block;  ///< the tiles' packed left rows (random features, dense projections)
    Matrix centred;              ///< the rows minus the anchors' shift (graph=anchor)
    std::vector<int32_t> index;  ///< each row's nearest anchors (graph=anchor)
    std::vector<float> dist;     ///< their squared distances, then weights (graph=anchor)
};

/// What a feature map is: the model file's codes for it (never renumbered).
enum class MapKind : uint32_t { landmarks = 1, rff = 2, anchors = 3 };

class FeatureMap {
public:
    virtual ~FeatureMap() = default;
    virtual MapKind kind() const = 0;
    /// Columns an input row must have (d, or n_train with kernel=precomputed).
    virtual int64_t input_dim() const = 0;
    /// Feature dimension r.
    virtual int64_t dim() const = 0;
    /// out (reshaped to rows.rows × dim()) = features of rows (a Matrix, GEMM-safe).
    /// Single-threaded.
    virtual void transform_block(ConstMatrix rows, FeatureScratch& scratch, Matrix& out) const = 0;
    /// Bytes one thread holds for a transform of `rows` rows through for_feature_blocks: the
    /// padded copy of the rows, the scratch and the features out.
    virtual double block_footprint(double rows) const = 0;
    /// The landmarks' kernel basis, or nullptr for maps without one (random features).
    virtual const KernelBasis* basis() const { return nullptr; }
};

/// features = S · k_L(x): a kernel basis over m landmarks and a projection S (m → r).
class LandmarkMap final : public FeatureMap {
public:
    LandmarkMap(KernelBasis basis, std::unique_ptr<Projection> projection);
    MapKind kind() const override { return MapKind::landmarks; }
    int64_t input_dim() const override { return basis_.input_dim(); }
    int64_t dim() const override { return projection_->out_dim(); }
    void transform_block(ConstMatrix rows, FeatureScratch& scratch, Matrix& out) const override;
    double block_footprint(double rows) const override;
    const KernelBasis* basis() const override { return &basis_; }
    const Projection& projection() const { return *projection_; }

private:
    KernelBasis basis_;
    std::unique_ptr<Projection> projection_;
};

/// out (X.rows × map.dim(), row-major, the caller's memory) = features of the caller's rows X,
/// in parallel blocks copied through padded buffers.
void transform_rows(const FeatureMap& map, ConstMatrix X, float* out, int threads);

/// Features of every row of X in a library Matrix (n × dim, GEMM-safe).
Matrix transform_all(const FeatureMap& map, ConstMatrix X, int threads);

}  // namespace kkm
