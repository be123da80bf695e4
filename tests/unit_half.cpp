// Half-precision kernel rows (kernel_rows=f16): the conversions of src/engine/half.cpp give
// the IEEE binary16 nearest value (ties to even) with the same bits on every engine path, and
// RowStore hands every reader the same float32 values of its rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cluster/landmark_lloyd.h"
#include "cluster/lloyd.h"
#include "cluster/seeding.h"
#include "engine/half.h"
#include "engine/row_store.h"
#include "features/landmarks.h"
#include "features/nystrom.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"
#include "unit_data.h"

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

uint32_t bits(float v) {
    uint32_t b = 0;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// The value of half h from its fields, in double (independent of from_half).
double half_value(uint16_t h) {
    const int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    const double sign = (h & 0x8000) != 0 ? -1.0 : 1.0;
    if (exponent == 31) return mantissa == 0 ? sign * std::numeric_limits<double>::infinity() : std::nan("");
    if (exponent == 0) return sign * std::ldexp(mantissa, -24);
    return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

std::vector<uint16_t> every_finite_half() {
    std::vector<uint16_t> out;
    for (uint32_t h = 0; h < 65536; ++h) {
        if (((h >> 10) & 0x1F) != 31) out.push_back(static_cast<uint16_t>(h));
    }
    return out;
}

TEST(Half, EveryFiniteHalfDecodesToItsValueOnEveryPath) {
    const std::vector<uint16_t> halves = every_finite_half();
    for (Isa isa : supported_paths()) {
        std::vector<float> out(halves.size());
        engine::decode_half(isa, halves.data(), static_cast<int64_t>(halves.size()), out.data());
        for (size_t i = 0; i < halves.size(); ++i) {
            ASSERT_EQ(static_cast<double>(out[i]), half_value(halves[i]))
                << engine::isa_name(isa) << " half " << halves[i];
            ASSERT_EQ(bits(out[i]), bits(engine::from_half(halves[i])));
        }
    }
}

TEST(Half, EveryFiniteHalfRoundTripsOnEveryPath) {
    const std::vector<uint16_t> halves = every_finite_half();
    std::vector<float> values(halves.size());
    for (size_t i = 0; i < halves.size(); ++i) values[i] = static_cast<float>(half_value(halves[i]));
    for (Isa isa : supported_paths()) {
        std::vector<uint16_t> back(halves.size());
        engine::encode_half(isa, values.data(), static_cast<int64_t>(values.size()), back.data());
        EXPECT_EQ(back, halves) << engine::isa_name(isa);
    }
}

TEST(Half, MidpointsRoundToEvenAndJustOffThemToTheNearest) {
    // Between consecutive positive halves a < b: the midpoint goes to the even one, a float
    // just below it to a, just above it to b; the same below zero and in the subnormals.
    std::vector<float> values;
    std::vector<uint16_t> expected;
    for (uint16_t a = 0; a < 0x7BFF; a = static_cast<uint16_t>(a + 7)) {
        const auto b = static_cast<uint16_t>(a + 1);
        const auto mid = static_cast<float>(0.5 * (half_value(a) + half_value(b)));  // exact in float
        const uint16_t even = (a & 1) == 0 ? a : b;
        for (float sign : {1.0f, -1.0f}) {
            const auto s = static_cast<uint16_t>(sign < 0 ? 0x8000 : 0);
            values.insert(values.end(),
                          {sign * mid, sign * std::nextafter(mid, 0.0f), sign * std::nextafter(mid, 1e9f)});
            expected.insert(expected.end(), {static_cast<uint16_t>(even | s), static_cast<uint16_t>(a | s),
                                             static_cast<uint16_t>(b | s)});
        }
    }
    for (Isa isa : supported_paths()) {
        std::vector<uint16_t> out(values.size());
        engine::encode_half(isa, values.data(), static_cast<int64_t>(values.size()), out.data());
        for (size_t i = 0; i < values.size(); ++i) {
            ASSERT_EQ(out[i], expected[i]) << engine::isa_name(isa) << " value " << values[i];
            ASSERT_EQ(engine::to_half(values[i]), expected[i]);
        }
    }
}

TEST(Half, OverflowAndTinyValues) {
    const std::vector<float> values = {65504.0f, 65519.99f,       65520.0f, 1e9f,  -65520.0f,
                                       0x1p-25f, 0x1.000002p-25f, 0x1p-26f, -0.0f, 1e-30f};
    const std::vector<uint16_t> expected = {0x7BFF, 0x7BFF, 0x7C00, 0x7C00, 0xFC00,
                                            0x0000, 0x0001, 0x0000, 0x8000, 0x0000};
    for (Isa isa : supported_paths()) {
        std::vector<uint16_t> out(values.size());
        engine::encode_half(isa, values.data(), static_cast<int64_t>(values.size()), out.data());
        EXPECT_EQ(out, expected) << engine::isa_name(isa);
    }
}

TEST(Half, RandomKernelValuesAgreeAcrossPathsWithinHalfAnUlp) {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> values(100003);  // not a multiple of any vector width: the tails too
    for (size_t i = 0; i < values.size(); ++i) values[i] = u(gen) * std::ldexp(1.0f, -static_cast<int>(i % 30));
    std::vector<uint16_t> reference(values.size());
    engine::encode_half(Isa::portable, values.data(), static_cast<int64_t>(values.size()), reference.data());
    for (size_t i = 0; i < values.size(); ++i) {
        const double back = half_value(reference[i]), v = values[i];
        const double ulp = std::fabs(v) < 0x1p-14 ? 0x1p-24 : std::ldexp(1.0, std::ilogb(v) - 10);
        ASSERT_LE(std::fabs(back - v), 0.5 * ulp) << v;
    }
    for (Isa isa : supported_paths()) {
        std::vector<uint16_t> out(values.size());
        engine::encode_half(isa, values.data(), static_cast<int64_t>(values.size()), out.data());
        EXPECT_EQ(out, reference) << engine::isa_name(isa);
    }
}

Matrix rows_of(int64_t n, int64_t m) {
    Matrix G(n, m);
    std::mt19937 gen(9);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (int64_t i = 0; i < n * m; ++i) G.values[static_cast<size_t>(i)] = u(gen);
    return G;
}

TEST(RowStore, HalfStoreGivesTheRoundedRowsToEveryReader) {
    const int64_t n = 37, m = 23;
    const Matrix G = rows_of(n, m);
    for (Isa isa : supported_paths()) {
        RowStore store(n, m, RowPrecision::f16, isa);
        EXPECT_EQ(store.writable(0), nullptr);
        store.put(0, 20, G.row(0));
        store.put(20, n - 20, G.row(20));
        Matrix scratch;
        const ConstMatrix block = store.block(3, 30, scratch);
        Matrix gathered;
        const ConstMatrix picked = store.gather({36, 0, 5}, gathered);
        float buf[8];
        const float* seg = store.segment(11, 4, 12, buf);
        for (int64_t i = 0; i < n; ++i) {
            for (int64_t t = 0; t < m; ++t) {
                const float want = engine::from_half(engine::to_half(G.row(i)[t]));
                if (i >= 3 && i < 33) {
                    ASSERT_EQ(block.row(i - 3)[t], want);
                }
                if (i == 11 && t >= 4 && t < 12) {
                    ASSERT_EQ(seg[t - 4], want);
                }
            }
        }
        for (int64_t t = 0; t < m; ++t) {
            EXPECT_EQ(picked.row(0)[t], engine::from_half(engine::to_half(G.row(36)[t])));
            EXPECT_EQ(picked.row(2)[t], engine::from_half(engine::to_half(G.row(5)[t])));
        }
    }
}

TEST(RowStore, FloatStoreAndViewReturnTheRowsUnchanged) {
    const int64_t n = 9, m = 5;
    const Matrix G = rows_of(n, m);
    RowStore owned(n, m, RowPrecision::f32, engine::best_isa());
    ASSERT_NE(owned.writable(2), nullptr);
    owned.put(0, n, G.data());
    RowStore view = RowStore::view(G.view(), engine::best_isa());
    for (const RowStore* store : {&owned, &view}) {
        Matrix scratch;
        Matrix gathered;
        const ConstMatrix block = store->block(2, 4, scratch);
        const ConstMatrix picked = store->gather({8, 1}, gathered);
        for (int64_t t = 0; t < m; ++t) {
            EXPECT_EQ(picked.row(0)[t], G.row(8)[t]);
            EXPECT_EQ(picked.row(1)[t], G.row(1)[t]);
            EXPECT_EQ(store->segment(4, 0, m, nullptr)[t], G.row(4)[t]);
        }
        EXPECT_EQ(view.block(2, 4, scratch).data, G.row(2));  // a view: no copy
        EXPECT_EQ(block.row(0)[1], G.row(2)[1]);
    }
    EXPECT_EQ(view.writable(0), nullptr);  // the caller's rows are read-only
}

}  // namespace
}  // namespace kkm

