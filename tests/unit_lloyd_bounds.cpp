// Elkan's and Hamerly's bounds in the landmark Lloyd (src/cluster/landmark_lloyd.cpp) and
// Hamerly's in the Lloyd on explicit features (src/cluster/lloyd.cpp) skip only what cannot
// change a label: every reassignment with them gives each row its nearest centre (up to a tie
// within float32 rounding), weighted or not, with float32 or half kernel rows; one thread and
// two give the same run; and they compute fewer distances (Elkan's fewer than Hamerly's).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cluster/hamerly.h"
#include "cluster/landmark_lloyd.h"
#include "cluster/lloyd.h"
#include "cluster/lloyd_driver.h"
#include "cluster/reported_distance.h"
#include "cluster/seeding.h"
#include "engine/dots.h"
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

Run lloyd(const Problem& p, int64_t k, const std::vector<float>& w, int threads, Bounds bounds, uint64_t seed) {
    LandmarkLloyd problem(p.rows, p.P, p.diag, w, k, threads, engine::best_isa(), bounds);
    Rng rng(seed, Stream::seeding);
    Seeding s = seed_centres(Init::kmeanspp, p.G.rows, k, w, problem.distance_oracle(), rng);
    LloydResult r = run_lloyd(problem, std::move(s.labels), w, LloydOptions{k, 100, 0.0});
    return {std::move(r), problem.last_computed()};
}

/// Lloyd with `bounds` from a k-means++ start, each reassignment checked against every
/// distance to the same centres (LandmarkLloyd::centres of the same labels: the centres
/// reassign uses). A row whose label the bounds kept must be nearest to that centre, or tied
/// with the nearest within the bounds' own rounding margin (rounding_slack, in distance): a
/// skipped row is never one that a computed distance would move. (A whole run is not compared
/// with one without bounds: a bounded run moves its sums row by row, a full pass sums them
/// afresh, so their centres differ in the last bits, and a near tie can go either way.)
/// Returns whether the labels reached a fixed point within 100 reassignments.
bool expect_bounded_steps_sound(const Problem& p, int64_t k, const std::vector<float>& w, Bounds bounds,
                                uint64_t seed) {
    const int64_t n = p.G.rows;
    LandmarkLloyd problem(p.rows, p.P, p.diag, w, k, 1, engine::best_isa(), bounds);
    Rng rng(seed, Stream::seeding);
    std::vector<int32_t> labels = seed_centres(Init::kmeanspp, n, k, w, problem.distance_oracle(), rng).labels;
    std::vector<int32_t> next(static_cast<size_t>(n)), nearest(static_cast<size_t>(n));
    std::vector<float> dist(static_cast<size_t>(n)), best(static_cast<size_t>(n)), each(static_cast<size_t>(n * k));
    for (int steps = 0; steps < 100; ++steps) {
        const LandmarkCentres c = problem.centres(labels);
        landmark_nearest(p.rows, nullptr, 0, n, p.diag.data(), c, nearest.data(), best.data(), nullptr, each.data());
        const float top = largest_centre_term(c);
        problem.reassign(labels, next, dist);
        for (int64_t i = 0; i < n; ++i) {
            const auto at = static_cast<size_t>(i);
            if (next[at] == nearest[at]) continue;
            const double kept = std::sqrt(std::max(each[static_cast<size_t>(i * k + next[at])], 0.0f));
            const double near = std::sqrt(std::max(each[static_cast<size_t>(i * k + nearest[at])], 0.0f));
            EXPECT_LE(kept - near, 2 * rounding_slack(p.diag[at], top))
                << "row " << i << " kept at centre " << next[at] << ", nearest " << nearest[at];
        }
        if (next == labels) return true;
        labels = next;
    }
    return false;
}

