#include "model/fit_memory.h"

#include <algorithm>
#include <cmath>

#include "cluster/exact.h"
#include "cluster/landmark_lloyd.h"
#include "cluster/lloyd.h"
#include "cluster/lloyd_driver.h"
#include "cluster/minibatch_kernel.h"
#include "cluster/minibatch_lloyd.h"
#include "cluster/seeding.h"
#include "core/blocking.h"
#include "core/linalg.h"
#include "core/matrix.h"
#include "engine/engine.h"
#include "engine/products.h"
#include "features/landmarks.h"
#include "features/nystrom.h"
#include "features/rff.h"
#include "features/sketch.h"
#include "graph/heat.h"
#include "graph/locate.h"
#include "graph/ncut.h"
#include "graph/neighbours.h"
#include "graph/nndescent.h"
#include "graph/sparse_graph.h"
#include "graph/spectrum.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"
#include "model/fit_common.h"
#include "model/graph_model.h"

namespace kkm::memory {
namespace {

bool precomputed(const Params& p) {
    return kernel_traits(p.kernel).precomputed;
}

/// Kernel::block's scratch, none for a precomputed kernel (its columns are read).
double kernel_block(const Params& p, double rows, double d) {
    return precomputed(p) ? 0 : Kernel::block_footprint(rows, d);
}

double row_block(const Params& p, double rows, double d, double cols) {
    return KernelBasis::row_block_footprint(rows, d, cols, precomputed(p));
}

}  // namespace

// ---------------------------------------------------------------- shared stages

double cluster_features(const Params& p, double n, double r, int threads, bool weighted) {
    if (p.solver == Solver::minibatch)
        return minibatch_lloyd_footprint(p, n, r, threads, weighted) + Matrix::footprint(p.k, r);
    return FeatureLloyd::footprint(p, n, r, threads, weighted) + lloyd_driver_footprint(p, n) +
           Matrix::footprint(p.k, r);
}

double gamma_stage(const Params& p, double n, double d, int threads) {
    const double sort = kernel_traits(p.kernel).auto_scale == AutoScale::l1 && p.gamma <= 0 ? threads * 8 * n : 0.0;
    return sort + scan_footprint(static_cast<int64_t>(std::min(n, 9e18)), static_cast<int64_t>(d), threads) +
           4 * d;  // + the float32 shift
}

// ---------------------------------------------------------------- exact

double ExactFootprint::peak() const {
    return std::max(basis + basis_build, basis + kernel + points);
}

ExactFootprint exact_footprint(const Params& p, int64_t n_, int64_t d_, int threads, bool weighted, double available,
                               int64_t cols_) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_);
    const double c = cols_ < 0 ? n : static_cast<double>(cols_);
    const bool pre = kernel_traits(p.kernel).precomputed;
    ExactFootprint f;
    f.basis = KernelBasis::footprint(n, d, pre) +
              (cols_ < 0 ? 0.0 : KernelBasis::footprint(c, d, pre));  // distributed: the columns' own
    f.basis_build = KernelBasis::build_footprint(n, d, pre);
    const RowBlocks b = row_blocks(n, threads);
    // and the model's terms of Z, made while the problem is held: one per row (dual_terms)
    const double points = ExactLloyd::footprint(p, n, c, threads, weighted) + 12 * n;
    const auto with_rows = [&](double rows) {
        ExactFootprint g = f;
        g.block_rows = static_cast<int64_t>(rows);
        // blocks of `rows` rows: no more of them at once than there are
        const double workers = std::min<double>(std::max(threads, 1), std::ceil(n / std::max(rows, 1.0)));
        const double held = std::min(rows, n);
        g.kernel = workers * (Matrix::footprint(held, c) + Matrix::footprint(held, d) + kernel_block(p, held, d));
        g.points = points + 8 * held * workers;  // row pointers of one group of moves
        return g;
    };
    ExactFootprint stored = f;
    stored.store = true;
    stored.kernel =
        pre ? b.workers * Matrix::footprint(1, n) : Matrix::footprint(n, c) + b.workers * kernel_block(p, b.rows, d);
    stored.points = points + 8 * n;
    f.stored_peak = stored.peak();
    f.one_row_peak = with_rows(1).peak();
    if (pre || f.stored_peak <= available) {
        stored.stored_peak = f.stored_peak;
        stored.one_row_peak = f.one_row_peak;
        return stored;
    }
    // Recomputed blocks of r rows: fewer threads hold one as r nears n, so the peak is not
    // monotone in r. The most rows that fit (at most a row block), else the least peak.
    double best_rows = 0, least_peak = f.one_row_peak, least_rows = 1;
    for (double rows = 1; rows <= std::min(static_cast<double>(kRowBlock), std::max(n, 1.0)); ++rows) {
        const double peak = with_rows(rows).peak();
        if (peak <= available) best_rows = rows;
        if (peak < least_peak) {
            least_peak = peak;
            least_rows = rows;
        }
    }
    ExactFootprint g = with_rows(best_rows >= 1 ? best_rows : least_rows);
    g.block_rows = static_cast<int64_t>(best_rows);
    g.stored_peak = f.stored_peak;
    g.one_row_peak = least_peak;
    return g;
}

