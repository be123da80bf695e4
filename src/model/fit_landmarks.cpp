// Landmark methods: method=nystrom (plain or rank-restricted) and method=sketch. Both sample
// m landmarks (uniform, ridge leverage scores or D² sampling) and map a row x to a projection
// of its kernel row k_L(x).
#include <algorithm>
#include <cmath>

#include "cluster/landmark_lloyd.h"
#include "cluster/lloyd.h"
#include "core/blocking.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/row_stream.h"
#include "core/validate.h"
#include "engine/products.h"
#include "features/landmarks.h"
#include "features/nystrom.h"
#include "features/sketch.h"
#include "kernels/kernel.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"
#include "model/fit_common.h"
#include "model/fit_graph.h"
#include "model/fit_memory.h"
#include "model/row_pass.h"

namespace kkm {
namespace {

std::vector<int64_t> choose_landmarks(FitSession& c, int64_t m) {
    const SamplerTraits& sampler = sampler_traits(c.p.sampling);
    Rng rng(c.p.seed, Stream::landmarks);
    LandmarkContext ctx;
    if (sampler.reads_rows) {
        ctx.X = c.X;
        if (!kernel_traits(c.p.kernel).precomputed) ctx.kernel = fit_kernel(c);
        ctx.diag = training_diagonal(c);
        ctx.threads = c.threads;
        ctx.comm = c.comm;
        ctx.part = c.part;
    }
    return sampler.choose(ctx, c.n_global(), m, ridge_lambda(c.p, c.n_global()), rng);
}

/// What a landmark fit reports of its choices besides the method's own: m and the ridge λ.
MethodFacts landmark_facts(const FitSession& c, int64_t m) {
    MethodFacts facts;
    facts.m = m;
    facts.rls_lambda = ridge_lambda(c.p, c.n_global());
    return facts;
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
        invalid_argument("reg_rank=" + std::to_string(l) + " must lie in [rank, m] = [" + std::to_string(p.rank) +
                         ", " + std::to_string(m) + "]");
    }
    return l;
}

/// One thread's buffers for the blocks of a kernel pass, kept from block to block: the float32
/// kernel rows a half store is written through, and the kernel's centred copy and packs.
struct RowsScratch {
    Matrix rows;
    Kernel::Scratch kernel;
};

/// G = K(X, L) for the block of rows starting at row `begin`; a half store gets it through a
/// float32 scratch. (The engine reads the caller's rows in place: it packs them itself, and
/// no BLAS call reads past them.)
void kernel_rows_block(const KernelBasis& basis, RowStore& G, ConstMatrix rows, int64_t begin, RowsScratch& scratch) {
    const int64_t m = G.cols();
    if (float* out = G.writable(begin)) {
        basis.evaluate(rows, out, m, &scratch.kernel);
    } else {
        scratch.rows.reshape(rows.rows, m);
        basis.evaluate(rows, scratch.rows.data(), m, &scratch.kernel);
        G.put(begin, rows.rows, scratch.rows.data());
    }
}

/// G = K(X, L) in row blocks beside `side` (the eigen-decomposition). Rows whose finiteness
/// the fit has not checked yet (FitSession::rows_checked()) are checked block by block first;
/// the first row holding NaN or ±Inf is named after the pass, as scan_rows names it.
template <class Side>
void kernel_rows(const FitSession& c, const KernelBasis& basis, RowStore& G, Side&& side) {
    PerThread<RowsScratch> scratch(c.threads);
    FirstBadBlock bad;
    row_blocks_beside(c, side, [&](ConstMatrix rows, int64_t begin) {
        if (!skip_bad(c, bad, rows, begin)) kernel_rows_block(basis, G, rows, begin, scratch.local());
    });
    bad.raise(c.X, kRowBlock, c.part.offset);
}

/// Landmarks picked from rows not checked yet (FitSession::rows_checked()): a landmark holding
/// NaN or ±Inf would spoil K_LL before the kernel pass names it, so then every row is checked
/// now and the first bad one named.
void check_landmark_rows(const FitSession& c, const std::vector<int64_t>& idx) {
    if (c.rows_checked()) return;
    for (const int64_t i : idx) {
        if (!rows_finite(c.X, i, i + 1)) scan_rows(c.X, {}, Moments::none, c.part.offset, c.threads, &c.pages);
    }
}

/// The rank restriction fused into the kernel pass (Wang, Gittens & Mahoney 2019, Algorithm
/// 2): with P_ℓ known, each block of kernel rows G_b = K(X_b, L) goes straight to
/// R_b = G_b P_ℓ, kept (n×ℓ, in the kernel rows' precision) instead of G (n×m), and into
/// RᵀR. Nothing reads X or G again: P = P_ℓ V_s and the features F = R V_s follow from R.
/// Rows not checked yet are checked block by block, the first bad one named after the pass.
RowStore rank_rows(const FitSession& c, const KernelBasis& basis, const Matrix& P_l, RowPrecision precision,
                   RankGram& gram) {
    const int64_t n = c.X.rows, m = basis.size(), l = P_l.cols;
    RowStore R(n, l, precision, c.isa);
    const engine::FixedRight right(c.isa, P_l.view());
    struct Scratch {
        Matrix G_b, R_b;
        Kernel::Scratch kernel;
        engine::BlockScratch block;
        engine::GramScratch RtR;
    };
    PerThread<Scratch> scratch(c.threads);
    FirstBadBlock bad;
    parallel_blocks(c.threads, block_count(n, chunk_rows_of(n)), [&](int64_t q) {
        stream_chunk(c, q, [&](ConstMatrix rows, int64_t begin) {
            if (skip_bad(c, bad, rows, begin)) return;
            auto& [G_b, R_b, kernel, block, RtR] = scratch.local();
            G_b.reshape(rows.rows, m);
            basis.evaluate(rows, G_b.data(), m, &kernel);
            R_b.reshape(rows.rows, l);
            right.apply(G_b.view(), R_b.data(), l, &block);
            R.put(begin, rows.rows, R_b.data());
            gram.add(q, R_b.view(), RtR);
        });
    });
    bad.raise(c.X, kRowBlock, c.part.offset);
    return R;
}

/// The sizes of a Nyström fit (validated: m ≤ n, rank ≤ ℓ ≤ m, half rows for bounded kernels).
struct NystromShape {
    int64_t m;
    int64_t l;
    RowPrecision precision;
};

NystromShape nystrom_shape(const FitShape& s) {
    const int64_t m = resolve_landmarks(s.p, s.n_global);
    const int64_t l = regularised_rank(s.p, m);
    if (s.p.kernel_rows == RowsChoice::f16 && !kernel_traits(s.p.kernel).bounded) {
        invalid_argument(
            "kernel_rows=f16 needs a kernel whose values lie in [-1, 1] (rbf, laplacian, "
            "cosine); kernel=" +
            std::string(to_text(s.p.kernel)) + " values can exceed the half-precision range: use kernel_rows=f32");
    }
    return {m, l, kernel_row_precision(s.p)};
}

memory::NystromFootprint nystrom_memory(const FitShape& f, const NystromShape& s, int64_t r = -1) {
    return memory::nystrom_footprint(f.p, f.rows, f.cols, s.m, s.l, s.precision, f.threads, f.weighted, r);
}

/// Landmark indices, with the sampler's working set charged while it runs.
std::vector<int64_t> charged_landmarks(FitSession& c, int64_t m) {
    const MemoryLedger::Charge sampling = c.charge(
        "landmarks", "the landmark sampler's working set (index pool, D2 distances or the ridge leverage block)",
        sampler_traits(c.p.sampling)
            .footprint({static_cast<double>(c.X.rows), static_cast<double>(c.X.cols), static_cast<double>(m), c.threads,
                        kernel_traits(c.p.kernel).precomputed}));
    return choose_landmarks(c, m);
}

/// residual[i] = K_ii − ‖f_i‖² (signed) in place of diag[i], in parallel row blocks.
void residuals_in_place(const Matrix& F, std::vector<float>& diag, int threads) {
    const int64_t n = F.rows, r = F.cols;
    parallel_blocks(threads, block_count(n, kRowBlock), [&](int64_t b) {
        for (int64_t i = b * kRowBlock; i < std::min(n, (b + 1) * kRowBlock); ++i) {
            double norm = 0;
            for (int64_t t = 0; t < r; ++t) norm += static_cast<double>(F.row(i)[t]) * F.row(i)[t];
            diag[static_cast<size_t>(i)] =
                static_cast<float>(diag[static_cast<size_t>(i)] - norm);  // signed: see nystrom_features
        }
    });
}

/// refine=hartigan after Lloyd on the kernel rows: Hartigan's transfers run on the features
/// F = G P (built for the purpose, n x r beside G), from the best restart's labels; the
/// objective is the landmark problem's again (the same function of the labels).
void refine_best(FitSession& c, const RowStore& G, const Matrix& P, LandmarkLloyd& problem, LloydResult& best) {
    c.begin_stage("refine");
    const MemoryLedger::Charge held =
        c.charge("refine", "the n x r features Hartigan's transfers run on",
                 Matrix::footprint(static_cast<double>(G.rows()), static_cast<double>(P.cols)));
    std::vector<float> unused;
    const Matrix F = nystrom_features(G, P, std::vector<float>(static_cast<size_t>(G.rows()), 0.0f), unused, c.threads);
    FeatureLloyd features(F.view(), c.w, c.p.k, c.threads, c.isa);
    features.hartigan(best.labels, c.p.max_iter);
    best.centre_labels.clear();  // Hartigan's labels are the centres' clusters
    best.centres = Matrix();     // their means, not what Lloyd measured
    best.objective = problem.objective(best.labels);
    c.end_stage("refine");
}

/// The rows the features come from, with what they hold: G (n×m) and P, or R (n×ℓ) and V_s.
struct FeatureSource {
    RowStore rows;
    MemoryLedger::Charge rows_charge;
    std::vector<float> diag;  ///< K_ii of the training rows
    MemoryLedger::Charge diag_charge;
};

/// Stage "features": F = rows · proj (proj NULL: P) with the residuals K_ii − ‖f_i‖²
/// (nystrom_features); the rows and the diagonal are freed, and Lloyd runs on F with the
/// model's projection P.
std::unique_ptr<FittedModel> features_and_lloyd(FitSession& c, const MethodFacts& facts, FeatureSource src,
                                                const Matrix* proj, const memory::NystromFootprint& f,
                                                KernelBasis basis, Matrix P) {
    std::vector<float> residual;
    c.begin_stage("features");
    const MemoryLedger::Charge held = c.charge("features", "the n x r features and their residuals", f.features);
    Matrix F;
    {
        const MemoryLedger::Charge scratch =
            c.charge("features", "every thread's block of decoded rows", f.feature_scratch);
        F = nystrom_features(src.rows, proj != nullptr ? *proj : P, src.diag, residual, c.threads);
    }
    src = FeatureSource();  // the rows and the diagonal are no longer needed
    c.end_stage("features");
    auto map = std::make_unique<LandmarkMap>(std::move(basis), std::make_unique<DenseProjection>(std::move(P), c.isa));
    return cluster_features(c, facts, std::move(F), std::move(map), std::move(residual), true);
}

/// Rank-restricted Nyström whose features are taken, in one pass over X (rank_rows), then
/// P = P_ℓ V_s (stage "rank"), F = R V_s and Lloyd on F. `projection` holds P_ℓ's charge.
std::unique_ptr<FittedModel> fused_nystrom(FitSession& c, const MethodFacts& facts, KernelBasis basis, Matrix P_l,
                                           RowPrecision precision, MemoryLedger::Charge& projection) {
    const int64_t n = c.X.rows, l = P_l.cols, s = std::min(c.p.rank, l), chunks = block_count(n, chunk_rows_of(n));
    const memory::NystromFootprint f = nystrom_memory(c.shape(), {basis.size(), l, precision}, s);
    MemoryLedger::Charge rows_charge = c.charge("kernel+eigen", "the n x l rows R = G P_l", f.kernel_rows);
    MemoryLedger::Charge restricted =
        c.charge("kernel+eigen", "R'R's chunk sums, their eigen-decomposition and the new P", f.rank);
    RankGram gram(l, chunks, c.isa);
    RowStore R;
    {
        const MemoryLedger::Charge scratch =
            c.charge("kernel+eigen", "every thread's block of kernel rows, R and R'R", f.row_scratch);
        const MemoryLedger::Charge reads =
            c.charge("kernel+eigen", "the direct reads' buffers (RowStream)", direct_read_buffers(c));
        R = rank_rows(c, basis, P_l, precision, gram);
    }
    c.end_stage("kernel+eigen");
    c.begin_stage("rank");
    Matrix Vs;
    Matrix P = gram.restrict(P_l, s, *c.comm, &Vs);
    restricted.release();
    projection.release();
    projection = c.charge("rank", "the projection P (m x r)", f.final_projection);
    c.end_stage("rank");
    FeatureSource src{std::move(R), std::move(rows_charge), {}, c.charge("features", "the kernel diagonal", f.diag)};
    src.diag = training_diagonal(c);
    return features_and_lloyd(c, facts, std::move(src), &Vs, f, std::move(basis), std::move(P));
}

}  // namespace