void expect_bounds_change_nothing(const Problem& p, int64_t k, const std::vector<float>& w) {
    for (uint64_t seed : {1u, 2u, 3u}) {
        const Run plain = lloyd(p, k, w, 1, Bounds::none, seed);
        EXPECT_EQ(plain.last_computed, p.G.rows);
        for (Bounds bounds : {Bounds::hamerly, Bounds::elkan}) {
            SCOPED_TRACE("seed " + std::to_string(seed) + (bounds == Bounds::elkan ? " elkan" : " hamerly"));
            EXPECT_TRUE(expect_bounded_steps_sound(p, k, w, bounds, seed));
            const Run one = lloyd(p, k, w, 1, bounds, seed), two = lloyd(p, k, w, 2, bounds, seed);
            EXPECT_EQ(two.result.labels, one.result.labels);
            EXPECT_EQ(two.result.objective, one.result.objective);
        }
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

TEST(LandmarkLloydBounds, SameLabelsBeyondElkansCentreCountWhereHamerlysBoundsServe) {
    ASSERT_EQ(lower_bounds_per_row(kElkanCentres + 8), 1);
    expect_bounds_change_nothing(landmark_problem(blobs(4000, 8, kElkanCentres + 8, 4), 200, 0.05), kElkanCentres + 8,
                                 {});
}

/// Rows computed over a whole Lloyd run from one start, with the given bounds.
int64_t rows_computed(const Problem& p, int64_t k, Bounds bounds, std::vector<int32_t>& final_labels) {
    LandmarkLloyd problem(p.rows, p.P, p.diag, {}, k, 1, engine::best_isa(), bounds);
    Rng rng(5, Stream::seeding);
    std::vector<int32_t> labels = seed_centres(Init::kmeanspp, p.G.rows, k, {}, problem.distance_oracle(), rng).labels;
    std::vector<int32_t> next(labels.size());
    std::vector<float> dist(labels.size());
    int64_t total = 0;
    for (int it = 0; it < 100; ++it) {
        problem.reassign(labels, next, dist);
        total += problem.last_computed();
        if (next == labels) break;
        labels = next;
    }
    final_labels = labels;
    return total;
}

TEST(LandmarkLloydBounds, ElkansBoundsComputeFewerRowsThanHamerlysForTheSameLabels) {
    // One lower bound per centre moves down by that centre's drift only: fewer rows to read.
    const Problem p = landmark_problem(blobs(3000, 8, 8, 13), 150, 0.05);
    std::vector<int32_t> hamerly_labels, elkan_labels;
    const int64_t hamerly = rows_computed(p, 8, Bounds::hamerly, hamerly_labels);
    const int64_t elkan = rows_computed(p, 8, Bounds::elkan, elkan_labels);
    EXPECT_EQ(elkan_labels, hamerly_labels);
    EXPECT_LT(elkan, hamerly) << "Elkan " << elkan << " rows, Hamerly " << hamerly;
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
    LandmarkLloyd problem(p.rows, p.P, p.diag, {}, 4, 1, engine::best_isa(), Bounds::elkan);
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

// ---- FeatureLloyd: the same bounds on explicit features (method=rff, sketch, and Nyström
// when features are cheaper).

struct Features {
    Matrix F;
    std::vector<float> offset;  ///< empty, or K_ii − ‖f_i‖² (Nyström)
};

/// The Nyström features G P of a landmark problem, with their residuals as the offset, as
/// fit_landmarks.cpp builds them.
Features nystrom_features(const Problem& p) {
    Features f{Matrix(p.G.rows, p.P.cols), {}};
    for (int64_t i = 0; i < p.G.rows; ++i) {
        double norm = 0;
        for (int64_t q = 0; q < p.P.cols; ++q) {
            double s = 0;
            for (int64_t a = 0; a < p.G.cols; ++a) s += static_cast<double>(p.G.row(i)[a]) * p.P.row(a)[q];
            f.F.row(i)[q] = static_cast<float>(s);
            norm += s * s;
        }
        f.offset.push_back(static_cast<float>(std::max(0.0, p.diag[static_cast<size_t>(i)] - norm)));
    }
    return f;
}

/// Counts the reassignments that emptied a cluster right after a reassignment whose labels
/// they take unchanged: FeatureLloyd's bounded pass, then its full pass again (the driver
/// gives an emptied cluster the farthest row by `dist`, which must not be a bound).
class EmptyingCounter final : public LloydProblem {
public:
    explicit EmptyingCounter(FeatureLloyd& inner) : inner_(inner) {}
    int64_t size() const override { return inner_.size(); }
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) override {
        const bool follows = labels == last_next_;
        const double objective = inner_.reassign(labels, next, dist);
        if (follows && emptied(labels, next)) ++count;
        last_next_ = next;
        return objective;
    }
    double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) override {
        return inner_.objective_of(members, labels);
    }
    int count = 0;

private:
    bool emptied(const std::vector<int32_t>& before, const std::vector<int32_t>& after) const {
        for (int32_t j : before) {
            if (std::find(after.begin(), after.end(), j) == after.end()) return true;
        }
        return false;
    }
    FeatureLloyd& inner_;
    std::vector<int32_t> last_next_;
};

struct FeatureRun {
    LloydResult result;
    int64_t last_computed;
    int emptied;
};

FeatureRun feature_lloyd(const Features& f, int64_t k, const std::vector<float>& w, int threads, bool bounds,
                         const std::vector<int32_t>& start, double tol) {
    FeatureLloyd problem(f.F.view(), w, k, threads, engine::best_isa(), f.offset, bounds);
    EmptyingCounter counted(problem);
    LloydResult r = run_lloyd(counted, start, w, LloydOptions{k, 100, tol});
    return {std::move(r), problem.last_computed(), counted.count};
}

std::vector<int32_t> kmeanspp_start(const Features& f, int64_t k, const std::vector<float>& w, uint64_t seed) {
    const FeatureLloyd problem(f.F.view(), w, k, 1, engine::best_isa(), f.offset);
    Rng rng(seed, Stream::seeding);
    return seed_centres(Init::kmeanspp, f.F.rows, k, w, problem.distance_oracle(), rng).labels;
}

/// Labels drawn uniformly: every centre starts near the mean, so most points move.
std::vector<int32_t> random_start(int64_t n, int64_t k, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int32_t> pick(0, static_cast<int32_t>(k - 1));
    std::vector<int32_t> labels(static_cast<size_t>(n));
    for (int32_t& l : labels) l = pick(gen);
    return labels;
}

/// Bounded on one thread and on two against every distance on one thread, from `start`.
/// Returns the bounded run.
FeatureRun expect_same_run(const Features& f, int64_t k, const std::vector<float>& w, const std::vector<int32_t>& start,
                           double tol = 0.0) {
    const FeatureRun plain = feature_lloyd(f, k, w, 1, false, start, tol);
    const FeatureRun one = feature_lloyd(f, k, w, 1, true, start, tol);
    const FeatureRun two = feature_lloyd(f, k, w, 2, true, start, tol);
    EXPECT_EQ(one.result.labels, plain.result.labels);
    EXPECT_EQ(one.result.iterations, plain.result.iterations);
    EXPECT_NEAR(one.result.objective, plain.result.objective, 1e-6 * plain.result.objective);
    EXPECT_EQ(two.result.labels, one.result.labels);
    EXPECT_EQ(two.result.iterations, one.result.iterations);
    EXPECT_EQ(two.result.objective, one.result.objective);
    EXPECT_EQ(plain.last_computed, f.F.rows);
    return one;
}

void expect_feature_bounds_change_nothing(const Features& f, int64_t k, const std::vector<float>& w, double tol = 0.0) {
    for (uint64_t seed : {1u, 2u, 3u}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        expect_same_run(f, k, w, kmeanspp_start(f, k, w, seed), tol);
    }
}

TEST(FeatureLloydBounds, SameLabelsAndObjectiveAsEveryDistanceOnBlobs) {
    expect_feature_bounds_change_nothing({blobs(3000, 8, 6, 5), {}}, 6, {});
}

TEST(FeatureLloydBounds, SameIterationsWithTheDefaultTolerance) {
    // The bounded pass returns the objective in closed form: the stop on tol · objective
    // must come at the same iteration as with every distance summed.
    expect_feature_bounds_change_nothing({blobs(3000, 8, 6, 13), {}}, 6, {}, 1e-4);
}

TEST(FeatureLloydBounds, SameLabelsOnNystromFeaturesWithOffset) {
    // Rings through their Nyström features: the offset K_ii − ‖f_i‖² joins the distances but
    // not the bounds.
    const Features f = nystrom_features(landmark_problem(rings(2000, 7), 200, 0.5));
    expect_feature_bounds_change_nothing(f, 2, {});
    expect_feature_bounds_change_nothing(f, 5, {});
}

TEST(FeatureLloydBounds, SameLabelsWhenMostPointsMove) {
    const Features f{blobs(3000, 6, 5, 17), {}};
    const std::vector<int32_t> start = random_start(f.F.rows, 5, 4);
    const FeatureRun run = expect_same_run(f, 5, {}, start);
    int64_t moved = 0;
    for (size_t i = 0; i < start.size(); ++i) moved += run.result.labels[i] != start[i];
    EXPECT_GT(moved, f.F.rows / 2);
    EXPECT_GT(run.result.iterations, 3);
}

TEST(FeatureLloydBounds, SameIterationsWhenTheOffsetDwarfsTheDistances) {
    // Offsets near 1 beside feature distances near 1e-6, and tol = 0 (stop as soon as the
    // objective does not improve): the step-to-step changes of the objective must survive
    // the offset in both passes, or rounding decides where Lloyd stops.
    Features f{blobs(300, 3, 4, 29), {}};
    std::mt19937 gen(31);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (int64_t i = 0; i < f.F.rows; ++i) {
        for (int64_t t = 0; t < f.F.cols; ++t) f.F.row(i)[t] *= 1e-3f;
        f.offset.push_back(std::fabs(noise(gen)));
    }
    for (uint32_t seed : {1u, 2u, 3u, 4u, 5u, 6u}) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        expect_same_run(f, 4, {}, random_start(f.F.rows, 4, seed));
    }
}

