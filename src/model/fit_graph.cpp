// The graph kernels (kernel=knn, kernel=heat): the neighbour graph of the training rows (or a
// user's graph), the top eigenpairs of its normalized adjacency, the heat features, and the
// clustering: k-means on the heat features (heat), seeded from them and refined by the
// normalized-cut Lloyd of the k-nn kernel (knn), or seed 004's mini-batch algorithm on the heat
// kernel, seeded from the same spectral clustering (on the sparse k-nn kernel it collapses, so
// kernel=knn method=minibatch is refused: validate_graph_params).
//
// Seeding, measured (NMI, src/bench/graph.py): Lloyd from k-means++ seeds on the raw k-nn kernel
// rows stalls at 0.005-0.36 on digits, Fashion-MNIST and Satellite, because a point's kernel
// row is zero outside its ~2q neighbours and every centre looks alike from afar; k-means on the
// heat features reaches spectral clustering's quality, and the normalized-cut Lloyd from there
// keeps it (it moves few points: the spectral labels are nearly a fixed point).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/lloyd.h"
#include "cluster/minibatch_kernel.h"
#include "core/blocking.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "graph/heat.h"
#include "graph/locate.h"
#include "graph/ncut.h"
#include "graph/neighbours.h"
#include "graph/nndescent.h"
#include "graph/point_kernels.h"
#include "graph/spectrum.h"
#include "kernels/kernel_traits.h"
#include "model/fit_common.h"
#include "model/fit_graph.h"
#include "model/fit_memory.h"
#include "model/graph_model.h"
#include "model/methods.h"
#include "model/row_pass.h"

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
// graph=auto takes the anchor graph above kAnchorGraphAbove rows for kernel=heat, above
// kKnnAnchorGraphAbove for kernel=knn (kernel_traits.h):
// Fashion-MNIST 60000 on NN-descent's graph takes 7.9 s (graph and Lanczos about half each), on
// the anchor graph 2.2 s (NMI 0.62 against 0.63); digits (1797) and Fashion 10000 keep the k-NN
// graph's quality (0.877, 0.629).

/// The graph a fit clusters and where new rows go.
struct TrainingGraph {
    std::shared_ptr<const graph::SparseGraph> A;
    std::vector<double> degree;
    graph::Components parts;
    std::shared_ptr<const graph::Locator> locator;
    MethodFacts facts;  ///< how it was searched, q, and (once taken) the spectrum's rank
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
    return graph_choice(p, n, d) == GraphChoice::exact;
}

/// The neighbour graph of the training rows (stage "graph"): exact or NN-descent q-NN lists,
/// symmetrised; with neighbors=auto, q grows while the graph is disconnected.
TrainingGraph graph_of_rows(FitSession& c) {
    c.begin_stage("graph");
    const int64_t n = c.X.rows;
    graph::SearchRows rows(c.X, c.shift(), c.isa, c.threads);
    if (const int64_t far = rows.first_too_far(); far >= 0) refuse_far_rows(c, c.part.offset + far);
    const bool exact = exact_search(c.p, n, c.X.cols);
    TrainingGraph g;
    g.facts.graph = exact ? GraphChoice::exact : GraphChoice::nndescent;
    // The first q is searched alone; when its graph has a fragment, the largest candidate is
    // searched once and every larger q takes its lists' first q entries (the exact search's
    // lists for q, and NN-descent's best q of a wider search): never a search per candidate.
    const std::vector<int64_t> candidates = neighbour_counts(c.p, n);
    graph::NeighbourLists widest;
    int64_t q = 0;
    for (size_t at = 0; at < candidates.size(); ++at) {
        q = candidates[at];
        if (at == 1) {
            widest = exact ? graph::exact_self_neighbours(rows, candidates.back(), c.threads)
                           : graph::nndescent_neighbours(rows, candidates.back(), c.p.seed, c.threads);
        }
        graph::SparseGraph A =
            graph::symmetrised(at == 0 ? (exact ? graph::exact_self_neighbours(rows, q, c.threads)
                                                : graph::nndescent_neighbours(rows, q, c.p.seed, c.threads))
                                       : graph::first_neighbours(widest, q));
        g.parts = graph::components(A);
        g.A = std::make_shared<const graph::SparseGraph>(std::move(A));
        const int64_t smallest = *std::min_element(g.parts.sizes.begin(), g.parts.sizes.end());
        if (2 * c.p.k * smallest >= n) break;
    }
    g.degree = graph::degrees(*g.A);
    g.facts.neighbors = q;
    g.locator = std::make_shared<graph::PointLocator>(std::move(rows), q, c.threads);
    c.end_stage("graph");
    return g;
}

