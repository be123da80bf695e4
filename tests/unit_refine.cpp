// refine=hartigan: single-point transfers after Lloyd never raise the objective, reach a
// Hartigan fixed point (no single move lowers the objective, checked by brute force against
// the objective computed from scratch), lower it on overlapping clusters, and are refused
// where they do not apply.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "cluster/lloyd.h"
#include "core/error.h"
#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

ConstMatrix view(const testdata::Labeled& data) {
    return {data.X.data(), data.n, data.d};
}

Params params(Method method, int64_t k, uint64_t seed) {
    Params p;
    p.method = method;
    p.k = k;
    p.gamma = 0.05;
    p.seed = seed;
    p.threads = 2;
    p.m = 60;
    return p;
}

std::vector<float> some_weights(int64_t n) {
    std::vector<float> w(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = 0.5f + static_cast<float>((i * 7) % 5) * 0.3f;
    return w;
}

/// Σ_j [Σ_{i∈j} w_i K_ii − Σ_{a,b∈j} w_a w_b K_ab / W_j] for an rbf kernel, in float64.
double exact_objective(const testdata::Labeled& data, const std::vector<float>& w, const std::vector<int32_t>& labels,
                       int64_t k, double gamma) {
    std::vector<double> mass(static_cast<size_t>(k), 0.0), pair(static_cast<size_t>(k), 0.0);
    double diag = 0;
    for (int64_t a = 0; a < data.n; ++a) {
        const double wa = w[static_cast<size_t>(a)];
        mass[static_cast<size_t>(labels[static_cast<size_t>(a)])] += wa;
        diag += wa;  // K_aa = 1
        for (int64_t b = 0; b < data.n; ++b) {
            if (labels[static_cast<size_t>(a)] != labels[static_cast<size_t>(b)]) continue;
            double d2 = 0;
            for (int64_t t = 0; t < data.d; ++t) {
                const double diff =
                    data.X[static_cast<size_t>(a * data.d + t)] - data.X[static_cast<size_t>(b * data.d + t)];
                d2 += diff * diff;
            }
            pair[static_cast<size_t>(labels[static_cast<size_t>(a)])] +=
                wa * w[static_cast<size_t>(b)] * std::exp(-gamma * d2);
        }
    }
    double total = diag;
    for (int64_t j = 0; j < k; ++j) {
        if (mass[static_cast<size_t>(j)] > 0) total -= pair[static_cast<size_t>(j)] / mass[static_cast<size_t>(j)];
    }
    return total;
}

TEST(Refine, ExactReachesAHartiganFixedPoint) {
    const auto data = testdata::blobs(30, 4, 3, 1.5, 3);  // overlapping: Lloyd leaves moves
    const std::vector<float> w = some_weights(data.n);
    for (uint64_t seed : {1, 2}) {
        Params p = params(Method::exact, 4, seed);
        p.refine = Refine::hartigan;
        const auto model = fit_model(p, view(data), w);
        std::vector<int32_t> labels = model->report().labels;
        const double now = exact_objective(data, w, labels, 4, p.gamma);
        EXPECT_NEAR(model->report().objective, now, 1e-6 * now);
        std::vector<int64_t> members(4, 0);
        for (int32_t l : labels) ++members[static_cast<size_t>(l)];
        for (size_t i = 0; i < labels.size(); ++i) {
            const int32_t a = labels[i];
            if (members[static_cast<size_t>(a)] == 1) continue;  // a point alone stays
            for (int32_t b = 0; b < 4; ++b) {
                if (b == a) continue;
                labels[i] = b;
                EXPECT_GE(exact_objective(data, w, labels, 4, p.gamma), now - 1e-9 * now)
                    << "moving point " << i << " from " << a << " to " << b << " lowers the objective";
                labels[i] = a;
            }
        }
    }
}

TEST(Refine, FeaturesReachAHartiganFixedPoint) {
    const auto data = testdata::blobs(40, 5, 4, 1.2, 8);
    const std::vector<float> w = some_weights(data.n);
    Matrix F(data.n, data.d);
    for (int64_t i = 0; i < data.n * data.d; ++i) F.data()[i] = data.X[static_cast<size_t>(i)];
    FeatureLloyd problem(F.view(), w, 5, 1, engine::Isa::portable);
    std::vector<int32_t> labels(static_cast<size_t>(data.n));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>(i % 5);
    const double before = problem.objective(labels);
    const int64_t moves = problem.hartigan(labels, 1000);
    const double after = problem.objective(labels);
    EXPECT_GT(moves, 0);
    EXPECT_LT(after, before);
    std::vector<int64_t> members(5, 0);
    for (int32_t l : labels) ++members[static_cast<size_t>(l)];
    for (size_t i = 0; i < labels.size(); ++i) {
        const int32_t a = labels[i];
        if (members[static_cast<size_t>(a)] == 1) continue;
        for (int32_t b = 0; b < 5; ++b) {
            if (b == a) continue;
            labels[i] = b;
            EXPECT_GE(problem.objective(labels), after - 1e-9 * after) << "row " << i << " to " << b;
            labels[i] = a;
        }
    }
}

TEST(Refine, NeverRaisesTheObjectiveAndLowersItOnOverlappingClusters) {
    const auto data = testdata::blobs(80, 6, 4, 1.5, 5);
    for (Method method : {Method::exact, Method::nystrom, Method::sketch, Method::rff}) {
        int lowered = 0;
        for (uint64_t seed = 0; seed < 6; ++seed) {
            Params p = params(method, 6, seed);
            const double plain = fit_model(p, view(data), {})->report().objective;
            p.refine = Refine::hartigan;
            const double refined = fit_model(p, view(data), {})->report().objective;
            EXPECT_LE(refined, plain * (1 + 1e-12)) << "method " << static_cast<int>(method) << " seed " << seed;
            if (refined < plain * (1 - 1e-9)) ++lowered;
        }
        EXPECT_GT(lowered, 0) << "method " << static_cast<int>(method) << ": no seed left a profitable transfer";
    }
}

TEST(Refine, RefusedForMiniBatchFits) {
    const auto data = testdata::blobs(30, 2, 2, 4.0, 1);
    for (bool solver : {false, true}) {
        Params p = params(solver ? Method::nystrom : Method::minibatch, 2, 0);
        if (solver) p.solver = Solver::minibatch;
        p.refine = Refine::hartigan;
        try {
            fit_model(p, view(data), {});
            ADD_FAILURE() << "refine=hartigan was accepted for a mini-batch fit";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find("refine=hartigan"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace kkm