TEST(FeatureLloydBounds, SameLabelsWithWeights) {
    const Features f{blobs(2000, 5, 4, 9), {}};
    std::vector<float> w(static_cast<size_t>(f.F.rows));
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> u(0.0f, 2.0f);
    for (float& v : w) v = u(gen) < 0.3f ? 0.0f : u(gen);  // about one in seven without weight
    w[0] = 0.0f;
    expect_feature_bounds_change_nothing(f, 4, w);
}

/// Blob A at x = 0 with one outlier at x = −6, blob B at x = 60, and Z at x = 25 without
/// weight. Cluster 1 starts with B and 30 points of A (centre x ≈ 52); cluster 2 with 5
/// points of A, 5 of B and all of Z (centre x = 30), which then keeps only Z: no weight
/// (dead, yet not empty). The next, bounded, pass moves Z off the dead centre and empties
/// cluster 2, and the driver gives it the farthest row by `dist`: the outlier, unless B's
/// rows report their bounds (inflated by the 8 their centre moved) instead of their
/// distances.
struct DyingCluster {
    Features f;
    std::vector<float> w;
    std::vector<int32_t> start;
};

DyingCluster dying_cluster() {
    const int64_t per = 200, nz = 50, n = 2 * per + nz;
    DyingCluster c{Features{Matrix(n, 2), {}}, std::vector<float>(static_cast<size_t>(n), 1.0f),
                   std::vector<int32_t>(static_cast<size_t>(n))};
    std::mt19937 gen(21);
    std::normal_distribution<float> noise(0.0f, 1.0f);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t group = i < per ? 0 : i < 2 * per ? 1 : 2, at = i % per;
        c.f.F.row(i)[0] = (group == 0 ? 0.0f : group == 1 ? 60.0f : 25.0f) + noise(gen);
        c.f.F.row(i)[1] = noise(gen);
        int32_t label = static_cast<int32_t>(group);
        if (group < 2 && at < 5) label = 2;
        if (group == 0 && at >= 5 && at < 35) label = 1;
        c.start[static_cast<size_t>(i)] = label;
        if (group == 2) c.w[static_cast<size_t>(i)] = 0.0f;
    }
    c.f.F.row(per - 1)[0] = -6.0f;
    c.f.F.row(per - 1)[1] = 0.0f;
    return c;
}

