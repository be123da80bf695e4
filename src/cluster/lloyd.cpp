#include "cluster/lloyd.h"

#include <limits>

#include "engine/dots.h"
#include "core/parallel.h"

namespace kkm {
namespace {

constexpr int64_t kRowBlock = 256;
constexpr int64_t kChunks = 32;  // fixed reduction order, independent of threads

double weight_at(const std::vector<float>& w, int64_t i) {
    return w.empty() ? 1.0 : static_cast<double>(w[static_cast<size_t>(i)]);
}

}  // namespace

std::vector<float> row_squared_norms(ConstMatrix M) {
    std::vector<float> out(static_cast<size_t>(M.rows));
    for (int64_t i = 0; i < M.rows; ++i) {
        const float* r = M.row(i);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int64_t j = 0; j < M.cols; ++j) s += r[j] * r[j];
        out[static_cast<size_t>(i)] = s;
    }
    return out;
}

void nearest_centroid(ConstMatrix F, const float* fnorms, const Matrix& C,
                      const std::vector<float>& cnorms, const std::vector<char>& alive,
                      int32_t* labels, float* dist, engine::Isa isa) {
    const int64_t k = C.rows;
    Matrix dots(F.rows, k);
    engine::row_dots(isa, F.data, F.rows, F.cols, C.data(), k, C.cols, F.cols, dots.data(), k);
    for (int64_t i = 0; i < F.rows; ++i) {
        float best = std::numeric_limits<float>::infinity();
        int32_t arg = 0;
        for (int64_t j = 0; j < k; ++j) {
            if (!alive[static_cast<size_t>(j)]) continue;
            const float d = fnorms[i] + cnorms[static_cast<size_t>(j)] - 2.0f * dots.row(i)[j];
            if (d < best) {
                best = d;
                arg = static_cast<int32_t>(j);
            }
        }
        labels[i] = arg;
        dist[i] = best > 0.0f ? best : 0.0f;
    }
}

FeatureLloyd::FeatureLloyd(ConstMatrix F, std::vector<float> weights, int64_t k, int threads,
                           engine::Isa isa, std::vector<float> offset)
    : F_(F), weights_(std::move(weights)), k_(k), threads_(threads), isa_(isa), norms_(row_squared_norms(F)),
      offset_(std::move(offset)) {}

std::vector<double> FeatureLloyd::centroid_sums(const std::vector<int32_t>& labels) const {
    const int64_t r = F_.cols;
    const int64_t per_chunk = block_count(F_.rows, kChunks);
    std::vector<double> partial(static_cast<size_t>(kChunks * k_ * r), 0.0);
    parallel_blocks(threads_, kChunks, [&](int64_t c) {
        double* acc = partial.data() + c * k_ * r;
        const int64_t end = std::min(F_.rows, (c + 1) * per_chunk);
        for (int64_t i = c * per_chunk; i < end; ++i) {
            const double w = weight_at(weights_, i);
            double* dst = acc + labels[static_cast<size_t>(i)] * r;
            const float* src = F_.row(i);
#pragma omp simd
            for (int64_t j = 0; j < r; ++j) dst[j] += w * src[j];
        }
    });
    std::vector<double> sums(static_cast<size_t>(k_ * r), 0.0);
    for (int64_t c = 0; c < kChunks; ++c) {
        const double* acc = partial.data() + c * k_ * r;
        for (int64_t t = 0; t < k_ * r; ++t) sums[static_cast<size_t>(t)] += acc[t];
    }
    return sums;
}

Matrix FeatureLloyd::means(const std::vector<double>& sums, const std::vector<int32_t>& labels) const {
    const std::vector<double> mass = cluster_weights(labels, weights_, k_);
    Matrix C(k_, F_.cols);
    for (int64_t j = 0; j < k_; ++j) {
        const double m = mass[static_cast<size_t>(j)];
        for (int64_t t = 0; t < F_.cols; ++t) {
            C.row(j)[t] = m > 0 ? static_cast<float>(sums[static_cast<size_t>(j * F_.cols + t)] / m) : 0.0f;
        }
    }
    return C;
}

Matrix FeatureLloyd::centroids(const std::vector<int32_t>& labels) const {
    return means(centroid_sums(labels), labels);
}

std::vector<double> FeatureLloyd::sums_for(const std::vector<int32_t>& labels) const {
    if (labels == cached_labels_) return cached_sums_;
    return centroid_sums(labels);
}

