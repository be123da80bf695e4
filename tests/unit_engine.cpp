// The kernel-block engine (src/engine) against a float64 reference: every kernel function on
// every path this CPU supports, at sizes that hit every tile edge (1, 7, the register tile
// sizes and one past them), d = 1 and d = 3000, a strided output inside a larger buffer,
// X and Y the same rows, and the paths against each other.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cluster/lloyd.h"
#include "core/error.h"
#include "core/matrix.h"
#include "engine/dots.h"
#include "engine/engine.h"
#include "engine/half.h"
#include "engine/products.h"
#include "engine/row_store.h"
#include "engine/tiles.h"
#include "kernels/kernel.h"

namespace kkm {
namespace {

using engine::Isa;

std::vector<Isa> supported_paths() {
    std::vector<Isa> out;
    for (Isa isa : {Isa::portable, Isa::avx2, Isa::avx512}) {
        if (engine::isa_supported(isa)) out.push_back(isa);
    }
    return out;
}

Matrix random_rows(int64_t n, int64_t d, unsigned seed, float lo = -1.0f, float hi = 1.0f) {
    Matrix X(n, d);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    for (int64_t i = 0; i < n * d; ++i) X.values[static_cast<size_t>(i)] = u(gen);
    return X;
}

struct KernelCase {
    KernelType type;
    double gamma;
    int64_t degree;
    double coef0;
    std::string name;
};

std::vector<KernelCase> kernel_cases(int64_t d) {
    const double g = 1.0 / static_cast<double>(d);
    return {{KernelType::rbf, g, 3, 1.0, "rbf"},          {KernelType::laplacian, g, 3, 1.0, "laplacian"},
            {KernelType::polynomial, g, 1, 0.5, "poly1"}, {KernelType::polynomial, g, 2, 1.0, "poly2"},
            {KernelType::polynomial, g, 3, 1.0, "poly3"}, {KernelType::linear, g, 3, 1.0, "linear"},
            {KernelType::cosine, g, 3, 1.0, "cosine"}};
}

/// k(x, y) in float64, and a bound on its float32 rounding error.
struct Reference {
    double value;
    double tolerance;
};

Reference reference(const KernelCase& k, const float* x, const float* y, int64_t d) {
    double dot = 0, absdot = 0, xx = 0, yy = 0, l1 = 0, sq = 0;
    for (int64_t t = 0; t < d; ++t) {
        const double a = x[t], b = y[t];
        dot += a * b;
        absdot += std::fabs(a * b);
        xx += a * a;
        yy += b * b;
        l1 += std::fabs(a - b);
        sq += (a - b) * (a - b);
    }
    const double eps = 1e-6 * std::sqrt(static_cast<double>(d) + 1.0);  // float32 sums of d terms
    switch (k.type) {
        case KernelType::rbf: return {std::exp(-k.gamma * sq), 4e-6 + k.gamma * eps * (xx + yy)};
        case KernelType::laplacian: return {std::exp(-k.gamma * l1), 4e-6 + k.gamma * eps * l1};
        case KernelType::polynomial: {
            const double base = k.gamma * dot + k.coef0, bound = k.gamma * absdot + std::fabs(k.coef0);
            return {std::pow(base, static_cast<double>(k.degree)),
                    4e-6 * std::pow(bound, static_cast<double>(k.degree)) +
                        static_cast<double>(k.degree) * std::pow(bound, static_cast<double>(k.degree - 1)) * k.gamma *
                            eps * absdot};
        }
        case KernelType::cosine: {
            const double norms = std::sqrt(xx * yy);
            return {norms > 0 ? dot / norms : 0.0, 4e-6 + (norms > 0 ? eps * absdot / norms : 0.0)};
        }
        default: return {dot, 4e-6 * absdot + eps * absdot};
    }
}

/// Evaluates k on X × Y through the engine on `isa` into a buffer of row stride ldo (> cols
/// when a test wants guard columns) and checks every value against the float64 reference.
void expect_matches_reference(const KernelCase& k, Isa isa, const Matrix& X, const Matrix& Y, int64_t extra = 0) {
    SCOPED_TRACE(k.name + " isa=" + engine::isa_name(isa) + " rows=" + std::to_string(X.rows) +
                 " cols=" + std::to_string(Y.rows) + " d=" + std::to_string(X.cols));
    const Kernel kernel(k.type, k.gamma, k.degree, k.coef0, isa);
    const int64_t ldo = Y.rows + extra;
    const float guard = -12345.0f;
    std::vector<float> out(static_cast<size_t>(X.rows * ldo), guard);
    kernel.block(X.view(), kernel.pack(Y.view()), out.data(), ldo);
    int failures = 0;
    for (int64_t i = 0; i < X.rows && failures < 5; ++i) {
        for (int64_t j = 0; j < ldo && failures < 5; ++j) {
            const float got = out[static_cast<size_t>(i * ldo + j)];
            if (j >= Y.rows) {
                EXPECT_EQ(got, guard) << "wrote outside the block at (" << i << ", " << j << ")";
                failures += got != guard;
                continue;
            }
            const Reference r = reference(k, X.row(i), Y.row(j), X.cols);
            const bool ok = std::fabs(got - r.value) <= r.tolerance;
            EXPECT_TRUE(ok) << "(" << i << ", " << j << "): " << got << " vs " << r.value << " ± " << r.tolerance;
            failures += !ok;
        }
    }
}

struct Shape {
    int64_t rows, cols, d;
};

TEST(Engine, EveryKernelEveryPathEveryEdgeAgainstFloat64) {
    const std::vector<Shape> shapes = {{1, 1, 1},    {7, 7, 7},   {4, 8, 5},    {5, 9, 2},
                                       {6, 16, 3},   {7, 17, 4},  {14, 32, 9},  {15, 33, 10},
                                       {13, 31, 11}, {29, 65, 1}, {43, 97, 33}, {300, 40, 20}};
    for (const Shape& s : shapes) {
        const Matrix X = random_rows(s.rows, s.d, 11), Y = random_rows(s.cols, s.d, 12);
        for (const KernelCase& k : kernel_cases(s.d)) {
            for (Isa isa : supported_paths()) expect_matches_reference(k, isa, X, Y);
        }
    }
}

TEST(Engine, LongRowsD3000) {
    const Matrix X = random_rows(17, 3000, 21, 0.0f, 1.0f), Y = random_rows(35, 3000, 22, 0.0f, 1.0f);
    for (const KernelCase& k : kernel_cases(3000)) {
        for (Isa isa : supported_paths()) expect_matches_reference(k, isa, X, Y);
    }
}

/// K(X, Y) through engine::kernel_block on `isa` with the reduction in blocks of `depth`,
/// into rows of stride Y.rows + 3 (the last three columns a guard).
std::vector<float> block_in_depth(Isa isa, const engine::TileOp& op, const Matrix& X, const Matrix& Y, int64_t depth) {
    // The tile functions' per-row terms: squared norms (rbf), inverse norms (cosine), none else.
    const auto aux = [&](const Matrix& M) {
        if (op.fn != engine::TileFn::rbf && op.fn != engine::TileFn::cosine) return std::vector<float>();
        std::vector<float> v = row_squared_norms(M.view());
        if (op.fn == engine::TileFn::cosine) {
            for (float& s : v) s = 1.0f / std::sqrt(s);
        }
        return v;
    };
    const std::vector<float> xa = aux(X);
    const engine::PackedRows packed(isa, Y.view(), aux(Y));
    const int64_t ldo = Y.rows + 3;
    std::vector<float> out(static_cast<size_t>(X.rows * ldo), -12345.0f);
    engine::kernel_block(X.view(), xa.empty() ? nullptr : xa.data(), packed, op, out.data(), ldo, nullptr, depth);
    return out;
}

TEST(Engine, DepthBlocksGiveTheBitsOfTheWholeReduction) {
    // The tiles keep their sums in the output between depth blocks: every depth, on every
    // path and every tile function (the L1 tile too), gives the whole reduction's bits, edge
    // tiles included (37 rows and 45 columns are whole tiles of no path), and leaves the guard
    // columns alone. At d = 1031 and depth 1030 the packed X rows take 13 passes.
    EXPECT_EQ(engine::depth_block(784), 784);
    EXPECT_EQ(engine::depth_block(2048), 2048);
    EXPECT_EQ(engine::depth_block(2049), 228);  // 9 equal blocks, not 8 of 256 and one of 1
    EXPECT_EQ(engine::depth_block(4096), 256);
    for (Isa isa : supported_paths()) {
        for (int64_t d : {9, 300, 1031}) {
            const Matrix X = random_rows(d > 1000 ? 300 : 37, d, 71), Y = random_rows(45, d, 72);
            for (const engine::TileFn fn : {engine::TileFn::dot, engine::TileFn::rbf, engine::TileFn::polynomial,
                                            engine::TileFn::cosine, engine::TileFn::laplacian}) {
                engine::TileOp op;
                op.fn = fn;
                op.gamma = 1.0f / static_cast<float>(d);
                op.coef0 = 1.0f;
                op.degree = 3;
                const std::vector<float> whole = block_in_depth(isa, op, X, Y, d);
                for (int64_t depth : {int64_t{1}, int64_t{7}, int64_t{64}, d - 1}) {
                    SCOPED_TRACE(std::string("isa=") + engine::isa_name(isa) + " d=" + std::to_string(d) +
                                 " depth=" + std::to_string(depth) + " fn=" + std::to_string(static_cast<int>(fn)));
                    const std::vector<float> blocked = block_in_depth(isa, op, X, Y, depth);
                    ASSERT_EQ(blocked.size(), whole.size());
                    EXPECT_EQ(std::memcmp(blocked.data(), whole.data(), whole.size() * sizeof(float)), 0);
                }
            }
        }
    }
}

TEST(Engine, ManyRowsCrossThePackedPassBoundary) {
    // 120 KiB of packed X per pass: at d = 784 a pass holds 28 rows, so 700 rows take 25
    // passes.
    const Matrix X = random_rows(700, 784, 31, 0.0f, 1.0f), Y = random_rows(45, 784, 32, 0.0f, 1.0f);
    for (Isa isa : supported_paths()) expect_matches_reference(kernel_cases(784)[0], isa, X, Y);
}

TEST(Engine, StridedOutputLeavesTheRestOfTheBufferAlone) {
    const Matrix X = random_rows(23, 9, 41), Y = random_rows(37, 9, 42);
    for (const KernelCase& k : kernel_cases(9)) {
        for (Isa isa : supported_paths()) expect_matches_reference(k, isa, X, Y, 11);
    }
}

TEST(Engine, SameRowsOnBothSidesGiveASymmetricKernelWithItsDiagonal) {
    const Matrix X = random_rows(45, 13, 51);
    for (const KernelCase& k : kernel_cases(13)) {
        for (Isa isa : supported_paths()) {
            SCOPED_TRACE(k.name + " isa=" + engine::isa_name(isa));
            const Kernel kernel(k.type, k.gamma, k.degree, k.coef0, isa);
            Matrix K(X.rows, X.rows);
            kernel.block(X.view(), kernel.pack(X.view()), K.data(), X.rows);
            std::vector<float> diag(static_cast<size_t>(X.rows));
            kernel.diagonal(X.view(), diag.data());
            for (int64_t i = 0; i < X.rows; ++i) {
                EXPECT_NEAR(K.row(i)[i], diag[static_cast<size_t>(i)],
                            1e-5 * (1 + std::fabs(diag[static_cast<size_t>(i)])));
                for (int64_t j = 0; j < i; ++j) EXPECT_EQ(K.row(i)[j], K.row(j)[i]) << i << ", " << j;
            }
        }
    }
}

TEST(Engine, PathsAgreeToFloat32Rounding) {
    const Matrix X = random_rows(61, 50, 61), Y = random_rows(77, 50, 62);
    for (const KernelCase& k : kernel_cases(50)) {
        SCOPED_TRACE(k.name);
        std::vector<std::vector<float>> results;
        for (Isa isa : supported_paths()) {
            const Kernel kernel(k.type, k.gamma, k.degree, k.coef0, isa);
            std::vector<float> out(static_cast<size_t>(X.rows * Y.rows));
            kernel.block(X.view(), kernel.pack(Y.view()), out.data(), Y.rows);
            results.push_back(std::move(out));
        }
        for (size_t p = 1; p < results.size(); ++p) {
            for (size_t i = 0; i < results[0].size(); ++i) {
                ASSERT_NEAR(results[p][i], results[0][i], 2e-6 * (1 + std::fabs(results[0][i]))) << "value " << i;
            }
        }
    }
}

TEST(Engine, RowDotsEveryPathEveryEdgeAgainstFloat64) {
    // Row tiles of 4 (AVX-512) and 2 (AVX2), centre groups of 6 and 5, lanes of 16 and 8:
    // sizes one below, at and above each, strided rows and output.
    for (int64_t rows : {1, 2, 3, 4, 5, 9}) {
        for (int64_t cols : {1, 5, 6, 7, 13}) {
            for (int64_t m : {1, 7, 8, 15, 16, 17, 33, 1000}) {
                const int64_t lda = m + 3, ldb = m + 5, ldo = cols + 2;
                const Matrix A = random_rows(rows, lda, 71), B = random_rows(cols, ldb, 72);
                for (Isa isa : supported_paths()) {
                    std::vector<float> out(static_cast<size_t>(rows * ldo), -7.0f);
                    engine::row_dots(isa, A.data(), rows, lda, B.data(), cols, ldb, m, out.data(), ldo);
                    for (int64_t i = 0; i < rows; ++i) {
                        for (int64_t j = 0; j < ldo; ++j) {
                            const float got = out[static_cast<size_t>(i * ldo + j)];
                            if (j >= cols) {
                                ASSERT_EQ(got, -7.0f) << "wrote outside at " << i << ", " << j;
                                continue;
                            }
                            double want = 0, scale = 0;
                            for (int64_t t = 0; t < m; ++t) {
                                want += static_cast<double>(A.row(i)[t]) * B.row(j)[t];
                                scale += std::fabs(static_cast<double>(A.row(i)[t]) * B.row(j)[t]);
                            }
                            ASSERT_NEAR(got, want, 1e-6 * std::sqrt(static_cast<double>(m)) * (scale + 1))
                                << engine::isa_name(isa) << " rows=" << rows << " cols=" << cols << " m=" << m << " at "
                                << i << ", " << j;
                        }
                    }
                }
            }
        }
    }
}

TEST(Engine, IndexedAndHalfRowDotsGiveTheBitsOfGatheringAndDecodingFirst) {
    // Rows picked by index (repeats, reverse order) and stored as half: each value must be
    // bit-identical to gathering the rows (widened with from_half) and calling row_dots,
    // on every path and at every tile and lane edge.
    for (int64_t m : {1, 7, 8, 9, 15, 16, 17, 33, 1000}) {
        const int64_t n = 11, lda = m + 3, ldo = 9;
        const Matrix A = random_rows(n, lda, 73), B = random_rows(7, m, 74);
        std::vector<uint16_t> half(static_cast<size_t>(n * lda));
        for (size_t i = 0; i < half.size(); ++i) half[i] = engine::to_half(A.values[i]);
        const std::vector<int64_t> idx = {10, 3, 3, 0, 7, 9, 1, 2, 8};
        for (int64_t rows : {1, 2, 3, 4, 5, 9}) {
            for (int64_t cols : {1, 5, 6, 7}) {
                Matrix gathered(rows, m), widened(rows, m);
                for (int64_t i = 0; i < rows; ++i) {
                    for (int64_t t = 0; t < m; ++t) {
                        const size_t at = static_cast<size_t>(idx[static_cast<size_t>(i)] * lda + t);
                        gathered.row(i)[t] = A.values[at];
                        widened.row(i)[t] = engine::from_half(half[at]);
                    }
                }
                for (Isa isa : supported_paths()) {
                    std::vector<float> want(static_cast<size_t>(rows * ldo), -7.0f), got(want), want_h(want),
                        got_h(want);
                    engine::row_dots(isa, gathered.data(), rows, m, B.data(), cols, m, m, want.data(), ldo);
                    engine::row_dots_at(isa, A.data(), idx.data(), rows, lda, B.data(), cols, m, m, got.data(), ldo);
                    engine::row_dots(isa, widened.data(), rows, m, B.data(), cols, m, m, want_h.data(), ldo);
                    engine::row_dots_half(isa, half.data(), idx.data(), rows, lda, B.data(), cols, m, m, got_h.data(),
                                          ldo);
                    for (size_t v = 0; v < want.size(); ++v) {
                        ASSERT_EQ(got[v], want[v]) << engine::isa_name(isa) << " float m=" << m << " at " << v;
                        ASSERT_EQ(got_h[v], want_h[v]) << engine::isa_name(isa) << " half m=" << m << " at " << v;
                    }
                }
            }
        }
    }
}

TEST(Engine, WideningAxpyGivesThePlainLoopsBitsOnEveryPath) {
    for (int64_t count : {0, 1, 3, 4, 7, 8, 9, 17, 1000}) {
        const Matrix p = random_rows(1, count + 1, 77);
        std::vector<double> base(static_cast<size_t>(count) + 1);
        // Sums of the products' scale, where a fused multiply-add would round otherwise.
        for (size_t s = 0; s < base.size(); ++s) base[s] = std::sin(static_cast<double>(s)) * 0.7;
        for (double g : {0.3, -1.7}) {
            std::vector<double> want = base;
            for (int64_t s = 0; s < count; ++s) want[static_cast<size_t>(s)] += g * p.row(0)[s];
            for (Isa isa : supported_paths()) {
                std::vector<double> got = base;
                engine::axpy_widen(isa, g, p.row(0), got.data(), count);
                EXPECT_EQ(got, want) << engine::isa_name(isa) << " count=" << count;  // last value untouched too
            }
        }
    }
}

TEST(Engine, AxpyOfFloatAndHalfRowsGivesThePlainLoopsBitsOnEveryPath) {
    for (int64_t count : {0, 1, 7, 8, 9, 15, 16, 17, 1000}) {
        const Matrix p = random_rows(1, count + 1, 78), base = random_rows(1, count + 1, 79);
        std::vector<uint16_t> half(static_cast<size_t>(count) + 1);
        for (int64_t s = 0; s <= count; ++s) half[static_cast<size_t>(s)] = engine::to_half(p.row(0)[s]);
        const float g = -0.37f;
        std::vector<float> want(base.row(0), base.row(0) + count + 1), want_h = want;
        for (int64_t s = 0; s < count; ++s) {
            want[static_cast<size_t>(s)] += g * p.row(0)[s];
            want_h[static_cast<size_t>(s)] += g * engine::from_half(half[static_cast<size_t>(s)]);
        }
        for (Isa isa : supported_paths()) {
            std::vector<float> got(base.row(0), base.row(0) + count + 1), got_h = got;
            engine::axpy(isa, g, p.row(0), got.data(), count);
            engine::axpy(isa, g, half.data(), got_h.data(), count);
            EXPECT_EQ(got, want) << engine::isa_name(isa) << " float count=" << count;
            EXPECT_EQ(got_h, want_h) << engine::isa_name(isa) << " half count=" << count;
        }
    }
}

TEST(Engine, RowStoreDotsMatchItsDecodedBlocksInBothPrecisions) {
    const int64_t n = 70, m = 37;
    const Matrix X = random_rows(n, m, 75), B = random_rows(6, m, 76);
    for (Isa isa : supported_paths()) {
        for (RowPrecision precision : {RowPrecision::f32, RowPrecision::f16}) {
            RowStore store(n, m, precision, isa);
            store.put(0, n, X.data());
            Matrix scratch;
            const ConstMatrix block = store.block(5, 60, scratch);
            std::vector<float> want(60 * 6), got(want.size());
            engine::row_dots(isa, block.data, 60, m, B.data(), 6, m, m, want.data(), 6);
            store.dots(nullptr, 5, 60, B.view(), got.data(), 6);
            EXPECT_EQ(got, want) << engine::isa_name(isa) << " rows 5..64";
            const std::vector<int64_t> idx = {69, 0, 33, 33};
            const ConstMatrix picked = store.gather(idx, scratch);
            std::vector<float> want_at(4 * 6), got_at(want_at.size());
            engine::row_dots(isa, picked.data, 4, m, B.data(), 6, m, m, want_at.data(), 6);
            store.dots(idx.data(), 0, 4, B.view(), got_at.data(), 6);
            EXPECT_EQ(got_at, want_at) << engine::isa_name(isa) << " rows by index";
        }
    }
}

TEST(Engine, ExpMatchesTheLibmWithinFourUlpAndFlushesBelowTheNormalRange) {
    for (double x = -87.3; x <= 88.0; x += 0.0137) {
        const float got = engine::engine_exp(static_cast<float>(x));
        const double want = std::exp(static_cast<double>(static_cast<float>(x)));
        ASSERT_NEAR(got / want, 1.0, 4.8e-7) << "exp(" << x << ")";
    }
    EXPECT_EQ(engine::engine_exp(-87.4f), 0.0f);
    EXPECT_EQ(engine::engine_exp(-1e30f), 0.0f);
    EXPECT_EQ(engine::engine_exp(0.0f), 1.0f);
}

TEST(Engine, RbfOfFarRowsIsExactlyZeroOnEveryPath) {
    Matrix X(1, 2), Y(1, 2);
    X.row(0)[0] = 0.0f;
    Y.row(0)[0] = 100.0f;  // gamma·d² = 1e4: exp underflows
    for (Isa isa : supported_paths()) {
        const Kernel kernel(KernelType::rbf, 1.0, 3, 1.0, isa);
        float out = -1.0f;
        kernel.block(X.view(), kernel.pack(Y.view()), &out, 1);
        EXPECT_EQ(out, 0.0f) << engine::isa_name(isa);
    }
}

TEST(Engine, AForcedPathThisCpuLacksIsAnErrorNamingIt) {
    for (IsaChoice c : {IsaChoice::avx512, IsaChoice::avx2, IsaChoice::portable}) {
        const Isa isa = requested_isa(c);
        if (engine::isa_supported(isa)) {
            EXPECT_EQ(resolve_isa(c), isa);
            continue;
        }
        try {
            resolve_isa(c);
            ADD_FAILURE() << "isa=" << engine::isa_name(isa) << " accepted on a CPU without it";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_INVALID_ARGUMENT);
            EXPECT_NE(std::string(e.what()).find(engine::isa_name(isa)), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(resolve_isa(IsaChoice::automatic), engine::best_isa());
    EXPECT_TRUE(engine::isa_supported(Isa::portable));
}

// pack_panels and its AVX2 transposes (any width: groups of up to 8 rows, each group's lanes
// stored whole, as 4 + 2, 4 or one by one) write every float of every panel as the definition
// says: row i of panel p at depth t is X's row p·width + i, zero past the last row; rows with
// a stride longer than d, every edge of the 8×8 blocks (d and rows not multiples of 8, a
// partial last panel), and nothing past the last panel (the buffer is exactly its size).
TEST(Engine, PanelsHoldEachRowsValuesAndZerosPastTheLast) {
    const float nan = std::nanf("");
    for (const int64_t width : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{6}, int64_t{8}, int64_t{12}, int64_t{13},
                                int64_t{14}, int64_t{16}, int64_t{32}}) {
        for (const int64_t rows :
             {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{31}, int64_t{32}, int64_t{33}, int64_t{70}}) {
            for (const int64_t d : {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{17}, int64_t{64}}) {
                const int64_t ld = d + 3, panels = (rows + width - 1) / width;
                const Matrix X = random_rows(rows, ld, static_cast<unsigned>(width * 1000 + rows * 10 + d));
                for (const bool vectors : {false, true}) {
                    if (vectors && !engine::isa_supported(Isa::avx2)) continue;
                    std::vector<float> dst(static_cast<size_t>(panels * d * width), nan);
                    if (vectors) {
                        engine::pack_panels_avx2(X.data(), rows, d, ld, width, dst.data());
                    } else {
                        engine::pack_panels(X.data(), rows, d, ld, width, dst.data());
                    }
                    int64_t wrong = 0;
                    for (int64_t p = 0; p < panels; ++p) {
                        for (int64_t t = 0; t < d; ++t) {
                            for (int64_t i = 0; i < width; ++i) {
                                const int64_t row = p * width + i;
                                const float want = row < rows ? X.row(row)[t] : 0.0f;
                                const float got = dst[static_cast<size_t>((p * d + t) * width + i)];
                                if (std::memcmp(&want, &got, sizeof want) != 0) ++wrong;
                            }
                        }
                    }
                    EXPECT_EQ(wrong, 0) << (vectors ? "avx2" : "scalar") << " width " << width << " rows " << rows
                                        << " d " << d;
                }
            }
        }
    }
}

// stream_dots (a few rows against many, nothing packed: the exact neighbour search of a few
// queries) sums each product as the tiles do, so it gives kernel_block's linear-kernel bits on
// each vector path: every edge of its groups of 32 and blocks of 8 rows, the scalar tails of
// rows and depths, and depth blocks (d = 2100). The portable path does not stream.
TEST(Engine, StreamedDotsAreTheTilesDotsBitForBit) {
    EXPECT_FALSE(engine::streams_dots(Isa::portable));
    EXPECT_THROW(engine::stream_dots(Isa::portable, ConstMatrix{}, ConstMatrix{}, nullptr, 0), Error);
    const engine::TileOp dot{{}, engine::TileFn::dot};
    for (Isa isa : supported_paths()) {
        if (!engine::streams_dots(isa)) continue;
        for (const int64_t d :
             {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{9}, int64_t{17}, int64_t{784}, int64_t{2100}}) {
            for (const int64_t ny :
                 {int64_t{1}, int64_t{7}, int64_t{8}, int64_t{31}, int64_t{32}, int64_t{41}, int64_t{70}}) {
                const Matrix Y = random_rows(ny, d, static_cast<unsigned>(ny * 10000 + d));
                const engine::PackedRows packed(isa, Y.view(), {});
                for (const int64_t nx : {int64_t{1}, int64_t{3}, int64_t{9}}) {
                    const Matrix X = random_rows(nx, d, static_cast<unsigned>(nx * 7 + d), -3.0f, 2.0f);
                    std::vector<float> tiles(static_cast<size_t>(nx * ny)), streamed(tiles.size() + 5, -1.0f);
                    engine::kernel_block(X.view(), nullptr, packed, dot, tiles.data(), ny);
                    engine::stream_dots(isa, X.view(), Y.view(), streamed.data(), ny);
                    EXPECT_EQ(std::memcmp(tiles.data(), streamed.data(), tiles.size() * sizeof(float)), 0)
                        << engine::isa_name(isa) << " d " << d << " rows " << nx << " x " << ny;
                    EXPECT_EQ(streamed.back(), -1.0f);  // nothing past the last value
                }
            }
        }
    }
}

/// Σ_t a[t·sa] · b[t·sb] over n terms: as one fused multiply-add chain in float32, in float64,
/// and Σ|a·b| in float64 (the scale of its rounding).
struct ChainSums {
    float chain = 0.0f;
    double exact = 0.0, scale = 0.0;
};
ChainSums chain_sums(const float* a, int64_t sa, const float* b, int64_t sb, int64_t n) {
    ChainSums s;
    for (int64_t t = 0; t < n; ++t) {
        const double product = static_cast<double>(a[t * sa]) * b[t * sb];
        s.chain = std::fma(a[t * sa], b[t * sb], s.chain);
        s.exact += product;
        s.scale += std::fabs(product);
    }
    return s;
}

/// A product's value on path isa: the chain's bits on the vector paths, within float32
/// rounding of the float64 sum on the portable one (which rounds each product).
bool chain_value(Isa isa, float got, const ChainSums& s, int64_t n) {
    if (isa != Isa::portable) return std::memcmp(&got, &s.chain, sizeof got) == 0;
    return std::fabs(got - s.exact) <= 1e-6 * static_cast<double>(n) * s.scale + 1e-30;
}

// The fits' float32 products on the tiles (engine/products.h: R = G P_ℓ, F = G P and RᵀR,
// in place of BLIS's sgemm): on the vector paths every value is one fused multiply-add chain
// over the inner dimension in order, from zero, bit for bit, whatever the block; on every path
// within float32 rounding of the float64 product. Shapes hit the tiles' edges, depth blocks
// (k = 2100) and a block of one row.
TEST(Engine, FixedRightProductsAndGramsAreOneFmaChainPerValue) {
    struct Shape {
        int64_t rows, k, n;
    };
    for (const Shape sh : {Shape{1, 1, 1}, Shape{13, 7, 33}, Shape{252, 400, 200}, Shape{30, 2100, 20}}) {
        const Matrix A = random_rows(sh.rows, sh.k, static_cast<unsigned>(sh.k + 3));
        const Matrix B = random_rows(sh.k, sh.n, static_cast<unsigned>(sh.n + 5), -2.0f, 2.0f);
        for (Isa isa : supported_paths()) {
            SCOPED_TRACE(std::string(engine::isa_name(isa)) + " " + std::to_string(sh.rows) + "x" +
                         std::to_string(sh.k) + " times " + std::to_string(sh.k) + "x" + std::to_string(sh.n));
            const engine::FixedRight right(isa, B.view());
            ASSERT_EQ(right.cols(), sh.n);
            const int64_t ldo = sh.n + 2;
            std::vector<float> C(static_cast<size_t>(sh.rows * ldo), -7.0f);
            engine::BlockScratch scratch;
            right.apply(A.view(), C.data(), ldo, &scratch);
            int64_t wrong = 0;
            for (int64_t i = 0; i < sh.rows; ++i) {
                for (int64_t j = 0; j < sh.n; ++j) {
                    const ChainSums s = chain_sums(A.row(i), 1, B.data() + j, B.cols, sh.k);
                    wrong += chain_value(isa, C[static_cast<size_t>(i * ldo + j)], s, sh.k) ? 0 : 1;
                }
                EXPECT_EQ(C[static_cast<size_t>(i * ldo + sh.n)], -7.0f);  // the stride's gap untouched
            }
            EXPECT_EQ(wrong, 0);
            // AᵀA of the block (l = k columns, summed over its rows).
            engine::GramScratch g;
            const ConstMatrix AtA = engine::gram(isa, A.view(), g);
            ASSERT_EQ(AtA.rows, sh.k);
            ASSERT_EQ(AtA.cols, sh.k);
            wrong = 0;
            for (int64_t a = 0; a < sh.k; a += std::max<int64_t>(1, sh.k / 37)) {
                for (int64_t b = 0; b < sh.k; ++b) {
                    const ChainSums s = chain_sums(A.data() + a, A.cols, A.data() + b, A.cols, sh.rows);
                    wrong += chain_value(isa, AtA.row(a)[b], s, sh.rows) ? 0 : 1;
                }
            }
            EXPECT_EQ(wrong, 0);
            // The scratch kept for a smaller block next (its packs reused, not reallocated):
            // the bits of a fresh scratch's product.
            const ConstMatrix first = A.view().slice(0, std::max<int64_t>(1, sh.rows / 2));
            engine::GramScratch fresh;
            const ConstMatrix again = engine::gram(isa, first, g), want = engine::gram(isa, first, fresh);
            EXPECT_EQ(std::memcmp(again.data, want.data, sizeof(float) * static_cast<size_t>(sh.k * sh.k)), 0);
        }
    }
}

// Left rows packed once (engine::LeftRows, what the mini-batch seeding keeps of its sample
// when it is not 8-bit) give the bits of Kernel::block on the rows, against several right
// packs in turn, for every kernel and path, over many passes and with depth blocks (d = 2100).
TEST(Engine, LeftRowsPackedOnceGiveTheBitsOfEachBlock) {
    for (const int64_t d : {int64_t{9}, int64_t{784}, int64_t{2100}}) {
        const Matrix X = random_rows(d > 1000 ? 90 : 301, d, 81, 0.0f, 1.0f);
        for (const KernelCase& k : kernel_cases(d)) {
            for (Isa isa : supported_paths()) {
                SCOPED_TRACE(k.name + " isa=" + engine::isa_name(isa) + " d=" + std::to_string(d));
                const Kernel kernel(k.type, k.gamma, k.degree, k.coef0, isa);
                engine::LeftRows kept;
                kernel.pack_left(X.view(), kept);
                ASSERT_EQ(kept.rows(), X.rows);
                for (unsigned seed = 82; seed < 85; ++seed) {
                    const Matrix Y = random_rows(3 + 20 * (seed - 82), d, seed, 0.0f, 1.0f);
                    const engine::PackedRows packed = kernel.pack(Y.view());
                    std::vector<float> got(static_cast<size_t>(X.rows * Y.rows), -1.0f), want(got.size(), -2.0f);
                    kernel.block(kept, packed, got.data(), Y.rows);
                    kernel.block(X.view(), packed, want.data(), Y.rows);
                    EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)), 0);
                }
            }
        }
    }
}

}  // namespace
}  // namespace kkm

