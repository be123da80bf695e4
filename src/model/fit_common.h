// Pieces every fit shares: stage timing, the memory ledger, restarts, the report. Private to
// src/model.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/lloyd_driver.h"
#include "cluster/minibatch_kernel.h"
#include "cluster/seeding.h"
#include "core/blocking.h"
#include "core/comm.h"
#include "core/input_pages.h"
#include "core/matrix.h"
#include "core/memory_ledger.h"
#include "core/params.h"
#include "core/progress.h"
#include "core/rng.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"
#include "model/model.h"

namespace kkm {

/// The seconds each stage of a fit takes, in the order the stages first end; a stage named
/// twice (seeding and Lloyd across restarts) adds up.
class StageTimer {
public:
    StageTimer() : start_(Clock::now()) {}
    void stage(const char* name);
    const std::vector<std::pair<std::string, double>>& timings() const { return timings_; }

private:
    using Clock = std::chrono::steady_clock;
    std::vector<std::pair<std::string, double>> timings_;
    Clock::time_point start_;
};

/// What the one read of X before the kernel stage gives the fit (fit.cpp, scale_and_shift).
struct FirstPass {
    double gamma = 0;          ///< the kernel's scale (resolved when auto; 0 for a kernel without one)
    std::vector<float> shift;  ///< subtracted from every row before the kernel (empty: none)
    /// False when X was not checked for NaN and ±Inf, or only the moments' sample of it (a
    /// fit of more than kSampledMomentsAbove rows), and the method checks the rest in its own
    /// pass (nystrom_checks_rows).
    bool rows_checked = true;
};

/// What a fit is given besides its parameters, rows, weights and threads, fixed for the fit.
struct FitInputs {
    /// The caller's weights were divided by this (their largest) into the fit's weights.
    double weight_scale = 1.0;
    /// The caller's weights (NULL: the fit's own, or none).
    const std::vector<float>* caller_weights = nullptr;
    /// The ranks the rows are spread over, and where this rank's rows sit among all of them.
    const Comm* comm = &solo_comm();
    RowPartition part = {};
    /// Where the rows live (a file mapping is read ahead, dropped behind, or read directly).
    InputPages pages;
    /// The engine path every kernel block of the fit runs on (reported).
    engine::Isa isa = engine::Isa::portable;
    /// The entries (nnz) of the graph a fit is given (kkm_fit_graph); 0 when it has rows.
    int64_t graph_entries = 0;
};

/// What the up-front memory check of a fit sees: its parameters and sizes, not its data. A
/// FitSession gives its own (shape()); kkm_fit_f64 checks one before it copies the rows.
struct FitShape {
    const Params& p;
    int64_t rows = 0;      ///< this rank's rows
    int64_t cols = 0;      ///< d (n_train with kernel=precomputed)
    int64_t n_global = 0;  ///< rows over all ranks
    int threads = 1;
    bool weighted = false;
    bool distributed = false;
    bool has_rows = true;       ///< false: the fit is given a graph (kernel=knn, heat), not rows
    bool direct_reads = false;  ///< X is read through RowStream's buffers (a file larger than memory)
    int64_t graph_entries = 0;  ///< the given graph's entries (has_rows false)
};

/// One fit, from its up-front checks to the model it returns. It holds the inputs every stage
/// reads (parameters, rows, weights, threads, the process group), what fit_with resolved before
/// the method (the estimate, the first pass, the starting partition: each set once, before the
/// method runs), the clock of its stages and the charges against the ledger (max_memory_mb).
/// fit_with makes one per fit; a method takes it by reference, runs its stages between
/// begin_stage and end_stage, charges what it allocates, and builds the model it returns with
/// report(): the one place a fit's report is made, from what the method returns. Functions
/// that only read take it const.
class FitSession {
public:
    FitSession(const Params& params, ConstMatrix rows, const std::vector<float>& weights, int thread_count,
               MemoryLedger& ledger, FitInputs inputs = {})
        : p(params),
          X(rows),
          w(weights),
          threads(thread_count),
          weight_scale(inputs.weight_scale),
          caller_weights(inputs.caller_weights),
          comm(inputs.comm),
          part(inputs.part),
          pages(std::move(inputs.pages)),
          isa(inputs.isa),
          graph_entries(inputs.graph_entries),
          ledger_(ledger) {}
    FitSession(const FitSession&) = delete;
    FitSession& operator=(const FitSession&) = delete;