// ---------------------------------------------------------------- nystrom

bool features_cheaper(const Params& p, int64_t m, int64_t r) {
    const double iters = static_cast<double>(std::min<int64_t>(p.max_iter, 20));
    const double k = static_cast<double>(p.k);
    return static_cast<double>(r) * (static_cast<double>(m) + iters * k) < iters * k * static_cast<double>(m);
}

bool nystrom_fused(const Params& p, int64_t m, int64_t s) {
    return p.rank > 0 && (p.solver == Solver::minibatch || features_cheaper(p, m, s));
}

double NystromFootprint::peak() const {
    const double setup = std::max(sampling, basis + basis_build);
    if (fused) {
        return std::max({setup, basis + landmark_rows + projection + eigen,
                         basis + projection + kernel_rows + row_scratch + rank,
                         basis + final_projection + kernel_rows + diag + features + feature_scratch,
                         basis + final_projection + features + feature_cluster});
    }
    if (direct) {
        return std::max({setup, basis + landmark_rows + projection + eigen,
                         basis + final_projection + diag + features + feature_scratch,
                         basis + final_projection + features + feature_cluster});
    }
    const double rows = std::max(basis + landmark_rows + kernel_rows + row_scratch + projection + eigen,
                                 basis + kernel_rows + projection + rank);
    const double held = basis + kernel_rows + final_projection + diag;
    return std::max({setup, rows, held + (features_required ? features_beside_rows() : landmark_lloyd)});
}

double NystromFootprint::features_beside_rows() const {
    return std::max(features + feature_scratch, features + feature_cluster - kernel_rows - diag);
}