// The memory estimates pad packed rows to kWidestPanel: no path's panel may be wider, and a
// footprint holds what packing allocates on every path.
TEST(Engine, EveryPanelFitsThePaddingTheFootprintsAssume) {
    for (const kkm::engine::Isa isa : {kkm::engine::Isa::portable, kkm::engine::Isa::avx2, kkm::engine::Isa::avx512}) {
        EXPECT_LE(kkm::engine::geometry(isa).nr, kkm::engine::kWidestPanel);
        EXPECT_GE(kkm::engine::geometry(isa).nr, 1);
        EXPECT_LE(kkm::engine::geometry(isa).mr, kkm::engine::kWidestLeftPanel);
        EXPECT_GE(kkm::engine::geometry(isa).mr, 1);
        // A left pass of r rows holds whole panels of mr rows: round_up(r, mr) ≤ r + mr − 1.
        for (const double rows : {1.0, 2.0, 13.0, 15.0, 100.0}) {
            const double mr = static_cast<double>(kkm::engine::geometry(isa).mr);
            EXPECT_GE(kkm::engine::left_pack_footprint(rows, 7), 4.0 * std::ceil(rows / mr) * mr * 7) << rows;
        }
    }
    EXPECT_GE(kkm::engine::PackedRows::footprint(1, 5), 4.0 * (kkm::engine::kWidestPanel * 5 + 16));
}
