// The graph kernels (kernel=knn, kernel=heat): the neighbour graph of the training rows (or a
// user's graph), the top eigenpairs of its normalized adjacency, the heat features, and the
// clustering: k-means on the heat features (heat), seeded from them and refined by the
// normalized-cut Lloyd of the k-nn kernel (knn), or seed 004's mini-batch algorithm on either
// kernel, seeded from the same spectral clustering.
//
// Seeding, measured (NMI, src/bench/graph.py): Lloyd from k-means++ seeds on the raw k-nn kernel
// rows stalls at 0.005-0.36 on digits, Fashion-MNIST and Satellite, because a point's kernel
// row is zero outside its ~2q neighbours and every centre looks alike from afar; k-means on the
// heat features reaches spectral clustering's quality, and the normalized-cut Lloyd from there
// keeps it (it moves few points: the spectral labels are nearly a fixed point).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cluster/lloyd.h"
#include "cluster/minibatch_kernel.h"
#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "graph/heat.h"
#include "graph/locate.h"
#include "graph/ncut.h"
#include "graph/neighbours.h"
#include "graph/nndescent.h"
#include "graph/spectrum.h"
#include "kernels/kernel_traits.h"
#include "model/fit_common.h"
#include "model/fit_graph.h"
#include "model/fit_memory.h"
#include "model/graph_model.h"