/// A user's graph (kkm_fit_graph): nothing searched, q = 0.
TrainingGraph graph_of_user(graph::SparseGraph A) {
    TrainingGraph g;
    g.parts = graph::components(A);
    g.degree = graph::degrees(A);
    g.A = std::make_shared<const graph::SparseGraph>(std::move(A));
    g.locator = std::make_shared<graph::AffinityLocator>(g.A);
    return g;
}

/// heat_t so large that e^{−t(1−λ)/2} underflows float32 for every eigenvalue below 1 but
/// fewer than k: the heat kernel is then constant on each connected component and k clusters
/// cannot be told apart (knn returned a degenerate partition, heat an error blaming gamma).
void require_features_above_underflow(const Params& p, const std::vector<double>& values) {
    const double floor = std::log(static_cast<double>(std::numeric_limits<float>::min()));  // about -87.3
    int64_t live = 0;
    for (double v : values) live += -p.heat_t * (1.0 - v) / 2.0 > floor ? 1 : 0;
    if (live >= p.k) return;
    invalid_argument("heat_t=" + message_number(p.heat_t) + " leaves " + std::to_string(live) + " of the " +
                     std::to_string(values.size()) +
                     " heat features above float32's smallest value (e^{-t(1-lambda)/2} underflows): the heat kernel "
                     "is then constant on each connected component and k=" +
                     std::to_string(p.k) + " clusters cannot be told apart; lower heat_t (default 80)");
}

/// The heat map of the graph (stage "eigen"): its top r eigenpairs.
graph::HeatMap heat_map(FitSession& c, const TrainingGraph& g) {
    c.begin_stage("eigen");
    require_rank_for_components(c.p, g.parts.count);
    const int64_t r = heat_rank(c.p, g.A->n, g.parts.count);
    graph::Eigenpairs e = graph::top_eigenpairs(*g.A, g.degree, g.parts, r, c.p.seed, c.threads);
    require_features_above_underflow(c.p, e.values);
    graph::HeatMap map;
    map.values = std::move(e.values);
    map.vectors = std::move(e.vectors);
    map.degree = g.degree;
    map.t = c.p.heat_t;
    map.normalise = c.p.heat_normalize;
    c.end_stage("eigen");
    return map;
}

/// k-means on the heat features, restart by restart: k-means++ (or random) seeds and Lloyd on
/// the leading k coordinates first (each row scaled to unit length: the k-dimensional spectral
/// embedding), then Lloyd on all r from there. Seeding in all r directions at once misses the
/// best split where the slow eigenvectors along each cluster rival the one between clusters:
/// on two moons (make_moons(1000, noise 0.05)) 4 of 20 seeds kept a worse split through all 10
/// restarts; from the k-dimensional start 20 of 20 found the lowest objective (ARI 1), and
/// digits, Satellite, Fashion-MNIST and Vowel reached the same objectives as before.
class FeatureClustering {
public:
    FeatureClustering(FitSession& c, const graph::HeatMap& map, const Matrix& F)
        : c_(c), fine_(F.view(), {}, c.p.k, c.threads, c.isa) {
        if (c.p.k >= map.dim()) return;  // the leading k coordinates are all of them
        graph::HeatMap lead;
        lead.values.assign(map.values.begin(), map.values.begin() + c.p.k);
        lead.vectors = Matrix(map.vectors.rows, c.p.k);
        for (int64_t i = 0; i < map.vectors.rows; ++i) {
            std::copy(map.vectors.row(i), map.vectors.row(i) + c.p.k, lead.vectors.row(i));
        }
        lead.t = map.t;
        lead.normalise = true;
        leading_ = graph::training_features(lead, c.threads);
        coarse_.emplace(leading_.view(), std::vector<float>{}, c.p.k, c.threads, c.isa);
    }

