// Landmark samplers: ridge leverage scores against a dense reference, RLS sampling finding a
// small far-away cluster that uniform sampling misses, D² sampling covering every blob, and
// the contract every sampler keeps (size m, sorted, distinct, a function of the seed only).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "core/rng.h"
#include "features/landmarks.h"
#include "kernels/kernel.h"

namespace kkm {
namespace {

struct Points {
    std::vector<float> X;  // row-major n×d
    int64_t n = 0;
    int64_t d = 0;

    void add(double x, double y) {
        X.push_back(static_cast<float>(x));
        X.push_back(static_cast<float>(y));
        ++n;
    }
};

/// The data set: 4980 points of a unit Gaussian blob at the origin, then 20 points of
/// a tight blob (std 0.1) at distance 20, all in 2-D.
Points far_cluster(uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    Points p;
    p.d = 2;
    for (int i = 0; i < 4980; ++i) p.add(z(gen), z(gen));
    for (int i = 0; i < 20; ++i) p.add(20.0 + 0.1 * z(gen), 0.1 * z(gen));
    return p;
}

/// 10 blobs of 100 points (std 1) in 2-D, centres on a 5×2 grid of spacing 100.
Points ten_blobs(uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    Points p;
    p.d = 2;
    for (int c = 0; c < 10; ++c) {
        for (int i = 0; i < 100; ++i) p.add(100.0 * (c % 5) + z(gen), 100.0 * (c / 5) + z(gen));
    }
    return p;
}

/// A context over p (kept alive by the caller) with kernel `type`.
LandmarkContext context(const Points& p, KernelType type, double gamma, int threads = 1) {
    LandmarkContext ctx;
    ctx.X = ConstMatrix{p.X.data(), p.n, p.d};
    ctx.kernel.emplace(type, gamma, 3, 1.0);
    ctx.diag.resize(static_cast<size_t>(p.n));
    ctx.kernel->diagonal(ctx.X, ctx.diag.data());
    ctx.threads = threads;
    return ctx;
}

double rbf(const Points& p, int64_t i, int64_t j, double gamma) {
    double s = 0.0;
    for (int64_t t = 0; t < p.d; ++t) {
        const double diff =
            static_cast<double>(p.X[static_cast<size_t>(i * p.d + t)]) - p.X[static_cast<size_t>(j * p.d + t)];
        s += diff * diff;
    }
    return std::exp(-gamma * s);
}

/// Solves A x = b for a symmetric positive-definite A (s×s, row-major) by Cholesky, in place.
std::vector<double> spd_solve(std::vector<double> A, std::vector<double> b) {
    const auto s = static_cast<int64_t>(b.size());
    auto a = [&](int64_t i, int64_t j) -> double& { return A[static_cast<size_t>(i * s + j)]; };
    for (int64_t j = 0; j < s; ++j) {
        for (int64_t k = 0; k < j; ++k) a(j, j) -= a(j, k) * a(j, k);
        a(j, j) = std::sqrt(a(j, j));
        for (int64_t i = j + 1; i < s; ++i) {
            for (int64_t k = 0; k < j; ++k) a(i, j) -= a(i, k) * a(j, k);
            a(i, j) /= a(j, j);
        }
    }
    for (int64_t i = 0; i < s; ++i) {  // L y = b
        for (int64_t k = 0; k < i; ++k) b[static_cast<size_t>(i)] -= a(i, k) * b[static_cast<size_t>(k)];
        b[static_cast<size_t>(i)] /= a(i, i);
    }
    for (int64_t i = s - 1; i >= 0; --i) {  // Lᵀ x = y
        for (int64_t k = i + 1; k < s; ++k) b[static_cast<size_t>(i)] -= a(k, i) * b[static_cast<size_t>(k)];
        b[static_cast<size_t>(i)] /= a(i, i);
    }
    return b;
}

/// Dense reference in float64: (K_ii − K_iS (K_SS + ridge·I)⁻¹ K_Si) / λ for every i.
std::vector<double> dense_scores(const Points& p, double gamma, const std::vector<int64_t>& S, double ridge,
                                 double lambda) {
    const auto s = static_cast<int64_t>(S.size());
    std::vector<double> A(static_cast<size_t>(s * s));
    for (int64_t a = 0; a < s; ++a) {
        for (int64_t b = 0; b < s; ++b)
            A[static_cast<size_t>(a * s + b)] =
                rbf(p, S[static_cast<size_t>(a)], S[static_cast<size_t>(b)], gamma) + (a == b ? ridge : 0.0);
    }
    std::vector<double> tau(static_cast<size_t>(p.n));
    for (int64_t i = 0; i < p.n; ++i) {
        std::vector<double> k(static_cast<size_t>(s));
        for (int64_t a = 0; a < s; ++a) k[static_cast<size_t>(a)] = rbf(p, i, S[static_cast<size_t>(a)], gamma);
        const std::vector<double> x = spd_solve(A, k);
        double covered = 0.0;
        for (int64_t a = 0; a < s; ++a) covered += k[static_cast<size_t>(a)] * x[static_cast<size_t>(a)];
        tau[static_cast<size_t>(i)] = (1.0 - covered) / lambda;
    }
    return tau;
}

/// 200 points: three unit blobs of different sizes in 2-D.
Points small_mixture() {
    std::mt19937 gen(7);
    std::normal_distribution<double> z(0.0, 1.0);
    Points p;
    p.d = 2;
    for (int i = 0; i < 200; ++i) {
        const double cx = i < 150 ? 0.0 : (i < 190 ? 4.0 : -3.0);
        p.add(cx + z(gen), (i >= 190 ? 3.0 : 0.0) + z(gen));
    }
    return p;
}

std::vector<int64_t> all_indices(int64_t n) {
    std::vector<int64_t> idx(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = i;
    return idx;
}

bool any_at_least(const std::vector<int64_t>& idx, int64_t first) {
    return std::any_of(idx.begin(), idx.end(), [first](int64_t i) { return i >= first; });
}

void expect_valid(const std::vector<int64_t>& idx, int64_t n, int64_t m) {
    ASSERT_EQ(static_cast<int64_t>(idx.size()), m);
    for (size_t t = 0; t < idx.size(); ++t) {
        EXPECT_GE(idx[t], 0);
        EXPECT_LT(idx[t], n);
        if (t > 0) {
            EXPECT_LT(idx[t - 1], idx[t]) << "not sorted or not distinct at " << t;
        }
    }
}

// ------------------------------------------------------------------ ridge leverage scores

TEST(RidgeLeverageScores, AllPointsGiveTheExactScores) {
    const Points p = small_mixture();
    const double gamma = 0.5, lambda = std::sqrt(static_cast<double>(p.n));
    const std::vector<int64_t> S = all_indices(p.n);
    // τ_i = [K(K+λI)⁻¹]_ii = (K_ii − K_i (K+λI)⁻¹ K_i) / λ: the dense formula with S = all.
    const std::vector<double> exact = dense_scores(p, gamma, S, lambda, lambda);
    const std::vector<double> tau = ridge_leverage_scores(context(p, KernelType::rbf, gamma), S, lambda);
    ASSERT_EQ(tau.size(), exact.size());
    double d_eff = 0.0;
    for (size_t i = 0; i < tau.size(); ++i) {
        EXPECT_NEAR(tau[i], exact[i], 1e-4) << "point " << i;
        d_eff += exact[i];
    }
    EXPECT_GT(d_eff, 1.0);  // the reference is not degenerate
}

TEST(RidgeLeverageScores, SubsampleIsWeightedByNOverS) {
    const Points p = small_mixture();
    const double gamma = 0.5, lambda = std::sqrt(static_cast<double>(p.n));
    Rng rng(3, Stream::leverage);
    const std::vector<int64_t> S = uniform_landmarks(p.n, 60, rng);
    const double ridge = lambda * 60.0 / static_cast<double>(p.n);
    const std::vector<double> expected = dense_scores(p, gamma, S, ridge, lambda);
    const std::vector<double> tau = ridge_leverage_scores(context(p, KernelType::rbf, gamma), S, lambda);
    for (size_t i = 0; i < tau.size(); ++i) EXPECT_NEAR(tau[i], expected[i], 1e-4) << "point " << i;
}

// ------------------------------------------------------------------ rls_landmarks

// The acceptance test. gamma = 0.05: the blobs are orthogonal in feature space
// (K = e^-20 between them) and the big blob's effective dimension d_eff(√n) is 3.7, so the
// 20 far points hold 5.7% of the total leverage. (At gamma = 0.5 the big blob's d_eff is 11.5
// and the far points hold 1.9%: even exact-RLS sampling of 50 then hits them in only about half
// of the seeds.)
TEST(RlsLandmarks, FindsSmallFarClusterThatUniformMisses) {
    const Points p = far_cluster(42);
    const LandmarkContext ctx = context(p, KernelType::rbf, 0.05, 2);
    const double lambda = std::sqrt(static_cast<double>(p.n));
    const int64_t m = 50;
    int rls_hits = 0, uniform_hits = 0;
    for (uint64_t seed = 0; seed < 10; ++seed) {
        Rng rls_rng(seed, Stream::landmarks), uniform_rng(seed, Stream::landmarks);
        const std::vector<int64_t> rls = rls_landmarks(ctx, m, lambda, rls_rng);
        expect_valid(rls, p.n, m);
        rls_hits += any_at_least(rls, 4980);
        uniform_hits += any_at_least(uniform_landmarks(p.n, m, uniform_rng), 4980);
    }
    RecordProperty("rls_hits", rls_hits);
    RecordProperty("uniform_hits", uniform_hits);
    EXPECT_GE(rls_hits, 9);
    EXPECT_LE(uniform_hits, 5);
}

TEST(RlsLandmarks, ZeroScoresOnlyFillTheRest) {
    // Linear kernel: the 90 zero rows have K_ii = 0, hence τ̃ = 0.
    std::mt19937 gen(5);
    std::normal_distribution<double> z(0.0, 1.0);
    Points p;
    p.d = 2;
    for (int i = 0; i < 100; ++i) {
        const bool nonzero = i % 10 == 3;
        p.add(nonzero ? z(gen) : 0.0, nonzero ? z(gen) : 0.0);
    }
    const LandmarkContext ctx = context(p, KernelType::linear, 0.0);
    for (uint64_t seed = 0; seed < 5; ++seed) {
        Rng rng(seed, Stream::landmarks);
        const std::vector<int64_t> ten = rls_landmarks(ctx, 10, 1.0, rng);
        expect_valid(ten, p.n, 10);
        for (int64_t i : ten) EXPECT_EQ(i % 10, 3) << "a zero-score point was taken before a positive one";
        const std::vector<int64_t> fifteen = rls_landmarks(ctx, 15, 1.0, rng);
        expect_valid(fifteen, p.n, 15);
        EXPECT_EQ(std::count_if(fifteen.begin(), fifteen.end(), [](int64_t i) { return i % 10 == 3; }), 10);
    }
}

TEST(RlsLandmarks, MEqualsNTakesEveryPoint) {
    const Points p = small_mixture();
    Rng rng(1, Stream::landmarks);
    EXPECT_EQ(rls_landmarks(context(p, KernelType::rbf, 0.5), p.n, 14.0, rng), all_indices(p.n));
}

// ------------------------------------------------------------------ kmeanspp_landmarks

TEST(KmeansppLandmarks, HitsEveryBlob) {
    const Points p = ten_blobs(11);
    // Between neighbouring blobs K = e^-3; inside a blob K ≈ e^-0.0012: D² is ~800× larger
    // towards an uncovered blob.
    const LandmarkContext ctx = context(p, KernelType::rbf, 3e-4);
    int all_covered = 0;
    for (uint64_t seed = 0; seed < 10; ++seed) {
        Rng rng(seed, Stream::landmarks);
        const std::vector<int64_t> idx = kmeanspp_landmarks(ctx, 10, rng);
        expect_valid(idx, p.n, 10);
        std::set<int64_t> blobs;
        for (int64_t i : idx) blobs.insert(i / 100);
        all_covered += blobs.size() == 10;
    }
    RecordProperty("all_covered", all_covered);
    EXPECT_GE(all_covered, 9);
}

TEST(KmeansppLandmarks, DuplicatesFallBackToUniformWithoutRepeats) {
    // 5 distinct points, each 10 times: after 5 landmarks every D² is 0.
    Points p;
    p.d = 2;
    for (int r = 0; r < 10; ++r) {
        for (int c = 0; c < 5; ++c) p.add(10.0 * c, 0.0);
    }
    const LandmarkContext ctx = context(p, KernelType::rbf, 0.5);
    for (uint64_t seed = 0; seed < 5; ++seed) {
        Rng rng(seed, Stream::landmarks);
        const std::vector<int64_t> idx = kmeanspp_landmarks(ctx, 20, rng);
        expect_valid(idx, p.n, 20);
        std::set<int64_t> distinct;
        for (int64_t i : idx) distinct.insert(i % 5);
        EXPECT_EQ(distinct.size(), 5u);
    }
    Rng rng(0, Stream::landmarks);
    EXPECT_EQ(kmeanspp_landmarks(ctx, p.n, rng), all_indices(p.n));

    // A diagonal that disagrees with the kernel evaluation by round-off leaves every D²
    // slightly positive, a chosen landmark's own included: it must still never be drawn again.
    LandmarkContext rounded = context(p, KernelType::rbf, 0.5);
    for (float& k : rounded.diag) k = 1.0f + 1e-6f;
    for (uint64_t seed = 0; seed < 5; ++seed) {
        Rng r(seed, Stream::landmarks);
        expect_valid(kmeanspp_landmarks(rounded, 20, r), p.n, 20);
    }
}

// ------------------------------------------------------------------ both samplers

TEST(DataDependentLandmarks, FunctionOfSeedOnlyNotOfThreads) {
    const Points p = far_cluster(9);
    const double lambda = std::sqrt(static_cast<double>(p.n));
    const LandmarkContext one = context(p, KernelType::rbf, 0.5, 1), two = context(p, KernelType::rbf, 0.5, 2);
    for (uint64_t seed = 0; seed < 3; ++seed) {
        Rng a(seed, Stream::landmarks), b(seed, Stream::landmarks), c(seed, Stream::landmarks);
        const std::vector<int64_t> rls = rls_landmarks(one, 40, lambda, a);
        expect_valid(rls, p.n, 40);
        EXPECT_EQ(rls, rls_landmarks(one, 40, lambda, b));
        EXPECT_EQ(rls, rls_landmarks(two, 40, lambda, c));
        Rng d(seed, Stream::landmarks), e(seed, Stream::landmarks), f(seed, Stream::landmarks);
        const std::vector<int64_t> pp = kmeanspp_landmarks(one, 25, d);
        expect_valid(pp, p.n, 25);
        EXPECT_EQ(pp, kmeanspp_landmarks(one, 25, e));
        EXPECT_EQ(pp, kmeanspp_landmarks(two, 25, f));
    }
    Rng a(0, Stream::landmarks), b(1, Stream::landmarks);
    EXPECT_NE(rls_landmarks(one, 40, lambda, a), rls_landmarks(one, 40, lambda, b));
}

}  // namespace
}  // namespace kkm
