#include "model/serialize_graph.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/enum_text.h"
#include "core/error.h"
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
    for (double v : map.values) {
        if (!(std::abs(v) <= 1.0 + 1e-6)) bad("heat eigenvalue " + std::to_string(v) + " is outside [-1, 1]");
    }
    require_count("node degrees", map.degree.size(), n);
    for (double v : map.degree) {
        if (!(v > 0)) bad("a node degree is " + std::to_string(v) + "; degrees are positive");
    }
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
        require_count("live clusters", alive.size(), k);
        bool any = false;
        for (char a : alive) {
            if (a != 0 && a != 1)
                bad("live cluster flag " + std::to_string(static_cast<int>(a)) + " is neither 0 nor 1");
            any = any || a != 0;
        }
        if (!any) bad("no cluster has members");
        auto model = std::make_shared<HeatModel>(std::move(p), n, d, std::move(report), std::move(locator),
                                                 std::move(map), std::move(centroids));
        model->set_alive(std::move(alive));
        return model;
    }
    if (A == nullptr) A = load_graph(r, n);
    DualCoefficients z = load_coefficients(r, n, k);
    return std::make_shared<KnnModel>(std::move(p), n, d, std::move(report), std::move(locator), std::move(A),
                                      std::move(z));
}

}  // namespace kkm
