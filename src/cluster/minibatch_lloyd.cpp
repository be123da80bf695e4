#include "cluster/minibatch_lloyd.h"

#include <algorithm>
#include <cmath>

#include "cluster/lloyd.h"
#include "cluster/seeding.h"
#include "core/progress.h"
#include "core/rng.h"
#include "features/landmarks.h"

namespace kkm {
namespace {

/// Indices drawn with replacement, ∝ weights (uniform when empty).
class BatchSampler {
public:
    BatchSampler(int64_t n, const std::vector<float>& weights) : n_(n) {
        if (weights.empty()) return;
        double s = 0;
        for (float w : weights) cumulative_.push_back(s += w);
    }
    int64_t draw(Rng& rng) const {
        if (cumulative_.empty()) return static_cast<int64_t>(rng.below(static_cast<uint64_t>(n_)));
        const double r = rng.uniform() * cumulative_.back();
        const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), r);
        return std::min<int64_t>(n_ - 1, it - cumulative_.begin());
    }

private:
    int64_t n_;
    std::vector<double> cumulative_;
};

Matrix initial_centres(ConstMatrix F, const MinibatchLloydOptions& o, uint64_t seed,
                       uint64_t restart) {
    const int64_t size = std::min(F.rows, std::max(3 * o.batch_size, 10 * o.k));
    Rng pick(seed, Stream::seeding, (restart << 32) | 1);
    const Matrix sample = gather_rows(F, uniform_landmarks(F.rows, size, pick));
    FeatureLloyd on_sample(sample.view(), {}, o.k, o.threads, o.isa);
    Rng rng(seed, Stream::seeding, restart << 32);
    const Seeding s = seed_centres(o.init, sample.rows, o.k, {}, on_sample.distance_oracle(), rng);
    return gather_rows(sample.view(), s.centres);
}

/// Mean squared distance of the batch rows to their nearest centres; labels out.
double batch_objective(const Matrix& rows, const Matrix& C, std::vector<int32_t>& labels, engine::Isa isa) {
    const std::vector<float> fn = row_squared_norms(rows.view()), cn = row_squared_norms(C.view());
    const std::vector<char> alive(static_cast<size_t>(C.rows), 1);
    std::vector<float> dist(static_cast<size_t>(rows.rows));
    labels.resize(static_cast<size_t>(rows.rows));
    nearest_centroid(rows.view(), fn.data(), C, cn, alive, labels.data(), dist.data(), isa);
    double s = 0;
    for (float d : dist) s += d;
    return s / static_cast<double>(rows.rows);
}

}  // namespace

MinibatchLloydResult minibatch_lloyd(ConstMatrix F, const std::vector<float>& weights,
                                     const MinibatchLloydOptions& o, uint64_t seed,
                                     uint64_t restart) {
    MinibatchLloydResult result;
    result.centroids = initial_centres(F, o, seed, restart);
    Matrix& C = result.centroids;
    std::vector<double> counts(static_cast<size_t>(o.k), 0.0);
    const BatchSampler sampler(F.rows, weights);
    std::vector<int32_t> labels;
    const auto max_iter = static_cast<double>(std::max<int64_t>(o.max_iter, 1));
    for (int64_t it = 0; it < o.max_iter; ++it) {
        // The iteration's share of the stage: its parallel loops report within it.
        progress_range(static_cast<double>(it) / max_iter, static_cast<double>(it + 1) / max_iter);
        progress_poll(static_cast<double>(it) / max_iter);
        Rng rng(seed, Stream::batches, (restart << 32) | static_cast<uint64_t>(it));
        std::vector<int64_t> idx(static_cast<size_t>(o.batch_size));
        for (int64_t& i : idx) i = sampler.draw(rng);
        const Matrix batch = gather_rows(F, idx);
        const double before = batch_objective(batch, C, labels, o.isa);
        std::vector<double> sums(static_cast<size_t>(o.k * F.cols), 0.0), got(static_cast<size_t>(o.k), 0.0);
        for (int64_t b = 0; b < batch.rows; ++b) {
            const int32_t j = labels[static_cast<size_t>(b)];
            got[static_cast<size_t>(j)] += 1.0;
            for (int64_t t = 0; t < F.cols; ++t) sums[static_cast<size_t>(j * F.cols + t)] += batch.row(b)[t];
        }
        for (int64_t j = 0; j < o.k; ++j) {
            const double v = counts[static_cast<size_t>(j)], g = got[static_cast<size_t>(j)];
            if (g == 0) continue;
            for (int64_t t = 0; t < F.cols; ++t) {
                C.row(j)[t] = static_cast<float>((v * C.row(j)[t] + sums[static_cast<size_t>(j * F.cols + t)]) / (v + g));
            }
            counts[static_cast<size_t>(j)] = v + g;
        }
        result.iterations = static_cast<int32_t>(it + 1);
        if (before - batch_objective(batch, C, labels, o.isa) < o.epsilon) break;
    }
    return result;
}

}  // namespace kkm