bool nystrom_checks_rows(const FitSession& c) {
    const KernelTraits& t = kernel_traits(c.p.kernel);
    // graph=anchor checks the rows in its one pass (fit_anchor.cpp), its sample before.
    if (anchor_graph(c.p, c.n_global(), c.X.cols)) return !c.distributed();
    return c.p.method == Method::nystrom && !t.graph && !t.precomputed && !sampler_traits(c.p.sampling).reads_rows &&
           !c.distributed() && !nystrom_memory(c.shape(), nystrom_shape(c.shape())).direct;
}

double check_nystrom_budget(const FitShape& s, const MemoryLedger& ledger) {
    const memory::NystromFootprint f = nystrom_memory(s, nystrom_shape(s));
    return require_budget(s, ledger, "nystrom", f.peak(),
                          f.direct ? "landmarks, m x m eigen-decomposition, n x m features, mini-batch k-means"
                          : f.fused
                              ? "n x l rows R = K(X, L) P_l, landmarks, m x m eigen-decomposition, n x rank features"
                              : "n x m kernel rows, landmarks, m x m eigen-decomposition, Lloyd state");
}

std::unique_ptr<FittedModel> fit_nystrom(FitSession& c) {
    const int64_t n = c.X.rows;
    const NystromShape shape = nystrom_shape(c.shape());
    const int64_t m = shape.m, l = shape.l;
    const memory::NystromFootprint f = nystrom_memory(c.shape(), shape);
    MethodFacts facts = landmark_facts(c, m);
    facts.reg_rank = l;
    if (!f.direct) facts.kernel_rows = shape.precision;
    c.begin_stage("landmarks");
    const std::vector<int64_t> idx = charged_landmarks(c, m);
    request_rows(c, idx);
    check_landmark_rows(c, idx);
    MemoryLedger::Charge building = c.charge("landmarks", "packing the landmarks", f.basis_build);
    const MemoryLedger::Charge landmarks = c.charge("landmarks", "the m landmarks and their packed panels", f.basis);
    MemoryLedger::Charge rows_of_landmarks =
        c.charge("landmarks", "the m x n landmark rows of the precomputed kernel", f.landmark_rows);
    Matrix landmark_rows = kernel_traits(c.p.kernel).precomputed ? gather_rows(c.X, idx) : Matrix();
    KernelBasis basis = basis_over(c, idx);
    building.release();
    const ConstMatrix lrows = kernel_traits(c.p.kernel).precomputed ? landmark_rows.view() : basis.points().view();
    c.end_stage("landmarks");
    Matrix P;
    MemoryLedger::Charge projection = c.charge("kernel+eigen", "the projection P (m x r)", f.projection);
    if (f.direct) {
        // Features straight from blocks of kernel rows (solver=minibatch): the n×m rows G are
        // never kept, so the eigen-decomposition comes first.
        c.begin_stage("kernel+eigen");
        {
            const MemoryLedger::Charge eigen = c.charge("kernel+eigen", "K_LL and its eigen-decomposition", f.eigen);
            P = nystrom_projection(basis, lrows, c.p.nystrom_rcond, 0);
        }
        landmark_rows = Matrix();
        rows_of_landmarks.release();
        c.end_stage("kernel+eigen");
        c.begin_stage("features");
        const memory::NystromFootprint fa = nystrom_memory(c.shape(), shape, P.cols);
        MemoryLedger::Charge diag_charge = c.charge("features", "the kernel diagonal", fa.diag);
        std::vector<float> residual = training_diagonal(c);
        const MemoryLedger::Charge features =
            c.charge("features", "the n x r features and their residuals", fa.features);
        auto map =
            std::make_unique<LandmarkMap>(std::move(basis), std::make_unique<DenseProjection>(std::move(P), c.isa));
        Matrix F = features_of_rows(c, *map, fa.feature_scratch, "every thread's block of kernel rows and features");
        residuals_in_place(F, residual, c.threads);
        diag_charge.release();  // the residuals took the diagonal's place
        c.end_stage("features");
        return cluster_features(c, facts, std::move(F), std::move(map), std::move(residual), true);
    }
    if (l > 0) {
        // The rank restriction: P_ℓ first (K_LL is small), then one pass when the features
        // are taken (fused_nystrom), else G as below.
        c.begin_stage("kernel+eigen");
        {
            const MemoryLedger::Charge eigen = c.charge("kernel+eigen", "K_LL and its eigen-decomposition", f.eigen);
            P = nystrom_projection(basis, lrows, c.p.nystrom_rcond, l);
        }
        landmark_rows = Matrix();
        rows_of_landmarks.release();
        const int64_t s = std::min(c.p.rank, P.cols);
        if (memory::nystrom_fused(c.p, m, s)) {
            return fused_nystrom(c, facts, std::move(basis), std::move(P), shape.precision, projection);
        }
    }
    // The eigen-decomposition of K_LL (one thread, LAPACK) runs beside the kernel rows
    // G = K(X, L) (every other thread): G needs only the landmarks, not the projection.
    if (l == 0) c.begin_stage("kernel+eigen");
    MemoryLedger::Charge rows_charge = c.charge("kernel+eigen", "the n x m kernel rows G", f.kernel_rows);
    RowStore G(n, m, shape.precision, c.isa);
    {
        const MemoryLedger::Charge scratch =
            c.charge("kernel+eigen", "every thread's block of kernel rows", f.row_scratch);
        const MemoryLedger::Charge eigen = c.charge("kernel+eigen", "K_LL and its eigen-decomposition", f.eigen);
        const MemoryLedger::Charge reads =
            c.charge("kernel+eigen", "the direct reads' buffers (RowStream)", direct_read_buffers(c));
        kernel_rows(c, basis, G, [&] {
            if (l == 0) P = nystrom_projection(basis, lrows, c.p.nystrom_rcond, l);
        });
    }
    landmark_rows = Matrix();
    rows_of_landmarks.release();
    c.end_stage("kernel+eigen");
    if (l > 0) {
        c.begin_stage("rank");
        // ℓ as the eigen-decomposition left it (its cut can keep fewer columns than asked).
        const memory::NystromFootprint fr =
            nystrom_memory(c.shape(), {m, P.cols, shape.precision}, std::min(c.p.rank, P.cols));
        MemoryLedger::Charge restricted =
            c.charge("rank", "the rank restriction's chunk sums, eigen-decomposition and new P", fr.rank);
        P = rank_restrict(P, G, std::min(c.p.rank, P.cols), c.threads, *c.comm);
        restricted.release();
        projection.release();
        projection = c.charge("rank", "the projection P (m x r)", fr.final_projection);
        c.end_stage("rank");
    }
    const memory::NystromFootprint fa = nystrom_memory(c.shape(), shape, P.cols);  // with the actual r
    MemoryLedger::Charge diag_charge = c.charge("lloyd", "the kernel diagonal", fa.diag);
    std::vector<float> diag = training_diagonal(c);
    // Features cost one n×m×r product but make each Lloyd iteration n·r·k instead of n·m·k.
    // With solver=lloyd they are optional: taken only when they fit beside G in the budget
    // (else Lloyd runs on G itself: the same clustering).
    const bool features =
        c.p.solver == Solver::minibatch ||
        (memory::features_cheaper(c.p, m, P.cols) && every_rank(*c.comm, c.ledger().fits(fa.features_beside_rows())));
    if (features) {
        return features_and_lloyd(c, facts,
                                  {std::move(G), std::move(rows_charge), std::move(diag), std::move(diag_charge)},
                                  nullptr, fa, std::move(basis), std::move(P));
    }
    const MemoryLedger::Charge state =
        c.charge("lloyd", "Lloyd on the kernel rows (chunk sums, bounds, label caches, seeding)", fa.landmark_lloyd);
    auto projection_map = std::make_unique<DenseProjection>(std::move(P), c.isa);
    const Matrix& Pm = projection_map->matrix();
    auto map = std::make_unique<LandmarkMap>(std::move(basis), std::move(projection_map));
    LandmarkLloyd problem(G, Pm, std::move(diag), c.w, c.p.k, c.threads, c.isa, Bounds::elkan, *c.comm, &c.part);
    LloydResult best = best_of_restarts(problem, c);
    if (c.p.refine == Refine::hartigan) refine_best(c, G, Pm, problem, best);
    LandmarkCentres centres = problem.centres_of(best);
    c.end_stage("lloyd");
    return std::make_unique<NystromModel>(c.p, n, c.X.cols, c.report(facts, std::move(best)), std::move(map),
                                          std::move(centres));
}