    const Params& p;
    const ConstMatrix X;          ///< the caller's rows (never handed to GEMM directly)
    const std::vector<float>& w;  ///< empty or n weights
    const int threads;
    /// The caller's weights were divided by this (their largest) into w; the report's
    /// objective is multiplied back (1 without weights).
    const double weight_scale;
    /// The caller's weights (empty or n): the report's cluster masses sum them exactly.
    const std::vector<float>* const caller_weights;
    /// The ranks the rows are spread over (one process: solo_comm()), and where this rank's
    /// rows X sit among all of them.
    const Comm* const comm;
    const RowPartition part;
    /// Where X lives: read-ahead and drop-behind (or direct reads) for the passes over a
    /// mapped file.
    const InputPages pages;
    /// The engine path every kernel block of the fit runs on (reported).
    const engine::Isa isa;
    /// The entries of the graph the fit is given (kkm_fit_graph); 0 for a fit of rows.
    const int64_t graph_entries;
    /// Rows over all ranks (X.rows in one process).
    int64_t n_global() const { return comm->size() == 1 ? X.rows : part.global; }
    bool distributed() const { return comm->size() > 1; }
    FitShape shape() const {
        return {p,
                X.rows,
                X.cols,
                n_global(),
                threads,
                !w.empty(),
                distributed(),
                X.data != nullptr,
                pages.direct() != nullptr,
                graph_entries};
    }

    /// Announces a stage to the progress callback (its fractions start again from 0).
    void begin_stage(const char* name) const { progress_begin(name); }
    /// The seconds since the previous end_stage (or the start) go to the report under `name`.
    void end_stage(const char* name) { timer_.stage(name); }
    /// Charges `bytes` to the fit's ledger for as long as the returned charge lives.
    [[nodiscard]] MemoryLedger::Charge charge(const char* stage, const std::string& what, double bytes) {
        return ledger_.charge(stage, what, bytes);
    }
    MemoryLedger& ledger() { return ledger_; }
    const MemoryLedger& ledger() const { return ledger_; }

    /// What fit_with resolves before the method, in this order: the up-front estimate (bytes,
    /// what the ledger held included), the first pass over X, and the labels of every row the
    /// first restart starts from instead of a seeding (NULL: seed; the search's clustering, or
    /// the caller's partition).
    void set_estimate(double bytes) { estimate_ = bytes; }
    void set_first_pass(FirstPass pass) { first_ = std::move(pass); }
    void set_start(const std::vector<int32_t>* labels) { start_ = labels; }
    double gamma() const { return first_.gamma; }
    const std::vector<float>& shift() const { return first_.shift; }
    bool rows_checked() const { return first_.rows_checked; }
    const std::vector<int32_t>* start() const { return start_; }

