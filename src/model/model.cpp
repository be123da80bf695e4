#include "model/model.h"

#include <algorithm>

#include "core/error.h"
#include "core/parallel.h"

namespace kkm {
namespace {

constexpr int64_t kAssignBlock = 64;

/// The assign loop both methods share: in parallel blocks, the kernel rows of X against the
/// basis (and k(x,x) when distances are wanted), then nearest(K, self, labels, dist).
template <class Nearest>
void assign_by_kernel_rows(const KernelBasis& basis, ConstMatrix X, int32_t* labels, float* dist,
                           int threads, Nearest&& nearest) {
    const int64_t n = basis.size();
    if (dist != nullptr && basis.precomputed()) basis.self(X, nullptr);  // throws the message
    parallel_blocks(threads, block_count(X.rows, kAssignBlock), [&](int64_t b) {
        const int64_t begin = b * kAssignBlock, count = std::min(kAssignBlock, X.rows - begin);
        Matrix rows, K(count, n);
        copy_into(X.slice(begin, count), rows);  // the caller's rows, padded for GEMM
        basis.evaluate(rows.view(), K.data(), n);
        std::vector<float> self, scratch_dist;
        if (dist != nullptr) {
            self.resize(static_cast<size_t>(count));
            basis.self(rows.view(), self.data());
        } else {
            scratch_dist.resize(static_cast<size_t>(count));
        }
        nearest(K, dist != nullptr ? self.data() : nullptr, labels + begin,
                dist != nullptr ? dist + begin : scratch_dist.data());
    });
}

}  // namespace

ExactModel::ExactModel(Params params, int64_t d, FitReport report, KernelBasis basis,
                       DualCentres centres)
    : FittedModel(std::move(params), basis.size(), d, std::move(report)), basis_(std::move(basis)),
      centres_(std::move(centres)) {}

void ExactModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    assign_by_kernel_rows(basis_, X, labels, dist, threads,
                          [&](const Matrix& K, const float* self, int32_t* l, float* d) {
                              dual_nearest(K.data(), K.rows, self, centres_, l, d);
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
    assign_by_kernel_rows(map_.basis(), X, labels, dist, threads,
                          [&](const Matrix& G, const float* self, int32_t* l, float* d) {
                              landmark_nearest(G.view(), self, centres_, l, d);
                          });
}

void NystromModel::transform(ConstMatrix X, float* out, int threads) const {
    map_.transform(X, out, threads);
}

}  // namespace kkm
