// The sketch matrices S of method=sketch (Yin et al. 2022, Examples 1–3): each kind applies
// exactly the matrix its definition gives, its entries have the stated distribution, and the
// same seed gives the same S.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "features/sketch.h"

namespace kkm {
namespace {

std::unique_ptr<Projection> sketch(SketchKind kind, int64_t m, int64_t n, uint64_t seed = 7) {
    Rng rng(seed, Stream::sketch);
    return make_sketch(kind, m, n, rng, engine::best_isa());
}

/// rows × cols uniform in [-1, 1].
Matrix random_rows(int64_t rows, int64_t cols, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Matrix G(rows, cols);
    for (int64_t i = 0; i < rows * cols; ++i) G.data()[i] = u(gen);
    return G;
}

/// The Sylvester Hadamard matrix H_p (p a power of two) by its recursive definition
/// H_2k = [H_k H_k; H_k −H_k], row-major.
std::vector<double> hadamard(int64_t p) {
    std::vector<double> H{1.0};
    for (int64_t k = 1; k < p; k *= 2) {
        std::vector<double> next(static_cast<size_t>(4 * k * k));
        for (int64_t i = 0; i < k; ++i) {
            for (int64_t j = 0; j < k; ++j) {
                const double h = H[static_cast<size_t>(i * k + j)];
                next[static_cast<size_t>(i * 2 * k + j)] = h;
                next[static_cast<size_t>(i * 2 * k + j + k)] = h;
                next[static_cast<size_t>((i + k) * 2 * k + j)] = h;
                next[static_cast<size_t>((i + k) * 2 * k + j + k)] = -h;
            }
        }
        H = std::move(next);
    }
    return H;
}

/// Expects out (rows × S.rows) = each row g of G times Sᵀ, S given densely (S.rows × G.cols),
/// the reference product taken in double.
void expect_dense_product(const Matrix& S, const Matrix& G, const Matrix& out, double tol) {
    ASSERT_EQ(out.rows, G.rows);
    ASSERT_EQ(out.cols, S.rows);
    for (int64_t r = 0; r < G.rows; ++r) {
        for (int64_t i = 0; i < S.rows; ++i) {
            double want = 0.0;
            for (int64_t j = 0; j < G.cols; ++j) want += double{S.row(i)[j]} * G.row(r)[j];
            ASSERT_NEAR(out.row(r)[i], want, tol) << "row " << r << ", component " << i;
        }
    }
}

// ------------------------------------------------------------------------------------ ROS

/// The fast transform against D·A built densely: A = H_p/√p by the recursion, D's signs read
/// off S·e_1 = D·(first column of A) = D·(1/√p)·1.
void check_ros_against_dense(int64_t m, int64_t p) {
    const auto S = sketch(SketchKind::ros, m, 1000);
    ASSERT_EQ(S->in_dim(), m);
    ASSERT_EQ(S->out_dim(), p);

    Matrix e1(1, m), first;
    e1.row(0)[0] = 1.0f;
    S->apply(e1.view(), first, nullptr);
    const double scale = 1.0 / std::sqrt(static_cast<double>(p));
    std::vector<double> sign(static_cast<size_t>(p));
    int64_t negative = 0;
    for (int64_t i = 0; i < p; ++i) {
        ASSERT_NEAR(std::fabs(first.row(0)[i]), scale, 1e-6) << "component " << i;
        sign[static_cast<size_t>(i)] = first.row(0)[i] < 0.0f ? -1.0 : 1.0;
        negative += first.row(0)[i] < 0.0f ? 1 : 0;
    }
    // D is random: for p ≥ 32 both signs occur (one missing has probability 2^(1−p)).
    if (p >= 32) {
        EXPECT_GT(negative, 0);
        EXPECT_LT(negative, p);
    }

    const auto H = hadamard(p);
    Matrix dense(p, m);  // D·A restricted to the first m columns (the zero padding drops the rest)
    for (int64_t i = 0; i < p; ++i) {
        for (int64_t j = 0; j < m; ++j) {
            dense.row(i)[j] =
                static_cast<float>(sign[static_cast<size_t>(i)] * scale * H[static_cast<size_t>(i * p + j)]);
        }
    }
    const Matrix G = random_rows(9, m, 3);
    Matrix out;
    S->apply(G.view(), out, nullptr);
    expect_dense_product(dense, G, out, 1e-5);
}

TEST(Sketch, RosFastTransformEqualsDenseHadamardPowerOfTwo) {
    check_ros_against_dense(64, 64);
}

TEST(Sketch, RosFastTransformEqualsDenseHadamardZeroPadded) {
    check_ros_against_dense(100, 128);
}

TEST(Sketch, RosOfSizeOneIsASign) {
    check_ros_against_dense(1, 1);
}

TEST(Sketch, RosPreservesNorms) {
    for (const int64_t m : {64, 100, 1000}) {
        const auto S = sketch(SketchKind::ros, m, 5000);
        const Matrix G = random_rows(7, m, 5);
        Matrix out;
        S->apply(G.view(), out, nullptr);
        for (int64_t r = 0; r < G.rows; ++r) {
            double in = 0.0, mapped = 0.0;
            for (int64_t j = 0; j < m; ++j) in += double{G.row(r)[j]} * G.row(r)[j];
            for (int64_t i = 0; i < S->out_dim(); ++i) mapped += double{out.row(r)[i]} * out.row(r)[i];
            EXPECT_NEAR(std::sqrt(mapped), std::sqrt(in), 1e-5 * std::sqrt(in)) << "m=" << m << " row " << r;
        }
    }
}

// ---------------------------------------------------------------------------- sub-Gaussian

TEST(Sketch, SubgaussianEntriesAreOneSignPerRowWithDensityOneOverRootN) {
    const int64_t m = 400, n = 10000;  // density q = 1/√n = 1/100
    const auto S = sketch(SketchKind::subgaussian, m, n);
    ASSERT_EQ(S->out_dim(), m);
    const Matrix dense = dense_matrix(*S);
    const double magnitude = 1.0 / std::sqrt(static_cast<double>(m));
    int64_t nonzeros = 0, right_half = 0, positive_rows = 0, nonempty_rows = 0;
    for (int64_t i = 0; i < m; ++i) {
        int row_sign = 0;
        for (int64_t j = 0; j < m; ++j) {
            const float v = dense.row(i)[j];
            if (v == 0.0f) continue;
            ASSERT_NEAR(std::fabs(v), magnitude, 1e-7) << "S(" << i << "," << j << ")";
            const int s = v > 0.0f ? 1 : -1;
            if (row_sign == 0) row_sign = s;
            ASSERT_EQ(s, row_sign) << "row " << i << " mixes signs at column " << j;
            ++nonzeros;
            right_half += j >= m / 2 ? 1 : 0;
        }
        nonempty_rows += row_sign != 0 ? 1 : 0;
        positive_rows += row_sign > 0 ? 1 : 0;
    }
    // nonzeros ~ Binomial(m² = 160000, 1/100): mean 1600, sd = √(160000·0.01·0.99) ≈ 39.8.
    // Five standard deviations (≈ 199, a false alarm ~1e-6): fraction 0.01 ± 0.00125.
    const double fraction = static_cast<double>(nonzeros) / static_cast<double>(m * m);
    EXPECT_NEAR(fraction, 0.01, 5.0 * std::sqrt(0.01 * 0.99 / static_cast<double>(m * m)));
    // Columns are uniform: given the count, the right half holds Binomial(nonzeros, 1/2).
    EXPECT_NEAR(static_cast<double>(right_half), nonzeros / 2.0, 5.0 * std::sqrt(nonzeros / 4.0));
    // Row signs are fair: positive rows ~ Binomial(nonempty rows ≈ 393, 1/2), sd ≈ 9.9.
    EXPECT_NEAR(static_cast<double>(positive_rows), nonempty_rows / 2.0, 5.0 * std::sqrt(nonempty_rows / 4.0));
}

TEST(Sketch, SubgaussianSparseApplyEqualsDenseProduct) {
    const int64_t m = 64;
    const auto S = sketch(SketchKind::subgaussian, m, 64);  // q = 1/8: about 8 nonzeros per row
    const Matrix dense = dense_matrix(*S);
    int64_t nonzeros = 0;
    for (int64_t i = 0; i < m * m; ++i) nonzeros += dense.data()[i] != 0.0f ? 1 : 0;
    ASSERT_GT(nonzeros, 0);
    const Matrix G = random_rows(11, m, 9);
    Matrix out;
    S->apply(G.view(), out, nullptr);
    expect_dense_product(dense, G, out, 1e-6);
}

TEST(Sketch, SubgaussianWithOneTrainingRowIsDense) {
    const int64_t m = 20;  // q = 1/√1 = 1: every entry is σ(i)/√m
    const Matrix dense = dense_matrix(*sketch(SketchKind::subgaussian, m, 1));
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) {
            EXPECT_NEAR(std::fabs(dense.row(i)[j]), 1.0 / std::sqrt(20.0), 1e-7);
            EXPECT_EQ(dense.row(i)[j], dense.row(i)[0]);
        }
    }
}

