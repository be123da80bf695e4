// kernel=heat and kernel=knn on the anchor graph (graph=anchor, graph/anchors.h): a feature
// method. Stages:
//   anchors  p k-means centres of a uniform sample of 10p rows (k-means from p random rows of
//            the sample, 8 Lloyd iterations), and σ from the sample;
//   graph    one pass over X: each row's r nearest anchors and weights (n·r, kept);
//   eigen    M = ZᵀZ (summed over the ranks), its components and top pairs (p×p);
//   features the heat features of every row from its lists (features/anchor_map.h), and for
//            kernel=knn the normalized cut's;
//   seeding, lloyd  k-means on the heat features (cluster_features, as every feature method);
//   ncut     kernel=knn: Lloyd on the normalized cut's features from those labels.
// Distributed as Nyström is: the sample gathered to every rank, each rank its own rows, M
// reduced in rank order; a file is read once (and the moments' sample).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cluster/lloyd.h"
#include "cluster/seeding.h"
#include "core/error.h"
#include "features/anchor_map.h"
#include "features/landmarks.h"
#include "graph/anchors.h"
#include "graph/heat.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"
#include "model/fit_common.h"
#include "model/fit_graph.h"
#include "model/fit_memory.h"
#include "model/row_pass.h"

namespace kkm {
namespace {

/// anchors=auto: max(this, kAnchorsPerCluster·k), at most n. U-SPEC's p = 1000 (Huang et al.
/// 2020); 10 per cluster keeps k = 100 (200 eigenpairs) well inside the p × p problem.
constexpr int64_t kAutoAnchors = 1000;
constexpr int64_t kAnchorsPerCluster = 10;
/// neighbors=auto with graph=anchor (U-SPEC takes K = 5): designed on Fashion-MNIST 60000 (heat
/// NMI 0.623 at r = 3, 0.620 at 4, 0.616 at 5, seeds 0-2) and judged on Letter 20000 (0.48 at 3,
/// 0.44 at 5) and Satellite (0.645 both).
constexpr int64_t kAutoAnchorNeighbours = 3;
/// heat_rank=auto for kernel=knn: the normalized cut's features keep at least this many pairs, this
/// many per cluster (as heat's max(2k, 20), one more per component). Designed on Fashion-MNIST
/// 60000 (knn NMI 0.592 at 10 pairs, 0.605 at 20, 0.619 at 50 and at 200: W's rank-50 part cuts
/// as W does; heat 0.619 at 20 and at 50).
constexpr int64_t kCutRank = 50;
constexpr int64_t kCutRankPerCluster = 5;
/// The sample the anchors are k-means centres of: this many rows per anchor, and the Lloyd
/// iterations from p of its rows. Fashion-MNIST 60000 (numpy prototype, heat NMI): 0.617-0.621
/// with 5 iterations on 10p rows, 0.617 with 4p rows, 0.595 with p random rows as anchors.
constexpr int64_t kSamplePerAnchor = 10;
constexpr int64_t kAnchorIterations = 8;
/// The anchor sample's draws: sub-stream of Stream::graph (NN-descent's are rows, Lanczos's
/// start vectors components, below 2^41).
constexpr uint64_t kAnchorDraws = uint64_t{1} << 41;

struct AnchorShape {
    int64_t p = 0;       ///< anchors
    int64_t r = 0;       ///< anchors per row
    int64_t sample = 0;  ///< rows the anchors are centres of
    int64_t R = 0;       ///< eigenpairs (one component)
};

/// The eigenpairs of p anchors in `components` components: heat_rank, or auto (heat_rank's
/// for kernel=heat, kCutRank's for kernel=knn).
int64_t anchor_rank(const Params& p, int64_t anchors, int64_t components = 1) {
    const int64_t heat = heat_rank(p, anchors, components);
    if (p.heat_rank > 0 || p.kernel != KernelType::knn) return heat;
    return std::min(anchors, std::max(heat, std::max(kCutRank, kCutRankPerCluster * p.k) + components - 1));
}

/// anchors, or auto (not checked against n).
int64_t anchor_count(const Params& p, int64_t n) {
    return p.anchors > 0 ? p.anchors : std::min(n, std::max(kAutoAnchors, kAnchorsPerCluster * p.k));
}

AnchorShape anchor_shape(const Params& p, int64_t n) {
    AnchorShape s;
    s.p = anchor_count(p, n);
    if (s.p > n) {
        invalid_argument("anchors=" + std::to_string(s.p) + " exceeds the number of rows n=" + std::to_string(n) +
                         "; accepted: [2, n] or auto");
    }
    s.r = p.neighbors > 0 ? p.neighbors : std::min(kAutoAnchorNeighbours, s.p);
    if (s.r > s.p) {
        invalid_argument(
            "neighbors=" + std::to_string(s.r) + " exceeds anchors=" + std::to_string(s.p) +
            ": with graph=anchor each row attaches to its neighbors nearest anchors; accepted: [1, anchors]");
    }
    s.sample = std::min(n, kSamplePerAnchor * s.p);
    s.R = anchor_rank(p, s.p);
    return s;
}

/// The anchors: k-means centres of the sample S (every rank the same): p rows of S drawn
/// uniformly, then kAnchorIterations Lloyd steps (each row to its nearest centre by
/// exact_neighbours; means summed in float64 in row order; a centre without rows stays).
/// idx: the rows of X that S holds (a row too far from the mean is refused naming it).
Matrix kmeans_anchors(const FitSession& c, const Matrix& S, const std::vector<int64_t>& idx, int64_t p) {
    Rng rng(c.p.seed, Stream::graph, kAnchorDraws + 1);
    const std::vector<int64_t> first = uniform_landmarks(S.rows, p, rng);
    Matrix C(p, S.cols);
    for (int64_t j = 0; j < p; ++j) {
        std::copy(S.row(first[static_cast<size_t>(j)]), S.row(first[static_cast<size_t>(j)]) + S.cols, C.row(j));
    }
    std::vector<double> sum(static_cast<size_t>(p * S.cols));
    std::vector<int64_t> count(static_cast<size_t>(p));
    for (int64_t it = 0; it < kAnchorIterations; ++it) {
        progress_check();
        const graph::NeighbourLists nearest =
            graph::exact_neighbours(graph::SearchRows(C.view(), c.shift(), c.isa, c.threads), S.view(), 1, c.threads);
        if (const int64_t far = nearest.first_too_far(); far >= 0) refuse_far_rows(c, idx[static_cast<size_t>(far)]);
        const std::vector<int32_t>& label = nearest.index;
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(count.begin(), count.end(), 0);
        for (int64_t i = 0; i < S.rows; ++i) {
            const int64_t j = label[static_cast<size_t>(i)];
            ++count[static_cast<size_t>(j)];
            double* acc = sum.data() + j * S.cols;
            for (int64_t t = 0; t < S.cols; ++t) acc[t] += S.row(i)[t];
        }
        for (int64_t j = 0; j < p; ++j) {
            const int64_t m = count[static_cast<size_t>(j)];
            if (m == 0) continue;
            for (int64_t t = 0; t < S.cols; ++t) {
                C.row(j)[t] = static_cast<float>(sum[static_cast<size_t>(j * S.cols + t)] / static_cast<double>(m));
            }
        }
    }
    return C;
}

/// σ² of the weights: the squared mean distance of the sample's rows to their r nearest
/// anchors (float64, summed in row order).
double bandwidth(const graph::PackedSearch& anchors, const Matrix& S, int64_t r, int threads) {
    const graph::NeighbourLists nearest = graph::exact_neighbours(anchors.rows(), S.view(), r, threads);
    double total = 0;
    for (const float d2 : nearest.dist) total += std::sqrt(static_cast<double>(d2));
    const double sigma = total / static_cast<double>(S.rows * r);
    // Every row on its anchors (a sample of p distinct rows): any positive scale will do.
    return sigma > 0 ? sigma * sigma : 1.0;
}

/// Stage "anchors": the sample (gathered from the ranks holding it), its k-means centres and
/// σ². Sample rows not checked yet are checked first (a bad one names the first bad row of X).
struct Anchors {
    graph::PackedSearch search;
    double sigma2 = 1.0;
};

Anchors choose_anchors(FitSession& c, const AnchorShape& s) {
    c.begin_stage("anchors");
    Rng rng(c.p.seed, Stream::graph, kAnchorDraws);
    const std::vector<int64_t> idx = uniform_landmarks(c.n_global(), s.sample, rng);
    request_rows(c, idx);
    const Matrix S = training_rows(c, idx);
    if (!c.rows_checked() && !rows_finite(S.view(), 0, S.rows)) {
        scan_rows(c.X, {}, Moments::none, c.part.offset, c.threads, &c.pages);
    }
    Anchors a;
    a.search =
        graph::PackedSearch(graph::SearchRows(kmeans_anchors(c, S, idx, s.p).view(), c.shift(), c.isa, c.threads));
    a.sigma2 = bandwidth(a.search, S, s.r, c.threads);
    c.end_stage("anchors");
    return a;
}

/// Stage "graph": one pass over X (streamed; rows not checked yet checked block by block, the
/// first bad one named after the pass).
graph::AnchorLists attach_rows(FitSession& c, const Anchors& a, int64_t r) {
    c.begin_stage("graph");
    const int64_t n = c.X.rows;
    graph::AnchorLists Z(n, r);
    PerThread<FeatureScratch> scratch(c.threads);
    FirstBadBlock bad, far;
    parallel_blocks(c.threads, block_count(n, chunk_rows_of(n)), [&](int64_t q) {
        stream_chunk(c, q, [&](ConstMatrix rows, int64_t begin) {
            if (skip_bad(c, bad, rows, begin)) return;
            FeatureScratch& s = scratch.local();
            s.dist.resize(static_cast<size_t>(rows.rows * r));
            int32_t* index = Z.index.data() + begin * r;
            a.search.nearest(rows, r, s.centred, s.kernel, s.block, index, s.dist.data());
            for (int64_t i = 0; i < rows.rows; ++i) {
                if (std::isnan(s.dist[static_cast<size_t>(i * r)])) far.record(begin + i);
                graph::anchor_weights(s.dist.data() + i * r, r, a.sigma2, Z.weight.data() + (begin + i) * r);
            }
        });
    });
    bad.raise(c.X, kRowBlock, c.part.offset);
    if (far.first() >= 0) refuse_far_rows(c, c.part.offset + far.first());
    c.end_stage("graph");
    return Z;
}

/// The anchors `keep` of a search, as a search of their own.
graph::PackedSearch kept_anchors(const graph::PackedSearch& all, const std::vector<int64_t>& keep, int threads) {
    const graph::SearchRows& rows = all.rows();
    Matrix centred(static_cast<int64_t>(keep.size()), rows.dim());
    for (size_t a = 0; a < keep.size(); ++a) {
        const float* from = rows.centred().row(keep[a]);
        std::copy(from, from + rows.dim(), centred.row(static_cast<int64_t>(a)));
    }
    return graph::PackedSearch(graph::SearchRows(std::move(centred), rows.shift(), rows.isa(), threads));
}

/// kernel=knn: k-means on the normalized-cut features G (W's rank-R part), each restart seeded
/// by Lloyd on the heat features F from its k-means++ (or random) seeds, as the k-NN graph's
/// knn is seeded (fit_graph.cpp: Lloyd from k-means++ seeds on
/// the cut's kernel stalls). The lowest objective on G wins.
std::unique_ptr<FittedModel> normalized_cut(FitSession& c, const MethodFacts& facts, const Matrix& F, Matrix G,
                                            std::unique_ptr<AnchorMap> map) {
    const MemoryLedger::Charge state = c.charge(
        "lloyd", "k-means on the heat features, then on the normalized cut's",
        2 * memory::cluster_features(c.p, static_cast<double>(F.rows), static_cast<double>(F.cols), c.threads, false));
    FeatureLloyd heat(F.view(), {}, c.p.k, c.threads, c.isa, {}, true, *c.comm, &c.part);
    FeatureLloyd cut(G.view(), {}, c.p.k, c.threads, c.isa, {}, true, *c.comm, &c.part);
    const LloydOptions options{c.p.k, c.p.max_iter, c.p.tol};
    LloydResult best = best_restart(c.p.n_init, [&](int64_t r) {
        Rng rng = restart_rng(c.p.seed, Stream::seeding, static_cast<uint64_t>(r));
        c.begin_stage("seeding");
        std::vector<int32_t> labels =
            seed_centres(c.p.init, *c.comm, c.part, c.p.k, {}, heat.distance_oracle(), rng).labels;
        c.end_stage("seeding");
        c.begin_stage("lloyd");
        labels = run_lloyd(heat, std::move(labels), {}, options, *c.comm, c.part.offset).labels;
        c.end_stage("lloyd");
        c.begin_stage("ncut");
        LloydResult result = run_lloyd(cut, std::move(labels), {}, options, *c.comm, c.part.offset);
        c.end_stage("ncut");
        return result;
    });
    Matrix centroids = cut.centroids_of(best);
    return std::make_unique<FeatureModel>(c.p, c.X.rows, c.X.cols, c.report(facts, std::move(best)), std::move(map),
                                          std::move(centroids), false);
}

}  // namespace

double anchor_graph_work(const Params& p, int64_t n, int64_t d) {
    return 2.0 * static_cast<double>(n) * static_cast<double>(d) * static_cast<double>(anchor_count(p, n));
}

double check_anchor_budget(const FitShape& s, const MemoryLedger& ledger) {
    const AnchorShape a = anchor_shape(s.p, s.n_global);
    const double n = static_cast<double>(s.rows), d = static_cast<double>(s.cols), p = static_cast<double>(a.p),
                 r = static_cast<double>(a.r), R = static_cast<double>(a.R);
    const RowBlocks b = row_blocks(n, s.threads);
    const double scratch = b.workers * (2 * Matrix::footprint(b.rows, d) +
                                        Matrix::footprint(b.rows, std::min(p, 1024.0)) + 8.0 * b.rows * r);
    const double anchors = Matrix::footprint(static_cast<double>(a.sample), d) + 12.0 * p * d +
                           12.0 * static_cast<double>(a.sample) + 2 * graph::PackedSearch::footprint(p, d);
    const double lists = graph::AnchorLists::footprint(n, r);
    const double eigen = graph::anchor_gram_footprint(n, r, p) + graph::anchor_eigenpairs_footprint(p, R);
    const double cuts = s.p.kernel == KernelType::knn ? 2 : 1;  // knn: the heat features and the cut's
    const double features = cuts * (Matrix::footprint(n, R) + Matrix::footprint(p, R));
    const double cluster = cuts * memory::cluster_features(s.p, n, R, s.threads, s.weighted);
    const double peak =
        graph::PackedSearch::footprint(p, d) + lists +
        std::max({anchors, scratch + direct_read_buffers(s), eigen, features, features - lists + cluster});
    return require_budget(s, ledger, "graph=anchor", peak,
                          "the anchors' sample and k-means, n x r anchor lists, the p x p eigenproblem, n x "
                          "heat_rank features (twice with kernel=knn), k-means state");
}

std::unique_ptr<FittedModel> fit_anchor_graph(FitSession& c) {
    if (c.p.kernel == KernelType::knn && c.p.solver == Solver::minibatch) {
        invalid_argument(
            "solver=minibatch is not available with kernel=knn on the anchor graph (graph=anchor, or graph=auto "
            "above 60000 rows): the normalized cut's Lloyd starts from the heat features' k-means labels; leave "
            "solver=lloyd, or use kernel=heat");
    }
    const AnchorShape s = anchor_shape(c.p, c.n_global());
    const MemoryLedger::Charge held_anchors =
        c.charge("anchors", "the anchors, packed",
                 2 * graph::PackedSearch::footprint(static_cast<double>(s.p), static_cast<double>(c.X.cols)));
    Anchors a = choose_anchors(c, s);
    MemoryLedger::Charge lists =
        c.charge("graph", "the n x r anchor lists",
                 graph::AnchorLists::footprint(static_cast<double>(c.X.rows), static_cast<double>(s.r)));
    graph::AnchorLists Z = attach_rows(c, a, s.r);
    c.begin_stage("eigen");
    graph::AnchorGram g = graph::anchor_gram(Z, s.p, c.threads);
    if (c.distributed()) {
        sum_over_ranks(*c.comm, g.M.data(), g.M.size());
        sum_over_ranks(*c.comm, g.degree.data(), g.degree.size());
    }
    const std::vector<int64_t> keep = graph::used_anchors(g);
    g = graph::restrict_gram(g, keep);
    graph::renumber(Z, keep, s.p);
    graph::PackedSearch anchors = kept_anchors(a.search, keep, c.threads);
    const double sigma2 = a.sigma2;
    a = Anchors();
    const graph::Components parts = graph::anchor_components(g);
    require_rank_for_components(c.p, parts.count);
    const int64_t R = anchor_rank(c.p, g.p, parts.count);
    const graph::Eigenpairs e = graph::anchor_eigenpairs(g, parts, R, graph::kMinExtendedEigenvalue);
    c.end_stage("eigen");
    c.begin_stage("features");
    const bool cut = c.p.kernel == KernelType::knn;
    // The heat features F; for kernel=knn also the cut's G, whose projection the model keeps.
    Matrix Q = AnchorMap::heat_projection(e, g.degree, c.p.heat_t);
    Matrix F = anchor_features(Z, Q, c.p.heat_normalize, c.threads);
    std::optional<MemoryLedger::Charge> held_cut;
    Matrix G;
    if (cut) {
        held_cut.emplace(c.charge("features", "the n x heat_rank features of the normalized cut",
                                  Matrix::footprint(static_cast<double>(c.X.rows), static_cast<double>(R))));
        Q = AnchorMap::knn_projection(e, g.degree);
        G = anchor_features(Z, Q, false, c.threads);
    }
    auto map = std::make_unique<AnchorMap>(std::move(anchors), s.r, sigma2, std::move(Q), !cut && c.p.heat_normalize);
    Z = graph::AnchorLists();
    lists.release();
    c.end_stage("features");
    MethodFacts facts;
    facts.graph = GraphChoice::anchor;
    facts.m = g.p;
    facts.neighbors = s.r;
    facts.heat_rank = map->dim();
    if (cut) return normalized_cut(c, facts, F, std::move(G), std::move(map));
    return cluster_features(c, facts, std::move(F), std::move(map), {}, false);
}

}  // namespace kkm
