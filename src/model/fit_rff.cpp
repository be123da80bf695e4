// method=rff: k-means on random Fourier features (objective in feature space).
#include "core/rng.h"
#include "features/rff.h"
#include "model/fit_common.h"

namespace kkm {

std::unique_ptr<FittedModel> fit_rff(const FitContext& c) {
    const int64_t n = c.X.rows, m = resolve_landmarks(c.p, n);
    c.report.m = m;
    const double dm = static_cast<double>(m);
    require_budget("rff", 4.0 * static_cast<double>(n) * dm + 4.0 * dm * c.X.cols + 16.0 * n, c.p,
                   "n x m features and the m x d frequencies");
    progress_begin("features");
    Rng rng(c.p.seed, Stream::random_features);
    auto map = std::make_unique<RffMap>(c.p.kernel, c.report.gamma, c.X.cols, m, rng, c.report.shift);
    Matrix F = transform_all(*map, c.X, c.threads);
    c.timer.stage("features");
    return cluster_features(c, std::move(F), std::move(map), {}, false);
}

}  // namespace kkm