// -------------------------------------------------------------------------------- Gaussian

TEST(Sketch, GaussianEntriesHaveMeanZeroVarianceOneOverM) {
    const int64_t m = 300;
    const auto S = sketch(SketchKind::gaussian, m, 100000);
    ASSERT_EQ(S->out_dim(), m);
    const Matrix dense = dense_matrix(*S);
    const auto N = static_cast<double>(m * m);  // 90000 entries
    double sum = 0.0, sum2 = 0.0;
    for (int64_t i = 0; i < m * m; ++i) sum += dense.data()[i];
    const double mean = sum / N;
    for (int64_t i = 0; i < m * m; ++i) sum2 += (dense.data()[i] - mean) * (dense.data()[i] - mean);
    const double variance = sum2 / (N - 1.0);
    double sum4 = 0.0;
    for (int64_t i = 0; i < m * m; ++i) sum4 += std::pow((dense.data()[i] - mean) / std::sqrt(variance), 4);
    // Mean: sd = √(1/m / N) ≈ 1.9e-4; five of them.
    EXPECT_NEAR(mean, 0.0, 5.0 * std::sqrt(1.0 / static_cast<double>(m) / N));
    // Sample variance of normals: relative sd √(2/N) ≈ 0.47 %; five of them.
    EXPECT_NEAR(variance * static_cast<double>(m), 1.0, 5.0 * std::sqrt(2.0 / N));
    // Normal, not merely centred: E z⁴ = 3 with Var z⁴ = 96, so sd √(96/N) ≈ 0.033; six of them
    // (a uniform or ±1 law gives 1.8 or 1).
    EXPECT_NEAR(sum4 / N, 3.0, 6.0 * std::sqrt(96.0 / N));
}

