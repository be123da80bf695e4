#include "features/anchor_map.h"

#include <cmath>

#include "core/blocking.h"
#include "core/parallel.h"

namespace kkm {

AnchorMap::AnchorMap(graph::PackedSearch anchors, int64_t r, double sigma2, Matrix Q, bool normalise)
    : anchors_(std::move(anchors)), r_(r), sigma2_(sigma2), Q_(std::move(Q)), normalise_(normalise) {}

namespace {

/// Q_jl = v_l[j] / √D_j · scale(λ_l).
template <class Scale>
Matrix scaled_projection(const graph::Eigenpairs& e, const std::vector<double>& degree, Scale&& scale_of) {
    const auto R = static_cast<int64_t>(e.values.size());
    Matrix Q(e.vectors.rows, R);
    for (int64_t l = 0; l < R; ++l) {
        const double scale = scale_of(e.values[static_cast<size_t>(l)]);
        for (int64_t j = 0; j < Q.rows; ++j) {
            Q.row(j)[l] = static_cast<float>(static_cast<double>(e.vectors.row(j)[l]) * scale /
                                             std::sqrt(degree[static_cast<size_t>(j)]));
        }
    }
    return Q;
}

}  // namespace

Matrix AnchorMap::heat_projection(const graph::Eigenpairs& e, const std::vector<double>& degree, double t) {
    return scaled_projection(e, degree,
                             [t](double lambda) { return std::exp(-t * (1.0 - lambda) / 2.0) / std::sqrt(lambda); });
}

Matrix AnchorMap::knn_projection(const graph::Eigenpairs& e, const std::vector<double>& degree) {
    return scaled_projection(e, degree, [](double) { return 1.0; });
}

void AnchorMap::attach(ConstMatrix rows, FeatureScratch& scratch, int32_t* index, float* weight) const {
    scratch.dist.resize(static_cast<size_t>(rows.rows * r_));
    anchors_.nearest(rows, r_, scratch.centred, scratch.kernel, scratch.block, index, scratch.dist.data());
    for (int64_t i = 0; i < rows.rows; ++i)
        graph::anchor_weights(scratch.dist.data() + i * r_, r_, sigma2_, weight + i * r_);
}

void anchor_projection(const int32_t* index, const float* weight, int64_t rows, int64_t r, const Matrix& Q,
                       bool normalise, float* out) {
    const int64_t R = Q.cols;
    std::vector<double> acc(static_cast<size_t>(R));
    for (int64_t i = 0; i < rows; ++i) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t t = 0; t < r; ++t) {
            const double w = weight[i * r + t];
            const float* q = Q.row(index[i * r + t]);
            for (int64_t l = 0; l < R; ++l) acc[static_cast<size_t>(l)] += w * static_cast<double>(q[l]);
        }
        double norm = 1.0;
        if (normalise) {
            double s = 0;
            for (const double v : acc) s += v * v;
            norm = s > 0 ? std::sqrt(s) : 1.0;
        }
        for (int64_t l = 0; l < R; ++l) out[i * R + l] = static_cast<float>(acc[static_cast<size_t>(l)] / norm);
    }
}

void AnchorMap::features(const int32_t* index, const float* weight, int64_t rows, float* out) const {
    anchor_projection(index, weight, rows, r_, Q_, normalise_, out);
}

double AnchorMap::block_footprint(double rows) const {
    const auto d = static_cast<double>(input_dim()), p = static_cast<double>(anchors_.size()),
               r = static_cast<double>(r_);
    // The copy and the centred copy, the distances to every anchor and the tiles' packing,
    // the lists (index, distance, weight), the features.
    return 2 * Matrix::footprint(rows, d) + Matrix::footprint(rows, p) + engine::FixedRight::block_footprint(rows, d) +
           12 * rows * r + Matrix::footprint(rows, static_cast<double>(Q_.cols));
}

void AnchorMap::transform_block(ConstMatrix rows, FeatureScratch& scratch, Matrix& out) const {
    scratch.index.resize(static_cast<size_t>(rows.rows * r_));
    std::vector<float> weight(static_cast<size_t>(rows.rows * r_));
    attach(rows, scratch, scratch.index.data(), weight.data());
    out.reshape(rows.rows, Q_.cols);
    features(scratch.index.data(), weight.data(), rows.rows, out.data());
}

Matrix anchor_features(const graph::AnchorLists& Z, const Matrix& Q, bool normalise, int threads) {
    Matrix F(Z.rows, Q.cols);
    parallel_blocks(threads, block_count(Z.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, Z.rows - begin);
        anchor_projection(Z.index.data() + begin * Z.r, Z.weight.data() + begin * Z.r, count, Z.r, Q, normalise,
                          F.row(begin));
    });
    return F;
}

Matrix anchor_features(const AnchorMap& map, const graph::AnchorLists& Z, int threads) {
    return anchor_features(Z, map.projection(), map.normalise(), threads);
}

}  // namespace kkm
