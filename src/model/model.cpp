#include "model/model.h"

#include <algorithm>

#include "cluster/lloyd.h"
#include "core/error.h"
#include "core/parallel.h"

namespace kkm {
namespace {

constexpr int64_t kAssignBlock = 64;

}  // namespace

ExactModel::ExactModel(Params params, int64_t d, FitReport report, KernelBasis basis,
                       DualCentres centres)
    : FittedModel(std::move(params), basis.size(), d, std::move(report)), basis_(std::move(basis)),
      centres_(std::move(centres)) {}

void ExactModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    const int64_t n = basis_.size();
    if (dist != nullptr && basis_.precomputed()) basis_.self(X, nullptr);  // throws the message
    parallel_blocks(threads, block_count(X.rows, kAssignBlock), [&](int64_t b) {
        const int64_t begin = b * kAssignBlock, count = std::min(kAssignBlock, X.rows - begin);
        const ConstMatrix rows = X.slice(begin, count);
        std::vector<float> K(static_cast<size_t>(count * n)), self, scratch_dist;
        basis_.evaluate(rows, K.data(), n);
        if (dist != nullptr) {
            self.resize(static_cast<size_t>(count));
            basis_.self(rows, self.data());
        } else {
            scratch_dist.resize(static_cast<size_t>(count));
        }
        dual_nearest(K.data(), count, dist != nullptr ? self.data() : nullptr, centres_,
                     labels + begin, dist != nullptr ? dist + begin : scratch_dist.data());
    });
}

void ExactModel::transform(ConstMatrix, float*, int) const {
    invalid_argument("method=exact has no explicit feature map; kkm_transform needs an "
                     "approximate method (method=nystrom)");
}

NystromModel::NystromModel(Params params, int64_t n_train, int64_t d, FitReport report,
                           NystromMap map, Matrix centroids)
    : FittedModel(std::move(params), n_train, d, std::move(report)), map_(std::move(map)),
      centroids_(std::move(centroids)) {
    cnorms_ = row_squared_norms(centroids_.view());
    for (double m : this->report().mass) alive_.push_back(m > 0 ? 1 : 0);
}

void NystromModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    const int64_t r = map_.dim(), m = map_.basis().size();
    parallel_blocks(threads, block_count(X.rows, kAssignBlock), [&](int64_t b) {
        const int64_t begin = b * kAssignBlock, count = std::min(kAssignBlock, X.rows - begin);
        std::vector<float> F(static_cast<size_t>(count * r)), scratch(static_cast<size_t>(count * m)),
            d(static_cast<size_t>(count));
        map_.transform_block(X.slice(begin, count), F.data(), scratch.data());
        const ConstMatrix Fv{F.data(), count, r};
        const std::vector<float> fnorms = row_squared_norms(Fv);
        nearest_centroid(Fv, fnorms.data(), centroids_, cnorms_, alive_, labels + begin, d.data());
        if (dist != nullptr) std::copy(d.begin(), d.end(), dist + begin);
    });
}

void NystromModel::transform(ConstMatrix X, float* out, int threads) const {
    map_.transform(X, out, threads);
}

}  // namespace kkm
