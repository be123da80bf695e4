#include "cluster/minibatch_lloyd.h"

#include <algorithm>
#include <cmath>

#include "cluster/lloyd.h"
#include "cluster/seeding.h"
#include "core/blocking.h"
#include "core/progress.h"
#include "core/rng.h"
#include "features/landmarks.h"

namespace kkm {
namespace {

/// Rows drawn with replacement over all ranks, ∝ weights (uniform when empty): every rank
/// draws the same numbers and knows which rank holds each draw; the holder finds the row.
class BatchSampler {
public:
    BatchSampler(const Comm& comm, const RowPartition& part, const std::vector<float>& weights)
        : comm_(comm), part_(part), bases_(static_cast<size_t>(comm.size()), 0.0) {
        const bool weighted = any_rank(comm, !weights.empty());
        if (!weighted) return;
        double s = 0;
        for (float w : weights) cumulative_.push_back(s += w);
        std::vector<double> totals(static_cast<size_t>(comm.size()));
        comm.allgather(&s, sizeof s, totals.data());
        double before = 0;
        for (size_t r = 0; r < totals.size(); ++r) {
            bases_[r] = before;
            before += totals[r];
        }
        total_ = before;
        totals_ = std::move(totals);
    }
    /// The rows of `count` draws, cols floats each (rows of F), on every rank.
    Matrix draw(Rng& rng, int64_t count, ConstMatrix F) const {
        std::vector<int> owners(static_cast<size_t>(count));
        std::vector<int64_t> local(owners.size());
        for (size_t t = 0; t < owners.size(); ++t) place(rng, owners[t], local[t]);
        Matrix rows(count, F.cols);
        gather_by_owner(
            comm_, owners, F.cols,
            [&](size_t t, float* out) { std::copy(F.row(local[t]), F.row(local[t]) + F.cols, out); }, rows.data());
        return rows;
    }

private:
    /// One draw: the rank holding it and, on that rank, the local row.
    void place(Rng& rng, int& owner, int64_t& local) const {
        if (totals_.empty()) {
            const auto i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(part_.global)));
            owner = comm_.size() == 1 ? 0 : part_.owner(i);
            local = i - part_.starts[static_cast<size_t>(owner)];
            return;
        }
        const double r = rng.uniform() * total_;
        owner = 0;  // the last rank with weight whose share starts at or below r
        for (size_t q = 0; q < totals_.size(); ++q) {
            if (totals_[q] > 0 && bases_[q] <= r) owner = static_cast<int>(q);
        }
        if (owner != comm_.rank()) return;
        const auto it =
            std::upper_bound(cumulative_.begin(), cumulative_.end(), r - bases_[static_cast<size_t>(owner)]);
        local = std::min<int64_t>(part_.local - 1, it - cumulative_.begin());
    }

    const Comm& comm_;
    const RowPartition& part_;
    std::vector<double> cumulative_;  ///< this rank's running sums of its weights
    std::vector<double> bases_;       ///< the weight of the ranks before each rank
    std::vector<double> totals_;      ///< each rank's weight (empty: no weights)
    double total_ = 0;
};

Matrix initial_centres(ConstMatrix F, const MinibatchLloydOptions& o, uint64_t seed, uint64_t restart, const Comm& comm,
                       const RowPartition& part) {
    const int64_t size = minibatch_seed_sample(part.global, o.batch_size, o.k);
    Rng pick = restart_rng(seed, Stream::seeding, restart, 1);
    const std::vector<int64_t> idx = uniform_landmarks(part.global, size, pick);
    Matrix sample(size, F.cols);
    share_rows(
        comm, part, idx, F.cols, [F](int64_t i, float* out) { std::copy(F.row(i), F.row(i) + F.cols, out); },
        sample.data());
    FeatureLloyd on_sample(sample.view(), {}, o.k, o.threads, o.isa);  // the same sample on every rank
    Rng rng = restart_rng(seed, Stream::seeding, restart);
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

MinibatchLloydResult minibatch_lloyd(ConstMatrix F, const std::vector<float>& weights, const MinibatchLloydOptions& o,
                                     uint64_t seed, uint64_t restart, const Comm& comm, const RowPartition* spread) {
    const RowPartition part = spread != nullptr ? *spread : solo_partition(F.rows);
    MinibatchLloydResult result;
    result.centroids = initial_centres(F, o, seed, restart, comm, part);
    Matrix& C = result.centroids;
    std::vector<double> counts(static_cast<size_t>(o.k), 0.0);
    const BatchSampler sampler(comm, part, weights);
    std::vector<int32_t> labels;
    const auto max_iter = static_cast<double>(std::max<int64_t>(o.max_iter, 1));
    for (int64_t it = 0; it < o.max_iter; ++it) {
        // The iteration's share of the stage: its parallel loops report within it.
        progress_range(static_cast<double>(it) / max_iter, static_cast<double>(it + 1) / max_iter);
        progress_poll(static_cast<double>(it) / max_iter);
        Rng rng = restart_rng(seed, Stream::batches, restart, static_cast<uint64_t>(it));
        const Matrix batch = sampler.draw(rng, o.batch_size, F);
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
                C.row(j)[t] =
                    static_cast<float>((v * C.row(j)[t] + sums[static_cast<size_t>(j * F.cols + t)]) / (v + g));
            }
            counts[static_cast<size_t>(j)] = v + g;
        }
        result.iterations = static_cast<int32_t>(it + 1);
        if (before - batch_objective(batch, C, labels, o.isa) < o.epsilon) break;
    }
    return result;
}

int64_t minibatch_seed_sample(int64_t n, int64_t batch_size, int64_t k) {
    return std::min(n, std::max(3 * batch_size, 10 * k));
}

double minibatch_lloyd_footprint(const Params& p, double n, double r, int threads, bool weighted) {
    const double k = static_cast<double>(p.k), b = static_cast<double>(p.batch_size);
    const double t = static_cast<double>(seeding_candidates(p.init, p.k));
    const auto sample = static_cast<double>(minibatch_seed_sample(static_cast<int64_t>(n), p.batch_size, p.k));
    const double problem = (weighted ? 4 * n : 0.0) + 4 * n + (weighted ? 8 * n : 0.0);  // + the sampler's sums
    const RowBlocks sb = row_blocks(sample, threads);
    const double init = 8 * n + Matrix::footprint(sample, r) + 4 * sample + seeding_footprint(p, sample) +
                        Matrix::footprint(t, r) + sb.small_workers * Matrix::footprint(sb.small, t) +
                        Matrix::footprint(k, r);
    const double batch = 8 * b + Matrix::footprint(b, r) + 12 * b + Matrix::footprint(b, k) + 8 * k * r + 8 * k;
    const double assign = 8 * n + 8 * static_cast<double>(kReduceChunks);  // labels, distances of every row
    const double best = 4 * n + 2 * Matrix::footprint(k, r);               // the best restart's labels and centroids
    return problem + std::max(init, batch) + assign + best;
}

}  // namespace kkm
