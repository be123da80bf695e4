#include "model/model.h"

#include <algorithm>

#include "cluster/lloyd.h"
#include "core/error.h"
#include "core/parallel.h"

namespace kkm {
namespace {

constexpr int64_t kAssignBlock = 64;

/// The assign loop both methods share: in parallel blocks, the kernel rows of X against the
/// basis (and k(x,x) when distances are wanted), then nearest(K, self, labels, dist).
template <class Nearest>
void assign_by_kernel_rows(const KernelBasis& basis, ConstMatrix X, int32_t* labels, float* dist, int threads,
                           Nearest&& nearest) {
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

DualModel::DualModel(Params params, int64_t n_train, int64_t d, FitReport report, KernelBasis basis,
                     DualCentres centres)
    : FittedModel(std::move(params), n_train, d, std::move(report)),
      basis_(std::move(basis)),
      centres_(std::move(centres)) {}

void DualModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    assign_by_kernel_rows(basis_, X, labels, dist, threads,
                          [&](const Matrix& K, const float* self, int32_t* l, float* d) {
                              dual_nearest(K.data(), K.rows, self, centres_, l, d);
                          });
}

void DualModel::transform(ConstMatrix, float*, int) const {
    invalid_argument(
        "method=exact and method=minibatch have no explicit feature map; "
        "kkm_transform needs method=nystrom, sketch or rff");
}

NystromModel::NystromModel(Params params, int64_t n_train, int64_t d, FitReport report,
                           std::unique_ptr<LandmarkMap> map, LandmarkCentres centres)
    : FittedModel(std::move(params), n_train, d, std::move(report)),
      map_(std::move(map)),
      centres_(std::move(centres)) {}

void NystromModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    assign_by_kernel_rows(*map_->basis(), X, labels, dist, threads,
                          [&](const Matrix& G, const float* self, int32_t* l, float* d) {
                              landmark_nearest(G.view(), self, centres_, l, d, this->report().isa);
                          });
}

void NystromModel::transform(ConstMatrix X, float* out, int threads) const {
    transform_rows(*map_, X, out, threads);
}

FeatureModel::FeatureModel(Params params, int64_t n_train, int64_t d, FitReport report, std::unique_ptr<FeatureMap> map,
                           Matrix centroids, bool kernel_distances)
    : FittedModel(std::move(params), n_train, d, std::move(report)),
      map_(std::move(map)),
      centroids_(std::move(centroids)),
      kernel_distances_(kernel_distances) {
    cnorms_ = row_squared_norms(centroids_.view());
    for (double m : this->report().mass) alive_.push_back(m > 0 ? 1 : 0);
}

void FeatureModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    const KernelBasis* basis = map_->basis();
    const bool residual = dist != nullptr && kernel_distances_ && basis != nullptr;
    if (residual && basis->precomputed()) basis->self(X, nullptr);  // throws the message
    parallel_blocks(threads, block_count(X.rows, kAssignBlock), [&](int64_t b) {
        const int64_t begin = b * kAssignBlock, count = std::min(kAssignBlock, X.rows - begin);
        FeatureScratch scratch;
        Matrix F;
        copy_into(X.slice(begin, count), scratch.rows);  // the caller's rows, padded for GEMM
        map_->transform_block(scratch.rows.view(), scratch, F);
        const std::vector<float> fnorms = row_squared_norms(F.view());
        std::vector<float> d(static_cast<size_t>(count)), self(residual ? static_cast<size_t>(count) : 0);
        nearest_centroid(F.view(), fnorms.data(), centroids_, cnorms_, alive_, labels + begin, d.data(), report().isa);
        if (residual) basis->self(scratch.rows.view(), self.data());
        for (int64_t i = 0; dist != nullptr && i < count; ++i) {
            const float extra =
                residual ? std::max(0.0f, self[static_cast<size_t>(i)] - fnorms[static_cast<size_t>(i)]) : 0.0f;
            dist[begin + i] = d[static_cast<size_t>(i)] + extra;
        }
    });
}

void FeatureModel::transform(ConstMatrix X, float* out, int threads) const {
    transform_rows(*map_, X, out, threads);
}

}  // namespace kkm
