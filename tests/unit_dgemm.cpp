// engine::Dgemm, the float64 products of the eigen-decompositions (engine/dgemm.h): on every
// path this CPU runs, bit for bit dgemm_reference (each C(i, j) one fma chain over k in order,
// then alpha and beta) for every combination of transposes, for shapes with edge tiles in
// both directions and blocks of packing (m, n past 48 and 240), k = 0 and k = 1, alpha and
// beta as LAPACK passes them (1, −1, 0) and others; beta = 0 never reads C (NaN stays out);
// the same Dgemm object reused for products of other shapes; and the reference itself
// against a sum in long double, so that "the same bits as the reference" means correct.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/dgemm.h"
#include "engine/isa.h"

namespace kkm::engine {
namespace {

std::vector<double> random_values(int64_t count, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<double> v(static_cast<size_t>(count));
    for (double& x : v) x = normal(gen);
    return v;
}

std::vector<Isa> paths() {
    std::vector<Isa> out;
    for (Isa isa : {Isa::portable, Isa::avx2, Isa::avx512}) {
        if (isa_supported(isa)) out.push_back(isa);
    }
    return out;
}

struct Shape {
    int64_t m, n, k;
};

/// op(A) m×k and op(B) k×n stored with leading dimensions a little past their rows, so
/// that a path reading past a column would read other values, not fail silently.
struct Operands {
    std::vector<double> a, b;
    int64_t lda, ldb;
    DOperand A(bool trans) const { return {a.data(), lda, trans}; }
    DOperand B(bool trans) const { return {b.data(), ldb, trans}; }
};

Operands operands(Shape s, bool ta, bool tb, uint32_t seed) {
    const int64_t a_rows = ta ? s.k : s.m, a_cols = ta ? s.m : s.k;
    const int64_t b_rows = tb ? s.n : s.k, b_cols = tb ? s.k : s.n;
    Operands o;
    o.lda = a_rows + 3;
    o.ldb = b_rows + 5;
    o.a = random_values(o.lda * std::max<int64_t>(1, a_cols), seed);
    o.b = random_values(o.ldb * std::max<int64_t>(1, b_cols), seed + 1);
    return o;
}

bool same_bits(const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
}

TEST(Dgemm, EveryPathGivesTheReferenceBitsForEveryTransposeShapeAndScale) {
    const std::vector<Shape> shapes = {{1, 1, 1},      {7, 5, 3},      {16, 12, 64}, {17, 13, 65},
                                       {100, 250, 37}, {49, 241, 130}, {130, 7, 0},  {3, 300, 1}};
    const std::vector<std::pair<double, double>> scales = {{1, 0}, {-1, 1}, {1, 1}, {0.75, -2.5}};
    uint32_t seed = 1;
    for (Isa isa : paths()) {
        Dgemm gemm(isa);  // one object for every product: its buffers are reused
        for (const Shape& s : shapes) {
            for (bool ta : {false, true}) {
                for (bool tb : {false, true}) {
                    for (const auto& [alpha, beta] : scales) {
                        SCOPED_TRACE(std::string(isa_name(isa)) + " m=" + std::to_string(s.m) +
                                     " n=" + std::to_string(s.n) + " k=" + std::to_string(s.k) +
                                     " ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                                     " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta));
                        const Operands o = operands(s, ta, tb, seed += 2);
                        const int64_t ldc = s.m + 2;
                        const std::vector<double> c0 = random_values(ldc * s.n, seed + 7);
                        std::vector<double> ours = c0, reference = c0;
                        gemm(o.A(ta), o.B(tb), s.m, s.n, s.k, alpha, beta, ours.data(), ldc);
                        dgemm_reference(o.A(ta), o.B(tb), s.m, s.n, s.k, alpha, beta, reference.data(), ldc);
                        EXPECT_TRUE(same_bits(ours, reference));
                        // The rows between m and ldc are not part of C: untouched.
                        for (int64_t j = 0; j < s.n; ++j) {
                            for (int64_t i = s.m; i < ldc; ++i) {
                                const auto at = static_cast<size_t>(i + j * ldc);
                                ASSERT_EQ(std::memcmp(&ours[at], &c0[at], sizeof(double)), 0);
                            }
                        }
                    }
                }
            }
        }
    }
}

TEST(Dgemm, BetaZeroNeverReadsC) {
    const Shape s{33, 29, 40};
    const Operands o = operands(s, false, true, 91);
    for (Isa isa : paths()) {
        SCOPED_TRACE(isa_name(isa));
        Dgemm gemm(isa);
        std::vector<double> c(static_cast<size_t>(s.m * s.n), std::numeric_limits<double>::quiet_NaN());
        gemm(o.A(false), o.B(true), s.m, s.n, s.k, 1.0, 0.0, c.data(), s.m);
        for (double v : c) ASSERT_TRUE(std::isfinite(v));
    }
}

TEST(Dgemm, TheReferenceIsTheProductToRoundOff) {
    // The chain of fmas against the exact sum (long double, then rounded): within k ulps of
    // the largest term, so the bits every path reproduces are a correct product.
    const Shape s{20, 30, 500};
    const Operands o = operands(s, true, false, 123);
    std::vector<double> c(static_cast<size_t>(s.m * s.n));
    dgemm_reference(o.A(true), o.B(false), s.m, s.n, s.k, 1.0, 0.0, c.data(), s.m);
    for (int64_t j = 0; j < s.n; ++j) {
        for (int64_t i = 0; i < s.m; ++i) {
            long double exact = 0, scale = 0;
            for (int64_t p = 0; p < s.k; ++p) {
                const long double term = static_cast<long double>(o.A(true).at(i, p)) * o.B(false).at(p, j);
                exact += term;
                scale += std::fabs(term);
            }
            const double bound =
                static_cast<double>(scale) * static_cast<double>(s.k) * std::numeric_limits<double>::epsilon();
            EXPECT_NEAR(c[static_cast<size_t>(i + j * s.m)], static_cast<double>(exact), bound);
        }
    }
}

}  // namespace
}  // namespace kkm::engine