namespace kkm {
namespace {

/// neighbors=auto: these, in turn, while the graph has a component too small to be one of the
/// k clusters (fewer than n/(2k) rows). Letter Recognition 10000 (k = 26): 18 components of 15
/// to 280 rows at q = 10, one at q = 30, NMI 0.34 -> 0.48 (heat); components that are clusters
/// (two rings, far blobs) stay apart and keep q = 10.
constexpr int64_t kAutoNeighbours[] = {10, 15, 20, 30};
/// graph=auto searches exactly while 2n²d stays below this (about 0.25 s of the engine on two
/// cores); NN-descent beyond (Fashion-MNIST 10000: 0.5 s against 1.5 s exactly, recall 0.987).
constexpr double kExactGraphWork = 5e10;

/// The graph a fit clusters and where new rows go.
struct TrainingGraph {
    std::shared_ptr<const graph::SparseGraph> A;
    std::vector<double> degree;
    graph::Components parts;
    std::shared_ptr<const graph::Locator> locator;
};

std::vector<int64_t> neighbour_counts(const Params& p, int64_t n) {
    if (p.neighbors > 0) return {p.neighbors};
    std::vector<int64_t> out;
    for (int64_t q : kAutoNeighbours) {
        if (q < n) out.push_back(q);
    }
    if (out.empty()) out.push_back(n - 1);
    return out;
}

bool exact_search(const Params& p, int64_t n, int64_t d) {
    if (p.graph != GraphChoice::automatic) return p.graph == GraphChoice::exact;
    return graph::exact_graph_work(n, d) <= kExactGraphWork;
}

int64_t heat_rank(const Params& p, int64_t n) {
    const int64_t r = p.heat_rank > 0 ? p.heat_rank : std::max<int64_t>(2 * p.k, 20);
    return std::min(r, n);
}

/// The neighbour graph of the training rows (stage "graph"): exact or NN-descent q-NN lists,
/// symmetrised; with neighbors=auto, q grows while the graph is disconnected.
TrainingGraph graph_of_rows(FitSession& c) {
    c.begin_stage("graph");
    const int64_t n = c.X.rows;
    graph::SearchRows rows(c.X, c.report().shift, c.report().isa, c.threads);
    const bool exact = exact_search(c.p, n, c.X.cols);
    TrainingGraph g;
    int64_t q = 0;
    for (int64_t candidate : neighbour_counts(c.p, n)) {
        q = candidate;
        const graph::NeighbourLists lists = exact ? graph::exact_self_neighbours(rows, q, c.threads)
                                                  : graph::nndescent_neighbours(rows, q, c.p.seed, c.threads);
        graph::SparseGraph A = graph::symmetrised(lists);
        g.parts = graph::components(A);
        g.A = std::make_shared<const graph::SparseGraph>(std::move(A));
        const int64_t smallest = *std::min_element(g.parts.sizes.begin(), g.parts.sizes.end());
        if (2 * c.p.k * smallest >= n) break;
    }
    g.degree = graph::degrees(*g.A);
    c.report().neighbors = q;
    g.locator = std::make_shared<graph::PointLocator>(std::move(rows), q, c.threads);
    c.end_stage("graph");
    return g;
}

TrainingGraph graph_of_user(FitSession& c, graph::SparseGraph A) {
    TrainingGraph g;
    g.parts = graph::components(A);
    g.degree = graph::degrees(A);
    g.A = std::make_shared<const graph::SparseGraph>(std::move(A));
    g.locator = std::make_shared<graph::AffinityLocator>(g.A);
    c.report().neighbors = 0;
    return g;
}

/// The heat map of the graph (stage "eigen"): its top r eigenpairs.
graph::HeatMap heat_map(FitSession& c, const TrainingGraph& g) {
    c.begin_stage("eigen");
    const int64_t r = heat_rank(c.p, g.A->n);
    graph::Eigenpairs e = graph::top_eigenpairs(*g.A, g.degree, g.parts, r, c.p.seed, c.threads);
    graph::HeatMap map;
    map.values = std::move(e.values);
    map.vectors = std::move(e.vectors);
    map.degree = g.degree;
    map.t = c.p.heat_t;
    map.normalise = c.p.heat_normalize;
    c.report().heat_rank = map.dim();
    c.end_stage("eigen");
    return map;
}

/// One restart's seeding on the heat features: k-means++ (or random) seeds, then Lloyd.
LloydResult feature_clustering(FitSession& c, FeatureLloyd& problem, int64_t restart) {
    Rng rng = restart_rng(c.p.seed, Stream::seeding, static_cast<uint64_t>(restart));
    c.begin_stage("seeding");
    std::vector<int32_t> labels =
        seed_centres(c.p.init, problem.size(), c.p.k, {}, problem.distance_oracle(), rng).labels;
    c.end_stage("seeding");
    c.begin_stage("lloyd");
    LloydResult result = run_lloyd(problem, std::move(labels), {}, LloydOptions{c.p.k, c.p.max_iter, c.p.tol});
    c.end_stage("lloyd");
    return result;
}

/// The training rows' assignment by the model itself (its objective weighs knn rows by degree).
void finish_graph_model(FitSession& c, GraphModel& model, const std::vector<double>& weights) {
    c.begin_stage("assign");
    const auto start = std::chrono::steady_clock::now();
    const int64_t n = model.n_train();
    std::vector<int32_t> labels(static_cast<size_t>(n));
    std::vector<float> dist(static_cast<size_t>(n));
    model.assign_placed(graph::training_placement(n), labels.data(), dist.data(), nullptr, c.threads);
    double objective = 0;
    for (int64_t i = 0; i < n; ++i) {
        objective += (weights.empty() ? 1.0 : weights[static_cast<size_t>(i)]) * dist[static_cast<size_t>(i)];
    }
    std::vector<double> mass = cluster_weights(labels, {}, c.p.k);
    model.record_assignment(std::move(labels), objective, std::move(mass),
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

std::unique_ptr<FittedModel> heat_exact(FitSession& c, TrainingGraph& g, graph::HeatMap map, const Matrix& F) {
    FeatureLloyd problem(F.view(), {}, c.p.k, c.threads, c.report().isa);
    const LloydResult best = best_restart(c.p.n_init, [&](int64_t r) { return feature_clustering(c, problem, r); });
    Matrix centroids = problem.centroids(best.labels);
    const std::vector<double> mass = cluster_weights(best.labels, {}, c.p.k);
    c.report().iterations = best.iterations;
    auto model = std::make_unique<HeatModel>(c.p, g.A->n, g.locator->input_dim(), c.take_report(), g.locator,
                                             std::move(map), std::move(centroids));
    std::vector<char> alive(mass.size());
    for (size_t j = 0; j < mass.size(); ++j) alive[j] = mass[j] > 0 ? 1 : 0;
    model->set_alive(std::move(alive));
    finish_graph_model(c, *model, {});
    return model;
}

/// Exact's centres of the k-nn kernel as coefficients: z_ic = d_i / W_c for i in c.
DualCoefficients label_centres(const std::vector<int32_t>& labels, const std::vector<double>& degree,
                               const graph::NcutCentres& centres) {
    DualCoefficients z;
    const auto n = static_cast<int64_t>(labels.size());
    z.at.resize(static_cast<size_t>(n + 1));
    for (int64_t i = 0; i <= n; ++i) z.at[static_cast<size_t>(i)] = i;
    z.cluster = labels;
    z.z.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        z.z[static_cast<size_t>(i)] =
            degree[static_cast<size_t>(i)] / centres.mass[static_cast<size_t>(labels[static_cast<size_t>(i)])];
    }
    z.norm = centres.norm;
    return z;
}

std::unique_ptr<FittedModel> knn_exact(FitSession& c, TrainingGraph& g, const Matrix& F) {
    FeatureLloyd features(F.view(), {}, c.p.k, c.threads, c.report().isa);
    graph::NcutLloyd ncut(*g.A, g.degree, c.p.k, c.threads);
    const std::vector<float> weights = ncut.weights();
    const LloydResult best = best_restart(c.p.n_init, [&](int64_t r) {
        LloydResult seeded = feature_clustering(c, features, r);
        c.begin_stage("ncut");
        LloydResult refined =
            run_lloyd(ncut, std::move(seeded.labels), weights, LloydOptions{c.p.k, c.p.max_iter, c.p.tol});
        c.end_stage("ncut");
        return refined;
    });
    DualCoefficients centres = label_centres(best.labels, g.degree, ncut.centres(best.labels));
    c.report().iterations = best.iterations;
    auto model = std::make_unique<KnnModel>(c.p, g.A->n, g.locator->input_dim(), c.take_report(), g.locator, g.A,
                                            std::move(centres));
    finish_graph_model(c, *model, g.degree);
    return model;
}

std::unique_ptr<FittedModel> fit_graph(FitSession& c, TrainingGraph g) {
    if (c.p.k > g.A->n) {
        invalid_argument("k=" + std::to_string(c.p.k) + " exceeds the number of nodes n=" + std::to_string(g.A->n));
    }
    const memory::GraphFootprint f = memory::graph_footprint(c.p, g.A->n, std::max<int64_t>(c.X.cols, 1), 0,
                                                             heat_rank(c.p, g.A->n), c.threads, false);
    const MemoryLedger::Charge graph_held = c.charge("eigen", "the graph and its degrees", f.graph);
    graph::HeatMap map;
    {
        const MemoryLedger::Charge spectrum =
            c.charge("eigen", "the Lanczos basis, its restarts and the eigenvectors", f.spectrum);
        map = heat_map(c, g);
    }
    c.begin_stage("features");
    const MemoryLedger::Charge features = c.charge("features", "the n x r heat features and eigenvectors", f.features);
    const Matrix F = graph::training_features(map, c.threads);
    c.end_stage("features");
    const MemoryLedger::Charge clustering =
        c.charge("lloyd", "k-means on the heat features, the normalized-cut Lloyd and the model's centres",
                 f.clustering + f.model);
    if (c.p.kernel == KernelType::heat) return heat_exact(c, g, std::move(map), F);
    return knn_exact(c, g, F);
}

}  // namespace

bool graph_kernel(const Params& p) {
    return kernel_traits(p.kernel).graph;
}

void validate_graph_params(const Params& p) {
    const std::string kernel = p.kernel == KernelType::knn ? "kernel=knn" : "kernel=heat";
    if (p.method != Method::exact && p.method != Method::minibatch) {
        invalid_argument(std::string("method=") +
                         (p.method == Method::nystrom  ? "nystrom"
                          : p.method == Method::sketch ? "sketch"
                                                       : "rff") +
                         " needs a kernel function of two rows; " + kernel +
                         " is defined on the training graph and supports method=exact (the default) and minibatch");
    }
    if (p.method == Method::minibatch) {
        invalid_argument(kernel + " with method=minibatch is not available yet; use method=exact (the default)");
    }
    if (p.refine == Refine::hartigan) {
        invalid_argument("refine=hartigan is not available with " + kernel + " (its Lloyd runs on the graph)");
    }
    if (p.gamma_search || p.gamma > 0) {
        invalid_argument("gamma does not apply to " + kernel + " (a graph kernel has no bandwidth): leave gamma=auto");
    }
    if (p.k == 0) invalid_argument("k=auto is not available with " + kernel + ": set k");
}

void validate_graph_data(const Params& p, int64_t n, bool weighted) {
    if (weighted) {
        invalid_argument(
            "weights: kernel=knn and kernel=heat weigh every row by its degree in the graph (normalized cut); "
            "sample weights are not supported with them (pass weights=NULL)");
    }
    if (p.neighbors > 0 && p.neighbors >= n) {
        invalid_argument("neighbors=" + std::to_string(p.neighbors) + " must be below the number of rows n=" +
                         std::to_string(n) + " (a row's neighbours are the other rows)");
    }
    if (n < 2) invalid_argument("kernel=knn and kernel=heat need at least 2 rows to build a graph, got n=1");
}

double graph_work(const Params& p, int64_t n, int64_t d) {
    const auto dn = static_cast<double>(n), q = static_cast<double>(p.neighbors > 0 ? p.neighbors : 10);
    if (exact_search(p, n, d)) return graph::exact_graph_work(n, d);
    return 40.0 * dn * q * q * static_cast<double>(d);
}

void check_graph_budget(FitSession& c) {
    const int64_t n = c.X.rows, q = neighbour_counts(c.p, n).back();
    const memory::GraphFootprint f =
        memory::graph_footprint(c.p, n, c.X.cols, q, heat_rank(c.p, n), c.threads, c.X.data != nullptr);
    require_budget(c, c.p.kernel == KernelType::knn ? "exact (kernel=knn)" : "exact (kernel=heat)", f.peak(),
                   "the training rows, the neighbour graph, its eigenvectors and the heat features");
}

std::unique_ptr<FittedModel> fit_graph_rows(FitSession& c) {
    const int64_t n = c.X.rows, q = neighbour_counts(c.p, n).back();
    const memory::GraphFootprint f = memory::graph_footprint(c.p, n, c.X.cols, q, heat_rank(c.p, n), c.threads, true);
    const MemoryLedger::Charge rows = c.charge("graph", "the centred training rows (kept by the model)", f.rows);
    TrainingGraph g;
    {
        const MemoryLedger::Charge search =
            c.charge("graph", "the neighbour lists and the search's working set", f.search + f.graph);
        g = graph_of_rows(c);
    }
    return fit_graph(c, std::move(g));
}

std::unique_ptr<FittedModel> fit_graph_user(FitSession& c, graph::SparseGraph A) {
    return fit_graph(c, graph_of_user(c, std::move(A)));
}

}  // namespace kkm
