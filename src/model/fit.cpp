// fit_model: validation that needs the data or several parameters together, the kernel
// scale, and the dispatch to a method.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/validate.h"
#include "kernels/kernel.h"
#include "kernels/kernel_traits.h"
#include "kernels/precomputed.h"
#include "kernels/row_scan.h"
#include "model/fit_common.h"
#include "model/fit_graph.h"
#include "model/fit_memory.h"
#include "model/methods.h"
#include "search/search.h"

namespace kkm {
namespace {

void validate_against_data(const Params& p, ConstMatrix X) {
    if (p.k > X.rows) {
        invalid_argument("k=" + std::to_string(p.k) + " exceeds the number of rows n=" + std::to_string(X.rows) +
                         "; k must be in [1, n]");
    }
    if (kernel_traits(p.kernel).precomputed && X.cols != X.rows) {
        invalid_argument("kernel=precomputed needs X to be the n x n kernel matrix, got n=" + std::to_string(X.rows) +
                         " rows and d=" + std::to_string(X.cols) + " columns");
    }
}

void validate_combination(const Params& p) {
    if (graph_kernel(p)) validate_graph_params(p);
    if (p.method == Method::rff && !kernel_traits(p.kernel).shift_invariant) {
        invalid_argument(std::string("method=rff needs a shift-invariant kernel (rbf or laplacian), "
                                     "got kernel=") +
                         to_text(p.kernel));
    }
    if (p.refine == Refine::hartigan && (p.method == Method::minibatch || p.solver == Solver::minibatch)) {
        invalid_argument(
            "refine=hartigan refines a Lloyd fit: it applies to method=exact, nystrom, sketch and "
            "rff with solver=lloyd, not to mini-batch fits (method=minibatch or solver=minibatch)");
    }
    if (p.rank > 0 && p.method != Method::nystrom) {
        invalid_argument(
            "rank (the rank restriction of Nystrom features) applies to "
            "method=nystrom only; unset it (rank=none) for this method");
    }
}

/// Arithmetic of one pass of the fit, for sizing its thread count: the method's (methods.cpp),
/// with kernel entries costing d each (1 for a precomputed kernel); a graph kernel's own.
double fit_work(const Params& p, int64_t n, int64_t d) {
    if (graph_kernel(p)) return graph_work(p, n, d);
    const double per_entry = kernel_traits(p.kernel).precomputed ? 1.0 : static_cast<double>(d);
    return method_traits(p.method).work(p, static_cast<double>(n), per_entry);
}

std::unique_ptr<FittedModel> dispatch(FitSession& session) {
    if (graph_kernel(session.p)) return fit_graph_rows(session);
    return method_traits(session.p.method).fit(session);
}

/// The method's up-front memory check (before any stage starts).
double check_budget(const FitShape& s, const MemoryLedger& ledger) {
    if (graph_kernel(s.p)) return check_graph_budget(s, ledger);
    return method_traits(s.p.method).check_budget(s, ledger);
}

/// What fit_model holds from its start: the caller's float copy of the weights (made before
/// the fit) and the copy divided by their largest, and the centring shift kept in the report.
MemoryLedger::Charge charge_inputs(MemoryLedger& ledger, bool weighted, int64_t n, int64_t d) {
    return ledger.charge("weights",
                         "the weights (the caller's float copy and the copy divided by the largest) and the "
                         "centring shift",
                         (weighted ? 8.0 * static_cast<double>(n) : 0.0) + 4.0 * static_cast<double>(d));
}

/// The weights divided by their largest, and that largest: any finite positive scale of the
/// same weights then gives the same fit (float32 sums of FLT_MAX weights no longer overflow).
/// Uniform weights of any scale become no weights, so they fit exactly as none do (the
/// mini-batch sampler, for one, draws differently with weights). Empty stays empty (scale 1).
std::pair<std::vector<float>, double> unit_weights(const std::vector<float>& w, const Comm& comm) {
    const bool weighted = any_rank(comm, !w.empty());
    if (!weighted) return {{}, 1.0};
    // > 0: checked by the caller (some rank holds a positive weight)
    const double largest =
        max_over_ranks(comm, w.empty() ? 0.0 : static_cast<double>(*std::max_element(w.begin(), w.end())));
    const auto top = static_cast<float>(largest);
    const bool uniform = every_rank(comm, std::all_of(w.begin(), w.end(), [top](float v) { return v == top; }));
    if (uniform) return {{}, largest};
    std::vector<float> unit(w.size());
    for (size_t i = 0; i < w.size(); ++i) unit[i] = w[i] / top;
    return {std::move(unit), largest};
}

/// What kkm_fit_mpi cannot do (yet): the methods and options whose stages need all rows in
/// one process. Checked on every rank (the parameters are the same everywhere).
void require_distributable(const Params& p, ConstMatrix X, int64_t n_global, const std::vector<float>& w,
                           bool weighted) {
    const auto refuse = [](const std::string& what) {
        invalid_argument(what + " is not available in a distributed fit (kkm_fit_mpi); see the README's MPI section");
    };
    if (p.method == Method::minibatch && p.tau == 0) {
        refuse("method=minibatch with tau=0 (its n x k inner products need every row's kernel against each batch)");
    }
    if (kernel_traits(p.kernel).precomputed) refuse("kernel=precomputed");
    if (graph_kernel(p) && !anchor_graph(p, n_global, X.cols)) {
        refuse(std::string("kernel=") + to_text(p.kernel) +
               " with graph=" + to_text(graph_choice(p, n_global, X.cols)) +
               " (its neighbour graph needs every row in one process; graph=anchor distributes: set it, or leave "
               "graph=auto above 20000 rows with kernel=heat, 60000 with kernel=knn)");
    }
    if (p.refine == Refine::hartigan) refuse("refine=hartigan (its transfers run point by point)");
    if (kernel_traits(p.kernel).auto_scale == AutoScale::l1 && p.gamma <= 0)
        refuse("kernel=" + std::string(to_text(p.kernel)) + " with gamma=auto (set gamma)");
    if (search::needed(p)) refuse("gamma=search and k=auto (fit a sample in one process, then set gamma and k)");
    if (weighted && X.rows > 0 && w.empty()) {
        invalid_argument("weights: given on some ranks but not on this one; pass weights on every rank or on none");
    }
}

std::unique_ptr<FittedModel> fit_with(const Params& p, ConstMatrix X, const std::vector<float>& weights,
                                      const Comm& comm, MemoryLedger* outer, const std::vector<int32_t>* start,
                                      const Start* given = nullptr);

/// A caller's starting partition (Start) against the parameters and this rank's rows: the
/// fits that start from one, the label range and the centres' shape.
void check_start(const Params& p, const Start& start, ConstMatrix X, const Comm& comm) {
    const auto refuse = [](const std::string& what) {
        invalid_argument("a starting partition (kkm_set_init_labels / kkm_set_init_centres) cannot be used with " +
                         what + "; clear it (NULL) or change the parameter");
    };
    if (comm.size() > 1) refuse("a distributed fit (kkm_fit_mpi over several ranks)");
    if (p.method == Method::minibatch) refuse("method=minibatch (its centres are sparse sums of batch points)");
    if (method_traits(p.method).features && p.solver == Solver::minibatch) refuse("solver=minibatch");
    if (graph_kernel(p)) refuse(std::string("kernel=") + to_text(p.kernel));
    if (!start.labels.empty()) {
        if (static_cast<int64_t>(start.labels.size()) != X.rows) {
            invalid_argument("the starting labels (kkm_set_init_labels) have n=" + std::to_string(start.labels.size()) +
                             " values but X has n=" + std::to_string(X.rows) + " rows");
        }
        for (size_t i = 0; i < start.labels.size(); ++i) {
            if (start.labels[i] >= p.k) {
                invalid_argument("starting label labels[" + std::to_string(i) + "]=" + std::to_string(start.labels[i]) +
                                 " is outside [0, k) for k=" + std::to_string(p.k));
            }
        }
        return;
    }
    if (kernel_traits(p.kernel).precomputed) refuse("kernel=precomputed (starting centres need a kernel function)");
    const int64_t d = static_cast<int64_t>(start.centres.size()) / std::max<int64_t>(start.centre_rows, 1);
    if (start.centre_rows != p.k || d != X.cols) {
        invalid_argument("the starting centres (kkm_set_init_centres) are " + std::to_string(start.centre_rows) +
                         " x " + std::to_string(d) + " but the fit needs k x d = " + std::to_string(p.k) + " x " +
                         std::to_string(X.cols));
    }
}

/// A scoring fit of the search: a FittedModel seen through search::SubsetModel.
class SubsetFit final : public search::SubsetModel {
public:
    explicit SubsetFit(std::unique_ptr<FittedModel> model) : model_(std::move(model)) {}
    const std::vector<int32_t>& labels() const override { return model_->report().labels; }
    void assign(ConstMatrix cross, int32_t* labels) const override { model_->assign(cross, labels, nullptr, 1); }

private:
    std::unique_ptr<FittedModel> model_;
};

std::unique_ptr<search::SubsetModel> fit_subset(const Params& q, ConstMatrix K, const std::vector<float>& w) {
    return std::make_unique<SubsetFit>(fit_model(q, K, w));
}

/// gamma=search / k=auto: the search on a subsample, then the fit with what it chose, its
/// first restart started from the labels the search's clustering gives every row (kernel
/// k-means from a k-means++ seeding often stops at a worse optimum, as the two rings split in
/// half, that the search's restarts on the subsample got past).
std::unique_ptr<FittedModel> fit_searched(const Params& p, ConstMatrix X, const std::vector<float>& weights,
                                          const Comm& comm, MemoryLedger* outer) {
    const auto start = std::chrono::steady_clock::now();
    int threads = 1;
    collectively(comm, [&] {
        if (comm.size() > 1) require_distributable(p, X, X.rows, weights, !weights.empty());
        scan_rows(X, {}, Moments::none, 0, resolve_threads(p.threads));  // finite (the search is one process)
        validate_combination(p);
        Params smallest = p;
        smallest.k = p.k == 0 ? p.k_min : p.k;
        validate_against_data(smallest, X);
        search::validate(p, X.rows);
        threads = resolve_threads(p.threads);
    });
    progress_begin("search");
    double gamma = p.gamma;
    if (!p.gamma_search && kernel_traits(p.kernel).uses_gamma && gamma <= 0) {
        gamma = auto_gamma(p.kernel, X, weights, p.bandwidth_scale, threads);
    }
    search::Outcome found;
    {
        MemoryLedger own(p.max_memory_mb);
        const double s = static_cast<double>(std::min(X.rows, p.search_size));
        const MemoryLedger::Charge held = (outer != nullptr ? *outer : own)
                                              .charge("search",
                                                      "gamma=search / k=auto: the subsample's distances, kernel "
                                                      "matrices and halves (about 5 s x s floats)",
                                                      5.0 * Matrix::footprint(s, s));
        found = search::run(p, X, weights, gamma, threads, fit_subset);
    }
    Params chosen = p;
    chosen.k = found.k;
    chosen.gamma_search = false;
    // The gamma the search scored with (resolved once: gamma=auto sorts every column for
    // laplacian), so the fit's kernel is the one the search chose under.
    chosen.gamma = p.gamma_search ? found.gamma : gamma;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::unique_ptr<FittedModel> model = fit_with(chosen, X, weights, comm, outer, &found.labels);
    model->record_search(std::move(found.scan), seconds);
    return model;
}

}  // namespace

MemoryLedger::Charge charge_float32_copy(MemoryLedger& ledger, const Params& params, int64_t n, int64_t d,
                                         bool weighted) {
    Params p = params;
    apply_kernel_defaults(p, n);
    MemoryLedger::Charge copy = ledger.charge("input", "the float32 copy of the float64 rows X (n x d)",
                                              Matrix::footprint(static_cast<double>(n), static_cast<double>(d)));
    validate_combination(p);
    validate_against_data(p, ConstMatrix{nullptr, n, d});
    const MemoryLedger::Charge held = charge_inputs(ledger, weighted, n, d);
    const int threads = resolve_threads(p.threads, fit_work(p, n, d));
    check_budget(FitShape{p, n, d, n, threads, weighted}, ledger);  // the rows the copy will hold
    return copy;
}

void require_fit_sizes(const Params& params, int64_t n, int64_t d) {
    Params p = params;
    apply_kernel_defaults(p, n);
    if (p.k == 0) p.k = std::min(p.k_max, n);  // k=auto: the largest k it may choose
    require_product(n, "n", d, "d", sizeof(float), "X");
    // Exact's float64 sums S = K·Z are n x k; k ≤ n is checked once X is known to be finite.
    require_product(n, "n", p.k, "k", sizeof(double), "the cluster sums");
    if (const MethodTraits& t = method_traits(p.method); t.features) {
        // m > n is refused later by the landmark methods, with its own message.
        if (p.m > n && t.landmarks) return;
        const int64_t m = resolve_landmarks(p, n);
        const bool rff = !t.landmarks;
        require_product(n, "n", m, "m", sizeof(float),
                        p.m == 0 ? (rff ? "the random features (m=auto)" : "the kernel rows (m=auto)")
                                 : (rff ? "the random features" : "the kernel rows"));
    }
}

std::unique_ptr<FittedModel> fit_model(const Params& p, ConstMatrix X, const std::vector<float>& weights,
                                       MemoryLedger* outer, const Start* start) {
    return fit_model(p, X, weights, solo_comm(), outer, start);
}

std::unique_ptr<FittedModel> fit_model(const Params& params, ConstMatrix X, const std::vector<float>& weights,
                                       const Comm& comm, MemoryLedger* outer, const Start* start) {
    Params p = params;
    const Start* given = start != nullptr && start->given() ? start : nullptr;
    // A given start runs once unless n_init says otherwise (scikit-learn's init=array).
    if (given != nullptr && p.n_init_auto) p.n_init = 1, p.n_init_auto = false;
    apply_kernel_defaults(p, comm.size() > 1 ? partition_rows(comm, X.rows).global : X.rows);
    if (search::needed(p)) {
        if (given != nullptr) {
            invalid_argument(
                "a starting partition (kkm_set_init_labels / kkm_set_init_centres) cannot be used with gamma=search "
                "or k=auto (the search chooses its own); clear it (NULL) or set gamma and k");
        }
        return fit_searched(p, X, weights, comm, outer);
    }
    return fit_with(p, X, weights, comm, outer, nullptr, given);
}

std::unique_ptr<FittedModel> fit_graph_model(const Params& params, const graph::CsrView& csr, MemoryLedger* outer) {
    Params p = params;
    apply_kernel_defaults(p, csr.n);
    if (!graph_kernel(p)) {
        invalid_argument(std::string("a graph is clustered with kernel=knn or kernel=heat, not kernel=") +
                         to_text(p.kernel) + "; set kernel=knn or kernel=heat");
    }
    validate_combination(p);
    validate_given_graph(p);
    const int64_t n = csr.n;
    if (p.k > n) {
        invalid_argument("k=" + std::to_string(p.k) + " exceeds the number of nodes n=" + std::to_string(n) +
                         "; k must be in [1, n]");
    }
    MemoryLedger own(p.max_memory_mb);
    MemoryLedger& ledger = outer != nullptr ? *outer : own;
    const std::vector<float> no_weights;
    const int64_t entries = graph::checked_offsets(n, csr.indptr);
    const double work = static_cast<double>(entries + n) * 100.0 * static_cast<double>(p.k);
    FitInputs inputs;
    inputs.isa = resolve_isa(p.isa);
    inputs.graph_entries = entries;
    FitSession session(p, ConstMatrix{nullptr, n, 0}, no_weights, resolve_threads(p.threads, work), ledger,
                       std::move(inputs));
    session.set_estimate(check_graph_budget(session.shape(), session.ledger()));
    std::unique_ptr<FittedModel> model = fit_graph_user(session, csr);
    if (!std::isfinite(model->report().objective)) invalid_data("the fit's objective is not finite");
    return model;
}

namespace {

/// The one read of X before the kernel stage (scan_rows): its finiteness, and the moments
/// gamma=auto (rbf) and the centring shift take. Above kSampledMomentsAbove
/// rows the moments come from a sample of evenly spaced runs; when the fit needs no moments
/// (gamma given, a kernel that is not centred) there is no pass at all. Either way the rest of
/// X is checked by a pass of its own only if the method's kernel pass does not check it
/// (nystrom_checks_rows; `reads_first`: something else reads every row before the method,
/// e.g. given centres).
FirstPass scale_and_shift(FitSession& session, int threads, bool reads_first) {
    const Params& p = session.p;
    const ConstMatrix X = session.X;
    const Comm& comm = *session.comm;
    const MemoryLedger::Charge stage =
        session.charge("gamma", "the automatic gamma's per-thread sort orders and the centring sums",
                       memory::gamma_stage(p, static_cast<double>(X.rows), static_cast<double>(X.cols), threads));
    const MemoryLedger::Charge reads =
        session.charge("gamma", "the direct reads' buffers (RowStream)", direct_read_buffers(session));
    const KernelTraits& traits = kernel_traits(p.kernel);
    const bool auto_scale = traits.uses_gamma && p.gamma <= 0;
    if (auto_scale) session.begin_stage("gamma");
    const bool spread = auto_scale && traits.auto_scale == AutoScale::squared;
    const bool moments = traits.centred || spread;
    const bool sampled = session.n_global() > kSampledMomentsAbove;
    FirstPass pass;
    pass.rows_checked = (moments && !sampled) || reads_first || !nystrom_checks_rows(session);
    RowMoments scanned;
    collectively(comm, [&] {
        if (moments) {
            try {
                scanned = scan_rows(X, session.w, spread ? Moments::spread : Moments::sums, session.part.offset,
                                    threads, &session.pages, moments_sample(X.rows, session.n_global()));
            } catch (const Error&) {  // a bad row in the sample: name the first of all rows
                if (sampled) scan_rows(X, {}, Moments::none, session.part.offset, threads, &session.pages);
                throw;
            }
        }
        // A precomputed kernel was scanned for finiteness before its symmetry check (fit_with).
        const bool checked = (moments && !sampled) || traits.precomputed || !pass.rows_checked;
        if (!checked) scan_rows(X, {}, Moments::none, session.part.offset, threads, &session.pages);
    });
    if (traits.uses_gamma) {
        pass.gamma =
            auto_scale ? auto_gamma(p.kernel, X, session.w, p.bandwidth_scale, threads, comm, &scanned) : p.gamma;
    }
    pass.shift = centring_shift(p.kernel, X, session.w, threads, comm, moments ? &scanned : nullptr);
    session.end_stage("gamma");
    return pass;
}

std::unique_ptr<FittedModel> fit_with(const Params& p, ConstMatrix X, const std::vector<float>& weights,
                                      const Comm& comm, MemoryLedger* outer, const std::vector<int32_t>* start,
                                      const Start* given) {
    MemoryLedger own(p.max_memory_mb);
    MemoryLedger& ledger = outer != nullptr ? *outer : own;
    const RowPartition part = partition_rows(comm, X.rows);
    const bool weighted = any_rank(comm, !weights.empty());
    std::optional<MemoryLedger::Charge> held;
    std::pair<std::vector<float>, double> unit;
    int threads = 1;
    engine::Isa isa = engine::Isa::portable;
    collectively(comm, [&] {
        if (comm.size() > 1) require_distributable(p, X, part.global, weights, weighted);
        held.emplace(charge_inputs(ledger, weighted, X.rows, X.cols));
        validate_combination(p);
        validate_against_data(p, ConstMatrix{X.data, part.global, X.cols});
        if (graph_kernel(p)) validate_graph_data(p, part.global, X.cols, weighted);
        require_fit_sizes(p, part.global, X.cols);
        threads = resolve_threads(p.threads, fit_work(p, X.rows, X.cols));
        if (kernel_traits(p.kernel).precomputed) {
            scan_rows(X, {}, Moments::none, part.offset, threads);  // finite before its symmetry is checked
            check_precomputed_kernel(X, threads);
        }
        isa = resolve_isa(p.isa);
        if (given != nullptr) check_start(p, *given, X, comm);
    });
    unit = unit_weights(weights, comm);
    const auto& [w, weight_scale] = unit;
    FitSession session(
        p, X, w, threads, ledger,
        {weight_scale, &weights, &comm, part,
         InputPages(X.data, static_cast<size_t>(X.rows) * static_cast<size_t>(X.cols) * sizeof(float)), isa});
    // A fit that cannot fit is refused before any work.
    collectively(comm, [&] { session.set_estimate(check_budget(session.shape(), session.ledger())); });
    session.set_first_pass(scale_and_shift(session, threads, given != nullptr && !given->centres.empty()));
    std::vector<int32_t> from_centres;
    const std::vector<int32_t>* first = start;
    if (given != nullptr && !given->labels.empty()) first = &given->labels;
    if (given != nullptr && !given->centres.empty()) {
        from_centres = nearest_centres(session, ConstMatrix{given->centres.data(), given->centre_rows, X.cols});
        first = &from_centres;
    }
    session.set_start(first);
    std::unique_ptr<FittedModel> model = dispatch(session);
    // Kernel values near the float32 limit can overflow the sums of the objective and the
    // centres (squared kernel values for the sketches): refuse rather than return inf/NaN.
    if (!std::isfinite(model->report().objective)) {
        invalid_data(
            "the fit's objective overflowed float32 (kernel values near 1e19 or more, from the data's "
            "scale, gamma, degree or coef0); rescale the data or lower gamma");
    }
    return model;
}

}  // namespace

}  // namespace kkm
