// Hamerly's bounds in the landmark Lloyd (src/cluster/landmark_lloyd.cpp) skip only what
// cannot change a label: with and without them, Lloyd from the same seeding reaches the same
// labels and objective, weighted or not, on one thread or two, with float32 or half kernel
// rows, while computing fewer distances.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "cluster/landmark_lloyd.h"
#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "features/nystrom.h"
#include "kernels/kernel_basis.h"

namespace kkm {
namespace {

struct Problem {
    Matrix X, G, P;
    RowStore rows;  ///< G as the Lloyd reads it (float32 or half)
    std::vector<float> diag;
};

/// k Gaussian blobs in d dimensions, n points in all, close enough to overlap a little.
Matrix blobs(int64_t n, int64_t d, int64_t k, uint32_t seed) {
    Matrix X(n, d);
    std::mt19937 gen(seed);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t t = 0; t < d; ++t) X.row(i)[t] = 2.5f * static_cast<float>((i % k) == t % k) + noise(gen);
    }
    return X;
}

/// Rings of radii 1 and 3 (noise 0.1), the tests' shape that only a kernel separates.
Matrix rings(int64_t n, uint32_t seed) {
    Matrix X(n, 2);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
    std::normal_distribution<float> noise(0.0f, 0.1f);
    for (int64_t i = 0; i < n; ++i) {
        const float r = i % 2 == 0 ? 1.0f : 3.0f, a = angle(gen);
        X.row(i)[0] = r * std::cos(a) + noise(gen);
        X.row(i)[1] = r * std::sin(a) + noise(gen);
    }
    return X;
}

Problem landmark_problem(Matrix X, int64_t m, double gamma, RowPrecision precision = RowPrecision::f32) {
    Problem p;
    const Kernel kernel(KernelType::rbf, gamma, 3, 1.0);
    Matrix L(m, X.cols);
    for (int64_t j = 0; j < m; ++j) std::copy(X.row(j * (X.rows / m)), X.row(j * (X.rows / m)) + X.cols, L.row(j));
    const KernelBasis basis(kernel, L);
    p.G = Matrix(X.rows, m);
    basis.evaluate(X.view(), p.G.data(), m);
    p.P = nystrom_projection(basis, basis.points().view(), 1e-6);
    p.diag.assign(static_cast<size_t>(X.rows), 1.0f);
    p.rows = RowStore(X.rows, m, precision, engine::best_isa());
    p.rows.put(0, X.rows, p.G.data());
    p.X = std::move(X);
    return p;
}

struct Run {
    LloydResult result;
    int64_t last_computed;
};

Run lloyd(const Problem& p, int64_t k, const std::vector<float>& w, int threads, bool bounds, uint64_t seed) {
    LandmarkLloyd problem(p.rows, p.P, p.diag, w, k, threads, engine::best_isa(), bounds);
    Rng rng(seed, Stream::seeding);
    Seeding s = seed_centres(Init::kmeanspp, p.G.rows, k, w, problem.distance_oracle(), rng);
    LloydResult r = run_lloyd(problem, std::move(s.labels), w, LloydOptions{k, 100, 0.0});
    return {std::move(r), problem.last_computed()};
}

void expect_bounds_change_nothing(const Problem& p, int64_t k, const std::vector<float>& w) {
    for (uint64_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Run plain = lloyd(p, k, w, 1, false, seed);
        const Run one = lloyd(p, k, w, 1, true, seed), two = lloyd(p, k, w, 2, true, seed);
        EXPECT_EQ(one.result.labels, plain.result.labels);
        EXPECT_EQ(one.result.iterations, plain.result.iterations);
        EXPECT_NEAR(one.result.objective, plain.result.objective, 1e-6 * plain.result.objective);
        EXPECT_EQ(two.result.labels, one.result.labels);
        EXPECT_EQ(two.result.objective, one.result.objective);
        EXPECT_EQ(plain.last_computed, p.G.rows);
    }
}

TEST(LandmarkLloydBounds, SameLabelsAndObjectiveAsEveryDistanceOnBlobs) {
    expect_bounds_change_nothing(landmark_problem(blobs(3000, 8, 6, 5), 150, 0.05), 6, {});
}

TEST(LandmarkLloydBounds, SameLabelsAndObjectiveAsEveryDistanceOnRings) {
    expect_bounds_change_nothing(landmark_problem(rings(2000, 7), 200, 0.5), 2, {});
}

TEST(LandmarkLloydBounds, SameLabelsAndObjectiveWithHalfKernelRows) {
    // Half rows round G to 11 bits; the bounds must still prove only what holds for them.
    expect_bounds_change_nothing(landmark_problem(blobs(3000, 8, 6, 5), 150, 0.05, RowPrecision::f16), 6, {});
    expect_bounds_change_nothing(landmark_problem(rings(2000, 7), 200, 0.5, RowPrecision::f16), 2, {});
}

TEST(LandmarkLloydBounds, SameLabelsWithWeights) {
    const Problem p = landmark_problem(blobs(2000, 5, 4, 9), 100, 0.1);
    std::vector<float> w(static_cast<size_t>(p.G.rows));
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> u(0.0f, 2.0f);
    for (float& v : w) v = u(gen);
    w[0] = 0.0f;
    expect_bounds_change_nothing(p, 4, w);
}

TEST(LandmarkLloydBounds, SkipPointsOnceTheCentresSettle) {
    // Once the centres barely move, the bounds prove most points in place: the last
    // reassignments compute a small part of the distances.
    const Problem p = landmark_problem(blobs(3000, 8, 4, 11), 150, 0.05);
    LandmarkLloyd problem(p.rows, p.P, p.diag, {}, 4, 1, engine::best_isa(), true);
    Rng rng(1, Stream::seeding);
    Seeding s = seed_centres(Init::kmeanspp, p.G.rows, 4, {}, problem.distance_oracle(), rng);
    std::vector<int32_t> labels = s.labels, next(labels.size());
    std::vector<float> dist(labels.size());
    problem.reassign(labels, next, dist);
    EXPECT_EQ(problem.last_computed(), p.G.rows);
    for (int it = 0; it < 100 && next != labels; ++it) {
        labels = next;
        problem.reassign(labels, next, dist);
    }
    ASSERT_EQ(next, labels) << "Lloyd did not converge";
    EXPECT_LT(problem.last_computed(), p.G.rows / 4);
}

}  // namespace
}  // namespace kkm