double FeatureLloyd::reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                              std::vector<float>& dist) {
    const Matrix C = means(sums_for(labels), labels);
    const std::vector<float> cnorms = row_squared_norms(C.view());
    const std::vector<double> mass = cluster_weights(labels, weights_, k_);
    std::vector<char> alive(static_cast<size_t>(k_));
    for (int64_t j = 0; j < k_; ++j) alive[static_cast<size_t>(j)] = mass[static_cast<size_t>(j)] > 0;
    // One pass over F per iteration: each chunk assigns its rows and, while they are in cache,
    // adds them to its partial sums for the new labels (the next iteration's centroids).
    const int64_t r = F_.cols, per_chunk = block_count(F_.rows, kChunks);
    std::vector<float> partial(static_cast<size_t>(kChunks * k_ * r), 0.0f);
    std::vector<double> objective(static_cast<size_t>(kChunks), 0.0);
    parallel_blocks(threads_, kChunks, [&](int64_t c) {
        const int64_t end = std::min(F_.rows, (c + 1) * per_chunk);
        float* acc = partial.data() + c * k_ * r;
        for (int64_t begin = c * per_chunk; begin < end; begin += kRowBlock) {
            const int64_t count = std::min(kRowBlock, end - begin);
            nearest_centroid(F_.slice(begin, count), norms_.data() + begin, C, cnorms, alive,
                             next.data() + begin, dist.data() + begin, isa_);
            if (!offset_.empty()) {
                for (int64_t i = begin; i < begin + count; ++i) dist[static_cast<size_t>(i)] += offset_[static_cast<size_t>(i)];
            }
            for (int64_t i = begin; i < begin + count; ++i) {
                const float w = static_cast<float>(weight_at(weights_, i));
                objective[static_cast<size_t>(c)] += w * static_cast<double>(dist[static_cast<size_t>(i)]);
                float* dst = acc + next[static_cast<size_t>(i)] * r;
                const float* src = F_.row(i);
#pragma omp simd
                for (int64_t j = 0; j < r; ++j) dst[j] += w * src[j];
            }
        }
    });
    cached_sums_.assign(static_cast<size_t>(k_ * r), 0.0);
    double total = 0;
    for (int64_t c = 0; c < kChunks; ++c) {
        const float* acc = partial.data() + c * k_ * r;
        for (int64_t t = 0; t < k_ * r; ++t) cached_sums_[static_cast<size_t>(t)] += acc[t];
        total += objective[static_cast<size_t>(c)];
    }
    cached_labels_ = next;
    return total;
}

LloydResult FeatureLloyd::assign_to(const Matrix& C) const {
    const std::vector<float> cnorms = row_squared_norms(C.view());
    const std::vector<char> alive(static_cast<size_t>(k_), 1);
    LloydResult out;
    out.labels.resize(static_cast<size_t>(F_.rows));
    std::vector<float> dist(static_cast<size_t>(F_.rows));
    const int64_t nblocks = block_count(F_.rows, kRowBlock);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, F_.rows - begin);
        nearest_centroid(F_.slice(begin, count), norms_.data() + begin, C, cnorms, alive,
                         out.labels.data() + begin, dist.data() + begin, isa_);
        double s = 0;
        for (int64_t i = begin; i < begin + count; ++i) {
            const double extra = offset_.empty() ? 0.0 : offset_[static_cast<size_t>(i)];
            s += weight_at(weights_, i) * (dist[static_cast<size_t>(i)] + extra);
        }
        partial[static_cast<size_t>(b)] = s;
    });
    for (double v : partial) out.objective += v;
    return out;
}

double FeatureLloyd::objective(const std::vector<int32_t>& labels) {
    const std::vector<double> sums = centroid_sums(labels);
    const std::vector<double> mass = cluster_weights(labels, weights_, k_);
    const int64_t r = F_.cols;
    std::vector<double> means(sums.size());
    for (int64_t j = 0; j < k_; ++j) {
        for (int64_t t = 0; t < r; ++t) {
            const double m = mass[static_cast<size_t>(j)];
            means[static_cast<size_t>(j * r + t)] = m > 0 ? sums[static_cast<size_t>(j * r + t)] / m : 0.0;
        }
    }
    const int64_t nblocks = block_count(F_.rows, kRowBlock);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kRowBlock, end = std::min(F_.rows, begin + kRowBlock);
        double s = 0;
        for (int64_t i = begin; i < end; ++i) {
            const double* c = means.data() + labels[static_cast<size_t>(i)] * r;
            const float* f = F_.row(i);
            double d = 0;
            for (int64_t t = 0; t < r; ++t) {
                const double diff = f[t] - c[t];
                d += diff * diff;
            }
            if (!offset_.empty()) d += offset_[static_cast<size_t>(i)];
            s += weight_at(weights_, i) * d;
        }
        partial[static_cast<size_t>(b)] = s;
    });
    double total = 0;
    for (double v : partial) total += v;
    return total;
}

void candidate_distances(const RowStore& A, const Matrix& B, const float* row_terms,
                         const float* col_terms, const float* extra, float* out, int threads,
                         engine::Isa isa) {
    const int64_t n = A.rows(), t = B.rows, r = A.cols();
    constexpr int64_t step = 64;  // rows per block: half rows decoded into scratch stay in L2
    PerThread<Matrix> dots(threads), scratch(threads);
    parallel_blocks(threads, block_count(n, step), [&](int64_t b) {
        const int64_t begin = b * step, count = std::min(step, n - begin);
        Matrix& d = dots.local();
        d.reshape(count, t);
        const ConstMatrix rows = A.block(begin, count, scratch.local());
        engine::row_dots(isa, rows.data, count, r, B.data(), t, r, r, d.data(), t);
        for (int64_t c = 0; c < t; ++c) {
            float* o = out + c * n + begin;
            for (int64_t i = 0; i < count; ++i) {
                const float v = row_terms[begin + i] + col_terms[c] - 2.0f * d.row(i)[c];
                o[i] = (v > 0.0f ? v : 0.0f) + (extra != nullptr ? extra[begin + i] : 0.0f);
            }
        }
    });
}

SquaredDistanceToPoint FeatureLloyd::distance_oracle() const {
    return [this](const std::vector<int64_t>& centres, float* out) {
        const Matrix chosen = gather_rows(F_, centres);
        std::vector<float> cn;
        for (int64_t c : centres) cn.push_back(norms_[static_cast<size_t>(c)]);
        candidate_distances(RowStore::view(F_, isa_), chosen, norms_.data(), cn.data(),
                            offset_.empty() ? nullptr : offset_.data(), out, threads_, isa_);
    };
}

}  // namespace kkm