TEST(FeatureLloydBounds, SameLabelsWhenAClusterDies) {
    const DyingCluster c = dying_cluster();
    const FeatureRun run = expect_same_run(c.f, 3, c.w, c.start);
    EXPECT_GT(run.emptied, 0) << "no bounded pass emptied a cluster: the test misses its case";
    EXPECT_GT(cluster_weights(run.result.labels, c.w, 3)[2], 0.0) << "cluster 2 was not refilled";
}

TEST(LandmarkLloydBounds, SameLabelsWhenAClusterDies) {
    // The same case as kernel rows of the linear kernel with the two unit vectors as
    // landmarks: G = F, P = I, K_ii = ‖f_i‖², so the landmark distances are the features'.
    const DyingCluster c = dying_cluster();
    const int64_t n = c.f.F.rows;
    Matrix P(2, 2);
    P.row(0)[0] = P.row(1)[1] = 1.0f;
    const RowStore G = RowStore::view(c.f.F.view(), engine::best_isa());
    std::vector<float> diag = row_squared_norms(c.f.F.view());
    const auto run = [&](Bounds bounds, int threads) {
        LandmarkLloyd problem(G, P, diag, c.w, 3, threads, engine::best_isa(), bounds);
        return run_lloyd(problem, c.start, c.w, LloydOptions{3, 100, 0.0});
    };
    const LloydResult plain = run(Bounds::none, 1);
    for (Bounds bounds : {Bounds::hamerly, Bounds::elkan}) {
        const LloydResult one = run(bounds, 1), two = run(bounds, 2);
        EXPECT_EQ(one.labels, plain.labels);
        EXPECT_EQ(one.iterations, plain.iterations);
        EXPECT_NEAR(one.objective, plain.objective, 1e-6 * plain.objective);
        EXPECT_EQ(two.labels, one.labels);
        EXPECT_GT(cluster_weights(one.labels, c.w, 3)[2], 0.0) << "cluster 2 was not refilled";
        EXPECT_EQ(static_cast<int64_t>(one.labels.size()), n);
    }
}

