// fit_model: validation that needs the data, memory estimates, and the two methods.
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

#include "cluster/exact.h"
#include "cluster/landmark_lloyd.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "features/landmarks.h"
#include "model/model.h"

namespace kkm {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kMiB = 1024.0 * 1024.0;

/// Records the seconds each stage takes into a FitReport; a stage named twice (seeding and
/// Lloyd across restarts) adds up.
class StageTimer {
public:
    explicit StageTimer(FitReport& report) : report_(report), start_(Clock::now()) {}
    void stage(const char* name) {
        const auto now = Clock::now();
        const double seconds = std::chrono::duration<double>(now - start_).count();
        start_ = now;
        for (auto& [stage, total] : report_.timings) {
            if (stage == name) {
                total += seconds;
                return;
            }
        }
        report_.timings.emplace_back(name, seconds);
    }

private:
    FitReport& report_;
    Clock::time_point start_;
};

void require_budget(const char* method, double bytes, const Params& p, const std::string& detail) {
    const double budget = static_cast<double>(p.max_memory_mb) * kMiB;
    if (bytes <= budget) return;
    fail(KKM_ERR_OUT_OF_MEMORY,
         std::string("method=") + method + " needs an estimated " +
             std::to_string(static_cast<long long>(std::ceil(bytes / kMiB))) + " MiB (" + detail +
             ") but max_memory_mb=" + std::to_string(p.max_memory_mb) +
             "; raise max_memory_mb or use fewer rows" +
             (std::string(method) == "nystrom" ? " or landmarks (m)" : ""));
}

/// Exact's reference set: a copy of the training rows, or all columns of a precomputed K.
KernelBasis training_basis(const Params& p, ConstMatrix X, double gamma) {
    if (p.kernel == KernelType::precomputed) {
        std::vector<int64_t> columns(static_cast<size_t>(X.rows));
        std::iota(columns.begin(), columns.end(), int64_t{0});
        return KernelBasis(std::move(columns), X.rows);
    }
    Matrix copy(X.rows, X.cols);
    std::copy(X.data, X.data + X.rows * X.cols, copy.values.begin());
    return KernelBasis(Kernel(p.kernel, gamma, p.degree, p.coef0), std::move(copy));
}

/// K(x_i, x_i) of the training rows: the diagonal of a precomputed K, else the kernel's.
std::vector<float> diagonal(const Params& p, ConstMatrix X, const KernelBasis& basis) {
    std::vector<float> diag(static_cast<size_t>(X.rows));
    if (p.kernel == KernelType::precomputed) {
        for (int64_t i = 0; i < X.rows; ++i) diag[static_cast<size_t>(i)] = X.row(i)[i];
    } else {
        basis.self(X, diag.data());
    }
    return diag;
}

template <class Problem>
LloydResult best_of_restarts(Problem& problem, const Params& p, int64_t n,
                             const std::vector<float>& weights, StageTimer& timer) {
    LloydResult best;
    const LloydOptions options{p.k, p.max_iter, p.tol};
    for (int64_t r = 0; r < p.n_init; ++r) {
        Rng rng(p.seed, Stream::seeding, static_cast<uint64_t>(r));
        Seeding s = seed_centres(p.init, n, p.k, weights, problem.distance_oracle(), rng);
        timer.stage("seeding");
        LloydResult result = run_lloyd(problem, std::move(s.labels), weights, options);
        timer.stage("lloyd");
        if (r == 0 || result.objective < best.objective) best = std::move(result);
    }
    return best;
}

void finish_report(FitReport& report, LloydResult&& result, const std::vector<float>& weights,
                   int64_t k) {
    report.mass = cluster_weights(result.labels, weights, k);
    report.labels = std::move(result.labels);
    report.objective = result.objective;
    report.iterations = result.iterations;
}

std::unique_ptr<FittedModel> fit_exact(const Params& p, ConstMatrix X,
                                       const std::vector<float>& w, FitReport& report,
                                       StageTimer& timer, int threads) {
    const int64_t n = X.rows;
    const bool precomputed = p.kernel == KernelType::precomputed;
    const double per_point = 4.0 * (2.0 * static_cast<double>(p.k) + 8.0);
    const double base = static_cast<double>(n) * (per_point + (precomputed ? 0.0 : 4.0 * X.cols));
    const double full = 4.0 * static_cast<double>(n) * static_cast<double>(n);
    const double budget = static_cast<double>(p.max_memory_mb) * kMiB;
    const bool store = precomputed || base + full <= budget;
    int64_t block_rows = 256;
    if (!store) {
        const double per_row = 4.0 * static_cast<double>(n) * threads;
        block_rows = std::min<int64_t>(256, static_cast<int64_t>((budget - base) / per_row));
        require_budget("exact", base + per_row, p,
                       "training copy, labels and n x k sums, plus one kernel row per thread");
    }
    KernelBasis basis = training_basis(p, X, report.gamma);
    const ConstMatrix train = precomputed ? X : basis.points().view();
    std::vector<float> diag = diagonal(p, X, basis);
    Matrix K;
    if (store && !precomputed) {
        K = Matrix(n, n);
        parallel_blocks(threads, block_count(n, 256), [&](int64_t b) {
            const int64_t begin = b * 256, count = std::min<int64_t>(256, n - begin);
            basis.evaluate(train.slice(begin, count), K.row(begin), n);
        });
    }
    const KernelRows rows = store ? KernelRows(precomputed ? X : K.view(), 256, precomputed)
                                  : KernelRows(basis, train, block_rows, threads);
    timer.stage("kernel");
    ExactLloyd problem(rows, std::move(diag), w, p.k, threads);
    LloydResult best = best_of_restarts(problem, p, n, w, timer);
    DualCentres centres = problem.centres(best.labels);
    timer.stage("lloyd");
    finish_report(report, std::move(best), w, p.k);
    return std::make_unique<ExactModel>(p, X.cols, std::move(report), std::move(basis),
                                        std::move(centres));
}

int64_t resolve_landmarks(const Params& p, int64_t n) {
    if (p.m == 0) {
        const auto root = static_cast<int64_t>(std::ceil(4.0 * std::sqrt(static_cast<double>(n))));
        return std::min(n, std::max(p.k, root));
    }
    if (p.m > n) {
        invalid_argument("m=" + std::to_string(p.m) + " landmarks exceeds the number of rows n=" +
                         std::to_string(n) + "; accepted: [1, n] or auto");
    }
    return p.m;
}

std::unique_ptr<FittedModel> fit_nystrom(const Params& p, ConstMatrix X,
                                         const std::vector<float>& w, FitReport& report,
                                         StageTimer& timer, int threads) {
    const int64_t n = X.rows, m = resolve_landmarks(p, n);
    report.m = m;
    const double dm = static_cast<double>(m), dn = static_cast<double>(n);
    require_budget("nystrom",
                   4.0 * dn * dm + 4.0 * dm * X.cols + 24.0 * dm * dm +
                       4.0 * 32 * static_cast<double>(p.k) * dm + 16.0 * dn,
                   p, "n x m kernel rows, landmarks, m x m eigen-decomposition");
    Rng rng(p.seed, Stream::landmarks);
    const std::vector<int64_t> idx = uniform_landmarks(n, m, rng);
    Matrix landmark_rows(m, X.cols);
    for (int64_t i = 0; i < m; ++i) {
        std::copy(X.row(idx[static_cast<size_t>(i)]), X.row(idx[static_cast<size_t>(i)]) + X.cols,
                  landmark_rows.row(i));
    }
    timer.stage("landmarks");
    const bool precomputed = p.kernel == KernelType::precomputed;
    KernelBasis basis = precomputed ? KernelBasis(idx, n)
                                    : KernelBasis(Kernel(p.kernel, report.gamma, p.degree, p.coef0),
                                                  landmark_rows);
    // The eigen-decomposition of K_LL (one thread, LAPACK) runs beside the kernel rows
    // G = K(X, L) (every other thread): G needs only the landmarks, not the projection.
    Matrix P, G(n, m);
    std::vector<Matrix> rows(static_cast<size_t>(threads));  // caller's rows, copied for GEMM
    parallel_blocks_beside(
        threads, [&] { P = NystromMap::projection(basis, landmark_rows.view(), p.nystrom_rcond); },
        block_count(n, 256), [&](int64_t b) {
            const int64_t begin = b * 256, count = std::min<int64_t>(256, n - begin);
            Matrix& block = rows[static_cast<size_t>(omp_get_thread_num())];
            copy_into(X.slice(begin, count), block);
            basis.evaluate(block.view(), G.row(begin), m);
        });
    NystromMap map(std::move(basis), std::move(P));
    timer.stage("kernel+eigen");
    LandmarkLloyd problem(G.view(), map.projection(), diagonal(p, X, map.basis()), w, p.k, threads);
    LloydResult best = best_of_restarts(problem, p, n, w, timer);
    LandmarkCentres centres = problem.centres(best.labels);
    timer.stage("lloyd");
    finish_report(report, std::move(best), w, p.k);
    return std::make_unique<NystromModel>(p, n, X.cols, std::move(report), std::move(map),
                                          std::move(centres));
}

void validate_against_data(const Params& p, ConstMatrix X) {
    if (p.k > X.rows) {
        invalid_argument("k=" + std::to_string(p.k) + " exceeds the number of rows n=" +
                         std::to_string(X.rows) + "; k must be in [1, n]");
    }
    if (p.kernel == KernelType::precomputed && X.cols != X.rows) {
        invalid_argument("kernel=precomputed needs X to be the n x n kernel matrix, got n=" +
                         std::to_string(X.rows) + " rows and d=" + std::to_string(X.cols) +
                         " columns");
    }
}

}  // namespace

std::unique_ptr<FittedModel> fit_model(const Params& p, ConstMatrix X,
                                       const std::vector<float>& w) {
    validate_against_data(p, X);
    const int threads = resolve_threads(p.threads);
    FitReport report;
    StageTimer timer(report);
    const bool uses_gamma = p.kernel == KernelType::rbf || p.kernel == KernelType::laplacian ||
                            p.kernel == KernelType::polynomial;
    if (uses_gamma) report.gamma = p.gamma > 0 ? p.gamma : auto_gamma(p.kernel, X, w, threads);
    timer.stage("gamma");
    if (p.method == Method::exact) return fit_exact(p, X, w, report, timer, threads);
    return fit_nystrom(p, X, w, report, timer, threads);
}

}  // namespace kkm
