// The exact 8-bit rbf tiles (src/engine/q8.h): which rows are 8-bit and at which scale; the
// values the tiles compute (exp of float32(‖q_x − q_y‖²) · −gamma/c², the squared distance
// summed exactly in integers, within the engine's exp accuracy) at every tile edge of both
// geometries, at the longest rows they take and at each scale; the float32 tiles wherever any
// row is not 8-bit. The tiles need VNNI (AVX-512 VNNI for avx512, AVX-VNNI for avx2); on a
// CPU without it those tests are skipped and the detection is still checked.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/enum_text.h"
#include "core/error.h"
#include "core/matrix.h"
#include "engine/engine.h"
#include "engine/q8.h"
#include "kernels/kernel.h"

namespace kkm {
namespace {

using engine::Isa;

/// n rows of d integers in [0, 255] (seeded), and the same as float32 values q/c.
struct EightBit {
    std::vector<int> q;
    Matrix X;
};

EightBit eight_bit(int64_t n, int64_t d, float c, unsigned seed) {
    EightBit e{std::vector<int>(static_cast<size_t>(n * d)), Matrix(n, d)};
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> u(0, 255);
    for (size_t i = 0; i < e.q.size(); ++i) {
        e.q[i] = u(gen);
        e.X.values[i] = static_cast<float>(e.q[i]) / c;  // as numpy's uint8 / float32(255) rounds
    }
    return e;
}

/// The argument the 8-bit tiles pass to exp for rows i of a and j of b: the exact squared
/// distance in integers, rounded to float32 once, times −gamma/c² (one float32 product).
float argument(const EightBit& a, int64_t i, const EightBit& b, int64_t j, int64_t d, float gamma, float c) {
    int64_t d2 = 0;
    for (int64_t t = 0; t < d; ++t) {
        const int64_t diff = a.q[static_cast<size_t>(i * d + t)] - b.q[static_cast<size_t>(j * d + t)];
        d2 += diff * diff;
    }
    const auto scale = static_cast<float>(-static_cast<double>(gamma) / (static_cast<double>(c) * c));
    return scale * static_cast<float>(d2);
}

/// The tiles' exp of that argument against float64's: within the engine's exp accuracy
/// (unit_engine: 4.8e-7 relative), 0 below the normal range.
void expect_exp_of(float got, float arg, const char* where, int64_t i = 0, int64_t j = 0) {
    if (arg < -87.336544f) {
        EXPECT_EQ(got, 0.0f) << where << " (" << i << ", " << j << ")";
        return;
    }
    EXPECT_NEAR(got / std::exp(static_cast<double>(arg)), 1.0, 4.8e-7)
        << where << " (" << i << ", " << j << "): " << got << " for exp(" << arg << ")";
}

/// The float32 tiles' values of the same block: Kernel::block against Y's packed rows with
/// their 8-bit copy dropped (assign_q8 of rows that are not 8-bit).
std::vector<float> float_tiles(const Kernel& kernel, const Matrix& X, const Matrix& Y) {
    std::vector<float> out(static_cast<size_t>(X.rows * Y.rows));
    engine::PackedRows packed = kernel.pack(Y.view());
    Matrix odd = Y;
    odd.row(0)[0] = 0.3f;
    packed.assign_q8(odd.view());
    EXPECT_EQ(packed.q8_scale(), 0.0f);
    kernel.block(X.view(), packed, out.data(), Y.rows);
    return out;
}

/// The paths whose 8-bit tiles this CPU runs (avx512 with AVX-512 VNNI, avx2 with AVX-VNNI).
std::vector<Isa> q8_paths() {
    std::vector<Isa> out;
    for (const Isa isa : {Isa::avx2, Isa::avx512}) {
        if (engine::q8_supported(isa)) out.push_back(isa);
    }
    return out;
}

/// q8_scale(X), checked against the scale of the 8-bit copy each VNNI path packs of X (the
/// packer finds it without q8_scale's scan).
float scale_of(const Matrix& X) {
    const float c = engine::q8_scale(X.view());
    std::vector<int64_t> all(static_cast<size_t>(X.rows));
    std::iota(all.begin(), all.end(), 0);
    const engine::PackedRows::PieceRunner in_order = [](int64_t pieces, const std::function<void(int64_t)>& piece) {
        for (int64_t p = 0; p < pieces; ++p) piece(p);
    };
    for (const Isa isa : q8_paths()) {
        engine::PackedRows packed;
        EXPECT_EQ(packed.assign_q8_only(isa, X.view(), all, in_order), c != 0.0f) << engine::isa_name(isa);
        EXPECT_EQ(packed.q8_scale(), c) << engine::isa_name(isa);
    }
    return c;
}

TEST(Q8, TheScaleIsTheFirstOfOne255And256ThatEveryValueFits) {
    for (const int64_t d : {7, 100}) {
        EXPECT_EQ(scale_of(eight_bit(5, d, 1.0f, 1).X), 1.0f);
        EXPECT_EQ(scale_of(eight_bit(5, d, 255.0f, 2).X), 255.0f);
        EXPECT_EQ(scale_of(eight_bit(5, d, 256.0f, 3).X), 256.0f);
    }
    // q/255 computed in float64 and then rounded to float32 is accepted too.
    Matrix X(1, 256);
    for (int q = 0; q < 256; ++q) X.row(0)[q] = static_cast<float>(q / 255.0);
    EXPECT_EQ(scale_of(X), 255.0f);
    // One value off the grid, out of [0, 255], negative, NaN or Inf: not 8-bit, in the
    // vector lanes of a row and in its tail.
    for (const int64_t at : {5, 16, 37}) {
        for (const float bad : {0.3f, 256.0f, -1.0f, std::nanf(""), INFINITY, 3.0001f}) {
            EightBit e = eight_bit(4, 38, 1.0f, 4);
            e.X.row(3)[at] = bad;
            EXPECT_EQ(scale_of(e.X), 0.0f) << bad << " at " << at;
        }
    }
    EXPECT_EQ(scale_of(Matrix(0, 3)), 0.0f);
    EXPECT_EQ(scale_of(Matrix(2, engine::kQ8MaxDim + 1)), 0.0f);  // zeros, but too long
    EXPECT_EQ(engine::q8_value(1.0f / 255.0f, 255.0f), 1);
    EXPECT_EQ(engine::q8_value(0.5f, 1.0f), -1);
    EXPECT_EQ(engine::q8_value(0.5f, 256.0f), 128);
}

TEST(Q8, ValuesTooSmallForTheirGridAreNotZero) {
    // Only 0 is 0/255: a value below 1/510 rounds to q = 0, and an absolute slack of 2^-15 once
    // took every |x| < 1.2e-7 as 0 (every kernel value 1, the clusters random). In the vector
    // lanes and the tail, positive, negative and denormal, alone or with 8-bit neighbours.
    for (const float tiny : {1e-7f, -1e-7f, 1e-12f, 1e-38f, 1e-44f, 5e-8f}) {
        EXPECT_EQ(engine::q8_value(tiny, 255.0f), -1) << tiny;
        for (const int64_t at : {0, 17, 37}) {
            EightBit e = eight_bit(3, 38, 255.0f, 5);
            e.X.row(1)[at] = tiny;
            EXPECT_EQ(scale_of(e.X), 0.0f) << tiny << " at " << at;
            Matrix all(4, 38);
            for (float& v : all.values) v = tiny;
            EXPECT_EQ(scale_of(all), 0.0f) << tiny;
        }
    }
    // -0 is 0, and the rounding of q/255 (relative 2^-24) is still within the slack at the top.
    EXPECT_EQ(engine::q8_value(-0.0f, 255.0f), 0);
    EXPECT_EQ(engine::q8_value(std::nextafter(1.0f, 2.0f), 255.0f), 255);
    EXPECT_EQ(engine::q8_value(std::nextafter(1.0f / 255.0f, 1.0f), 255.0f), 1);
}

TEST(Q8, EveryTileEdgeAndScaleGivesTheExactSquaredDistanceRoundedOnce) {
    if (q8_paths().empty()) GTEST_SKIP() << "no VNNI on this CPU";
    struct Shape {
        int64_t rows, cols, d;
    };
    // Edges of both geometries: avx512 14×32, avx2 6×16.
    const std::vector<Shape> shapes = {{1, 1, 1},  {13, 31, 3}, {14, 32, 4},   {15, 33, 5},  {5, 15, 7},
                                       {6, 16, 8}, {7, 17, 12}, {29, 65, 784}, {300, 40, 9}, {7, 7, 1001}};
    for (const Isa isa : q8_paths()) {
        for (const float c : {1.0f, 255.0f, 256.0f}) {
            for (const Shape& s : shapes) {
                SCOPED_TRACE(std::string(engine::isa_name(isa)) + " c=" + std::to_string(c) + " rows=" +
                             std::to_string(s.rows) + " cols=" + std::to_string(s.cols) + " d=" + std::to_string(s.d));
                const EightBit X = eight_bit(s.rows, s.d, c, 10), Y = eight_bit(s.cols, s.d, c, 11);
                const float gamma = static_cast<float>(c * c / (1000.0 * static_cast<double>(s.d)));
                const Kernel kernel(KernelType::rbf, gamma, 3, 1.0, isa);
                const engine::PackedRows packed = kernel.pack(Y.X.view());
                ASSERT_EQ(packed.q8_scale(), c);
                std::vector<float> out(static_cast<size_t>(s.rows * s.cols), -1.0f);
                kernel.block(X.X.view(), packed, out.data(), s.cols);
                for (int64_t i = 0; i < s.rows && !HasFailure(); ++i) {
                    for (int64_t j = 0; j < s.cols && !HasFailure(); ++j) {
                        expect_exp_of(out[static_cast<size_t>(i * s.cols + j)], argument(X, i, Y, j, s.d, gamma, c),
                                      "value", i, j);
                    }
                }
            }
        }
    }
}

TEST(Q8, TheLongestRowsAtTheLargestDistanceStayExact) {
    if (q8_paths().empty()) GTEST_SKIP() << "no VNNI on this CPU";
    const int64_t d = engine::kQ8MaxDim;
    EightBit X{std::vector<int>(static_cast<size_t>(d), 255), Matrix(1, d)};
    EightBit Y{std::vector<int>(static_cast<size_t>(2 * d), 0), Matrix(2, d)};
    std::fill(X.X.values.begin(), X.X.values.end(), 255.0f);
    for (int64_t t = 0; t < d; t += 2) {  // row 1: 255 and 0 alternating
        Y.q[static_cast<size_t>(d + t)] = 255;
        Y.X.row(1)[t] = 255.0f;
    }
    const float gamma = 1e-10f;  // exp(−0.21): the whole d·255² = 2.1e9 must have been summed
    // The arguments are exact here (d·255² and half of it are multiples of 2^7 below 2^31).
    EXPECT_EQ(argument(X, 0, Y, 0, d, gamma, 1.0f), -1e-10f * static_cast<float>(d * 65025));
    for (const Isa isa : q8_paths()) {
        SCOPED_TRACE(engine::isa_name(isa));
        const Kernel kernel(KernelType::rbf, gamma, 3, 1.0, isa);
        const engine::PackedRows packed = kernel.pack(Y.X.view());
        ASSERT_EQ(packed.q8_scale(), 1.0f);
        float out[2] = {-1.0f, -1.0f};
        kernel.block(X.X.view(), packed, out, 2);
        expect_exp_of(out[0], argument(X, 0, Y, 0, d, gamma, 1.0f), "all 255 against all 0");
        expect_exp_of(out[1], argument(X, 0, Y, 1, d, gamma, 1.0f), "all 255 against 255, 0, ...");
    }
}

TEST(Q8, RowsThatAreNotAllEightBitTakeTheFloat32TilesForTheWholeCall) {
    if (q8_paths().empty()) GTEST_SKIP() << "no VNNI on this CPU";
    const int64_t d = 784;
    const EightBit Y = eight_bit(40, d, 255.0f, 20);
    // 300 rows span several packed passes of the 8-bit tiles; the odd value sits in the last
    // row, after the first passes have been computed.
    EightBit X = eight_bit(300, d, 255.0f, 21);
    X.X.row(299)[d - 1] = 0.3f;
    for (const Isa isa : q8_paths()) {
        SCOPED_TRACE(engine::isa_name(isa));
        const Kernel kernel(KernelType::rbf, 1.0 / d, 3, 1.0, isa);
        std::vector<float> out(static_cast<size_t>(X.X.rows * Y.X.rows));
        kernel.block(X.X.view(), kernel.pack(Y.X.view()), out.data(), Y.X.rows);
        EXPECT_EQ(out, float_tiles(kernel, X.X, Y.X));
        // 8-bit rows at another scale than the packed rows': the float32 tiles too.
        const EightBit Z = eight_bit(20, d, 1.0f, 22);
        std::vector<float> out2(static_cast<size_t>(Z.X.rows * Y.X.rows));
        kernel.block(Z.X.view(), kernel.pack(Y.X.view()), out2.data(), Y.X.rows);
        EXPECT_EQ(out2, float_tiles(kernel, Z.X, Y.X));
    }
}

TEST(Q8, OnlyRbfOnAPathWithVnniPacksAnEightBitCopy) {
    const EightBit Y = eight_bit(10, 16, 255.0f, 30);
    for (const KernelType type :
         {KernelType::laplacian, KernelType::linear, KernelType::polynomial, KernelType::cosine}) {
        const Kernel kernel(type, 0.1, 2, 1.0, engine::best_isa());
        EXPECT_EQ(kernel.pack(Y.X.view()).q8_scale(), 0.0f) << to_text(type);
    }
    EXPECT_FALSE(engine::q8_supported(Isa::portable));
    for (const Isa isa : {Isa::portable, Isa::avx2, Isa::avx512}) {
        if (!engine::isa_supported(isa)) continue;
        const Kernel kernel(KernelType::rbf, 0.1, 2, 1.0, isa);
        EXPECT_EQ(kernel.pack(Y.X.view()).q8_scale(), engine::q8_supported(isa) ? 255.0f : 0.0f)
            << engine::isa_name(isa);
    }
    const Kernel rbf(KernelType::rbf, 0.1, 2, 1.0, engine::best_isa());
    // A repack of rows that are not 8-bit drops the copy.
    engine::PackedRows packed = rbf.pack(Y.X.view());
    Matrix W = Y.X;
    W.row(0)[0] = 0.3f;
    Matrix scratch;
    rbf.pack_into(W.view(), packed, scratch);
    EXPECT_EQ(packed.q8_scale(), 0.0f);
}

// pack_q8_into keeps the 8-bit copy alone, of rows taken by index where they are (some twice,
// out of order), its pieces run in any order: block_q8 against it gives the values block()
// gives against a full pack of the gathered rows. Rows that are not 8-bit (or another kernel,
// or a path without VNNI) are refused with nothing packed, and the float32 tiles cannot run
// against such a pack.
TEST(Q8, AnEightBitOnlyPackGivesTheSameValuesAndNoFloat32Panels) {
    const int64_t d = 100;
    const EightBit S = eight_bit(150, d, 255.0f, 40), X = eight_bit(50, d, 255.0f, 41);
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < 230; ++i) idx.push_back((i * 37 + 11) % 150);
    const Matrix Y = gather_rows(S.X.view(), idx);
    int64_t pieces_run = 0;
    const engine::PackedRows::PieceRunner backwards = [&](int64_t pieces, const std::function<void(int64_t)>& piece) {
        pieces_run = pieces;
        for (int64_t p = pieces - 1; p >= 0; --p) piece(p);
    };
    for (const Isa isa : {Isa::portable, Isa::avx2, Isa::avx512}) {
        if (!engine::isa_supported(isa)) continue;
        SCOPED_TRACE(engine::isa_name(isa));
        const Kernel kernel(KernelType::rbf, 1.0 / d, 3, 1.0, isa);
        engine::PackedRows only;
        ASSERT_EQ(kernel.pack_q8_into(S.X.view(), idx, only, backwards), engine::q8_supported(isa));
        if (!engine::q8_supported(isa)) {
            EXPECT_EQ(only.rows(), 0);
            continue;
        }
        EXPECT_GT(pieces_run, 1);
        EXPECT_FALSE(only.has_floats());
        EXPECT_EQ(only.q8_scale(), 255.0f);
        std::vector<float> got(static_cast<size_t>(X.X.rows * Y.rows)), want(got.size());
        ASSERT_TRUE(kernel.block_q8(X.X.view(), only, got.data(), Y.rows));
        kernel.block(X.X.view(), kernel.pack(Y.view()), want.data(), Y.rows);
        EXPECT_EQ(got, want);
        Matrix off = X.X;
        off.row(49)[d - 1] = 0.3f;
        EXPECT_FALSE(kernel.block_q8(off.view(), only, got.data(), Y.rows));
        EXPECT_THROW(kernel.block(off.view(), only, got.data(), Y.rows), Error);
        Matrix W = S.X;
        W.row(idx.back())[0] = 0.3f;  // in the last piece
        EXPECT_FALSE(kernel.pack_q8_into(W.view(), idx, only, backwards));
        EXPECT_EQ(only.rows(), 0);
        const Kernel laplacian(KernelType::laplacian, 1.0 / d, 3, 1.0, isa);
        EXPECT_FALSE(laplacian.pack_q8_into(S.X.view(), idx, only, backwards));
    }
}

// block_q8 of left rows taken by index where they are (some twice, out of order, over several
// packed passes) gives the values of the gathered rows; only the rows named are read, so a
// row that is not 8-bit refuses the call only when it is among them.
TEST(Q8, LeftRowsByIndexGiveTheValuesOfTheGatheredRows) {
    if (q8_paths().empty()) GTEST_SKIP() << "no VNNI on this CPU";
    const int64_t d = 784;
    EightBit S = eight_bit(200, d, 255.0f, 50);
    const EightBit Y = eight_bit(40, d, 255.0f, 51);
    S.X.row(7)[d - 1] = 0.3f;  // never named below
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < 300; ++i) {
        const int64_t r = (i * 53 + 3) % 200;
        if (r != 7) idx.push_back(r);
    }
    const Matrix gathered = gather_rows(S.X.view(), idx);
    const auto n = static_cast<int64_t>(idx.size());
    for (const Isa isa : q8_paths()) {
        SCOPED_TRACE(engine::isa_name(isa));
        const Kernel kernel(KernelType::rbf, 1.0 / d, 3, 1.0, isa);
        const engine::PackedRows packed = kernel.pack(Y.X.view());
        std::vector<float> got(static_cast<size_t>(n * Y.X.rows)), want(got.size());
        ASSERT_TRUE(kernel.block_q8(S.X.view(), packed, got.data(), Y.X.rows, nullptr, idx));
        ASSERT_TRUE(kernel.block_q8(gathered.view(), packed, want.data(), Y.X.rows));
        EXPECT_EQ(got, want);
        std::vector<int64_t> with_odd = idx;
        with_odd.back() = 7;  // in the last pass
        EXPECT_FALSE(kernel.block_q8(S.X.view(), packed, got.data(), Y.X.rows, nullptr, with_odd));
    }
}

