// method=rff: k-means on random Fourier features (objective in feature space).
#include "core/rng.h"
#include "features/rff.h"
#include "model/fit_common.h"
#include "model/fit_memory.h"

namespace kkm {

double check_rff_budget(const FitShape& s, const MemoryLedger& ledger) {
    const int64_t m = resolve_landmarks(s.p, s.n_global);
    const memory::RffFootprint f = memory::rff_footprint(s.p, s.rows, s.cols, m, s.threads, s.weighted);
    return require_budget(s, ledger, "rff", f.peak(), "n x m features, the m x d frequencies, k-means state");
}

std::unique_ptr<FittedModel> fit_rff(FitSession& c) {
    const int64_t n = c.X.rows, m = resolve_landmarks(c.p, c.n_global());
    const memory::RffFootprint f = memory::rff_footprint(c.p, n, c.X.cols, m, c.threads, !c.w.empty());
    c.begin_stage("features");
    const MemoryLedger::Charge frequencies = c.charge("features", "the m x d frequencies and m phases", f.map);
    Rng rng(c.p.seed, Stream::random_features);
    auto map = std::make_unique<RffMap>(c.p.kernel, c.gamma(), c.X.cols, m, rng, c.isa, c.shift());
    const MemoryLedger::Charge features = c.charge("features", "the n x m random features", f.features);
    Matrix F = features_of_rows(c, *map, f.feature_scratch, "every thread's block of rows and features");
    c.end_stage("features");
    MethodFacts facts;
    facts.m = m;
    return cluster_features(c, facts, std::move(F), std::move(map), {}, false);
}

}  // namespace kkm
