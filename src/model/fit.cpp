// fit_model: validation that needs the data or several parameters together, the kernel
// scale, and the dispatch to a method.
#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "core/parallel.h"
#include "core/validate.h"
#include "kernels/kernel.h"
#include "model/fit_common.h"

namespace kkm {
namespace {

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

void validate_combination(const Params& p) {
    if (p.method == Method::rff && p.kernel != KernelType::rbf && p.kernel != KernelType::laplacian) {
        invalid_argument(std::string("method=rff needs a shift-invariant kernel (rbf or laplacian), "
                                     "got kernel=") + kernel_name(p.kernel));
    }
    if (p.rank > 0 && p.method != Method::nystrom) {
        invalid_argument("rank (the rank restriction of Nystrom features) applies to "
                         "method=nystrom only; unset it (rank=none) for this method");
    }
}

/// Arithmetic of one pass of the fit, for sizing its thread count: kernel entries times
/// (d + k) — d per entry to compute it, k per entry and Lloyd iteration to use it — with
/// n² entries for exact (whose Lloyd touches them once: d + 1), n·m for the landmark and
/// feature methods, and n times the support bound k(τ + b) for mini-batch (n² without one).
double fit_work(const Params& p, int64_t n, int64_t d) {
    const auto dn = static_cast<double>(n), dk = static_cast<double>(p.k);
    const double per_entry = p.kernel == KernelType::precomputed ? 1.0 : static_cast<double>(d);
    switch (p.method) {
        case Method::exact: return dn * dn * (per_entry + 1.0);
        case Method::minibatch: {
            const double support = dk * static_cast<double>(p.tau + p.batch_size);
            return dn * (p.tau > 0 ? std::min(dn, support) : dn) * (per_entry + dk);
        }
        case Method::nystrom:
        case Method::sketch:
        case Method::rff: break;
    }
    const bool too_many = p.m > n && p.method != Method::rff;  // refused later, by the method
    return dn * static_cast<double>(too_many ? n : resolve_landmarks(p, n)) * (per_entry + dk);
}

std::unique_ptr<FittedModel> dispatch(const FitContext& context) {
    switch (context.p.method) {
        case Method::exact: return fit_exact(context);
        case Method::nystrom: return fit_nystrom(context);
        case Method::sketch: return fit_sketch(context);
        case Method::rff: return fit_rff(context);
        case Method::minibatch: return fit_minibatch(context);
    }
    fail(KKM_ERR_INTERNAL, "unknown method");
}

}  // namespace

void require_fit_sizes(const Params& p, int64_t n, int64_t d) {
    require_product(n, "n", d, "d", sizeof(float), "X");
    // Exact's float64 sums S = K·Z are n x k; k ≤ n is checked once X is known to be finite.
    require_product(n, "n", p.k, "k", sizeof(double), "the cluster sums");
    if (p.method == Method::nystrom || p.method == Method::sketch || p.method == Method::rff) {
        // m > n is refused later by the landmark methods, with its own message.
        if (p.m > n && p.method != Method::rff) return;
        const int64_t m = resolve_landmarks(p, n);
        const bool rff = p.method == Method::rff;
        require_product(n, "n", m, "m", sizeof(float),
                        p.m == 0 ? (rff ? "the random features (m=auto)" : "the kernel rows (m=auto)")
                                 : (rff ? "the random features" : "the kernel rows"));
    }
}

std::unique_ptr<FittedModel> fit_model(const Params& p, ConstMatrix X,
                                       const std::vector<float>& w) {
    validate_combination(p);
    validate_against_data(p, X);
    require_fit_sizes(p, X.rows, X.cols);
    const int threads = resolve_threads(p.threads, fit_work(p, X.rows, X.cols));
    FitReport report;
    report.isa = resolve_isa(p.isa);
    StageTimer timer(report);
    const bool uses_gamma = p.kernel == KernelType::rbf || p.kernel == KernelType::laplacian ||
                            p.kernel == KernelType::polynomial;
    if (uses_gamma) {
        if (p.gamma <= 0) progress_begin("gamma");
        report.gamma = p.gamma > 0 ? p.gamma : auto_gamma(p.kernel, X, w, p.bandwidth_scale, threads);
    }
    timer.stage("gamma");
    const FitContext context{p, X, w, report, timer, threads};
    std::unique_ptr<FittedModel> model = dispatch(context);
    // Kernel values near the float32 limit can overflow the sums of the objective and the
    // centres (squared kernel values for the sketches): refuse rather than return inf/NaN.
    if (!std::isfinite(model->report().objective)) {
        invalid_data("the fit's objective overflowed float32 (kernel values near 1e19 or more, from the data's "
                     "scale, gamma, degree or coef0); rescale the data or lower gamma");
    }
    return model;
}

}  // namespace kkm
