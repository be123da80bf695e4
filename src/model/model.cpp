#include "model/model.h"

#include <algorithm>

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
        Matrix rows, K(count, n);
        copy_into(X.slice(begin, count), rows);  // the caller's rows, padded for GEMM
        std::vector<float> self, scratch_dist;
        basis_.evaluate(rows.view(), K.data(), n);
        if (dist != nullptr) {
            self.resize(static_cast<size_t>(count));
            basis_.self(rows.view(), self.data());
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
                           NystromMap map, LandmarkCentres centres)
    : FittedModel(std::move(params), n_train, d, std::move(report)), map_(std::move(map)),
      centres_(std::move(centres)) {}

void NystromModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    const KernelBasis& basis = map_.basis();
    const int64_t m = basis.size();
    if (dist != nullptr && basis.precomputed()) basis.self(X, nullptr);  // throws the message
    parallel_blocks(threads, block_count(X.rows, kAssignBlock), [&](int64_t b) {
        const int64_t begin = b * kAssignBlock, count = std::min(kAssignBlock, X.rows - begin);
        Matrix rows, G(count, m);
        copy_into(X.slice(begin, count), rows);  // the caller's rows, padded for GEMM
        std::vector<float> self, scratch_dist;
        basis.evaluate(rows.view(), G.data(), m);
        if (dist != nullptr) {
            self.resize(static_cast<size_t>(count));
            basis.self(rows.view(), self.data());
        } else {
            scratch_dist.resize(static_cast<size_t>(count));
        }
        landmark_nearest(G.view(), dist != nullptr ? self.data() : nullptr,
                         centres_, labels + begin, dist != nullptr ? dist + begin : scratch_dist.data());
    });
}

void NystromModel::transform(ConstMatrix X, float* out, int threads) const {
    map_.transform(X, out, threads);
}

}  // namespace kkm
