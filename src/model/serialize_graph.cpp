#include "model/serialize_graph.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/enum_text.h"
#include "core/error.h"
#include "graph/ncut.h"
#include "kernels/kernel_traits.h"

namespace kkm {
namespace {

enum class LocatorKind : uint32_t { points = 1, affinities = 2 };

[[noreturn]] void bad(const std::string& message) {
    fail(KKM_ERR_FORMAT, "corrupted model: " + message);
}

void require_count(const char* what, size_t have, int64_t want) {
    if (static_cast<int64_t>(have) != want) {
        bad(std::string(what) + " has " + std::to_string(have) + " entries, expected " + std::to_string(want));
    }
}

void save_graph(const graph::SparseGraph& A, Writer& w) {
    w.array<int64_t>(tag("GPTR"), A.indptr);
    w.array<int32_t>(tag("GIDX"), A.indices);
    w.array<float>(tag("GVAL"), A.values);
}

/// A stored graph, checked as a user's graph is (offsets, columns, weights, symmetry, degrees).
std::shared_ptr<const graph::SparseGraph> load_graph(Reader& r, int64_t n) {
    const std::vector<int64_t> indptr = r.array<int64_t>(tag("GPTR"));
    const std::vector<int32_t> indices = r.array<int32_t>(tag("GIDX"));
    const std::vector<float> values = r.array<float>(tag("GVAL"));
    require_count("graph offsets", indptr.size(), n + 1);
    require_count("graph weights", values.size(), static_cast<int64_t>(indices.size()));
    if (indptr.front() != 0 || indptr.back() != static_cast<int64_t>(indices.size())) {
        bad("graph offsets run from " + std::to_string(indptr.front()) + " to " + std::to_string(indptr.back()) +
            " over " + std::to_string(indices.size()) + " entries");
    }
    const std::vector<int64_t> wide(indices.begin(), indices.end());
    return std::make_shared<const graph::SparseGraph>(
        graph::checked_graph(n, indptr.data(), wide.data(), values.data()));
}

std::shared_ptr<const graph::Locator> load_locator(Reader& r, const FitReport& report, int64_t n, int64_t d,
                                                   std::shared_ptr<const graph::SparseGraph>& A, int threads) {
    const auto kind = r.scalar<uint32_t>("graph locator kind");
    if (kind == static_cast<uint32_t>(LocatorKind::affinities)) {
        if (d != n)
            bad("a model fitted on a graph takes rows of n_train=" + std::to_string(n) +
                " affinities, not d=" + std::to_string(d));
        A = load_graph(r, n);
        return std::make_shared<graph::AffinityLocator>(A);
    }
    if (kind != static_cast<uint32_t>(LocatorKind::points))
        bad("graph locator kind " + std::to_string(kind) + " is unknown");
    const auto q = r.scalar<int64_t>("neighbours of new rows");
    Matrix rows = r.matrix(tag("GROW"));
    if (rows.rows != n || rows.cols != d) {
        bad("training rows are " + std::to_string(rows.rows) + " x " + std::to_string(rows.cols) + ", expected " +
            std::to_string(n) + " x " + std::to_string(d));
    }
    if (q < 1 || q > n) bad("neighbours of new rows q=" + std::to_string(q) + " outside [1, n_train]");
    graph::SearchRows search(std::move(rows), report.shift, report.isa, threads);
    if (const int64_t far = search.first_too_far(); far >= 0) {
        bad("training row " + std::to_string(far) + " is not finite or too far from the mean for a search in float32");
    }
    return std::make_shared<graph::PointLocator>(std::move(search), q, threads);
}

/// How far below 1 the saved top eigenvalue may lie (Lanczos converges to about 1e-10).
constexpr double kTopEigenvalueTolerance = 1e-4;

/// Degrees as a fit computes them: float64 sums of positive float32 weights, so at least the
/// smallest positive float and finite (1e-300 cannot come from a graph).
void require_degrees(const std::vector<double>& degree) {
    for (size_t i = 0; i < degree.size(); ++i) {
        const double v = degree[i];
        if (!(v >= static_cast<double>(std::numeric_limits<float>::denorm_min())) || !std::isfinite(v)) {
            bad("node " + std::to_string(i) + "'s degree is " + std::to_string(v) +
                "; a degree is a sum of positive float32 weights");
        }
    }
}

graph::HeatMap load_heat_map(Reader& r, const Params& p, int64_t n) {
    graph::HeatMap map;
    map.values = r.array<double>(tag("HVAL"));
    map.vectors = r.matrix(tag("HVEC"));
    map.degree = r.array<double>(tag("GDEG"));
    const auto rank = static_cast<int64_t>(map.values.size());
    if (rank < 1 || map.vectors.rows != n || map.vectors.cols != rank) {
        bad("heat eigenvectors are " + std::to_string(map.vectors.rows) + " x " + std::to_string(map.vectors.cols) +
            " for " + std::to_string(rank) + " eigenvalues and n_train=" + std::to_string(n));
    }
    // The top eigenpairs of D^-1/2 A D^-1/2, in descending order: the first is 1 (√d).
    for (size_t l = 0; l < map.values.size(); ++l) {
        const double v = map.values[l];
        if (!(std::abs(v) <= 1.0 + 1e-6)) bad("heat eigenvalue " + std::to_string(v) + " is outside [-1, 1]");
        if (l > 0 && v > map.values[l - 1]) bad("heat eigenvalue " + std::to_string(l) + " exceeds the one before it");
    }
    if (!(map.values.front() >= 1.0 - kTopEigenvalueTolerance)) {
        bad("the top heat eigenvalue is " + std::to_string(map.values.front()) +
            ", not 1 (the normalized affinity's largest)");
    }
    require_count("node degrees", map.degree.size(), n);
    require_degrees(map.degree);
    map.t = p.heat_t;
    map.normalise = p.heat_normalize;
    return map;
}

DualCoefficients load_coefficients(Reader& r, int64_t n, int64_t k) {
    DualCoefficients z;
    z.at = r.array<int64_t>(tag("ZPTR"));
    z.cluster = r.array<int32_t>(tag("ZCLU"));
    z.z = r.array<double>(tag("ZCOE"));
    const std::vector<double> norm = r.array<double>(tag("ZNRM"));
    const std::vector<char> alive = r.array<char>(tag("ZALV"));
    require_count("centre coefficient offsets", z.at.size(), n + 1);
    require_count("centre coefficients", z.z.size(), static_cast<int64_t>(z.cluster.size()));
    require_count("centre norms", norm.size(), k);
    require_count("live clusters", alive.size(), k);
    if (z.at.front() != 0 || z.at.back() != static_cast<int64_t>(z.cluster.size())) bad("centre coefficient offsets");
    for (size_t i = 1; i < z.at.size(); ++i) {
        if (z.at[i] < z.at[i - 1]) bad("centre coefficient offsets decrease at " + std::to_string(i));
    }
    for (int32_t c : z.cluster) {
        if (c < 0 || c >= k) bad("a centre coefficient names cluster " + std::to_string(c) + ", outside [0, k)");
    }
    bool any = false;
    z.norm.resize(static_cast<size_t>(k));
    for (int64_t c = 0; c < k; ++c) {
        const char a = alive[static_cast<size_t>(c)];
        if (a != 0 && a != 1) bad("live cluster flag " + std::to_string(static_cast<int>(a)) + " is neither 0 nor 1");
        if (norm[static_cast<size_t>(c)] < 0) bad("a centre's squared norm is negative");
        z.norm[static_cast<size_t>(c)] =
            a != 0 ? norm[static_cast<size_t>(c)] : std::numeric_limits<double>::infinity();
        any = any || a != 0;
    }
    if (!any) bad("no cluster has members");
    return z;
}

/// A kernel=knn model's centres are fixed by its clusters and the graph (the fit's
/// label_centres): one coefficient per training node, z_i = d_i / mass of i's cluster, and
/// the norms (σ mass + links) / mass². Anything else is FORMAT, naming the first difference.
void check_knn_centres(const KnnModel& model, int64_t k) {
    const DualCoefficients& z = model.centres();
    const graph::SparseGraph& A = model.graph();
    const std::vector<double>& degree = model.degree();
    const int64_t n = A.n;
    for (int64_t i = 0; i <= n; ++i) {
        if (z.at[static_cast<size_t>(i)] != i) {
            bad("a kernel=knn model holds one centre coefficient per training node; node " + std::to_string(i) +
                "'s offset is " + std::to_string(z.at[static_cast<size_t>(i)]));
        }
    }
    const graph::NcutCentres want = graph::NcutLloyd(A, degree, k, 1).centres(z.cluster);
    const auto differs = [](double have, double expected) {
        return !(std::abs(have - expected) <= 1e-12 * std::abs(expected));
    };
    for (int64_t i = 0; i < n; ++i) {
        const double expected = degree[static_cast<size_t>(i)] / want.mass[static_cast<size_t>(z.cluster[i])];
        if (differs(z.z[static_cast<size_t>(i)], expected)) {
            bad("node " + std::to_string(i) + "'s centre coefficient is " +
                std::to_string(z.z[static_cast<size_t>(i)]) + " but its degree over its cluster's is " +
                std::to_string(expected));
        }
    }
    for (int64_t c = 0; c < k; ++c) {
        const double have = z.norm[static_cast<size_t>(c)], expected = want.norm[static_cast<size_t>(c)];
        if (std::isfinite(have) != std::isfinite(expected) || (std::isfinite(expected) && differs(have, expected))) {
            bad("centre " + std::to_string(c) + "'s squared norm is " + std::to_string(have) +
                " but its coefficients give " + std::to_string(expected));
        }
    }
}

/// The training rows' labels are what the loaded centres give them (the fit's last step):
/// a changed coefficient, norm, eigenpair, degree or centroid that moves a training node is
/// FORMAT, naming the node.
void check_training_labels(const GraphModel& model) {
    const int64_t n = model.n_train();
    std::vector<int32_t> labels(static_cast<size_t>(n));
    model.assign_placed(model.locator().training(), labels.data(), nullptr, nullptr, 1);
    const std::vector<int32_t>& saved = model.report().labels;
    for (int64_t i = 0; i < n; ++i) {
        if (labels[static_cast<size_t>(i)] != saved[static_cast<size_t>(i)]) {
            bad("training node " + std::to_string(i) + " is labelled " + std::to_string(saved[static_cast<size_t>(i)]) +
                " but the model's centres give it " + std::to_string(labels[static_cast<size_t>(i)]));
        }
    }
}

}  // namespace

void save_graph_body(const FittedModel& fitted, Writer& w) {
    const auto& model = static_cast<const GraphModel&>(fitted);  // kind() is graph
    const auto* knn = dynamic_cast<const KnnModel*>(&model);
    const auto* heat = dynamic_cast<const HeatModel*>(&model);
    if (const auto* points = dynamic_cast<const graph::PointLocator*>(&model.locator())) {
        w.scalar(static_cast<uint32_t>(LocatorKind::points));
        w.scalar<int64_t>(points->q());
        w.matrix(tag("GROW"), points->rows().centred());
    } else {
        const auto& affinities = dynamic_cast<const graph::AffinityLocator&>(model.locator());
        w.scalar(static_cast<uint32_t>(LocatorKind::affinities));
        save_graph(affinities.graph(), w);
    }
    if (heat != nullptr) {
        w.array<double>(tag("HVAL"), heat->map().values);
        w.matrix(tag("HVEC"), heat->map().vectors);
        w.array<double>(tag("GDEG"), heat->map().degree);
        w.matrix(tag("HCEN"), heat->centroids());
        w.array<char>(tag("HALV"), heat->alive());
        return;
    }
    if (dynamic_cast<const graph::PointLocator*>(&model.locator()) != nullptr) save_graph(knn->graph(), w);
    const DualCoefficients& z = knn->centres();
    w.array<int64_t>(tag("ZPTR"), z.at);
    w.array<int32_t>(tag("ZCLU"), z.cluster);
    w.array<double>(tag("ZCOE"), z.z);
    std::vector<double> norm(z.norm.size());
    std::vector<char> alive(z.norm.size());
    for (size_t c = 0; c < z.norm.size(); ++c) {
        alive[c] = std::isfinite(z.norm[c]) ? 1 : 0;
        norm[c] = alive[c] != 0 ? z.norm[c] : 0.0;
    }
    w.array<double>(tag("ZNRM"), norm);
    w.array<char>(tag("ZALV"), alive);
}

std::shared_ptr<const FittedModel> load_graph_body(Reader& r, Params p, FitReport report, int64_t n, int64_t d,
                                                   int64_t k) {
    if (!kernel_traits(p.kernel).graph) {
        bad(std::string("the body holds a graph model but the parameter block says kernel=") + to_text(p.kernel));
    }
    const int threads = 1;
    std::shared_ptr<const graph::SparseGraph> A;
    std::shared_ptr<const graph::Locator> locator = load_locator(r, report, n, d, A, threads);
    if (p.kernel == KernelType::heat) {
        graph::HeatMap map = load_heat_map(r, p, n);
        Matrix centroids = r.matrix(tag("HCEN"));
        std::vector<char> alive = r.array<char>(tag("HALV"));
        if (centroids.rows != k || centroids.cols != map.dim()) {
            bad("heat centroids are " + std::to_string(centroids.rows) + " x " + std::to_string(centroids.cols) +
                ", expected " + std::to_string(k) + " x " + std::to_string(map.dim()));
        }
        for (int64_t j = 0; j < centroids.rows; ++j) {
            for (int64_t l = 0; l < centroids.cols; ++l) {
                if (!std::isfinite(centroids.row(j)[l])) bad("heat centroid " + std::to_string(j) + " is not finite");
            }
        }
        require_count("live clusters", alive.size(), k);
        bool any = false;
        for (char a : alive) {
            if (a != 0 && a != 1)
                bad("live cluster flag " + std::to_string(static_cast<int>(a)) + " is neither 0 nor 1");
            any = any || a != 0;
        }
        if (!any) bad("no cluster has members");
        if (A != nullptr && A->n == n) {  // the graph is stored: the degrees are its
            const std::vector<double> degree = graph::degrees(*A);
            for (int64_t i = 0; i < n; ++i) {
                if (map.degree[static_cast<size_t>(i)] != degree[static_cast<size_t>(i)]) {
                    bad("node " + std::to_string(i) + "'s degree is " +
                        std::to_string(map.degree[static_cast<size_t>(i)]) + " but its graph's row sums to " +
                        std::to_string(degree[static_cast<size_t>(i)]));
                }
            }
        }
        auto model = std::make_shared<HeatModel>(std::move(p), n, d, std::move(report), std::move(locator),
                                                 std::move(map), std::move(centroids));
        model->set_alive(std::move(alive));
        check_training_labels(*model);
        return model;
    }
    if (A == nullptr) A = load_graph(r, n);
    DualCoefficients z = load_coefficients(r, n, k);
    auto model = std::make_shared<KnnModel>(std::move(p), n, d, std::move(report), std::move(locator), std::move(A),
                                            std::move(z));
    check_knn_centres(*model, k);
    check_training_labels(*model);
    return model;
}

}  // namespace kkm