TEST(Sketch, GaussianApplyEqualsDenseProduct) {
    const int64_t m = 64;
    const auto S = sketch(SketchKind::gaussian, m, 1000);
    const Matrix G = random_rows(10, m, 13);
    Matrix out;
    S->apply(G.view(), out, nullptr);
    expect_dense_product(dense_matrix(*S), G, out, 1e-5);
}

// -------------------------------------------------------------------------------- identity

TEST(Sketch, IdentityApplyIsTheIdentity) {
    const int64_t m = 37;
    const auto S = sketch(SketchKind::identity, m, 1000);
    ASSERT_EQ(S->in_dim(), m);
    ASSERT_EQ(S->out_dim(), m);
    const Matrix G = random_rows(6, m, 17);
    Matrix out;
    S->apply(G.view(), out, nullptr);
    ASSERT_EQ(out.rows, G.rows);
    ASSERT_EQ(out.cols, m);
    for (int64_t i = 0; i < G.rows * m; ++i) EXPECT_EQ(out.data()[i], G.data()[i]) << "element " << i;
}

// ------------------------------------------------------------------- every kind, properties

constexpr SketchKind kAllKinds[] = {SketchKind::subgaussian, SketchKind::ros, SketchKind::gaussian,
                                    SketchKind::identity};
constexpr SketchKind kRandomKinds[] = {SketchKind::subgaussian, SketchKind::ros, SketchKind::gaussian};

bool same_matrix(const Matrix& a, const Matrix& b) {
    if (a.rows != b.rows || a.cols != b.cols) return false;
    for (int64_t i = 0; i < a.rows * a.cols; ++i) {
        if (a.data()[i] != b.data()[i]) return false;
    }
    return true;
}

TEST(Sketch, SameSeedSameMatrixDifferentSeedDifferentMatrix) {
    for (const SketchKind kind : kRandomKinds) {
        const int64_t m = 50, n = 400;  // sub-Gaussian density 1/20: about 125 nonzeros
        const Matrix a = dense_matrix(*sketch(kind, m, n, 1));
        const Matrix b = dense_matrix(*sketch(kind, m, n, 1));
        const Matrix c = dense_matrix(*sketch(kind, m, n, 2));
        EXPECT_TRUE(same_matrix(a, b)) << "kind " << static_cast<int>(kind);
        EXPECT_FALSE(same_matrix(a, c)) << "kind " << static_cast<int>(kind);
    }
}

TEST(Sketch, OutputAndScratchReuseGiveTheSameResult) {
    for (const SketchKind kind : kAllKinds) {
        const int64_t m = 100;  // ros pads to 128: stale values must not leak into the padding
        const auto S = sketch(kind, m, 400);
        const Matrix big = random_rows(20, m, 19);
        const Matrix small = random_rows(3, m, 23);
        Matrix fresh, reused, with_scratch;
        S->apply(small.view(), fresh, nullptr);
        S->apply(big.view(), reused, nullptr);
        S->apply(small.view(), reused, nullptr);
        EXPECT_TRUE(same_matrix(fresh, reused)) << "kind " << static_cast<int>(kind);
        // A scratch kept from block to block (a dense projection packs G's rows into it).
        engine::BlockScratch block;
        S->apply(big.view(), with_scratch, &block);
        S->apply(small.view(), with_scratch, &block);
        EXPECT_TRUE(same_matrix(fresh, with_scratch)) << "kind " << static_cast<int>(kind);
    }
}

TEST(Sketch, NonPositiveSizesAreRejected) {
    Rng rng(1, Stream::sketch);
    EXPECT_THROW(make_sketch(SketchKind::ros, 0, 10, rng, engine::best_isa()), Error);
    EXPECT_THROW(make_sketch(SketchKind::subgaussian, 10, 0, rng, engine::best_isa()), Error);
}

}  // namespace
}  // namespace kkm
