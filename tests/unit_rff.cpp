// Random Fourier features: z(x)ᵀz(y) estimates the kernel, the estimate sharpens with m,
// the map is a pure function of the seed, and only shift-invariant kernels are accepted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/matrix.h"
#include "core/rng.h"
#include "features/rff.h"

namespace kkm {
namespace {

constexpr int64_t kDim = 5;
constexpr int64_t kPairs = 500;
constexpr double kGamma = 0.5;

/// Pairs (x_i, y_i) stored as rows 2i and 2i+1, with k(x_i, y_i) spread uniformly over
/// (0.1, 0.9): y = x + δ, δ a random direction scaled to the distance that gives the target.
/// Symmetric pairs are x = −δ/2, y = δ/2 (about the origin, where the phases b matter most:
/// without them z(x)ᵀz(y) would estimate k(x, y) + k(x, −y)).
struct Pairs {
    std::vector<float> X;       // (2·kPairs) × kDim
    std::vector<double> exact;  // k(x_i, y_i)
};

Pairs make_pairs(KernelType kernel, uint32_t seed, bool symmetric = false) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> target(0.1, 0.9);
    Pairs p;
    for (int64_t i = 0; i < kPairs; ++i) {
        std::vector<double> x(kDim), delta(kDim);
        double l2 = 0.0, l1 = 0.0;
        for (int64_t t = 0; t < kDim; ++t) {
            x[t] = normal(gen);
            delta[t] = normal(gen);
            l2 += delta[t] * delta[t];
            l1 += std::fabs(delta[t]);
        }
        const double k = target(gen);
        // rbf: γ‖δ‖² = −ln k; laplacian: γ‖δ‖₁ = −ln k.
        const double scale =
            kernel == KernelType::rbf ? std::sqrt(-std::log(k) / kGamma / l2) : -std::log(k) / kGamma / l1;
        if (symmetric) {
            for (int64_t t = 0; t < kDim; ++t) x[t] = -0.5 * scale * delta[t];
        }
        double dist = 0.0;
        for (int64_t t = 0; t < kDim; ++t) p.X.push_back(static_cast<float>(x[t]));
        for (int64_t t = 0; t < kDim; ++t) {
            const float y = static_cast<float>(x[t] + scale * delta[t]);
            p.X.push_back(y);
            const double diff = static_cast<double>(y) - static_cast<double>(static_cast<float>(x[t]));
            dist += kernel == KernelType::rbf ? diff * diff : std::fabs(diff);
        }
        p.exact.push_back(std::exp(-kGamma * dist));  // of the float points actually used
    }
    return p;
}

Matrix features(const RffMap& map, const std::vector<float>& X, int64_t n) {
    Matrix rows;
    copy_into(ConstMatrix{X.data(), n, map.input_dim()}, rows);
    FeatureScratch scratch;
    Matrix out;
    map.transform_block(rows.view(), scratch, out);
    return out;
}

double dot(const Matrix& F, int64_t i, int64_t j) {
    double s = 0.0;
    for (int64_t t = 0; t < F.cols; ++t) s += static_cast<double>(F.row(i)[t]) * F.row(j)[t];
    return s;
}

/// Mean over the pairs of |z(x)ᵀz(y) − k(x, y)| for a map with m features.
double mean_error(KernelType kernel, int64_t m, uint64_t seed, bool symmetric = false) {
    const Pairs p = make_pairs(kernel, 7, symmetric);
    Rng rng(seed, Stream::random_features);
    const RffMap map(kernel, kGamma, kDim, m, rng, engine::best_isa());
    const Matrix F = features(map, p.X, 2 * kPairs);
    double total = 0.0;
    for (int64_t i = 0; i < kPairs; ++i) total += std::fabs(dot(F, 2 * i, 2 * i + 1) - p.exact[i]);
    return total / kPairs;
}

TEST(Rff, RbfEstimatesTheKernel) {
    const double e500 = mean_error(KernelType::rbf, 500, 11);
    const double e2000 = mean_error(KernelType::rbf, 2000, 11);
    const double e8000 = mean_error(KernelType::rbf, 8000, 11);
    std::printf("rbf mean |z(x)'z(y) - k|: m=500 %.4f  m=2000 %.4f  m=8000 %.4f\n", e500, e2000, e8000);
    EXPECT_LT(e2000, 0.05);
    EXPECT_LT(e8000, e500);
}

TEST(Rff, LaplacianEstimatesTheKernel) {
    const double e500 = mean_error(KernelType::laplacian, 500, 12);
    const double e2000 = mean_error(KernelType::laplacian, 2000, 12);
    const double e8000 = mean_error(KernelType::laplacian, 8000, 12);
    std::printf("laplacian mean |z(x)'z(y) - k|: m=500 %.4f  m=2000 %.4f  m=8000 %.4f\n", e500, e2000, e8000);
    EXPECT_LT(e2000, 0.05);
    EXPECT_LT(e8000, e500);
}

TEST(Rff, EstimatesTheKernelAboutTheOrigin) {
    for (KernelType kernel : {KernelType::rbf, KernelType::laplacian}) {
        EXPECT_LT(mean_error(kernel, 2000, 14, true), 0.05) << (kernel == KernelType::rbf ? "rbf" : "laplacian");
    }
}

TEST(Rff, SelfInnerProductIsOneOnAverage) {
    const Pairs p = make_pairs(KernelType::rbf, 8);
    Rng rng(13, Stream::random_features);
    const RffMap map(KernelType::rbf, kGamma, kDim, 2000, rng, engine::best_isa());
    const Matrix F = features(map, p.X, 2 * kPairs);
    double total = 0.0;
    for (int64_t i = 0; i < F.rows; ++i) total += dot(F, i, i);
    EXPECT_NEAR(total / static_cast<double>(F.rows), 1.0, 0.02);
}

TEST(Rff, FrequenciesFollowTheSpectralDensity) {
    // rbf: N(0, 2γ), so the sample variance of W's entries is 2γ. laplacian: Cauchy(0, γ),
    // whose quartiles are ±γ, so the median of |w| is γ.
    Rng a(3, Stream::random_features), b(3, Stream::random_features);
    const RffMap rbf(KernelType::rbf, kGamma, kDim, 4000, a, engine::best_isa());
    const RffMap lap(KernelType::laplacian, kGamma, kDim, 4000, b, engine::best_isa());
    const int64_t n = 4000 * kDim;
    double sum = 0.0, sq = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        sum += rbf.frequencies().values[i];
        sq += static_cast<double>(rbf.frequencies().values[i]) * rbf.frequencies().values[i];
    }
    EXPECT_NEAR(sum / n, 0.0, 0.02);
    EXPECT_NEAR(sq / n, 2.0 * kGamma, 0.03);
    std::vector<float> magnitude(lap.frequencies().values.begin(), lap.frequencies().values.begin() + n);
    for (float& w : magnitude) w = std::fabs(w);
    std::nth_element(magnitude.begin(), magnitude.begin() + n / 2, magnitude.end());
    EXPECT_NEAR(magnitude[n / 2], kGamma, 0.03);
    // b uniform on [0, 2π): mean π, variance π²/3.
    double bsum = 0.0, bsq = 0.0;
    for (float phase : rbf.phases()) {
        EXPECT_GE(phase, 0.0f);
        EXPECT_LE(phase, static_cast<float>(2.0 * M_PI));
        bsum += phase;
        bsq += static_cast<double>(phase) * phase;
    }
    const double bmean = bsum / 4000, bvar = bsq / 4000 - bmean * bmean;
    EXPECT_NEAR(bmean, M_PI, 0.1);
    EXPECT_NEAR(bvar, M_PI * M_PI / 3.0, 0.2);
}

