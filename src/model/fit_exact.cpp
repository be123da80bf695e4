// method=exact: the kernel matrix stored in float32 when it fits in max_memory_mb, else its
// rows recomputed in blocks every iteration.
#include <numeric>

#include "cluster/exact.h"
#include "core/parallel.h"
#include "model/fit_common.h"

namespace kkm {
namespace {

/// Exact's reference set: a copy of the training rows, or all columns of a precomputed K.
KernelBasis training_basis(const FitContext& c) {
    if (c.p.kernel == KernelType::precomputed) {
        std::vector<int64_t> columns(static_cast<size_t>(c.X.rows));
        std::iota(columns.begin(), columns.end(), int64_t{0});
        return KernelBasis(std::move(columns), c.X.rows);
    }
    Matrix copy;
    copy_into(c.X, copy);
    return KernelBasis(fit_kernel(c), std::move(copy));
}

}  // namespace

std::unique_ptr<FittedModel> fit_exact(const FitContext& c) {
    const int64_t n = c.X.rows;
    const bool precomputed = c.p.kernel == KernelType::precomputed;
    // Bytes per point: the float64 sums S = K·Z (8k), the centres' Z (4k), one update of S
    // (24), labels, distances, diagonal and weights.
    const double per_point = 4.0 * (3.0 * static_cast<double>(c.p.k) + 16.0);
    const double base = static_cast<double>(n) * (per_point + (precomputed ? 0.0 : 4.0 * c.X.cols));
    const double full = 4.0 * static_cast<double>(n) * static_cast<double>(n);
    const double budget = static_cast<double>(c.p.max_memory_mb) * 1024.0 * 1024.0;
    const bool store = precomputed || base + full <= budget;
    int64_t block_rows = 256;
    if (!store) {
        const double per_row = 4.0 * static_cast<double>(n) * c.threads;
        block_rows = std::min<int64_t>(256, static_cast<int64_t>((budget - base) / per_row));
        require_budget("exact", base + per_row, c.p,
                       "training copy, labels and n x k sums, plus one kernel row per thread");
    }
    progress_begin("kernel");
    KernelBasis basis = training_basis(c);
    const ConstMatrix train = precomputed ? c.X : basis.points().view();
    Matrix K;
    if (store && !precomputed) {
        K = Matrix(n, n);
        parallel_blocks(c.threads, block_count(n, 256), [&](int64_t b) {
            const int64_t begin = b * 256, count = std::min<int64_t>(256, n - begin);
            basis.evaluate(train.slice(begin, count), K.row(begin), n);
        });
    }
    const KernelRows rows = store ? KernelRows(precomputed ? c.X : K.view(), 256, precomputed)
                                  : KernelRows(basis, train, block_rows, c.threads);
    c.timer.stage("kernel");
    ExactLloyd problem(rows, training_diagonal(c), c.w, c.p.k, c.threads);
    LloydResult best = best_of_restarts(problem, c);
    DualCentres centres = problem.centres(best.labels);
    c.timer.stage("lloyd");
    finish_report(c, std::move(best));
    return std::make_unique<DualModel>(c.p, n, c.X.cols, std::move(c.report), std::move(basis),
                                       std::move(centres));
}

}  // namespace kkm