NystromFootprint nystrom_footprint(const Params& p, int64_t n_, int64_t d_, int64_t m_, int64_t l_,
                                   RowPrecision precision, int threads, bool weighted, int64_t r_actual) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), m = static_cast<double>(m_),
                 l = static_cast<double>(l_);
    const bool pre = kernel_traits(p.kernel).precomputed, half = precision == RowPrecision::f16;
    const double r_eigen = l > 0 ? l : m;  // columns of P from K_LL, at most
    const double r = r_actual >= 0 ? static_cast<double>(r_actual)
                     : l > 0       ? std::min(static_cast<double>(p.rank), l)
                                   : m;  // feature columns
    const RowBlocks b = row_blocks(n, threads);
    NystromFootprint f;
    f.direct = p.solver == Solver::minibatch && l == 0;
    f.features_required = p.solver == Solver::minibatch;
    f.sampling = sampler_traits(p.sampling).footprint({n, d, m, threads, pre});
    f.basis = KernelBasis::footprint(m, d, pre);
    f.basis_build = KernelBasis::build_footprint(m, d, pre);
    f.landmark_rows = pre ? Matrix::footprint(m, n) : 0.0;
    f.projection = Matrix::footprint(m, l > 0 ? r_eigen : r);
    f.eigen = Matrix::footprint(m, m) + std::max(linalg::dsyevd_footprint(m), 8 * m * m + 8 * m);
    if (!f.direct) {
        f.kernel_rows = half ? 2 * n * m : Matrix::footprint(n, m);
        f.row_scratch = b.workers * (Matrix::footprint(b.rows, d) + kernel_block(p, b.rows, d) +
                                     (half ? Matrix::footprint(b.rows, m) : 0));
    }
    f.final_projection = DenseProjection::footprint(m, r);
    if (l > 0) {
        const double per_thread = Matrix::footprint(b.rows, l) + (half ? Matrix::footprint(b.rows, m) : 0) +
                                  engine::FixedRight::block_footprint(b.rows, m) +
                                  engine::GramScratch::footprint(b.rows, l);
        const double sums = 8 * static_cast<double>(kReduceChunks) * l * l + engine::FixedRight::footprint(m, l) +
                            b.workers * per_thread;
        f.rank = std::max(sums, linalg::dsyevd_footprint(l) + 8 * l) + f.final_projection;
    }
    f.fused = l > 0 && nystrom_fused(p, m_, static_cast<int64_t>(r));
    if (f.fused) {  // R (n×ℓ) instead of G; each thread's G_b, R_b and R_bᵀR_b; the chunk sums
        f.kernel_rows = half ? 2 * n * l : Matrix::footprint(n, l);
        f.row_scratch =
            engine::FixedRight::footprint(m, l) +
            b.workers * (Matrix::footprint(b.rows, d) + kernel_block(p, b.rows, d) + Matrix::footprint(b.rows, m) +
                         Matrix::footprint(b.rows, l) + engine::FixedRight::block_footprint(b.rows, m) +
                         engine::GramScratch::footprint(b.rows, l));
        f.rank =
            RankGram::footprint(l_, kRankChunks) + 8 * l * l + linalg::dsyevd_footprint(l) + 8 * l + f.final_projection;
    }
    f.diag = 4 * n;
    f.features = Matrix::footprint(n, r) + 4 * n;
    f.feature_scratch =
        f.fused ? engine::FixedRight::footprint(l, r) + b.workers * (engine::FixedRight::block_footprint(b.rows, l) +
                                                                     (half ? Matrix::footprint(b.rows, l) : 0.0))
                : engine::FixedRight::footprint(m, r) +
                      b.workers * (engine::FixedRight::block_footprint(b.rows, m) +
                                   (f.direct ? row_block(p, b.rows, d, m) + Matrix::footprint(b.rows, r)
                                    : half   ? Matrix::footprint(b.rows, m)
                                             : 0.0));
    f.feature_cluster = cluster_features(p, n, r, threads, weighted);
    f.landmark_lloyd = LandmarkLloyd::footprint(p, n, m, r, threads, weighted) + lloyd_driver_footprint(p, n);
    return f;
}

// ---------------------------------------------------------------- sketch and rff

double SketchFootprint::peak() const {
    return std::max({sampling, basis + basis_build + projection, basis + projection + features + feature_scratch,
                     basis + projection + features + cluster});
}

SketchFootprint sketch_footprint(const Params& p, int64_t n_, int64_t d_, int64_t m_, int threads, bool weighted) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), m = static_cast<double>(m_);
    const bool pre = kernel_traits(p.kernel).precomputed;
    const auto r = static_cast<double>(sketch_dim(p.sketch, m_));
    SketchFootprint f;
    f.projection = sketch_footprint(p.sketch, m, n);
    f.sampling = sampler_traits(p.sampling).footprint({n, d, m, threads, pre});
    f.basis = KernelBasis::footprint(m, d, pre);
    f.basis_build = KernelBasis::build_footprint(m, d, pre);
    f.features = Matrix::footprint(n, r);
    const RowBlocks b = row_blocks(n, threads);
    f.feature_scratch =
        b.workers * (row_block(p, b.rows, d, m) + Matrix::footprint(b.rows, r) +
                     (p.sketch == SketchKind::gaussian ? engine::FixedRight::block_footprint(b.rows, m) : 0.0));
    f.cluster = cluster_features(p, n, r, threads, weighted);
    return f;
}

double RffFootprint::peak() const {
    return std::max(map + features + feature_scratch, map + features + cluster);
}

RffFootprint rff_footprint(const Params& p, int64_t n_, int64_t d_, int64_t m_, int threads, bool weighted) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), m = static_cast<double>(m_);
    RffFootprint f;
    f.map = RffMap::footprint(m, d);
    f.features = Matrix::footprint(n, m);
    const RowBlocks b = row_blocks(n, threads);
    f.feature_scratch = b.workers * RffMap::block_footprint(b.rows, d, m);
    f.cluster = cluster_features(p, n, m, threads, weighted);
    return f;
}

