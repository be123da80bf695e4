// libFuzzer target: the graph kernels (kernel=knn, kernel=heat) on fuzzed points (kkm_fit) and
// fuzzed CSR graphs (kkm_fit_graph): offsets, columns and weights from the bytes, sometimes
// asymmetric, negative, NaN, out of range, repeated, self-looped or with isolated nodes.
// Every status must be a documented one with a message (never INTERNAL); a failed fit leaves
// the model unfitted; an accepted fit has labels in [0, k), a finite objective, assigns its
// own training rows (the points, or the graph's rows as dense affinity rows) their labels with
// finite non-negative distances, and save -> load assigns identically.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "fuzz_common.h"

namespace {

using kkm_fuzz::check_status;

struct Graph {
    int64_t n = 0;
    std::vector<int64_t> indptr{0}, indices;
    std::vector<float> values;
};

/// A graph from the bytes: mostly symmetric (each drawn edge both ways), with optional damage.
Graph fuzzed_graph(FuzzedDataProvider& fdp) {
    Graph g;
    g.n = fdp.ConsumeIntegralInRange<int64_t>(1, 30);
    std::vector<std::map<int64_t, float>> rows(static_cast<size_t>(g.n));
    const int edges = fdp.ConsumeIntegralInRange<int>(0, 120);
    // Weights of ordinary size, denormal, huge (their sums reach +inf) (issue 60).
    static const float weight_scales[] = {1.0f, 1.0f, 1.0f, 1e-44f, 1e-30f, 1e30f, 3.4e37f};
    const float weight_scale = weight_scales[fdp.ConsumeIntegralInRange<size_t>(0, std::size(weight_scales) - 1)];
    const bool symmetric = fdp.ConsumeIntegralInRange<int>(0, 7) != 0;
    for (int e = 0; e < edges; ++e) {
        const auto i = fdp.ConsumeIntegralInRange<int64_t>(0, g.n - 1),
                   j = fdp.ConsumeIntegralInRange<int64_t>(0, g.n - 1);
        const float w = fdp.ConsumeBool() ? 1.0f : fdp.ConsumeFloatingPointInRange<float>(0.0f, 10.0f) * weight_scale;
        rows[static_cast<size_t>(i)][j] += w;
        if (symmetric && i != j) rows[static_cast<size_t>(j)][i] += w;
    }
    for (int64_t i = 0; i < g.n; ++i) {
        for (const auto& [j, w] : rows[static_cast<size_t>(i)]) {
            g.indices.push_back(j);
            g.values.push_back(w);
        }
        g.indptr.push_back(static_cast<int64_t>(g.indices.size()));
    }
    if (!g.values.empty()) {
        switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
            case 0: g.values[fdp.ConsumeIntegralInRange<size_t>(0, g.values.size() - 1)] = -1.0f; break;
            case 1: g.values[0] = std::numeric_limits<float>::quiet_NaN(); break;
            case 2: g.indices[fdp.ConsumeIntegralInRange<size_t>(0, g.indices.size() - 1)] = g.n + 3; break;
            case 3: g.indices.back() = -1; break;
            default: break;
        }
    }
    return g;
}

std::string graph_params(FuzzedDataProvider& fdp, int64_t n) {
    std::string p = std::string("threads=1 max_iter=5 kernel=") + (fdp.ConsumeBool() ? "knn" : "heat");
    p += " k=" + std::to_string(fdp.ConsumeIntegralInRange<int64_t>(1, std::max<int64_t>(1, n) + 1));
    p += " n_init=" + std::to_string(fdp.ConsumeIntegralInRange<int>(1, 3));
    p += " seed=" + std::to_string(fdp.ConsumeIntegral<uint16_t>());
    if (fdp.ConsumeBool())
        p += " method=minibatch batch_size=" + std::to_string(fdp.ConsumeIntegralInRange<int>(1, 64));
    if (fdp.ConsumeBool()) p += " neighbors=" + std::to_string(fdp.ConsumeIntegralInRange<int64_t>(1, n + 1));
    if (fdp.ConsumeBool()) p += std::string(" graph=") + (fdp.ConsumeBool() ? "exact" : "nndescent");
    if (fdp.ConsumeBool()) p += " heat_rank=" + std::to_string(fdp.ConsumeIntegralInRange<int64_t>(1, n + 2));
    if (fdp.ConsumeBool()) {
        static const double ts[] = {1e-300, 1e-6, 1e30, 1e300};  // beside 0.01..500: the edges
        const double t = fdp.ConsumeBool() ? fdp.ConsumeFloatingPointInRange<double>(0.01, 500.0)
                                           : ts[fdp.ConsumeIntegralInRange<size_t>(0, std::size(ts) - 1)];
        char text[64];
        std::snprintf(text, sizeof text, " heat_t=%.17g", t);
        p += text;
    }
    if (fdp.ConsumeBool()) p += " heat_normalize=false";
    return p;
}

