#include "search/criteria.h"

#include <algorithm>
#include <numeric>

#include "core/parallel.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/weights.h"
#include "eval/metrics.h"
#include "search/subsample.h"

namespace kkm::search {
namespace {

/// Restarts of every scoring fit, each refined by Hartigan's transfers: kernel k-means from one
/// k-means++ seeding often stops at a poor optimum (two rings split in half), which would
/// score a good gamma as unstable. Measured on two rings of 150 to 500 points each: 5 plain
/// restarts chose k=2 for 1 of 9 ring sets, 10 for 5 of 9, 10 refined for 8 of 9 (all from
/// 250 points per ring up).
constexpr int64_t kScoringRestarts = 10;

}  // namespace

// Its progress polls and stages stay out of the fit's report: the fit's own stage is
// "search", polled between candidates.
std::unique_ptr<SubsetModel> fit_subsample(const ScoringFits& fits, const Matrix& K, const std::vector<int64_t>& idx,
                                           int64_t k, int threads, int64_t restarts) {
    Progress silent(nullptr, nullptr);
    const ProgressScope scope(silent);
    Params q;
    q.method = Method::exact;
    q.kernel = kGivenMatrixKernel;
    q.k = k;
    q.init = fits.p.init;
    q.n_init = restarts;
    q.refine = Refine::hartigan;
    q.max_iter = fits.p.max_iter;
    q.tol = fits.p.tol;
    q.seed = fits.p.seed;
    q.threads = threads;
    q.isa = fits.p.isa;
    q.max_memory_mb = fits.p.max_memory_mb;
    std::vector<float> w;
    if (!fits.weights.empty()) {
        for (int64_t i : idx) w.push_back(fits.weights[static_cast<size_t>(i)]);
    }
    if (static_cast<int64_t>(idx.size()) == K.rows) return fits.fit(q, K.view(), w);  // idx: every row, in order
    const Matrix sub = submatrix(K, idx, idx);
    return fits.fit(q, sub.view(), w);
}

namespace {

/// Agreement of `model` (fitted on other rows) with `labels` of the rows idx.
double transfer(const SubsetModel& model, const Matrix& K, const std::vector<int64_t>& idx,
                const std::vector<int64_t>& train, const std::vector<int32_t>& labels) {
    const Matrix cross = submatrix(K, idx, train);
    std::vector<int32_t> predicted(idx.size());
    model.assign(cross.view(), predicted.data());
    return adjusted_rand_index(predicted.data(), labels.data(), static_cast<int64_t>(idx.size()));
}

}  // namespace

std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> draw_splits(int64_t s, int count, uint64_t seed) {
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> splits;
    for (int r = 0; r < count; ++r) {
        Rng rng(seed, Stream::search, 1 + static_cast<uint64_t>(r));
        const std::vector<int64_t> order = random_order(s, rng);
        std::vector<int64_t> first(order.begin(), order.begin() + s / 2), second(order.begin() + s / 2, order.end());
        std::sort(first.begin(), first.end());
        std::sort(second.begin(), second.end());
        splits.emplace_back(std::move(first), std::move(second));
    }
    return splits;
}

double stability(const ScoringFits& fits, const Matrix& K, int64_t k) {
    const auto halves = static_cast<int64_t>(2 * fits.splits.size());
    std::vector<std::unique_ptr<SubsetModel>> models(static_cast<size_t>(halves));
    parallel_blocks(fits.threads, halves, [&](int64_t h) {  // one thread per fit: they are small
        const auto& split = fits.splits[static_cast<size_t>(h / 2)];
        models[static_cast<size_t>(h)] =
            fit_subsample(fits, K, h % 2 == 0 ? split.first : split.second, k, 1, kScoringRestarts);
    });
    double total = 0;
    for (size_t r = 0; r < fits.splits.size(); ++r) {
        const auto& [a, b] = fits.splits[r];
        const SubsetModel& model_a = *models[2 * r];
        const SubsetModel& model_b = *models[2 * r + 1];
        total += transfer(model_a, K, b, a, model_b.labels());
        total += transfer(model_b, K, a, b, model_a.labels());
    }
    return total / static_cast<double>(halves);
}

double matr(const ScoringFits& fits, const Matrix& K, const Matrix& S, int64_t k) {
    std::vector<int64_t> all(static_cast<size_t>(K.rows));
    std::iota(all.begin(), all.end(), int64_t{0});
    const auto model = fit_subsample(fits, K, all, k, fits.threads, kScoringRestarts);
    const std::vector<int32_t>& labels = model->labels();
    const auto w = [&](int64_t i) { return weight_at(fits.weights, i); };
    std::vector<double> within(static_cast<size_t>(k), 0.0), mass(static_cast<size_t>(k), 0.0);
    for (int64_t i = 0; i < K.rows; ++i) {
        const auto c = static_cast<size_t>(labels[static_cast<size_t>(i)]);
        mass[c] += w(i);
        double row = 0;
        for (int64_t j = 0; j < K.rows; ++j) {
            if (labels[static_cast<size_t>(j)] == labels[static_cast<size_t>(i)]) row += w(j) * S.row(i)[j];
        }
        within[c] += w(i) * row;
    }
    double trace = 0;
    for (size_t c = 0; c < within.size(); ++c) {
        if (mass[c] > 0) trace += within[c] / mass[c];
    }
    return trace;
}

}  // namespace kkm::search