double check_sketch_budget(const FitShape& s, const MemoryLedger& ledger) {
    const int64_t m = resolve_landmarks(s.p, s.n_global);
    const memory::SketchFootprint f = memory::sketch_footprint(s.p, s.rows, s.cols, m, s.threads, s.weighted);
    return require_budget(s, ledger, "sketch", f.peak(),
                          "landmarks, the sketch, n x m sketched features, k-means state");
}

std::unique_ptr<FittedModel> fit_sketch(FitSession& c) {
    const int64_t n = c.X.rows, m = resolve_landmarks(c.p, c.n_global());
    const memory::SketchFootprint f = memory::sketch_footprint(c.p, n, c.X.cols, m, c.threads, !c.w.empty());
    c.begin_stage("landmarks");
    const std::vector<int64_t> idx = charged_landmarks(c, m);
    request_rows(c, idx);
    c.end_stage("landmarks");
    c.begin_stage("features");
    Rng rng(c.p.seed, Stream::sketch);
    MemoryLedger::Charge building = c.charge("features", "packing the landmarks", f.basis_build);
    const MemoryLedger::Charge landmarks =
        c.charge("features", "the m landmarks, their packed panels and the sketch", f.basis + f.projection);
    auto map = std::make_unique<LandmarkMap>(basis_over(c, idx), make_sketch(c.p.sketch, m, c.n_global(), rng, c.isa));
    building.release();
    const MemoryLedger::Charge features = c.charge("features", "the n x r sketched features", f.features);
    Matrix F = features_of_rows(c, *map, f.feature_scratch, "every thread's block of kernel rows and features");
    c.end_stage("features");
    return cluster_features(c, landmark_facts(c, m), std::move(F), std::move(map), {}, false);
}

}  // namespace kkm
