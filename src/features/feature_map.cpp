#include "features/feature_map.h"

#include <algorithm>
#include <vector>

#include "core/blocking.h"
#include "core/parallel.h"

namespace kkm {
namespace {

/// Runs fn(begin, count, features) over the rows of X in parallel blocks.
template <class Fn>
void for_feature_blocks(const FeatureMap& map, ConstMatrix X, int threads, Fn&& fn) {
    std::vector<FeatureScratch> scratch(static_cast<size_t>(threads));
    std::vector<Matrix> features(static_cast<size_t>(threads));
    parallel_blocks(threads, block_count(X.rows, kRowBlock), [&](int64_t b) {
        const size_t t = thread_slot(scratch.size());
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, X.rows - begin);
        copy_into(X.slice(begin, count), scratch[t].rows);
        map.transform_block(scratch[t].rows.view(), scratch[t], features[t]);
        fn(begin, count, features[t]);
    });
}

}  // namespace

void DenseProjection::apply(ConstMatrix G, Matrix& out, engine::BlockScratch* scratch) const {
    out.reshape(G.rows, P_.cols);
    right_.apply(G, out.data(), P_.cols, scratch);
}

double DenseProjection::footprint(double m, double r) {
    return Matrix::footprint(m, r) + engine::FixedRight::footprint(m, r);
}

LandmarkMap::LandmarkMap(KernelBasis basis, std::unique_ptr<Projection> projection)
    : basis_(std::move(basis)), projection_(std::move(projection)) {}

double LandmarkMap::block_footprint(double rows) const {
    const auto d = static_cast<double>(input_dim()), m = static_cast<double>(basis_.size()),
               r = static_cast<double>(dim());
    return Matrix::footprint(rows, d) + KernelBasis::row_block_footprint(rows, d, m, basis_.precomputed()) +
           engine::FixedRight::block_footprint(rows, m) + Matrix::footprint(rows, r);
}

void LandmarkMap::transform_block(ConstMatrix rows, FeatureScratch& scratch, Matrix& out) const {
    scratch.kernel.reshape(rows.rows, basis_.size());
    basis_.evaluate(rows, scratch.kernel.data(), basis_.size(), &scratch.basis);
    projection_->apply(scratch.kernel.view(), out, &scratch.block);
}

void transform_rows(const FeatureMap& map, ConstMatrix X, float* out, int threads) {
    const int64_t r = map.dim();
    for_feature_blocks(map, X, threads, [&](int64_t begin, int64_t count, const Matrix& f) {
        std::copy(f.data(), f.data() + count * r, out + begin * r);
    });
}

Matrix transform_all(const FeatureMap& map, ConstMatrix X, int threads) {
    Matrix F(X.rows, map.dim());
    transform_rows(map, X, F.data(), threads);
    return F;
}

}  // namespace kkm