// ---------------------------------------------------------------- minibatch

double MinibatchFootprint::peak() const {
    return diag + best + std::max({seeding, iterations, assign});
}

MinibatchFootprint minibatch_footprint(const Params& p, int64_t n_, int64_t d_, int threads, bool weighted) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), k = static_cast<double>(p.k);
    MinibatchFootprint f;
    f.diag = 4 * n + (weighted ? 8 * n : 0.0);
    const MinibatchRunFootprint run = minibatch_run_footprint(
        p, n, threads, [&](double cols, const RowBlocks& b) { return training_block_footprint(p, cols, d, b); });
    // The seeding's sample kept packed (TrainingKernel): float32 panels at most.
    const bool pre = kernel_traits(p.kernel).precomputed;
    f.seeding = run.seeding + (pre ? 0.0 : engine::LeftRows::footprint(run.seed_sample, d));
    f.iterations = run.iterations;
    const double tau = static_cast<double>(p.tau), b = static_cast<double>(p.batch_size);
    const double largest = p.tau > 0 ? std::min(n, tau + b) : n;  // distinct points of one centre
    f.assign = minibatch_assign_footprint(p, n, d, threads, k * largest, largest);
    const double S = std::min(n, k * largest);
    f.best = p.n_init > 1 ? KernelBasis::footprint(S, d, precomputed(p)) + Matrix::footprint(S, k) + 4 * n : 0.0;
    return f;
}

// ---------------------------------------------------------------- graph kernels

double GraphFootprint::peak() const {
    // The rows stay (the model keeps them); the search ends before the graph is decomposed;
    // the graph stays through the clustering (knn's Lloyd reads it).
    const double building = search + graph;
    const double later = graph + std::max(spectrum, features + clustering + model);
    return rows + std::max(building, later);
}

GraphFootprint graph_footprint(const Params& p, int64_t n_rows, int64_t d_cols, int64_t q_max, int64_t r_pairs,
                               int threads, GraphSearch search, int64_t given_entries) {
    const auto n = static_cast<double>(n_rows), d = static_cast<double>(d_cols), q = static_cast<double>(q_max);
    const auto r = static_cast<double>(r_pairs), k = static_cast<double>(p.k);
    GraphFootprint f;
    // The symmetrised graph's entries, at most, or the given graph's.
    const double entries = search != GraphSearch::none ? 2 * n * q : static_cast<double>(given_entries);
    if (search != GraphSearch::none) {
        f.rows = graph::PointLocator::footprint(n, d);
        const double lists = graph::neighbour_lists_footprint(n, q),
                     exact = graph::exact_search_footprint(n, d, threads);
        // NN-descent searches small sets exactly (n <= 8q + 64): either may run.
        const double join = graph::nndescent_join_footprint(n, d, q, threads);
        f.search = lists + (search == GraphSearch::nndescent ? std::max(join, exact) : exact) + 8 * n;
    }
    if (search != GraphSearch::none) {
        f.graph = graph::symmetrised_footprint(n, q);
    } else {  // the given graph is held; checking and compressing it needs more for a while
        f.graph = graph::held_graph_footprint(n, entries);
        f.search = graph::checked_graph_footprint(n, entries) - f.graph;
    }
    f.spectrum = graph::eigenpairs_footprint(n, entries, r);
    f.features = graph::heat_features_footprint(n, r);
    const double lloyd =
        FeatureLloyd::footprint(p, n, r, threads, false) + lloyd_driver_footprint(p, n) + Matrix::footprint(k, r);
    const double ncut = graph::NcutLloyd::footprint(n, k, threads);
    double mb = 0;
    if (p.method == Method::minibatch) {
        const MinibatchFootprint m = minibatch_footprint(p, n_rows, std::max<int64_t>(r_pairs, 1), threads, false);
        mb = std::max(m.seeding, m.iterations) + m.diag;
    }
    f.clustering = std::max(lloyd + ncut, mb + lloyd);
    f.model = GraphModel::footprint(n, k, r, threads);
    return f;
}

}  // namespace kkm::memory