TEST(FeatureLloydBounds, SkipRowsOnceTheCentresSettle) {
    // Once the centres barely move, the bounds prove most rows in place: the last
    // reassignments compute a small part of the distances.
    const Features f{blobs(3000, 8, 4, 11), {}};
    FeatureLloyd problem(f.F.view(), {}, 4, 1, engine::best_isa());
    std::vector<int32_t> labels = kmeanspp_start(f, 4, {}, 1), next(labels.size());
    std::vector<float> dist(labels.size());
    problem.reassign(labels, next, dist);
    EXPECT_EQ(problem.last_computed(), f.F.rows);
    for (int it = 0; it < 100 && next != labels; ++it) {
        labels = next;
        problem.reassign(labels, next, dist);
    }
    ASSERT_EQ(next, labels) << "Lloyd did not converge";
    EXPECT_LT(problem.last_computed(), f.F.rows / 4);
}

}  // namespace
}  // namespace kkm

// The progress fraction of a Lloyd stage: log-scale distance of the objective's relative
// improvement from tol, monotone in the improvement, 1 once Lloyd's rule would stop.
TEST(LloydProgress, ConvergenceFractionFollowsTheStoppingRule) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(kkm::convergence_fraction(inf, 10.0, 1e-4), 0.0);      // first iteration
    EXPECT_EQ(kkm::convergence_fraction(30.0, 10.0, 1e-4), 0.0);     // improved by 2x
    EXPECT_NEAR(kkm::convergence_fraction(10.1, 10.0, 1e-4), 0.5, 1e-9);   // 1e-2 of 1e-4
    EXPECT_NEAR(kkm::convergence_fraction(10.01, 10.0, 1e-4), 0.75, 1e-9);
    EXPECT_EQ(kkm::convergence_fraction(10.0005, 10.0, 1e-4), 1.0);  // below tol: Lloyd stops
    EXPECT_EQ(kkm::convergence_fraction(9.0, 10.0, 1e-4), 1.0);      // rose: stops too
    EXPECT_EQ(kkm::convergence_fraction(10.1, 10.0, 0.0), 0.0);      // tol=0: no estimate
    double last = 0;
    for (double gain = 0.9; gain > 1e-5; gain /= 3) {
        const double f = kkm::convergence_fraction(10.0 * (1 + gain), 10.0, 1e-4);
        EXPECT_GE(f, last);
        last = f;
    }
}

