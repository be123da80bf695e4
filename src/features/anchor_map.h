// The graph kernels' features on the anchor graph (graph=anchor, graph/anchors.h) as a feature
// map: a row x attaches to its r nearest anchors with weights z(x), and f_l(x) = Σ_j z_j(x) Q_jl:
//   heat  f_l(x) = e^{−t(1−λ_l)/2} · z(x) D^-½ v_l / √λ_l, the heat kernel exp(−tL) of the rows'
//         graph W = ẐẐᵀ through its top eigenpairs (λ_l, u_l), each row scaled to unit length
//         when normalised (as graph/heat.h's features);
//   knn   f_l(x) = z(x) D^-½ v_l = √λ_l u_l(x), the normalized-cut kernel D⁻¹WD⁻¹ = W (every
//         row's degree is 1) through the same pairs: Σ_l f_l(x) f_l(y) = Σ_l λ_l u_l(x) u_l(y),
//         W's rank-R part, exactly W when R covers every pair of positive λ.
// The training rows' features and a new row's are the same function of the row: a model keeps
// the p anchors and Q (p × R), never the training rows.
#pragma once

#include <cstdint>
#include <vector>

#include "features/feature_map.h"
#include "graph/anchors.h"
#include "graph/neighbours.h"

namespace kkm {

class AnchorMap final : public FeatureMap {
public:
    /// anchors: the p anchors (centred by the fit's shift), packed; r: anchors per row; sigma2:
    /// the weights' σ²; Q: p × R; normalise: rows to unit length.
    AnchorMap(graph::PackedSearch anchors, int64_t r, double sigma2, Matrix Q, bool normalise);
    /// Q of the top pairs: Q_jl = v_l[j] / √D_j · e^{−t(1−λ_l)/2} / √λ_l.
    static Matrix heat_projection(const graph::Eigenpairs& e, const std::vector<double>& degree, double t);
    /// Q of the normalized-cut kernel: Q_jl = v_l[j] / √D_j.
    static Matrix knn_projection(const graph::Eigenpairs& e, const std::vector<double>& degree);

    MapKind kind() const override { return MapKind::anchors; }
    int64_t input_dim() const override { return anchors_.rows().dim(); }
    int64_t dim() const override { return Q_.cols; }
    void transform_block(ConstMatrix rows, FeatureScratch& scratch, Matrix& out) const override;
    double block_footprint(double rows) const override;

    /// Each row's r nearest anchors and weights (index, weight: rows·r each). Single-threaded.
    void attach(ConstMatrix rows, FeatureScratch& scratch, int32_t* index, float* weight) const;
    /// Features (rows × dim(), row stride dim()) of rows given their anchors and weights.
    void features(const int32_t* index, const float* weight, int64_t rows, float* out) const;

    const graph::PackedSearch& anchors() const { return anchors_; }
    int64_t neighbours() const { return r_; }
    double sigma2() const { return sigma2_; }
    const Matrix& projection() const { return Q_; }
    bool normalise() const { return normalise_; }

private:
    graph::PackedSearch anchors_;
    int64_t r_;
    double sigma2_;
    Matrix Q_;
    bool normalise_;
};

/// Features (rows × Q.cols) of rows given their r anchors and weights each: Σ_t w_t Q[index_t],
/// each row scaled to unit length when normalise. Single-threaded.
void anchor_projection(const int32_t* index, const float* weight, int64_t rows, int64_t r, const Matrix& Q,
                       bool normalise, float* out);
/// Features of every training row from its lists (n × R) through the projection Q, in parallel
/// row blocks; or through a map's projection.
Matrix anchor_features(const graph::AnchorLists& Z, const Matrix& Q, bool normalise, int threads);
Matrix anchor_features(const AnchorMap& map, const graph::AnchorLists& Z, int threads);

}  // namespace kkm
