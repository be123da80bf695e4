#include "model/fit_common.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "cluster/lloyd.h"
#include "cluster/minibatch_lloyd.h"
#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/row_stream.h"
#include "kernels/kernel.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"
#include "model/fit_memory.h"
#include "model/methods.h"

namespace kkm {

void StageTimer::stage(const char* name) {
    const auto now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - start_).count();
    start_ = now;
    for (auto& [stage, total] : timings_) {
        if (stage == name) {
            total += seconds;
            return;
        }
    }
    timings_.emplace_back(name, seconds);
}

double direct_read_buffers(const FitShape& s) {
    if (!s.direct_reads) return 0.0;
    const int64_t block = std::max(kRowBlock, kScanBlockRows);
    return s.threads * RowStream::footprint(s.cols, RowStream::segment_rows(s.cols, block));
}

double require_budget(const FitShape& s, const MemoryLedger& ledger, const char* method, double peak,
                      const std::string& detail) {
    // The gamma stage (a Laplacian auto-gamma's sort orders) runs first and is freed before
    // the method's first stage; the direct reads' buffers live through either.
    const double need =
        std::max(peak, memory::gamma_stage(s.p, static_cast<double>(s.rows), static_cast<double>(s.cols), s.threads)) +
        direct_read_buffers(s);
    const std::string name(method);
    std::string advice = "use fewer rows";
    if (name == "minibatch") {
        advice = "use a smaller batch_size or tau (or fewer rows)";
    } else if (name != "exact") {
        advice = s.p.solver == Solver::minibatch ? "use fewer rows, a smaller m or a smaller batch_size"
                                                 : "use fewer rows or a smaller m";
    }
    ledger.require("method=" + name, need, detail, advice);
    return ledger.total() + need;
}

std::vector<float> training_diagonal(const FitSession& c) {
    if (!kernel_traits(c.p.kernel).precomputed) return kernel_diagonal(c, c.X);
    const int64_t n = c.X.rows;
    std::vector<float> diag(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) diag[static_cast<size_t>(i)] = c.X.row(i)[i];
    return diag;
}

std::vector<float> kernel_diagonal(const FitSession& c, ConstMatrix rows) {
    // k(x, x) = k(0) = 1 for a shift-invariant kernel: nothing to read. (Its rows' norms are
    // checked where the kernel is evaluated on them, which every method does for every row.)
    if (kernel_traits(c.p.kernel).shift_invariant) return std::vector<float>(static_cast<size_t>(rows.rows), 1.0f);
    // In row blocks over the threads: a centring kernel copies the rows it is given.
    std::vector<float> diag(static_cast<size_t>(rows.rows));
    const Kernel kernel = fit_kernel(c);
    parallel_blocks(c.threads, block_count(rows.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock;
        kernel.diagonal(rows.slice(begin, std::min(kRowBlock, rows.rows - begin)), diag.data() + begin);
    });
    return diag;
}

std::vector<int32_t> nearest_centres(const FitSession& c, ConstMatrix centres) {
    const Kernel kernel = fit_kernel(c);
    const engine::PackedRows packed = kernel.pack(centres);
    const int64_t k = centres.rows;
    std::vector<float> self(static_cast<size_t>(k));
    kernel.diagonal(centres, self.data());
    std::vector<int32_t> labels(static_cast<size_t>(c.X.rows));
    parallel_blocks(c.threads, block_count(c.X.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock;
        const int64_t rows = std::min(kRowBlock, c.X.rows - begin);
        std::vector<float> values(static_cast<size_t>(rows * k));
        kernel.block(c.X.slice(begin, rows), packed, values.data(), k);
        for (int64_t i = 0; i < rows; ++i) {
            int32_t best = 0;
            float top = -std::numeric_limits<float>::infinity();
            for (int64_t j = 0; j < k; ++j) {
                const float v = 2.0f * values[static_cast<size_t>(i * k + j)] - self[static_cast<size_t>(j)];
                if (v > top) top = v, best = static_cast<int32_t>(j);
            }
            labels[static_cast<size_t>(begin + i)] = best;
        }
    });
    return labels;
}

Kernel fit_kernel(const FitSession& c) {
    return Kernel(c.p.kernel, c.gamma(), c.p.degree, c.p.coef0, c.isa, c.shift());
}

void request_rows(const FitSession& c, const std::vector<int64_t>& idx) {
    if (!c.pages.file()) return;
    const size_t row_bytes = static_cast<size_t>(c.X.cols) * sizeof(float);
    for (const int64_t i : idx) {
        const int64_t local = i - c.part.offset;
        if (local >= 0 && local < c.X.rows) c.pages.request(c.X.row(local), row_bytes);
    }
}

KernelBasis basis_over(const FitSession& c, const std::vector<int64_t>& idx) {
    std::optional<Kernel> kernel;
    if (!kernel_traits(c.p.kernel).precomputed) kernel.emplace(fit_kernel(c));
    return training_basis_over(kernel, c.X, *c.comm, c.part, idx);
}