// Left rows packed once (engine::Q8LeftRows, what the mini-batch seeding keeps of its sample)
// give the values of the same rows packed by each call, bit for bit, against several right
// packs in turn and over several passes; they run only against a right pack at their scale,
// and a row that is not 8-bit at that scale refuses the pack.
TEST(Q8, LeftRowsPackedOnceGiveTheValuesOfEachCall) {
    if (q8_paths().empty()) GTEST_SKIP() << "no VNNI on this CPU";
    const int64_t d = 784;
    EightBit S = eight_bit(500, d, 255.0f, 60);
    S.X.row(11)[3] = 0.3f;  // not q/255
    std::vector<int64_t> idx;
    for (int64_t i = 0; i < 400; ++i) {
        const int64_t r = (i * 37 + 5) % 500;
        if (r != 11) idx.push_back(r);
    }
    const auto n = static_cast<int64_t>(idx.size());
    for (const Isa isa : q8_paths()) {
        SCOPED_TRACE(engine::isa_name(isa));
        const Kernel kernel(KernelType::rbf, 1.0 / d, 3, 1.0, isa);
        engine::Q8LeftRows kept;
        ASSERT_TRUE(kept.pack(isa, S.X.view(), idx, 255.0f));
        EXPECT_EQ(kept.rows(), n);
        for (unsigned seed = 61; seed < 64; ++seed) {  // several right packs against the same left rows
            const EightBit Y = eight_bit(3 + seed % 5, d, 255.0f, seed);
            const engine::PackedRows packed = kernel.pack(Y.X.view());
            ASSERT_EQ(packed.q8_scale(), 255.0f);
            std::vector<float> got(static_cast<size_t>(n * Y.X.rows), -1.0f), want(got.size());
            ASSERT_TRUE(kernel.block_q8(kept, packed, got.data(), Y.X.rows));
            ASSERT_TRUE(kernel.block_q8(S.X.view(), packed, want.data(), Y.X.rows, nullptr, idx));
            EXPECT_EQ(got, want);
        }
        const EightBit Y256 = eight_bit(5, d, 256.0f, 65);
        const engine::PackedRows other = kernel.pack(Y256.X.view());
        ASSERT_EQ(other.q8_scale(), 256.0f);
        std::vector<float> out(static_cast<size_t>(n * 5), -1.0f);
        EXPECT_FALSE(kernel.block_q8(kept, other, out.data(), 5));
        EXPECT_EQ(out, std::vector<float>(out.size(), -1.0f));  // untouched
        std::vector<int64_t> with_odd = idx;
        with_odd.back() = 11;  // in the last pass
        engine::Q8LeftRows refused;
        EXPECT_FALSE(refused.pack(isa, S.X.view(), with_odd, 255.0f));
        EXPECT_EQ(refused.scale(), 0.0f);
    }
}

}  // namespace
}  // namespace kkm
