// Pieces every fit shares: stage timing, the memory ledger, restarts, the report. Private to
// src/model.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "core/comm.h"
#include "core/matrix.h"
#include "core/memory_ledger.h"
#include "core/params.h"
#include "core/progress.h"
#include "core/rng.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"
#include "model/model.h"

namespace kkm {

/// Records the seconds each stage takes into a FitReport; a stage named twice (seeding and
/// Lloyd across restarts) adds up.
class StageTimer {
public:
    explicit StageTimer(FitReport& report) : report_(report), start_(Clock::now()) {}
    void stage(const char* name);

private:
    using Clock = std::chrono::steady_clock;
    FitReport& report_;
    Clock::time_point start_;
};

/// What a method's fit gets: parameters, data, weights, the report under construction, and
/// the ledger every stage charges its memory to (max_memory_mb).
struct FitContext {
    const Params& p;
    ConstMatrix X;                ///< the caller's rows (never handed to GEMM directly)
    const std::vector<float>& w;  ///< empty or n weights
    FitReport& report;
    StageTimer& timer;
    int threads;
    MemoryLedger& ledger;
    /// The caller's weights were divided by this (their largest) into w; the report's
    /// objective is multiplied back (1 without weights).
    double weight_scale = 1.0;
    /// The caller's weights (empty or n): the report's cluster masses sum them exactly.
    const std::vector<float>* caller_weights = nullptr;
    /// The ranks the rows are spread over (one process: solo_comm()), and where this rank's
    /// rows X sit among all of them.
    const Comm* comm = &solo_comm();
    RowPartition part = {};
    /// Labels of every row the first restart starts from instead of a seeding (NULL: seed):
    /// what the gamma=search / k=auto search's clustering assigns them.
    const std::vector<int32_t>* start = nullptr;
    /// Rows over all ranks (X.rows in one process).
    int64_t n_global() const { return comm->size() == 1 ? X.rows : part.global; }
    bool distributed() const { return comm->size() > 1; }
};

/// The up-front check of a method (before any stage starts): throws OUT_OF_MEMORY naming the
/// estimate, `detail` and max_memory_mb when what the ledger holds plus the larger of `peak`
/// (the method's footprint, model/fit_memory.h) and the gamma stage exceeds the budget.
/// Records the estimate in the report.
void require_budget(const FitContext& c, const char* method, double peak, const std::string& detail);

/// K(x_i, x_i) of the training rows: the diagonal of a precomputed K, else the kernel's
/// (computed in row blocks: no copy of X).
std::vector<float> training_diagonal(const FitContext& c);

/// The fit's kernel over training points idx (global row indices): basis.evaluate(rows) =
/// K(rows, x_idx) — the gathered rows (from the ranks holding them) under the kernel
/// function, or columns idx of a precomputed K.
KernelBasis basis_over(const FitContext& c, const std::vector<int64_t>& idx);

/// The kernel function of the fit (not for kernel=precomputed).
Kernel fit_kernel(const FitContext& c);

/// The landmark (or feature) count: m, or auto = min(n, max(k, ceil(4 sqrt(n)))).
int64_t resolve_landmarks(const Params& p, int64_t n);

/// Training rows idx (global indices) on every rank, from the ranks holding them (collective).
Matrix training_rows(const FitContext& c, const std::vector<int64_t>& idx);

/// Moves a Lloyd result into the report (the cluster masses over all ranks).
void finish_report(const FitContext& c, LloydResult&& result);

/// A result's `.objective`: what best_restart compares unless told otherwise.
struct ObjectiveOf {
    template <class Result>
    double operator()(const Result& result) const {
        return result.objective;
    }
};

/// Runs restarts r = 0 .. n_init-1 as run(r) and keeps the result with the lowest
/// objective(result) (the earliest on ties). Every method's restarts go through here; each
/// draws restart r from streams of its own (the Lloyd fits: Rng(seed, Stream::seeding, r)).
template <class Run, class Objective = ObjectiveOf>
auto best_restart(int64_t n_init, Run run, Objective objective = {}) {
    auto best = run(int64_t{0});
    for (int64_t r = 1; r < n_init; ++r) {
        auto result = run(r);
        if (objective(result) < objective(best)) best = std::move(result);
    }
    return best;
}

/// n_init restarts (best_restart), each seeded from its own stream (the first from c.start
/// when given), and refined by Hartigan's transfers with refine=hartigan where the problem
/// offers them; the lowest objective wins.
template <class Problem>
LloydResult best_of_restarts(Problem& problem, const FitContext& c) {
    const LloydOptions options{c.p.k, c.p.max_iter, c.p.tol};
    return best_restart(c.p.n_init, [&](int64_t r) {
        std::vector<int32_t> labels;
        if (r == 0 && c.start != nullptr) {
            labels = *c.start;
        } else {
            Rng rng(c.p.seed, Stream::seeding, static_cast<uint64_t>(r));
            progress_begin("seeding");
            labels = seed_centres(c.p.init, *c.comm, c.part, c.p.k, c.w, problem.distance_oracle(), rng).labels;
            c.timer.stage("seeding");
        }
        progress_begin("lloyd");
        LloydResult result = run_lloyd(problem, std::move(labels), c.w, options, *c.comm, c.part.offset);
        c.timer.stage("lloyd");
        if constexpr (requires { problem.hartigan(result.labels, int64_t{1}); }) {
            if (c.p.refine == Refine::hartigan) {
                progress_begin("refine");
                problem.hartigan(result.labels, c.p.max_iter);
                result.objective = problem.objective(result.labels);
                c.timer.stage("refine");
            }
        }
        return result;
    });
}

/// Each method's up-front check (require_budget with its footprint), run before the gamma
/// stage; they throw INVALID_ARGUMENT first for sizes the method refuses (m > n, rank > m).
void check_exact_budget(const FitContext& c);
void check_nystrom_budget(const FitContext& c);
void check_sketch_budget(const FitContext& c);
void check_rff_budget(const FitContext& c);
void check_minibatch_budget(const FitContext& c);

std::unique_ptr<FittedModel> fit_exact(const FitContext& c);
std::unique_ptr<FittedModel> fit_nystrom(const FitContext& c);
std::unique_ptr<FittedModel> fit_sketch(const FitContext& c);
std::unique_ptr<FittedModel> fit_rff(const FitContext& c);
std::unique_ptr<FittedModel> fit_minibatch(const FitContext& c);

/// Lloyd on explicit features F (n×r); offset as in FeatureLloyd. Builds the FeatureModel.
std::unique_ptr<FittedModel> cluster_features(const FitContext& c, Matrix F, std::unique_ptr<FeatureMap> map,
                                              std::vector<float> offset, bool kernel_distances);

}  // namespace kkm
