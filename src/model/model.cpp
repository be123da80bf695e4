#include "model/model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "cluster/lloyd.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "engine/half.h"
#include "kernels/kernel_traits.h"

namespace kkm {
namespace {

constexpr int64_t kAssignBlock = 64;

/// Where a pass over X writes: assign's labels and, when dist is not NULL, the distance to the
/// nearest centre; or, for distances, every centre's distance into each (X.rows × k, row-major).
struct Outputs {
    int32_t* labels = nullptr;
    float* dist = nullptr;
    float* each = nullptr;
    int64_t k = 0;

    static Outputs nearest(int32_t* labels, float* dist) { return {labels, dist, nullptr, 0}; }
    static Outputs every(float* each, int64_t k) { return {nullptr, nullptr, each, k}; }
    /// Whether the pass measures distances (and so needs k(x,x) where the model adds it).
    bool measures() const { return dist != nullptr || each != nullptr; }
};

/// Keeps a row of distances' first minimum at assign's label: a centre before it whose
/// distance rounds (or clamps) to the same float as the chosen centre's is reported one float
/// step above it. Only such ties can occur: every other centre is at least as far.
void keep_first_minimum(float* row, int32_t label) {
    const float nearest = row[label];
    for (int32_t j = 0; j < label; ++j) {
        if (row[j] <= nearest) row[j] = std::nextafter(nearest, std::numeric_limits<float>::infinity());
    }
}

/// The pass assign and distances share: nearest(rows, labels, dist, each) on blocks of X's rows
/// in parallel, each block's outputs offset to its first row. For distances, labels and dist
/// are the block's scratch (dist is never NULL then), and each's rows keep their first
/// minimum at the label.
template <class Nearest>
void for_blocks(ConstMatrix X, const Outputs& out, int threads, Nearest&& nearest) {
    parallel_blocks(threads, block_count(X.rows, kAssignBlock), [&](int64_t b) {
        const int64_t begin = b * kAssignBlock, count = std::min(kAssignBlock, X.rows - begin);
        if (out.each == nullptr) {
            nearest(X.slice(begin, count), out.labels + begin, out.dist != nullptr ? out.dist + begin : nullptr,
                    nullptr);
            return;
        }
        std::vector<int32_t> labels(static_cast<size_t>(count));
        std::vector<float> dist(static_cast<size_t>(count));
        float* each = out.each + begin * out.k;
        nearest(X.slice(begin, count), labels.data(), dist.data(), each);
        for (int64_t i = 0; i < count; ++i) keep_first_minimum(each + i * out.k, labels[static_cast<size_t>(i)]);
    });
}

/// Throws INVALID_ARGUMENT when a pass measures distances that need k(x,x) of new rows and
/// basis cannot give it (kernel=precomputed): kkm_assign's message for its distances, one
/// for every centre's distances that names the method.
void require_self(const KernelBasis& basis, ConstMatrix X, const Outputs& out, const Params& p) {
    if (!out.measures() || !basis.precomputed()) return;
    if (out.each == nullptr) basis.self(X, nullptr);  // throws assign's message
    invalid_argument(std::string("distances to every centre need k(x, x) of the new rows, which is unknown with "
                                 "kernel=precomputed (only kernel values against the training points are given): "
                                 "method=") +
                     to_text(p.method) + " gives only the labels there (kkm_assign with distances=NULL)");
}

/// The number of centres of a model's fitted structure, checked against params().k (what the
/// C API sizes distances' output by).
int64_t centre_count(const FittedModel& model, int64_t k) {
    if (k != model.params().k) {
        fail(KKM_ERR_INTERNAL,
             "the model holds " + std::to_string(k) + " centres but k=" + std::to_string(model.params().k));
    }
    return k;
}

/// The pass of the kernel-row models: in parallel blocks, the kernel rows of X against the
/// basis (and k(x,x) when distances are measured), then nearest(K, self, labels, dist, each)
/// (K is the block's own: nearest may change it).
template <class Nearest>
void by_kernel_rows(const KernelBasis& basis, ConstMatrix X, const Outputs& out, const Params& p, int threads,
                    Nearest&& nearest) {
    const int64_t n = basis.size();
    require_self(basis, X, out, p);
    for_blocks(X, out, threads, [&](ConstMatrix block, int32_t* labels, float* dist, float* each) {
        Matrix rows, K(block.rows, n);
        copy_into(block, rows);  // the caller's rows, padded for GEMM
        basis.evaluate(rows.view(), K.data(), n);
        std::vector<float> self, scratch_dist;
        if (dist != nullptr) {
            self.resize(static_cast<size_t>(block.rows));
            basis.self(rows.view(), self.data());
        } else {
            scratch_dist.resize(static_cast<size_t>(block.rows));
        }
        nearest(K, dist != nullptr ? self.data() : nullptr, labels, dist != nullptr ? dist : scratch_dist.data(), each);
    });
}

void dual_pass(const DualModel& model, ConstMatrix X, const Outputs& out, int threads) {
    by_kernel_rows(model.basis(), X, out, model.params(), threads,
                   [&](const Matrix& K, const float* self, int32_t* l, float* d, float* each) {
                       dual_nearest(K.data(), K.rows, self, model.centres(), model.terms(), l, d, each);
                   });
}

void nystrom_pass(const NystromModel& model, ConstMatrix X, const Outputs& out, int threads) {
    // A fit on half kernel rows measured its centres and labels on the rows rounded to half:
    // the rows of X are rounded alike, so that a training row gets its training label back.
    const bool half = model.report().kernel_rows == RowPrecision::f16;
    const engine::Isa isa = model.report().isa;
    by_kernel_rows(*model.map().basis(), X, out, model.params(), threads,
                   [&](Matrix& G, const float* self, int32_t* l, float* d, float* each) {
                       if (half) engine::round_through_half(isa, G.data(), G.rows * G.cols);
                       landmark_nearest(G.view(), self, model.centres(), l, d, isa, nullptr, each);
                   });
}

}  // namespace

RowPrecision kernel_row_precision(const Params& p) {
    return p.kernel_rows != RowsChoice::f32 && kernel_traits(p.kernel).bounded ? RowPrecision::f16 : RowPrecision::f32;
}

DualModel::DualModel(Params params, int64_t n_train, int64_t d, FitReport report, KernelBasis basis,
                     DualCentres centres, MinibatchState stream)
    : FittedModel(std::move(params), n_train, d, std::move(report)),
      basis_(std::move(basis)),
      centres_(std::move(centres)),
      terms_(dual_terms(centres_)),
      stream_(std::move(stream)) {}

void DualModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    dual_pass(*this, X, Outputs::nearest(labels, dist), threads);
}