namespace kkm {
namespace {

// With half rows, the features F = G P of Nyström can have ‖f_i‖² above K_ii by rounding
// (amplified by P's small eigenvalues). Lloyd on F with the signed residual K_ii − ‖f_i‖² as
// offset must then report the same objective as Lloyd on the rows themselves, from the same
// seeds: a residual clamped at 0 added the excess to every distance (0.5% here).
TEST(RowStore, HalfRowsGiveTheSameNystromObjectiveOnFeaturesAsOnTheRows) {
    const auto data = testdata::blobs(80, 6, 4, 1.5, 5);
    const int64_t n = data.n, m = 60, k = 6;
    const ConstMatrix X{data.X.data(), n, data.d};
    const engine::Isa isa = engine::best_isa();
    Rng pick(0, Stream::landmarks);
    const Kernel kernel(KernelType::rbf, 0.05, 3, 1.0, isa);
    const KernelBasis basis(kernel, gather_rows(X, uniform_landmarks(n, m, pick)));
    const Matrix P = nystrom_projection(basis, basis.points().view(), 1e-6, 0);
    Matrix rows, K(n, m);
    copy_into(X, rows);
    basis.evaluate(rows.view(), K.data(), m);
    RowStore G(n, m, RowPrecision::f16, isa);
    G.put(0, n, K.data());
    std::vector<float> residual, diag(static_cast<size_t>(n), 1.0f);
    const Matrix F = nystrom_features(G, P, diag, residual, 2);  // what fit_nystrom builds
    double excess = 0;
    for (float v : residual) excess = std::max(excess, -static_cast<double>(v));
    EXPECT_GT(excess, 1e-4) << "the data no longer show the rounding this test is about";
    for (uint64_t seed = 0; seed < 3; ++seed) {
        LandmarkLloyd on_rows(G, P, diag, {}, k, 1, isa);
        FeatureLloyd on_features(F.view(), {}, k, 1, isa, residual);
        Rng a(seed, Stream::seeding), b(seed, Stream::seeding);
        const Seeding sa = seed_centres(Init::kmeanspp, n, k, {}, on_rows.distance_oracle(), a);
        const Seeding sb = seed_centres(Init::kmeanspp, n, k, {}, on_features.distance_oracle(), b);
        EXPECT_EQ(sa.centres, sb.centres);
        const LloydOptions options{k, 100, 1e-4};
        const LloydResult ra = run_lloyd(on_rows, sa.labels, {}, options);
        const LloydResult rb = run_lloyd(on_features, sb.labels, {}, options);
        EXPECT_EQ(ra.labels, rb.labels);
        EXPECT_NEAR(rb.objective, ra.objective, 1e-6 * ra.objective);
    }
}

}  // namespace
}  // namespace kkm