TEST(Rff, FeaturesMatchTheFormula) {
    // Laplacian's heavy-tailed frequencies give large phases: the vector cos must still agree.
    for (KernelType kernel : {KernelType::rbf, KernelType::laplacian}) {
        const Pairs p = make_pairs(kernel, 9);
        Rng rng(5, Stream::random_features);
        const int64_t m = 300, n = 64;
        const RffMap map(kernel, kGamma, kDim, m, rng, engine::best_isa());
        ASSERT_EQ(map.input_dim(), kDim);
        ASSERT_EQ(map.dim(), m);
        const Matrix F = features(map, p.X, n);
        ASSERT_EQ(F.rows, n);
        ASSERT_EQ(F.cols, m);
        const Matrix& W = map.frequencies();
        for (int64_t i = 0; i < n; ++i) {
            for (int64_t j = 0; j < m; ++j) {
                float phase = 0.0f;  // float like the GEMM, so large phases round alike
                for (int64_t t = 0; t < kDim; ++t) phase += W.row(j)[t] * p.X[i * kDim + t];
                phase += map.phases()[j];
                const double expect = std::sqrt(2.0 / m) * std::cos(static_cast<double>(phase));
                // A relative phase error of a few float ulps, times |phase|, bounds the gap.
                const double tol = 1e-5 + 2e-6 * std::fabs(phase) * std::sqrt(2.0 / m);
                ASSERT_NEAR(F.row(i)[j], expect, tol) << "row " << i << " feature " << j;
            }
        }
    }
}