namespace kkm {
namespace {

/// nearest_centroid's definition: every live centre offered to NearestCentre in order, each
/// distance reported by reported_distance.
struct Offered {
    std::vector<int32_t> labels;
    std::vector<float> dist, second, each;
};

Offered offered(ConstMatrix F, const std::vector<float>& fnorms, const Matrix& C, const std::vector<float>& cnorms,
                const std::vector<char>& alive, engine::Isa isa) {
    const int64_t n = F.rows, k = C.rows;
    Matrix dots(n, k);
    engine::row_dots(isa, F.data, n, F.cols, C.data(), k, C.cols, F.cols, dots.data(), k);
    Offered o{std::vector<int32_t>(static_cast<size_t>(n)), std::vector<float>(static_cast<size_t>(n)),
              std::vector<float>(static_cast<size_t>(n)), std::vector<float>(static_cast<size_t>(n * k))};
    for (int64_t i = 0; i < n; ++i) {
        NearestCentre<float> nearest;
        for (int64_t j = 0; j < k; ++j) {
            float* each = &o.each[static_cast<size_t>(i * k + j)];
            if (!alive[static_cast<size_t>(j)]) {
                *each = std::numeric_limits<float>::infinity();
                continue;
            }
            const float dot = dots.row(i)[j];
            const float d = fnorms[static_cast<size_t>(i)] + cnorms[static_cast<size_t>(j)] - 2.0f * dot;
            const double size =
                std::abs(fnorms[static_cast<size_t>(i)]) + std::abs(cnorms[static_cast<size_t>(j)]) + 2.0 * std::abs(dot);
            nearest.offer(j, d, size, reported_distance(d, size), each);
        }
        o.labels[static_cast<size_t>(i)] = nearest.arg;
        o.dist[static_cast<size_t>(i)] = nearest.distance([](float b, double s) { return reported_distance(b, s); });
        o.second[static_cast<size_t>(i)] = nearest.next;
    }
    return o;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace
}  // namespace kkm

// nearest_centroid gives its definition's labels, distances, runner-ups and every distance bit
// for bit (a guard for any shortcut it takes), with all distances finite and >= 0 and in every
// other case: rows on a centre (distances rounded below 0, within and beyond the tolerance:
// reported 0 and NaN), tied centres (the first wins), dead centres, no live centre at all, a
// NaN row and an infinite norm.
TEST(NearestCentroid, EveryCaseGivesWhatTheOffersGive) {
    using namespace kkm;
    const int64_t n = 64, r = 5, k = 7;
    Matrix F = blobs(n, r, 3, 17), C(k, r);
    for (int64_t j = 0; j < k; ++j) std::copy(F.row(3 * j), F.row(3 * j) + r, C.row(j));  // rows on centres
    std::copy(C.row(1), C.row(1) + r, C.row(4));                                         // a tie: 1 before 4
    for (int64_t t = 0; t < r; ++t) F.row(40)[t] = 1e3f * F.row(40)[t];                   // far off
    F.row(50)[2] = std::nanf("");
    std::vector<float> fnorms = row_squared_norms(F.view()), cnorms = row_squared_norms(C.view());
    fnorms[6] = fnorms[6] * 0.5f;  // on centre 2 with a norm too small: far below 0, reported NaN
    fnorms[9] = fnorms[9] * (1.0f - 1e-6f);  // within the tolerance: reported 0
    fnorms[60] = std::numeric_limits<float>::infinity();
    for (const engine::Isa isa : {engine::Isa::portable, engine::best_isa()}) {
        for (const std::vector<char>& alive : {std::vector<char>(k, 1), std::vector<char>{1, 0, 1, 1, 0, 1, 0},
                                               std::vector<char>(k, 0)}) {
            const Offered want = offered(F.view(), fnorms, C, cnorms, alive, isa);
            std::vector<int32_t> labels(n);
            std::vector<float> dist(n), second(n), each(n * k);
            nearest_centroid(F.view(), fnorms.data(), C, cnorms, alive, labels.data(), dist.data(), isa, second.data(),
                             each.data());
            EXPECT_EQ(labels, want.labels);
            EXPECT_TRUE(same_bits(dist, want.dist));
            EXPECT_TRUE(same_bits(second, want.second));
            EXPECT_TRUE(same_bits(each, want.each));
            // Without the optional outputs: the same labels and distances.
            std::vector<int32_t> labels2(n);
            std::vector<float> dist2(n);
            nearest_centroid(F.view(), fnorms.data(), C, cnorms, alive, labels2.data(), dist2.data(), isa);
            EXPECT_EQ(labels2, want.labels);
            EXPECT_TRUE(same_bits(dist2, want.dist));
        }
    }
    // The cases are there: a row reported NaN, one reported 0 below the tolerance, a tie.
    const Offered all = offered(F.view(), fnorms, C, cnorms, std::vector<char>(k, 1), engine::Isa::portable);
    EXPECT_TRUE(std::isnan(all.dist[6]));
    EXPECT_TRUE(std::isnan(all.dist[50]));
    EXPECT_EQ(all.dist[9], 0.0f);
    EXPECT_EQ(all.labels[3], 1);  // on centre 1, which ties with 4
}
