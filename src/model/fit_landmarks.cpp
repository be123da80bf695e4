// Landmark methods: method=nystrom (plain or rank-restricted) and method=sketch. Both sample
// m landmarks (uniform, ridge leverage scores or D² sampling) and map a row x to a projection
// of its kernel row k_L(x).
#include <algorithm>
#include <cmath>

#include "cluster/landmark_lloyd.h"
#include "core/error.h"
#include "core/linalg.h"
#include "core/parallel.h"
#include "features/landmarks.h"
#include "features/nystrom.h"
#include "features/sketch.h"
#include "kernels/kernel.h"
#include "model/fit_common.h"

namespace kkm {
namespace {

constexpr int64_t kRowBlock = 256;


std::vector<int64_t> choose_landmarks(const FitContext& c, int64_t m) {
    Rng rng(c.p.seed, Stream::landmarks);
    if (c.p.sampling == Sampling::uniform) return uniform_landmarks(c.X.rows, m, rng);
    LandmarkContext ctx;
    ctx.X = c.X;
    ctx.basis_for = [&c](const std::vector<int64_t>& idx) { return basis_over(c, idx); };
    ctx.diag = training_diagonal(c);
    ctx.threads = c.threads;
    if (c.p.sampling == Sampling::kmeanspp) return kmeanspp_landmarks(ctx, m, rng);
    const double lambda = c.p.rls_lambda > 0 ? c.p.rls_lambda : std::sqrt(static_cast<double>(c.X.rows));
    c.report.rls_lambda = lambda;
    return rls_landmarks(ctx, m, lambda, rng);
}

/// ℓ of the rank restriction (0 when not restricted), validated against m.
int64_t regularised_rank(const Params& p, int64_t m) {
    if (p.rank == 0) return 0;
    const int64_t l = p.reg_rank > 0 ? p.reg_rank : std::max(p.rank, (m + 1) / 2);
    if (p.rank > m) {
        invalid_argument("rank=" + std::to_string(p.rank) + " exceeds m=" + std::to_string(m) +
                         " landmarks; accepted: [1, m]");
    }
    if (l < p.rank || l > m) {
        invalid_argument("reg_rank=" + std::to_string(l) + " must lie in [rank, m] = [" +
                         std::to_string(p.rank) + ", " + std::to_string(m) + "]");
    }
    return l;
}

/// Features cost one n×m×r product but make each Lloyd iteration n·r·k instead of n·m·k:
/// worth it when r(m + I k) < I k m, with I = 20 expected iterations.
bool features_cheaper(const Params& p, int64_t m, int64_t r) {
    const double iters = static_cast<double>(std::min<int64_t>(p.max_iter, 20));
    const double k = static_cast<double>(p.k);
    return static_cast<double>(r) * (static_cast<double>(m) + iters * k) < iters * k * static_cast<double>(m);
}

/// F = G P in row blocks, and each row's residual K_ii − ‖f_i‖² (≥ 0).
Matrix project_rows(const RowStore& G, const Matrix& P, const std::vector<float>& diag,
                    std::vector<float>& residual, int threads) {
    const int64_t n = G.rows(), m = G.cols(), r = P.cols;
    Matrix F(n, r);
    residual.assign(static_cast<size_t>(n), 0.0f);
    parallel_blocks(threads, block_count(n, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
        Matrix scratch;
        const ConstMatrix rows = G.block(begin, count, scratch);
        linalg::sgemm(linalg::Trans::no, linalg::Trans::no, count, r, m, 1.0f, rows.data, m,
                      P.data(), r, 0.0f, F.row(begin), r, 1);
        for (int64_t i = begin; i < begin + count; ++i) {
            double norm = 0;
            for (int64_t t = 0; t < r; ++t) norm += static_cast<double>(F.row(i)[t]) * F.row(i)[t];
            residual[static_cast<size_t>(i)] = static_cast<float>(std::max(0.0, diag[static_cast<size_t>(i)] - norm));
        }
    });
    return F;
}

/// How the kernel rows are stored: half only for kernels whose values lie in [-1, 1] (a
/// linear or polynomial kernel can exceed the half range, 65504; a precomputed one is the
/// caller's numbers).
RowPrecision kernel_row_precision(const Params& p) {
    const bool bounded = p.kernel == KernelType::rbf || p.kernel == KernelType::laplacian ||
                         p.kernel == KernelType::cosine;
    if (p.kernel_rows == RowsChoice::f16 && !bounded) {
        invalid_argument("kernel_rows=f16 needs a kernel whose values lie in [-1, 1] (rbf, laplacian, "
                         "cosine); kernel=" + std::string(kernel_name(p.kernel)) +
                         " values can exceed the half-precision range: use kernel_rows=f32");
    }
    if (p.kernel_rows == RowsChoice::f32 || !bounded) return RowPrecision::f32;
    return RowPrecision::f16;
}

/// G = K(X, L) into `G`, in row blocks on the threads parallel_blocks_beside leaves to it;
/// a half store gets each block through a float32 scratch.
void kernel_rows_block(const FitContext& c, const KernelBasis& basis, RowStore& G, int64_t b,
                       std::vector<Matrix>& rows, std::vector<Matrix>& scratch) {
    const int64_t n = G.rows(), m = G.cols();
    const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
    const auto t = static_cast<size_t>(omp_get_thread_num());
    copy_into(c.X.slice(begin, count), rows[t]);  // the caller's rows, copied for GEMM
    if (float* out = G.writable(begin)) {
        basis.evaluate(rows[t].view(), out, m);
        return;
    }
    scratch[t].reshape(count, m);
    basis.evaluate(rows[t].view(), scratch[t].data(), m);
    G.put(begin, count, scratch[t].data());
}

}  // namespace

std::unique_ptr<FittedModel> fit_nystrom(const FitContext& c) {
    const int64_t n = c.X.rows, m = resolve_landmarks(c.p, n), l = regularised_rank(c.p, m);
    c.report.m = m;
    c.report.reg_rank = l;
    const RowPrecision precision = kernel_row_precision(c.p);
    c.report.kernel_rows = precision;
    const double dm = static_cast<double>(m), dn = static_cast<double>(n);
    require_budget("nystrom",
                   RowStore::value_bytes(precision) * dn * dm + 4.0 * dm * c.X.cols + 24.0 * dm * dm +
                       4.0 * 32 * static_cast<double>(c.p.k) * dm + 16.0 * dn,
                   c.p, "n x m kernel rows, landmarks, m x m eigen-decomposition");
    progress_begin("landmarks");
    const std::vector<int64_t> idx = choose_landmarks(c, m);
    const Matrix landmark_rows = c.p.kernel == KernelType::precomputed ? gather_rows(c.X, idx)
                                                                        : Matrix();
    KernelBasis basis = basis_over(c, idx);
    const ConstMatrix lrows = c.p.kernel == KernelType::precomputed ? landmark_rows.view()
                                                                    : basis.points().view();
    c.timer.stage("landmarks");
    // The eigen-decomposition of K_LL (one thread, LAPACK) runs beside the kernel rows
    // G = K(X, L) (every other thread): G needs only the landmarks, not the projection.
    progress_begin("kernel+eigen");
    Matrix P;
    RowStore G(n, m, precision, c.report.isa);
    std::vector<Matrix> rows(static_cast<size_t>(c.threads)), scratch(rows.size());
    parallel_blocks_beside(
        c.threads, [&] { P = nystrom_projection(basis, lrows, c.p.nystrom_rcond, l); },
        block_count(n, kRowBlock), [&](int64_t b) { kernel_rows_block(c, basis, G, b, rows, scratch); });
    c.timer.stage("kernel+eigen");
    if (l > 0) {
        progress_begin("rank");
        P = rank_restrict(P, G, std::min(c.p.rank, P.cols), c.threads);
        c.timer.stage("rank");
    }
    std::vector<float> diag = training_diagonal(c);
    if (c.p.solver == Solver::minibatch || features_cheaper(c.p, m, P.cols)) {
        std::vector<float> residual;
        progress_begin("features");
        Matrix F = project_rows(G, P, diag, residual, c.threads);
        G = RowStore();  // the kernel rows are no longer needed
        c.timer.stage("features");
        auto map = std::make_unique<LandmarkMap>(std::move(basis), std::make_unique<DenseProjection>(std::move(P)));
        return cluster_features(c, std::move(F), std::move(map), std::move(residual), true);
    }
    auto projection = std::make_unique<DenseProjection>(std::move(P));
    const Matrix& Pm = projection->matrix();
    auto map = std::make_unique<LandmarkMap>(std::move(basis), std::move(projection));
    LandmarkLloyd problem(G, Pm, std::move(diag), c.w, c.p.k, c.threads, c.report.isa);
    LloydResult best = best_of_restarts(problem, c);
    LandmarkCentres centres = problem.centres(best.labels);
    c.timer.stage("lloyd");
    finish_report(c, std::move(best));
    return std::make_unique<NystromModel>(c.p, n, c.X.cols, std::move(c.report), std::move(map),
                                          std::move(centres));
}

std::unique_ptr<FittedModel> fit_sketch(const FitContext& c) {
    const int64_t n = c.X.rows, m = resolve_landmarks(c.p, n);
    c.report.m = m;
    const double dm = static_cast<double>(m), dn = static_cast<double>(n);
    const double r = c.p.sketch == SketchKind::ros ? 2.0 * dm : dm;  // ros pads to a power of 2
    require_budget("sketch", 4.0 * dn * r + 4.0 * dm * c.X.cols + 4.0 * dm * dm + 16.0 * dn, c.p,
                   "n x m sketched features, landmarks, the sketch");
    progress_begin("landmarks");
    const std::vector<int64_t> idx = choose_landmarks(c, m);
    c.timer.stage("landmarks");
    progress_begin("features");
    Rng rng(c.p.seed, Stream::sketch);
    auto map = std::make_unique<LandmarkMap>(basis_over(c, idx), make_sketch(c.p.sketch, m, n, rng));
    Matrix F = transform_all(*map, c.X, c.threads);
    c.timer.stage("features");
    return cluster_features(c, std::move(F), std::move(map), {}, false);
}

}  // namespace kkm