    /// The fit's report for the model a method returns: what fit_with resolved, the method's
    /// facts, the stages' seconds so far, and the clustering: the labels, their objective
    /// (the caller's weights: times weight_scale), the iterations and the cluster masses over
    /// all ranks (collective).
    FitReport report(const MethodFacts& facts, LloydResult&& result) const;
    /// The same without labels (the graph models add their own assignment of the rows).
    FitReport report(const MethodFacts& facts, int32_t iterations) const;

private:
    MemoryLedger& ledger_;
    double estimate_ = 0;
    FirstPass first_;
    const std::vector<int32_t>* start_ = nullptr;
    StageTimer timer_;
};

/// The up-front check of a method (before any stage starts): throws OUT_OF_MEMORY naming the
/// estimate, `detail` and max_memory_mb when what the ledger holds plus the larger of `peak`
/// (the method's footprint, model/fit_memory.h) and the gamma stage exceeds the budget.
/// Returns the estimate (what the ledger holds included), for the report.
double require_budget(const FitShape& s, const MemoryLedger& ledger, const char* method, double peak,
                      const std::string& detail);

/// Requests this rank's rows among the global indices idx from X's file at once (landmarks
/// read out of order; nothing when X is in memory).
void request_rows(const FitSession& c, const std::vector<int64_t>& idx);

/// Bytes of the read-ahead buffers of the passes that read X directly from its file (every
/// thread streams: RowStream), 0 when X is read in place.
double direct_read_buffers(const FitShape& s);
inline double direct_read_buffers(const FitSession& c) {
    return direct_read_buffers(c.shape());
}

/// K(x_i, x_i) of the training rows: the diagonal of a precomputed K, else the kernel's
/// (computed in row blocks: no copy of X).
std::vector<float> training_diagonal(const FitSession& c);

/// k(x, x) of `rows` under the fit's kernel function (not kernel=precomputed): 1 for a
/// shift-invariant kernel without reading them, else in row blocks over the threads.
std::vector<float> kernel_diagonal(const FitSession& c, ConstMatrix rows);

/// Each row's nearest centre in the kernel's feature space: the largest 2 k(x, c_j) − k(c_j, c_j)
/// (the first on a tie), for a starting partition given as centres in input space.
std::vector<int32_t> nearest_centres(const FitSession& c, ConstMatrix centres);

/// The fit's kernel over training points idx (global row indices): basis.evaluate(rows) =
/// K(rows, x_idx) — the gathered rows (from the ranks holding them) under the kernel
/// function, or columns idx of a precomputed K.
KernelBasis basis_over(const FitSession& c, const std::vector<int64_t>& idx);

/// The kernel function of the fit (not for kernel=precomputed).
Kernel fit_kernel(const FitSession& c);

/// The landmark (or feature) count: m, or auto = min(n, max(k, ceil(4 sqrt(n)))).
int64_t resolve_landmarks(const Params& p, int64_t n);

/// Training rows idx (global indices) on every rank, from the ranks holding them (collective).
Matrix training_rows(const FitSession& c, const std::vector<int64_t>& idx);

/// A result's `.objective`: what best_restart compares unless told otherwise.
struct ObjectiveOf {
    template <class Result>
    double operator()(const Result& result) const {
        return result.objective;
    }
};

/// Objectives of two restarts closer than this fraction of the best are a tie. Restarts that
/// reach the same partition (often with the clusters numbered differently) have objectives
/// that differ only by float64 rounding, and that rounding changes with the number of ranks
/// summing them; without a tolerance the winner, and so the labels, would too.
inline constexpr double kRestartTie = 1e-9;

/// Runs restarts r = 0 .. n_init-1 as run(r) and keeps the result with the lowest
/// objective(result); ties (kRestartTie) go to the earliest. Every method's restarts go
/// through here, and every one draws restart r's random choices from restart_rng(seed,
/// stream, r, ...) (core/rng.h), the one seeding rule.
template <class Run, class Objective = ObjectiveOf>
auto best_restart(int64_t n_init, Run run, Objective objective = {}) {
    auto best = run(int64_t{0});
    for (int64_t r = 1; r < n_init; ++r) {
        auto result = run(r);
        const double lowest = objective(best);
        if (objective(result) < lowest - kRestartTie * std::abs(lowest)) best = std::move(result);
    }
    return best;
}

/// n_init restarts (best_restart), each seeded from its own stream (the first from c.start()
/// when given), and refined by Hartigan's transfers with refine=hartigan where the problem
/// offers them; the lowest objective wins.
template <class Problem>
LloydResult best_of_restarts(Problem& problem, FitSession& c) {
    const LloydOptions options{c.p.k, c.p.max_iter, c.p.tol};
    return best_restart(c.p.n_init, [&](int64_t r) {
        std::vector<int32_t> labels;
        if (r == 0 && c.start() != nullptr) {
            labels = *c.start();
        } else {
            Rng rng = restart_rng(c.p.seed, Stream::seeding, static_cast<uint64_t>(r));
            c.begin_stage("seeding");
            labels = seed_centres(c.p.init, *c.comm, c.part, c.p.k, c.w, problem.distance_oracle(), rng).labels;
            c.end_stage("seeding");
        }
        c.begin_stage("lloyd");
        LloydResult result = run_lloyd(problem, std::move(labels), c.w, options, *c.comm, c.part.offset);
        c.end_stage("lloyd");
        if constexpr (requires { problem.hartigan(result.labels, int64_t{1}); }) {
            if (c.p.refine == Refine::hartigan) {
                c.begin_stage("refine");
                problem.hartigan(result.labels, c.p.max_iter);
                result.centre_labels.clear();  // Hartigan's labels are the centres' clusters
                result.centres = Matrix();     // their means, not what Lloyd measured
                result.objective = problem.objective(result.labels);
                c.end_stage("refine");
            }
        }
        return result;
    });
}

/// Each method's up-front check (require_budget with its footprint), run before the gamma
/// stage; they throw INVALID_ARGUMENT first for sizes the method refuses (m > n, rank > m).
double check_exact_budget(const FitShape& s, const MemoryLedger& ledger);
double check_nystrom_budget(const FitShape& s, const MemoryLedger& ledger);
double check_sketch_budget(const FitShape& s, const MemoryLedger& ledger);
double check_rff_budget(const FitShape& s, const MemoryLedger& ledger);
double check_minibatch_budget(const FitShape& s, const MemoryLedger& ledger);
/// Bytes method=minibatch's kernel between training rows (fit_minibatch.cpp) holds for a
/// block of b.rows rows against `cols` gathered points, besides its output: the gathered
/// points, packed, and every thread's left rows (nothing for a precomputed kernel: entries).
double training_block_footprint(const Params& p, double cols, double d, const RowBlocks& b);
/// Bytes the assign stage of method=minibatch holds once a run's centres are known: `points`
/// coefficient points in all, the largest centre holding `largest` of them.
double minibatch_assign_footprint(const Params& p, double n, double d, int threads, double points, double largest);

/// Whether fit_nystrom reads every row in one kernel pass before anything else reads more than
/// its landmarks (one process, uniform landmarks, the kernel rows kept): it then checks their
/// finiteness itself, and a fit that needs no moments of X, or takes them from a sample,
/// needs no pass of its own for it (rows_checked).
bool nystrom_checks_rows(const FitSession& c);

std::unique_ptr<FittedModel> fit_exact(FitSession& c);
std::unique_ptr<FittedModel> fit_nystrom(FitSession& c);
std::unique_ptr<FittedModel> fit_sketch(FitSession& c);
std::unique_ptr<FittedModel> fit_rff(FitSession& c);
std::unique_ptr<FittedModel> fit_minibatch(FitSession& c);

/// The mini-batch kernel k-means options of a fit's parameters (method=minibatch, for every
/// kernel), on `threads` threads and engine path `isa`.
MinibatchOptions minibatch_options(const Params& p, int threads, engine::Isa isa);

/// The support points of all centres (sorted, distinct, appended to `support`) and the centres
/// as coefficient columns over them, with mass 1 and ⟨C_j, C_j⟩ = z_jᵀ K_SS z_j from the block
/// of K over centre j's own support (the other entries meet zero coefficients): one such block
/// at a time, never K over all of S.
DualCentres support_centres(const std::vector<SparseCentre>& centres, const PointKernel& K,
                            std::vector<int64_t>& support, int threads);

/// F = map(X) for every training row, with every thread's block of rows and features charged
/// to stage "features" while it runs (`scratch` bytes, described as `what`).
Matrix features_of_rows(FitSession& c, const FeatureMap& map, double scratch, const char* what);

/// Lloyd on explicit features F (n×r); offset as in FeatureLloyd. Builds the FeatureModel,
/// whose report shows `facts`.
std::unique_ptr<FittedModel> cluster_features(FitSession& c, const MethodFacts& facts, Matrix F,
                                              std::unique_ptr<FeatureMap> map, std::vector<float> offset,
                                              bool kernel_distances);

}  // namespace kkm