/// An accepted fit: labels in range, finite objective, its own training rows assigned their
/// labels with finite distances >= 0, and a saved and loaded copy assigning the same.
void check_fitted(kkm_model* m, const std::vector<float>& rows, int64_t n, int64_t d) {
    int32_t k = 0;
    check_status(kkm_get_k(m, &k), "kkm_get_k");
    std::vector<int32_t> labels(static_cast<size_t>(n)), again(static_cast<size_t>(n)), loaded(static_cast<size_t>(n));
    check_status(kkm_get_labels(m, labels.data(), n), "kkm_get_labels");
    double objective = 0;
    check_status(kkm_get_objective(m, &objective), "kkm_get_objective");
    FUZZ_CHECK(std::isfinite(objective), "objective %g", objective);
    for (int32_t l : labels) FUZZ_CHECK(l >= 0 && l < k, "label %d outside [0, %d)", l, k);
    std::vector<float> dist(static_cast<size_t>(n)), dist2(static_cast<size_t>(n));
    const kkm_status s = kkm_assign(m, rows.data(), n, d, again.data(), dist.data());
    check_status(s, "kkm_assign");
    FUZZ_CHECK(s == KKM_OK, "assign of the training rows failed: %s", kkm_last_error());
    FUZZ_CHECK(again == labels, "the training rows were not assigned their labels");
    for (float v : dist) FUZZ_CHECK(std::isfinite(v) && v >= 0.0f, "distance %g", static_cast<double>(v));
    int64_t size = 0;
    check_status(kkm_save_buffer(m, nullptr, 0, &size), "kkm_save_buffer");
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    check_status(kkm_save_buffer(m, bytes.data(), size, &size), "kkm_save_buffer");
    kkm_fuzz::Model copy;
    check_status(kkm_load_buffer(copy.m, bytes.data(), size), "kkm_load_buffer");
    check_status(kkm_assign(copy.m, rows.data(), n, d, loaded.data(), dist2.data()), "kkm_assign (loaded)");
    FUZZ_CHECK(loaded == labels && dist2 == dist, "a loaded model assigns differently");
}

void fit_points(FuzzedDataProvider& fdp) {
    const auto n = fdp.ConsumeIntegralInRange<int64_t>(1, 60), d = fdp.ConsumeIntegralInRange<int64_t>(1, 4);
    const std::string params = graph_params(fdp, n);
    std::vector<float> X(static_cast<size_t>(n * d));
    // Integer values (ties) at a scale from denormal to FLT_MAX / 50 (issue 60: rows whose
    // squared distances overflow float32 reached heap corruption), sometimes one row at ±FLT_MAX.
    static const float scales[] = {1e-41f, 1e18f, 6.8e36f};
    const float scale = fdp.ConsumeIntegralInRange<int>(0, 3) != 0
                            ? fdp.ConsumeFloatingPointInRange<float>(1e-3f, 1e3f)
                            : scales[fdp.ConsumeIntegralInRange<size_t>(0, std::size(scales) - 1)];
    for (float& v : X) v = static_cast<float>(fdp.ConsumeIntegralInRange<int>(-50, 50)) * scale;
    if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) X[0] = std::numeric_limits<float>::quiet_NaN();
    if (fdp.ConsumeIntegralInRange<int>(0, 15) == 0) {
        X[X.size() - 1] = std::numeric_limits<float>::max();
        X[0] = -std::numeric_limits<float>::max();
    }
    kkm_fuzz::Model m;
    if (kkm_set_params(m.m, params.c_str()) != KKM_OK) {
        check_status(KKM_ERR_INVALID_ARGUMENT, "kkm_set_params");
        return;
    }
    const kkm_status s = kkm_fit(m.m, X.data(), n, d, nullptr);
    check_status(s, "kkm_fit");
    if (s != KKM_OK) {
        int32_t k = 0;
        FUZZ_CHECK(kkm_get_k(m.m, &k) == KKM_ERR_NOT_FITTED, "a failed fit left the model fitted");
        return;
    }
    check_fitted(m.m, X, n, d);
}

void fit_graph(FuzzedDataProvider& fdp) {
    const Graph g = fuzzed_graph(fdp);
    const std::string params = graph_params(fdp, g.n);
    kkm_fuzz::Model m;
    if (kkm_set_params(m.m, params.c_str()) != KKM_OK) return;
    const bool weighted = fdp.ConsumeBool();
    const kkm_status s =
        kkm_fit_graph(m.m, g.n, g.indptr.data(), g.indices.data(), weighted ? g.values.data() : nullptr);
    check_status(s, "kkm_fit_graph");
    if (s != KKM_OK) {
        int32_t k = 0;
        FUZZ_CHECK(kkm_get_k(m.m, &k) == KKM_ERR_NOT_FITTED, "a failed fit left the model fitted");
        return;
    }
    // The graph's rows as the dense affinity rows of its nodes: its nodes' own rows of A (with
    // values NULL every stored weight is 1), which the model must recognise as its nodes.
    std::vector<float> dense(static_cast<size_t>(g.n * g.n), 0.0f);
    for (int64_t i = 0; i < g.n; ++i) {
        for (int64_t e = g.indptr[static_cast<size_t>(i)]; e < g.indptr[static_cast<size_t>(i) + 1]; ++e) {
            dense[static_cast<size_t>(i * g.n + g.indices[static_cast<size_t>(e)])] +=
                weighted ? g.values[static_cast<size_t>(e)] : 1.0f;
        }
    }
    int64_t n_train = 0;
    check_status(kkm_get_n_train(m.m, &n_train), "kkm_get_n_train");
    FUZZ_CHECK(n_train == g.n, "n_train %lld, n %lld", static_cast<long long>(n_train), static_cast<long long>(g.n));
    int64_t d = 0;
    check_status(kkm_get_n_features(m.m, &d), "kkm_get_n_features");
    FUZZ_CHECK(d == g.n, "a graph model takes rows of n affinities, d=%lld", static_cast<long long>(d));
    check_fitted(m.m, dense, g.n, g.n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    if (fdp.ConsumeBool()) {
        fit_points(fdp);
    } else {
        fit_graph(fdp);
    }
    return 0;
}