void DualModel::distances(ConstMatrix X, float* out, int threads) const {
    dual_pass(*this, X, Outputs::every(out, centre_count(*this, centres_.Z.cols)), threads);
}

void DualModel::transform(ConstMatrix, float*, int) const {
    invalid_argument(
        "method=exact and method=minibatch have no explicit feature map; "
        "kkm_transform needs method=nystrom, sketch or rff");
}

NystromModel::NystromModel(Params params, int64_t n_train, int64_t d, FitReport report,
                           std::shared_ptr<const LandmarkMap> map, LandmarkCentres centres)
    : FittedModel(std::move(params), n_train, d, std::move(report)),
      map_(std::move(map)),
      centres_(std::move(centres)) {}

Matrix NystromModel::feature_centres() const {
    if (centres_.C.rows > 0) return copy_of(centres_.C.view());
    const KernelBasis& basis = *map_->basis();
    if (basis.precomputed()) return {};
    const Matrix& P = static_cast<const DenseProjection&>(map_->projection()).matrix();  // m x r
    const int64_t m = basis.size(), r = P.cols, k = centres_.H.rows;
    Matrix K(m, m);
    basis.evaluate(basis.points().view(), K.data(), m);
    Matrix C(k, r);
    std::vector<double> t(static_cast<size_t>(m));
    for (int64_t j = 0; j < k; ++j) {
        // t = H_j K_LL, then C_j = t P, in float64.
        std::fill(t.begin(), t.end(), 0.0);
        for (int64_t a = 0; a < m; ++a) {
            const double h = centres_.H.row(j)[a];
            if (h == 0) continue;
            for (int64_t b = 0; b < m; ++b) t[static_cast<size_t>(b)] += h * K.row(a)[b];
        }
        for (int64_t c = 0; c < r; ++c) {
            double sum = 0;
            for (int64_t a = 0; a < m; ++a) sum += t[static_cast<size_t>(a)] * P.row(a)[c];
            C.row(j)[c] = static_cast<float>(sum);
        }
    }
    return C;
}

void NystromModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    nystrom_pass(*this, X, Outputs::nearest(labels, dist), threads);
}

void NystromModel::distances(ConstMatrix X, float* out, int threads) const {
    nystrom_pass(*this, X, Outputs::every(out, centre_count(*this, centres_.H.rows)), threads);
}

void NystromModel::transform(ConstMatrix X, float* out, int threads) const {
    transform_rows(*map_, X, out, threads);
}

FeatureModel::FeatureModel(Params params, int64_t n_train, int64_t d, FitReport report, std::shared_ptr<const FeatureMap> map,
                           Matrix centroids, bool kernel_distances, std::vector<char> alive)
    : FittedModel(std::move(params), n_train, d, std::move(report)),
      map_(std::move(map)),
      centroids_(std::move(centroids)),
      alive_(std::move(alive)),
      kernel_distances_(kernel_distances) {
    cnorms_ = row_squared_norms(centroids_.view());
    if (alive_.empty()) {
        for (double m : this->report().mass) alive_.push_back(m > 0 ? 1 : 0);
    }
}

void FeatureModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    pass(X, labels, dist, nullptr, threads);
}

void FeatureModel::distances(ConstMatrix X, float* out, int threads) const {
    pass(X, nullptr, nullptr, out, threads);
}

void FeatureModel::pass(ConstMatrix X, int32_t* labels, float* dist, float* each, int threads) const {
    const Outputs out =
        each != nullptr ? Outputs::every(each, centre_count(*this, centroids_.rows)) : Outputs::nearest(labels, dist);
    const KernelBasis* basis = map_->basis();
    const bool residual = out.measures() && kernel_distances_ && basis != nullptr;
    if (residual) require_self(*basis, X, out, params());
    for_blocks(X, out, threads, [&](ConstMatrix block, int32_t* block_labels, float* block_dist, float* block_each) {
        const int64_t count = block.rows, k = centroids_.rows;
        FeatureScratch scratch;
        Matrix F;
        copy_into(block, scratch.rows);  // the caller's rows, padded for GEMM
        map_->transform_block(scratch.rows.view(), scratch, F);
        const std::vector<float> fnorms = row_squared_norms(F.view());
        std::vector<float> d(static_cast<size_t>(count)), self(residual ? static_cast<size_t>(count) : 0);
        nearest_centroid(F.view(), fnorms.data(), centroids_, cnorms_, alive_, block_labels, d.data(), report().isa,
                         nullptr, block_each);
        if (residual) basis->self(scratch.rows.view(), self.data());
        for (int64_t i = 0; i < count; ++i) {
            // The part of φ(x) the landmarks cannot represent: the same for every centre.
            // (NaN stays NaN: the C API reports it rather than a distance of 0.)
            const float gap = residual ? self[static_cast<size_t>(i)] - fnorms[static_cast<size_t>(i)] : 0.0f;
            const float extra = gap < 0.0f ? 0.0f : gap;
            if (block_dist != nullptr) block_dist[i] = d[static_cast<size_t>(i)] + extra;
            for (int64_t j = 0; block_each != nullptr && j < k; ++j) block_each[i * k + j] += extra;
        }
    });
}

void FeatureModel::transform(ConstMatrix X, float* out, int threads) const {
    transform_rows(*map_, X, out, threads);
}

}  // namespace kkm