    /// Restart r's labels and objective on the features.
    LloydResult run(int64_t restart) {
        FeatureLloyd& first = coarse_ ? *coarse_ : fine_;
        Rng rng = restart_rng(c_.p.seed, Stream::seeding, static_cast<uint64_t>(restart));
        c_.begin_stage("seeding");
        std::vector<int32_t> labels =
            seed_centres(c_.p.init, first.size(), c_.p.k, {}, first.distance_oracle(), rng).labels;
        c_.end_stage("seeding");
        c_.begin_stage("lloyd");
        const LloydOptions options{c_.p.k, c_.p.max_iter, c_.p.tol};
        if (coarse_) labels = run_lloyd(*coarse_, std::move(labels), {}, options).labels;
        LloydResult result = run_lloyd(fine_, std::move(labels), {}, options);
        c_.end_stage("lloyd");
        return result;
    }
    FeatureLloyd& features() { return fine_; }

private:
    FitSession& c_;
    FeatureLloyd fine_;
    Matrix leading_;
    std::optional<FeatureLloyd> coarse_;
};

/// The training rows' assignment by the model itself (its objective weighs knn rows by degree).
void finish_graph_model(FitSession& c, GraphModel& model, const std::vector<double>& weights) {
    c.begin_stage("assign");
    const auto start = std::chrono::steady_clock::now();
    const int64_t n = model.n_train();
    std::vector<int32_t> labels(static_cast<size_t>(n));
    std::vector<float> dist(static_cast<size_t>(n));
    model.assign_placed(model.locator().training(), labels.data(), dist.data(), nullptr, c.threads);
    double objective = 0;
    for (int64_t i = 0; i < n; ++i) {
        objective += (weights.empty() ? 1.0 : weights[static_cast<size_t>(i)]) * dist[static_cast<size_t>(i)];
    }
    std::vector<double> mass = cluster_weights(labels, {}, c.p.k);
    model.record_assignment(std::move(labels), objective, std::move(mass),
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

std::unique_ptr<FittedModel> heat_exact(FitSession& c, TrainingGraph& g, graph::HeatMap map, const Matrix& F) {
    FeatureClustering clustering(c, map, F);
    const LloydResult best = best_restart(c.p.n_init, [&](int64_t r) { return clustering.run(r); });
    Matrix centroids = clustering.features().centroids(best.centre_members());
    const std::vector<double> mass = cluster_weights(best.centre_members(), {}, c.p.k);
    auto model = std::make_unique<HeatModel>(c.p, g.A->n, g.locator->input_dim(), c.report(g.facts, best.iterations),
                                             g.locator, std::move(map), std::move(centroids));
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

std::unique_ptr<FittedModel> knn_exact(FitSession& c, TrainingGraph& g, const graph::HeatMap& map, const Matrix& F) {
    FeatureClustering clustering(c, map, F);
    graph::NcutLloyd ncut(*g.A, g.degree, c.p.k, c.threads);
    const std::vector<float> weights = ncut.weights();
    const LloydResult best = best_restart(c.p.n_init, [&](int64_t r) {
        LloydResult seeded = clustering.run(r);
        c.begin_stage("ncut");
        LloydResult refined =
            run_lloyd(ncut, std::move(seeded.labels), weights, LloydOptions{c.p.k, c.p.max_iter, c.p.tol});
        c.end_stage("ncut");
        return refined;
    });
    DualCoefficients centres = label_centres(best.centre_members(), g.degree, ncut.centres(best.centre_members()));
    auto model = std::make_unique<KnnModel>(c.p, g.A->n, g.locator->input_dim(), c.report(g.facts, best.iterations),
                                            g.locator, g.A, std::move(centres));
    finish_graph_model(c, *model, g.degree);
    return model;
}

/// The k points nearest to the centroids of a labelling of the features, one per cluster (ties
/// to the lower index; a cluster without members takes the first point not taken): the single
/// points seed 004's mini-batch algorithm starts its centres from.
std::vector<int64_t> nearest_points(const Matrix& F, const std::vector<int32_t>& labels, const Matrix& C) {
    const int64_t k = C.rows, r = F.cols;
    std::vector<int64_t> best(static_cast<size_t>(k), -1);
    std::vector<double> best_d(static_cast<size_t>(k), 0.0);
    for (int64_t i = 0; i < F.rows; ++i) {
        const int32_t j = labels[static_cast<size_t>(i)];
        double s = 0;
        for (int64_t l = 0; l < r; ++l) {
            const double diff = static_cast<double>(F.row(i)[l]) - C.row(j)[l];
            s += diff * diff;
        }
        if (best[static_cast<size_t>(j)] < 0 || s < best_d[static_cast<size_t>(j)]) {
            best[static_cast<size_t>(j)] = i;
            best_d[static_cast<size_t>(j)] = s;
        }
    }
    int64_t next = 0;
    for (int64_t& b : best) {
        while (b < 0) {
            if (std::find(best.begin(), best.end(), next) == best.end()) b = next;
            ++next;
        }
    }
    return best;
}

/// Σ_i w_i · (row i's distance to its nearest centre) of a model over the training nodes.
double training_objective(const GraphModel& model, const std::vector<double>& weights, int threads) {
    const int64_t n = model.n_train();
    std::vector<int32_t> labels(static_cast<size_t>(n));
    std::vector<float> dist(static_cast<size_t>(n));
    model.assign_placed(model.locator().training(), labels.data(), dist.data(), nullptr, threads);
    double total = 0;
    for (int64_t i = 0; i < n; ++i)
        total += (weights.empty() ? 1.0 : weights[static_cast<size_t>(i)]) * dist[static_cast<size_t>(i)];
    return total;
}

/// A mini-batch run's centres as heat centroids: Σ_t coef_t f(p_t).
Matrix heat_centroids(const MinibatchResult& result, const Matrix& F) {
    Matrix C(static_cast<int64_t>(result.centres.size()), F.cols);
    std::vector<double> acc(static_cast<size_t>(F.cols));
    for (size_t j = 0; j < result.centres.size(); ++j) {
        std::fill(acc.begin(), acc.end(), 0.0);
        const SparseCentre& centre = result.centres[j];
        for (size_t t = 0; t < centre.points.size(); ++t) {
            for (int64_t l = 0; l < F.cols; ++l)
                acc[static_cast<size_t>(l)] += centre.coef[t] * F.row(centre.points[t])[l];
        }
        for (int64_t l = 0; l < F.cols; ++l)
            C.row(static_cast<int64_t>(j))[l] = static_cast<float>(acc[static_cast<size_t>(l)]);
    }
    return C;
}

/// method=minibatch (kernel=heat): seed 004's truncated mini-batch kernel k-means on the heat
/// kernel K(i, j) = f(i)·f(j), its k initial centres the points nearest to the centroids of
/// k-means on the heat features; restarts compared on every training row.
std::unique_ptr<FittedModel> graph_minibatch(FitSession& c, TrainingGraph& g, graph::HeatMap map, const Matrix& F) {
    FeatureClustering clustering(c, map, F);
    const graph::FeaturePointKernel K(F, c.isa);
    MinibatchOptions options = minibatch_options(c.p, c.threads, c.isa);
    struct Run {
        std::unique_ptr<HeatModel> model;
        double objective = 0;
        int32_t iterations = 0;
    };
    Run best = best_restart(
        c.p.n_init,
        [&](int64_t r) {
            const LloydResult seeded = clustering.run(r);
            options.initial = nearest_points(F, seeded.labels, clustering.features().centroids(seeded.labels));
            c.begin_stage("minibatch");
            const MinibatchResult result = minibatch_kernel_kmeans(K, {}, options, c.p.seed, static_cast<uint64_t>(r));
            c.end_stage("minibatch");
            Run run;
            run.model = std::make_unique<HeatModel>(c.p, g.A->n, g.locator->input_dim(), FitReport{}, g.locator, map,
                                                    heat_centroids(result, F));
            run.objective = training_objective(*run.model, {}, c.threads);
            run.iterations = result.iterations;
            return run;
        },
        [](const Run& run) { return run.objective; });
    // The winner again with the fit's report (the models are cheap beside the graph).
    auto model = std::make_unique<HeatModel>(c.p, g.A->n, g.locator->input_dim(), c.report(g.facts, best.iterations),
                                             g.locator, std::move(map), best.model->centroids());
    finish_graph_model(c, *model, {});
    return model;
}

/// kernel=knn's kernel K = σD⁻¹ + D⁻¹AD⁻¹ in float32: a node whose degree is below
/// 1/FLT_MAX (all-denormal weights) has K(i, i) beyond float32 (the fit ended "objective is
/// not finite"). The normalized cut does not depend on the weights' scale: the message says so.
void require_knn_degrees(const TrainingGraph& g) {
    const double least = 1.0 / static_cast<double>(std::numeric_limits<float>::max());
    const auto it = std::min_element(g.degree.begin(), g.degree.end());
    if (it == g.degree.end() || *it >= least) return;
    invalid_data("kernel=knn: node " + std::to_string(it - g.degree.begin()) + "'s degree " + message_number(*it) +
                 " is below 1/FLT_MAX, so its kernel value 1/degree overflows float32; the normalized cut does not "
                 "depend on the weights' scale: multiply them by a constant (e.g. divide by the largest)");
}

std::unique_ptr<FittedModel> fit_graph(FitSession& c, TrainingGraph g) {
    if (c.p.k > g.A->n) {
        invalid_argument("k=" + std::to_string(c.p.k) + " exceeds the number of nodes n=" + std::to_string(g.A->n));
    }
    if (c.p.kernel == KernelType::knn) require_knn_degrees(g);
    const memory::GraphFootprint f =
        memory::graph_footprint(c.p, g.A->n, std::max<int64_t>(c.X.cols, 1), 0, heat_rank(c.p, g.A->n, g.parts.count),
                                c.threads, memory::GraphSearch::none, g.A->entries());
    const MemoryLedger::Charge graph_held =
        c.charge("eigen", "the graph and its degrees",
                 graph::held_graph_footprint(static_cast<double>(g.A->n), static_cast<double>(g.A->entries())));
    graph::HeatMap map;
    {
        const MemoryLedger::Charge spectrum =
            c.charge("eigen", "the Lanczos basis, its restarts and the eigenvectors", f.spectrum);
        map = heat_map(c, g);
        g.facts.heat_rank = map.dim();
    }
    c.begin_stage("features");
    const MemoryLedger::Charge features = c.charge("features", "the n x r heat features and eigenvectors", f.features);
    const Matrix F = graph::training_features(map, c.threads);
    c.end_stage("features");
    const MemoryLedger::Charge clustering =
        c.charge("lloyd", "k-means on the heat features, the normalized-cut Lloyd or the mini-batches, the centres",
                 f.clustering + f.model);
    if (c.p.method == Method::minibatch) return graph_minibatch(c, g, std::move(map), F);
    if (c.p.kernel == KernelType::heat) return heat_exact(c, g, std::move(map), F);
    return knn_exact(c, g, map, F);
}

}  // namespace

void refuse_far_rows(const FitSession& c, int64_t fallback) {
    const std::vector<float>& shift = c.shift();
    int64_t farthest = -1;
    double worst = -1;
    for (int64_t q = 0; q < block_count(c.X.rows, chunk_rows_of(c.X.rows)); ++q) {
        stream_chunk(c, q, [&](ConstMatrix rows, int64_t begin) {
            for (int64_t i = 0; i < rows.rows; ++i) {
                double s = 0;
                for (int64_t t = 0; t < rows.cols; ++t) {
                    const double v = static_cast<double>(rows.row(i)[t]) -
                                     (shift.empty() ? 0.0 : static_cast<double>(shift[static_cast<size_t>(t)]));
                    s += v * v;
                }
                if (s > worst) {
                    worst = s;
                    farthest = begin + i;
                }
            }
        });
    }
    graph::too_far("X", farthest >= 0 && !(worst <= graph::kSearchNormLimit) ? c.part.offset + farthest : fallback);
}

/// heat_rank, or auto = max(2k, 20) plus one eigenpair for every connected component beyond
/// the first (each component's indicator is an eigenvector of eigenvalue 1, and the clusters
/// need the directions within the components too); at most n. The up-front memory check
/// counts one component.
int64_t heat_rank(const Params& p, int64_t n, int64_t components) {
    const int64_t r = p.heat_rank > 0 ? p.heat_rank : std::max<int64_t>(2 * p.k, 20) + components - 1;
    return std::min(r, n);
}

/// An explicit heat_rank must give every component its indicator.
void require_rank_for_components(const Params& p, int64_t components) {
    if (p.heat_rank > 0 && p.heat_rank < components) {
        invalid_data("the graph has " + std::to_string(components) +
                     " connected components but heat_rank=" + std::to_string(p.heat_rank) +
                     " eigenpairs: each component needs its own (eigenvalue 1), so the features could not tell "
                     "them apart; set heat_rank to at least " +
                     std::to_string(components) +
                     " (auto adds one per component), or connect the graph (a "
                     "larger neighbors)");
    }
}

GraphChoice graph_choice(const Params& p, int64_t n, int64_t d) {
    if (p.graph != GraphChoice::automatic) return p.graph;
    if (anchor_graph_rows(p.kernel, p.method, p.graph, n)) return GraphChoice::anchor;
    return graph::exact_graph_work(n, d) <= kExactGraphWork ? GraphChoice::exact : GraphChoice::nndescent;
}

bool anchor_graph(const Params& p, int64_t n, int64_t d) {
    return graph_kernel(p) && graph_choice(p, n, d) == GraphChoice::anchor;
}

bool graph_kernel(const Params& p) {
    return kernel_traits(p.kernel).graph;
}

void validate_graph_params(const Params& p) {
    const std::string kernel = std::string("kernel=") + to_text(p.kernel);
    if (method_traits(p.method).features) {
        invalid_argument(std::string("method=") + to_text(p.method) + " needs a kernel function of two rows; " +
                         kernel + " is defined on the training graph and supports method=exact (the default)" +
                         (p.kernel == KernelType::knn ? "" : " and minibatch"));
    }
    if (p.kernel == KernelType::knn && p.method == Method::minibatch) {
        invalid_argument(
            "method=minibatch is not available with kernel=knn: seed 004's truncated centres miss a sparse k-nn "
            "kernel row almost everywhere, and the centre of least norm then takes nearly every row (one "
            "cluster; NMI below 0.03 on every data set of bench/graph.py). Use method=exact (the default: the "
            "normalized-cut Lloyd, O(nnz + nk) per iteration) or kernel=heat method=minibatch");
    }
    if (p.refine == Refine::hartigan) {
        invalid_argument("refine=hartigan is not available with " + kernel + " (its Lloyd runs on the graph)");
    }
    if (p.gamma_search || p.gamma > 0) {
        invalid_argument("gamma does not apply to " + kernel + " (a graph kernel has no bandwidth): leave gamma=auto");
    }
    if (p.k == 0) invalid_argument("k=auto is not available with " + kernel + ": set k");
    if (p.graph == GraphChoice::anchor && p.method == Method::minibatch) {
        invalid_argument(
            "graph=anchor clusters its heat features by k-means (method=exact, the default); method=minibatch "
            "runs on the k-NN graph's features: set graph=exact or nndescent, or leave method=auto");
    }
    // With graph=auto the rows decide (validate_graph_data); a given graph has no anchors
    // (validate_given_graph).
    if (p.graph != GraphChoice::anchor && p.graph != GraphChoice::automatic && p.anchors > 0) {
        invalid_argument(std::string("anchors applies to graph=anchor only, not graph=") + to_text(p.graph) +
                         ": set graph=anchor (or graph=auto, which takes it above 20000 rows with kernel=heat, "
                         "60000 with kernel=knn) or leave anchors=auto");
    }
}

void validate_given_graph(const Params& p) {
    if (p.anchors > 0) {
        invalid_argument(
            "anchors applies to graph=anchor only: kkm_fit_graph clusters the graph it is given, "
            "which has no anchors; leave anchors=auto");
    }
}

void validate_graph_data(const Params& p, int64_t n, int64_t d, bool weighted) {
    const GraphChoice chosen = graph_choice(p, n, d);
    if (p.anchors > 0 && chosen != GraphChoice::anchor) {
        invalid_argument(std::string("anchors applies to graph=anchor only: graph=auto chose graph=") +
                         to_text(chosen) + " for n=" + std::to_string(n) +
                         " rows (anchor above 20000 rows with kernel=heat, 60000 with kernel=knn); set graph=anchor "
                         "or leave anchors=auto");
    }
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
    if (anchor_graph(p, n, d)) return anchor_graph_work(p, n, d);
    const auto dn = static_cast<double>(n), q = static_cast<double>(p.neighbors > 0 ? p.neighbors : 10);
    if (exact_search(p, n, d)) return graph::exact_graph_work(n, d);
    return 40.0 * dn * q * q * static_cast<double>(d);
}

/// How the fit builds its graph: none for a given graph (kkm_fit_graph), else the search.
memory::GraphSearch graph_search(const FitShape& s) {
    if (!s.has_rows) return memory::GraphSearch::none;
    return exact_search(s.p, s.rows, s.cols) ? memory::GraphSearch::exact : memory::GraphSearch::nndescent;
}

double check_graph_budget(const FitShape& s, const MemoryLedger& ledger) {
    if (s.has_rows && anchor_graph(s.p, s.n_global, s.cols)) return check_anchor_budget(s, ledger);
    const int64_t n = s.rows, q = s.has_rows ? neighbour_counts(s.p, n).back() : 0;
    const memory::GraphFootprint f =
        memory::graph_footprint(s.p, n, s.cols, q, heat_rank(s.p, n), s.threads, graph_search(s), s.graph_entries);
    return require_budget(s, ledger, s.p.kernel == KernelType::knn ? "exact (kernel=knn)" : "exact (kernel=heat)",
                          f.peak(),
                          s.has_rows ? "the training rows, the neighbour graph, its eigenvectors and the heat features"
                                     : "the given graph's entries, checked and held, its eigenvectors and the heat "
                                       "features");
}

std::unique_ptr<FittedModel> fit_graph_rows(FitSession& c) {
    if (anchor_graph(c.p, c.n_global(), c.X.cols)) return fit_anchor_graph(c);
    const int64_t n = c.X.rows, q = neighbour_counts(c.p, n).back();
    const memory::GraphFootprint f =
        memory::graph_footprint(c.p, n, c.X.cols, q, heat_rank(c.p, n), c.threads, graph_search(c.shape()));
    const MemoryLedger::Charge rows = c.charge("graph", "the centred training rows (kept by the model)", f.rows);
    TrainingGraph g;
    {
        const MemoryLedger::Charge search =
            c.charge("graph", "the neighbour lists and the search's working set", f.search + f.graph);
        g = graph_of_rows(c);
    }
    return fit_graph(c, std::move(g));
}

std::unique_ptr<FittedModel> fit_graph_user(FitSession& c, const graph::CsrView& csr) {
    graph::SparseGraph A;
    {
        const MemoryLedger::Charge copy =
            c.charge("graph", "the given graph's entries, checked and compressed",
                     graph::checked_graph_footprint(static_cast<double>(csr.n), static_cast<double>(c.graph_entries)));
        A = graph::checked_graph(csr.n, csr.indptr, csr.indices, csr.values);
    }
    return fit_graph(c, graph_of_user(std::move(A)));
}

}  // namespace kkm