TEST(Rff, OneRowBlocksMatchALargeBlock) {
    const Pairs p = make_pairs(KernelType::rbf, 10);
    Rng rng(6, Stream::random_features);
    const RffMap map(KernelType::rbf, kGamma, kDim, 257, rng, engine::best_isa());
    const Matrix all = features(map, p.X, 40);
    for (int64_t i = 0; i < 40; ++i) {
        const std::vector<float> row(p.X.begin() + i * kDim, p.X.begin() + (i + 1) * kDim);
        const Matrix one = features(map, row, 1);
        for (int64_t j = 0; j < map.dim(); ++j) EXPECT_NEAR(one.row(0)[j], all.row(i)[j], 1e-5f);
    }
}

TEST(Rff, SameSeedSameMapOtherSeedOtherMap) {
    const Pairs p = make_pairs(KernelType::rbf, 11);
    for (KernelType kernel : {KernelType::rbf, KernelType::laplacian}) {
        Rng a(42, Stream::random_features), b(42, Stream::random_features), c(43, Stream::random_features);
        const RffMap ma(kernel, kGamma, kDim, 100, a, engine::best_isa()),
            mb(kernel, kGamma, kDim, 100, b, engine::best_isa()), mc(kernel, kGamma, kDim, 100, c, engine::best_isa());
        const Matrix fa = features(ma, p.X, 20), fb = features(mb, p.X, 20), fc = features(mc, p.X, 20);
        const size_t count = 20 * 100;
        const std::vector<float> va(fa.values.begin(), fa.values.begin() + count);
        const std::vector<float> vb(fb.values.begin(), fb.values.begin() + count);
        const std::vector<float> vc(fc.values.begin(), fc.values.begin() + count);
        EXPECT_EQ(va, vb);
        EXPECT_NE(va, vc);
    }
}

TEST(Rff, RejectsKernelsThatAreNotShiftInvariant) {
    const std::pair<KernelType, std::string> cases[] = {{KernelType::polynomial, "polynomial"},
                                                        {KernelType::linear, "linear"},
                                                        {KernelType::cosine, "cosine"},
                                                        {KernelType::precomputed, "precomputed"}};
    for (const auto& [kernel, name] : cases) {
        Rng rng(1, Stream::random_features);
        try {
            RffMap map(kernel, kGamma, kDim, 10, rng, engine::best_isa());
            ADD_FAILURE() << "kernel=" << name << " was accepted";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find("kernel=" + name), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("method=rff"), std::string::npos) << e.what();
        }
    }
}

TEST(Rff, RejectsBadSizesAndGamma) {
    Rng rng(1, Stream::random_features);
    EXPECT_THROW(RffMap(KernelType::rbf, 0.0, kDim, 10, rng, engine::best_isa()), Error);
    EXPECT_THROW(RffMap(KernelType::rbf, -1.0, kDim, 10, rng, engine::best_isa()), Error);
    EXPECT_THROW(RffMap(KernelType::rbf, NAN, kDim, 10, rng, engine::best_isa()), Error);
    EXPECT_THROW(RffMap(KernelType::rbf, kGamma, 0, 10, rng, engine::best_isa()), Error);
    EXPECT_THROW(RffMap(KernelType::laplacian, kGamma, kDim, 0, rng, engine::best_isa()), Error);
}

}  // namespace
}  // namespace kkm