Matrix training_rows(const FitSession& c, const std::vector<int64_t>& idx) {
    return rows_by_index(*c.comm, c.part, c.X, idx);
}

int64_t resolve_landmarks(const Params& p, int64_t n) {
    if (p.m == 0) {
        const auto root = static_cast<int64_t>(std::ceil(4.0 * std::sqrt(static_cast<double>(n))));
        return std::min(n, std::max(p.k, root));
    }
    if (p.m > n && method_traits(p.method).landmarks) {
        invalid_argument("m=" + std::to_string(p.m) + " landmarks exceeds the number of rows n=" + std::to_string(n) +
                         "; accepted: [1, n] or auto");
    }
    return p.m;
}

FitReport FitSession::report(const MethodFacts& facts, int32_t iterations) const {
    FitReport r;
    static_cast<MethodFacts&>(r) = facts;
    r.iterations = iterations;
    r.gamma = first_.gamma;
    r.shift = first_.shift;
    r.isa = isa;
    r.memory_estimate = estimate_;
    r.timings = timer_.timings();
    return r;
}

FitReport FitSession::report(const MethodFacts& facts, LloydResult&& result) const {
    FitReport r = report(facts, result.iterations);
    r.mass = cluster_weights(result.labels, caller_weights != nullptr ? *caller_weights : w, p.k);
    sum_over_ranks(*comm, r.mass.data(), r.mass.size());
    r.labels = std::move(result.labels);
    r.objective = result.objective * weight_scale;
    return r;
}

namespace {

/// Sculley's mini-batch k-means on the features, then every row to its nearest centroid.
std::unique_ptr<FittedModel> cluster_features_minibatch(FitSession& c, const MethodFacts& facts, Matrix F,
                                                        std::unique_ptr<FeatureMap> map, std::vector<float> offset,
                                                        bool kernel_distances) {
    MinibatchLloydOptions o;
    o.isa = c.isa;
    o.k = c.p.k;
    o.batch_size = c.p.batch_size;
    o.max_iter = c.p.max_iter;
    o.epsilon = c.p.epsilon > 0 ? c.p.epsilon : -std::numeric_limits<double>::infinity();  // 0: never stop early
    o.init = c.p.init;
    o.threads = c.threads;
    FeatureLloyd problem(F.view(), c.w, c.p.k, c.threads, c.isa, std::move(offset), true, *c.comm, &c.part);
    struct Restart {
        MinibatchLloydResult mb;
        LloydResult assigned;  ///< every row to its nearest centre: its objective picks the restart
    };
    Restart best = best_restart(
        c.p.n_init,
        [&](int64_t r) {
            c.begin_stage("minibatch");
            MinibatchLloydResult run =
                minibatch_lloyd(F.view(), c.w, o, c.p.seed, static_cast<uint64_t>(r), *c.comm, &c.part);
            c.end_stage("minibatch");
            c.begin_stage("assign");
            LloydResult labels = problem.assign_to(run.centroids);
            c.end_stage("assign");
            return Restart{std::move(run), std::move(labels)};
        },
        [](const Restart& r) { return r.assigned.objective; });
    MinibatchLloydResult& mb = best.mb;
    LloydResult& assigned = best.assigned;
    assigned.iterations = mb.iterations;
    return std::make_unique<FeatureModel>(c.p, c.X.rows, c.X.cols, c.report(facts, std::move(assigned)), std::move(map),
                                          std::move(mb.centroids), kernel_distances);
}

}  // namespace

Matrix features_of_rows(FitSession& c, const FeatureMap& map, double scratch, const char* what) {
    const MemoryLedger::Charge held = c.charge("features", what, scratch);
    return transform_all(map, c.X, c.threads);
}

std::unique_ptr<FittedModel> cluster_features(FitSession& c, const MethodFacts& facts, Matrix F,
                                              std::unique_ptr<FeatureMap> map, std::vector<float> offset,
                                              bool kernel_distances) {
    const MemoryLedger::Charge state =
        c.charge(c.p.solver == Solver::minibatch ? "minibatch" : "lloyd",
                 "k-means on the n x " + std::to_string(F.cols) +
                     " features (norms, bounds, label caches, chunk sums, seeding, batches)",
                 memory::cluster_features(c.p, static_cast<double>(F.rows), static_cast<double>(F.cols), c.threads,
                                          !c.w.empty()));
    if (c.p.solver == Solver::minibatch) {
        return cluster_features_minibatch(c, facts, std::move(F), std::move(map), std::move(offset), kernel_distances);
    }
    FeatureLloyd problem(F.view(), c.w, c.p.k, c.threads, c.isa, std::move(offset), true, *c.comm, &c.part);
    LloydResult best = best_of_restarts(problem, c);
    Matrix centroids = problem.centroids_of(best);
    c.end_stage("lloyd");
    return std::make_unique<FeatureModel>(c.p, c.X.rows, c.X.cols, c.report(facts, std::move(best)), std::move(map),
                                          std::move(centroids), kernel_distances);
}

}  // namespace kkm
