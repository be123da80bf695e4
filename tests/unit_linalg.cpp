// linalg::dsyevd_rows, dsyevd taken apart into its steps with cancellation polls between
// them (core/linalg_lapack.cpp): bit for bit the eigenvalues and eigenvectors of one LAPACKE
// dsyevd call (this C++ host binds LAPACK's BLAS calls to the library's BLAS) on kernel
// matrices (slow and fast spectra; at n = 2000 the last merge's product runs in blocks of
// columns), random, block-diagonal (the tridiagonal splits), diagonal, zero and tiny
// (dsyevd's scaling) matrices; orthonormal eigenvectors with small residuals; a cancel from
// the progress callback throws CANCELLED and leaves nothing behind; non-finite input is
// refused as before; where dstedc does not converge (a matrix fuzz_fit found), dsteqr takes
// over in both, with the same bits. With the library's products (engine::Dgemm) the result is
// one on every engine path, and the BLAS's to round-off.
#include <gtest/gtest.h>

#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/linalg.h"
#include "core/progress.h"
#include "engine/dgemm.h"

namespace kkm::linalg {
namespace {

using Square = std::vector<double>;  // row-major n×n

/// An RBF kernel matrix of n Gaussian points in `dim` dimensions, each value rounded to
/// float32 as the library's kernels are (a slowly decaying spectrum in 50 dimensions, a
/// fast one with many eigenvalues at round-off in 2).
Square rbf(int64_t n, int64_t dim, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal;
    std::vector<double> X(static_cast<size_t>(n * dim));
    for (double& x : X) x = normal(gen);
    const double gamma = 1.0 / (4.0 * static_cast<double>(dim));
    Square K(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t t = 0; t < dim; ++t) {
                const double diff = X[static_cast<size_t>(i * dim + t)] - X[static_cast<size_t>(j * dim + t)];
                s += diff * diff;
            }
            K[static_cast<size_t>(i * n + j)] = static_cast<float>(std::exp(-gamma * s));
        }
    }
    return K;
}

Square random_symmetric(int64_t n, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> normal;
    Square A(static_cast<size_t>(n * n));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i; j < n; ++j)
            A[static_cast<size_t>(i * n + j)] = A[static_cast<size_t>(j * n + i)] = normal(gen);
    }
    return A;
}

/// Three diagonal blocks, two of them equal: repeated eigenvalues, and a tridiagonal that
/// falls apart into independent blocks.
Square block_diagonal(int64_t n, uint32_t seed) {
    const int64_t b = n / 3;
    const Square small = rbf(b, 5, seed), other = rbf(n - 2 * b, 3, seed + 1);
    Square A(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            if (i < b && j < b) {
                A[static_cast<size_t>(i * n + j)] = small[static_cast<size_t>(i * b + j)];
            } else if (i >= b && j >= b && i < 2 * b && j < 2 * b) {
                A[static_cast<size_t>(i * n + j)] = small[static_cast<size_t>((i - b) * b + (j - b))];
            } else if (i >= 2 * b && j >= 2 * b) {
                const int64_t m = n - 2 * b;
                A[static_cast<size_t>(i * n + j)] = other[static_cast<size_t>((i - 2 * b) * m + (j - 2 * b))];
            }
        }
    }
    return A;
}

Square diagonal(int64_t n) {
    Square A(static_cast<size_t>(n * n), 0.0);
    for (int64_t i = 0; i < n; ++i) A[static_cast<size_t>(i * n + i)] = std::cos(static_cast<double>(i));
    return A;
}

struct Decomposition {
    Square vectors;  // eigenvectors as rows
    std::vector<double> values;
};

/// The steps' products by the BLAS, as in LAPACK's one call (the bits of dsyevd), or by the
/// library's engine on a path.
struct Blas {};

Decomposition pieces(const Square& A, int64_t n, Blas) {
    Decomposition d{A, std::vector<double>(static_cast<size_t>(n))};
    dsyevd_rows(n, d.vectors.data(), d.values.data(), nullptr);
    return d;
}

Decomposition pieces(const Square& A, int64_t n, engine::Isa isa) {
    Decomposition d{A, std::vector<double>(static_cast<size_t>(n))};
    engine::Dgemm products(isa);
    dsyevd_rows(n, d.vectors.data(), d.values.data(), &products);
    return d;
}

Decomposition one_call(const Square& A, int64_t n) {
    Decomposition d{A, std::vector<double>(static_cast<size_t>(n))};
    dsyevd_rows_one_call(n, d.vectors.data(), d.values.data());
    return d;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

/// max |UᵀU − I| and max |A u_e − w_e u_e| / max(1, |w|max), in float64.
void expect_orthonormal_eigenvectors(const Square& A, int64_t n, const Decomposition& d, double tolerance) {
    double orthogonality = 0, residual = 0, top = 1;
    for (double v : d.values) top = std::max(top, std::abs(v));
    for (int64_t e = 0; e < n; ++e) {
        const double* u = d.vectors.data() + e * n;
        for (int64_t f = e; f < n; ++f) {
            const double* v = d.vectors.data() + f * n;
            double dot = 0;
            for (int64_t i = 0; i < n; ++i) dot += u[i] * v[i];
            orthogonality = std::max(orthogonality, std::abs(dot - (e == f ? 1.0 : 0.0)));
        }
        for (int64_t i = 0; i < n; ++i) {
            double au = 0;
            for (int64_t j = 0; j < n; ++j) au += A[static_cast<size_t>(i * n + j)] * u[j];
            residual = std::max(residual, std::abs(au - d.values[static_cast<size_t>(e)] * u[i]) / top);
        }
    }
    EXPECT_LT(orthogonality, tolerance);
    EXPECT_LT(residual, tolerance);
    EXPECT_TRUE(std::is_sorted(d.values.begin(), d.values.end()));
}

TEST(SymmetricEigen, BitForBitOneDsyevdCall) {
    struct Case {
        std::string name;
        int64_t n;
        Square A;
    };
    std::vector<Case> cases;
    cases.push_back({"rbf 50-d (dlaed3's products in blocks)", 2000, rbf(2000, 50, 1)});
    cases.push_back({"rbf 2-d (deflation)", 777, rbf(777, 2, 2)});
    cases.push_back({"rbf at the threshold", 512, rbf(512, 10, 3)});
    cases.push_back({"random", 640, random_symmetric(640, 4)});
    cases.push_back({"block diagonal", 700, block_diagonal(700, 5)});
    cases.push_back({"diagonal", 600, diagonal(600)});
    cases.push_back({"zero", 520, Square(520 * 520, 0.0)});
    Square tiny = rbf(560, 8, 6);
    for (double& v : tiny) v *= 1e-160;  // below dsyevd's safe range: scaled and scaled back
    cases.push_back({"tiny", 560, tiny});
    Square small = rbf(100, 8, 7);  // below the threshold: one call
    cases.push_back({"small", 100, small});
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name + ", n = " + std::to_string(c.n));
        const Decomposition ours = pieces(c.A, c.n, Blas{}), reference = one_call(c.A, c.n);
        EXPECT_TRUE(same_bits(ours.values, reference.values));
        EXPECT_TRUE(same_bits(ours.vectors, reference.vectors));
    }
}

TEST(SymmetricEigen, TheEngineProductsGiveOneResultOnEveryPathAndTheBlasResultToRoundOff) {
    // dlaed3's and dormtr's products and dsytrd's rank-2k updates by engine::Dgemm, whose
    // bits do not depend on the path, so neither do the eigenvalues and eigenvectors; against
    // the BLAS's decomposition they differ only by the products' rounding.
    struct Case {
        std::string name;
        int64_t n;
        Square A;
    };
    std::vector<Case> cases;
    cases.push_back({"rbf 50-d", 700, rbf(700, 50, 41)});
    cases.push_back({"rbf 2-d (deflation)", 777, rbf(777, 2, 42)});
    cases.push_back({"random", 640, random_symmetric(640, 43)});
    cases.push_back({"block diagonal", 700, block_diagonal(700, 44)});
    cases.push_back({"zero", 520, Square(520 * 520, 0.0)});
    Square tiny = rbf(560, 8, 46);
    for (double& v : tiny) v *= 1e-160;
    cases.push_back({"tiny", 560, tiny});
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name + ", n = " + std::to_string(c.n));
        const Decomposition blas = pieces(c.A, c.n, Blas{}), ours = pieces(c.A, c.n, engine::best_isa());
        double top = 0;
        for (double v : blas.values) top = std::max(top, std::abs(v));
        for (size_t e = 0; e < ours.values.size(); ++e) {
            ASSERT_NEAR(ours.values[e], blas.values[e], 1e-13 * static_cast<double>(c.n) * top) << "eigenvalue " << e;
        }
        expect_orthonormal_eigenvectors(c.A, c.n, ours, 1e-12 * static_cast<double>(c.n));
        for (engine::Isa isa : {engine::Isa::portable, engine::Isa::avx2, engine::Isa::avx512}) {
            if (!engine::isa_supported(isa) || isa == engine::best_isa()) continue;
            if (isa == engine::Isa::portable && c.n > 600) continue;  // scalar fmas: slow under ASan
            SCOPED_TRACE(engine::isa_name(isa));
            const Decomposition path = pieces(c.A, c.n, isa);
            EXPECT_TRUE(same_bits(path.values, ours.values));
            EXPECT_TRUE(same_bits(path.vectors, ours.vectors));
        }
    }
}

/// A 37×37 laplacian kernel matrix (duplicate rows, gamma 0.0187604919661516, values down to
/// 4e-38) on which LAPACK 3.11's dstedc does not converge (dsyevd info=75 with Debian
/// bookworm's LAPACK and BLIS; fuzz_fit found it): the distinct values, and each entry's
/// index among them.
constexpr double kFailValues[] = {0x0.0p+0,
                                  0x1.967e4e0000000p-125,
                                  0x1.48426e0000000p-123,
                                  0x1.0915200000000p-121,
                                  0x1.dc6c5c0000000p-121,
                                  0x1.ac21160000000p-120,
                                  0x1.80bb0c0000000p-119,
                                  0x1.59bb360000000p-118,
                                  0x1.36af6a0000000p-117,
                                  0x1.1731120000000p-116,
                                  0x1.f5c7fe0000000p-116,
                                  0x1.c2eaac0000000p-115,
                                  0x1.95354a0000000p-114,
                                  0x1.6c22100000000p-113,
                                  0x1.4738be0000000p-112,
                                  0x1.260d460000000p-111,
                                  0x1.daeac00000000p-110,
                                  0x1.7f83a60000000p-108,
                                  0x1.164e8e0000000p-105,
                                  0x1.f430e20000000p-105,
                                  0x1.c17cd60000000p-104,
                                  0x1.6afaa20000000p-102,
                                  0x1.a96c500000000p-98,
                                  0x1.7e4c800000000p-97,
                                  0x1.34b8ae0000000p-95,
                                  0x1.f29c0a0000000p-94,
                                  0x1.f29d020000000p-94,
                                  0x1.c011060000000p-93,
                                  0x1.45273e0000000p-90,
                                  0x1.2431760000000p-89,
                                  0x1.0692fe0000000p-88,
                                  0x1.a813fa0000000p-87,
                                  0x1.5675b60000000p-85,
                                  0x1.56760c0000000p-85,
                                  0x1.33bed00000000p-84,
                                  0x1.148cc20000000p-83,
                                  0x1.f107fc0000000p-83,
                                  0x1.f108f40000000p-83,
                                  0x1.915f540000000p-81,
                                  0x1.68afa20000000p-80,
                                  0x1.441fc20000000p-79,
                                  0x1.2344ae0000000p-78,
                                  0x1.ef75b40000000p-72,
                                  0x1.bd3c6c0000000p-71,
                                  0x1.901a760000000p-70,
                                  0x1.678bb40000000p-69,
                                  0x1.43196c0000000p-68,
                                  0x1.2258a60000000p-67,
                                  0x1.04ea1a0000000p-66,
                                  0x1.d4eea40000000p-66,
                                  0x1.7aae6a0000000p-64,
                                  0x1.31ccd60000000p-62,
                                  0x1.12cd420000000p-61,
                                  0x1.12cd880000000p-61,
                                  0x1.ede4340000000p-61,
                                  0x1.bbd40e0000000p-60,
                                  0x1.8ed63c0000000p-59,
                                  0x1.216da40000000p-56,
                                  0x1.5338220000000p-52,
                                  0x1.30d5060000000p-51,
                                  0x1.11ef1c0000000p-50,
                                  0x1.ec53f80000000p-50,
                                  0x1.8d93080000000p-48,
                                  0x1.6545e60000000p-47,
                                  0x1.410e980000000p-46,
                                  0x1.0344480000000p-44,
                                  0x1.d1f8880000000p-44,
                                  0x1.784a620000000p-42,
                                  0x1.b905aa0000000p-38,
                                  0x1.0272500000000p-33,
                                  0x1.d07f600000000p-33,
                                  0x1.51133a0000000p-30,
                                  0x1.6303f60000000p-25,
                                  0x1.3f07660000000p-24,
                                  0x1.1eb0640000000p-23,
                                  0x1.75e9ae0000000p-20,
                                  0x1.2df2c00000000p-18,
                                  0x1.0f57220000000p-17,
                                  0x1.89d0240000000p-15,
                                  0x1.00d00c0000000p-11,
                                  0x1.74ba740000000p-9,
                                  0x1.0000000000000p+0};
constexpr unsigned char kFailIndex[37][37] = {
    {81, 38, 0,  22, 0, 0,  0,  0,  0,  0,  0,  70, 9,  0,  0,  0,  6,  0, 0,
     0,  0,  68, 0,  0, 78, 63, 25, 41, 73, 71, 71, 71, 71, 71, 71, 71, 71},
    {38, 81, 0,  61, 0,  0,  0,  0,  8,  0,  32, 13, 0,  0,  0,  0,  0,  0, 0,
     64, 0,  63, 0,  32, 24, 44, 13, 45, 19, 42, 42, 42, 42, 42, 42, 42, 42},
    {0, 0, 81, 0, 0,  0, 0,  0, 29, 0, 47, 0, 0, 0, 0, 0, 0, 20, 72,
     0, 2, 0,  0, 47, 0, 11, 0, 35, 0, 0,  0, 0, 0, 0, 0, 0, 0},
    {22, 61, 0,  81, 12, 0,  0,  0, 0, 15, 0,  0,  0,  0,  0,  0,  0,  0, 0,
     62, 0,  54, 15, 0,  14, 31, 0, 7, 3,  30, 30, 30, 30, 30, 30, 30, 30},
    {0,  0, 0, 12, 81, 39, 39, 39, 0, 75, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     33, 8, 0, 75, 0,  0,  0,  0,  0, 0,  0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0,  0, 0,  39, 81, 81, 81, 26, 37, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 55, 0, 37, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0,  0, 0,  39, 81, 81, 81, 26, 37, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 55, 0, 37, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0},
    {0, 0,  0, 0,  39, 81, 81, 81, 26, 37, 0, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 55, 0, 37, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0, 0},
    {0,  8,  29, 0, 0,  26, 26, 26, 81, 0, 46, 0, 0, 0, 0, 0, 0, 0, 12,
     10, 57, 0,  0, 46, 0,  0,  0,  0,  0, 0,  0, 0, 0, 0, 0, 0, 0},
    {0,  0,  0, 15, 75, 37, 37, 37, 0, 81, 1, 0, 0, 0, 0, 0, 0, 0, 0,
     36, 22, 0, 81, 1,  0,  0,  0,  0, 0,  0, 0, 0, 0, 0, 0, 0, 0},
    {0,  32, 47, 0, 0,  0, 0, 0, 46, 1, 81, 0, 0, 0, 0, 0, 0, 1, 61,
     31, 21, 0,  1, 81, 0, 6, 0, 56, 0, 4,  4, 4, 4, 4, 4, 4, 4},
    {70, 13, 0,  0, 0, 0,  0,  0,  0,  0,  0,  81, 13, 16, 16, 16, 31, 0, 0,
     0,  0,  44, 0, 0, 76, 66, 28, 20, 80, 67, 67, 67, 67, 67, 67, 67, 67},
    {9, 0, 0, 0, 0, 0, 0,  0,  0, 0, 0,  13, 81, 31, 31, 31, 16, 54, 0,
     0, 0, 0, 0, 0, 0, 44, 74, 0, 5, 31, 31, 31, 31, 31, 31, 31, 31},
    {0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 16, 31, 81, 81, 81, 74, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 16, 0, 7, 0, 0,  0,  0,  0,  0,  0,  0},
    {0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 16, 31, 81, 81, 81, 74, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 16, 0, 7, 0, 0,  0,  0,  0,  0,  0,  0},
    {0, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 16, 31, 81, 81, 81, 74, 0, 0,
     0, 0, 0, 0, 0, 0, 0, 16, 0, 7, 0, 0,  0,  0,  0,  0,  0,  0},
    {6, 0, 0, 0, 0, 0,  0, 0,  0, 0,  0, 31, 16, 74, 74, 74, 81, 0, 0,
     0, 0, 0, 0, 0, 19, 0, 31, 0, 24, 0, 0,  0,  0,  0,  0,  0,  0},
    {0, 0, 20, 0, 0, 0, 0,  0,  0,  0, 1,  0,  54, 0,  0,  0,  0,  81, 40,
     0, 0, 0,  0, 1, 0, 22, 59, 48, 0, 11, 11, 11, 11, 11, 11, 11, 11},
    {0, 0, 72, 0, 0,  0, 0,  0, 12, 0, 61, 0,  0,  0,  0,  0,  0,  40, 81,
     0, 0, 0,  0, 61, 0, 23, 9, 49, 0, 12, 12, 12, 12, 12, 12, 12, 12},
    {0,  64, 0,  62, 33, 0, 0,  0, 10, 36, 31, 0, 0, 0, 0, 0, 0, 0, 0,
     81, 18, 29, 36, 31, 0, 10, 0, 43, 0,  8,  8, 8, 8, 8, 8, 8, 8},
    {0,  0,  2, 0,  8,  55, 55, 55, 57, 22, 21, 0, 0, 0, 0, 0, 0, 0, 0,
     18, 81, 0, 22, 21, 0,  0,  0,  0,  0,  0,  0, 0, 0, 0, 0, 0, 0},
    {68, 63, 0,  54, 0, 0,  0,  0, 0,  0,  0,  44, 0,  0,  0,  0,  0,  0, 0,
     29, 0,  81, 0,  0, 58, 34, 0, 10, 52, 47, 47, 47, 47, 47, 47, 47, 47},
    {0,  0,  0, 15, 75, 37, 37, 37, 0, 81, 1, 0, 0, 0, 0, 0, 0, 0, 0,
     36, 22, 0, 81, 1,  0,  0,  0,  0, 0,  0, 0, 0, 0, 0, 0, 0, 0},
    {0,  32, 47, 0, 0,  0, 0, 0, 46, 1, 81, 0, 0, 0, 0, 0, 0, 1, 61,
     31, 21, 0,  1, 81, 0, 6, 0, 56, 0, 4,  4, 4, 4, 4, 4, 4, 4},
    {78, 24, 0,  14, 0, 0,  0,  0,  0,  0,  0,  76, 0,  0,  0,  0,  19, 0, 0,
     0,  0,  58, 0,  0, 81, 53, 17, 27, 79, 65, 65, 65, 65, 65, 65, 65, 65},
    {63, 44, 11, 31, 0, 0,  0,  0,  0,  0,  6,  66, 44, 0,  0,  0,  0,  22, 23,
     10, 0,  34, 0,  6, 53, 81, 63, 54, 60, 77, 77, 77, 77, 77, 77, 77, 77},
    {25, 13, 0, 0, 0, 0,  0,  0,  0,  0,  0,  28, 74, 16, 16, 16, 31, 59, 9,
     0,  0,  0, 0, 0, 17, 63, 81, 20, 23, 50, 50, 50, 50, 50, 50, 50, 50},
    {41, 45, 35, 7, 0,  0,  0,  0,  0,  0,  56, 20, 0,  0,  0,  0,  0,  48, 49,
     43, 0,  10, 0, 56, 27, 54, 20, 81, 24, 51, 51, 51, 51, 51, 51, 51, 51},
    {73, 19, 0,  3, 0, 0,  0,  0,  0,  0,  0,  80, 5,  7,  7,  7,  24, 0, 0,
     0,  0,  52, 0, 0, 79, 60, 23, 24, 81, 69, 69, 69, 69, 69, 69, 69, 69},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
    {71, 42, 0,  30, 0, 0,  0,  0,  0,  0,  4,  67, 31, 0,  0,  0,  0,  11, 12,
     8,  0,  47, 0,  4, 65, 77, 50, 51, 69, 81, 81, 81, 81, 81, 81, 81, 81},
};

/// `copies` copies of that matrix down the diagonal, then `zeros` zero rows and columns.
Square dstedc_fails(int64_t copies, int64_t zeros) {
    constexpr int64_t s = 37;
    const int64_t n = copies * s + zeros;
    Square A(static_cast<size_t>(n * n), 0.0);
    for (int64_t b = 0; b < copies; ++b) {
        for (int64_t i = 0; i < s; ++i) {
            for (int64_t j = 0; j < s; ++j)
                A[static_cast<size_t>((b * s + i) * n + b * s + j)] = kFailValues[kFailIndex[i][j]];
        }
    }
    return A;
}

TEST(SymmetricEigen, WhereDivideAndConquerFailsTheQrIterationTakesOver) {
    // Both ways in: one call below 512 (the 37×37 matrix) and the steps from 512 on (14
    // copies of it down the diagonal and two zero rows: 520×520). Where dsyevd fails (here,
    // Debian's LAPACK 3.11: info 75 and 77814), dsyevd's steps run again with dsteqr in place
    // of dstedc, so the one call and the steps still agree bit for bit, and the decomposition
    // is a true one. A LAPACK whose dstedc converges on these matrices takes the ordinary
    // path, where the same checks hold.
    for (const auto& [copies, zeros] : {std::pair<int64_t, int64_t>{1, 0}, {14, 2}}) {
        const int64_t n = copies * 37 + zeros;
        const Square A = dstedc_fails(copies, zeros);
        SCOPED_TRACE("n = " + std::to_string(n));
        Square plain = A;
        std::vector<double> w(static_cast<size_t>(n));
        const lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', static_cast<lapack_int>(n), plain.data(),
                                               static_cast<lapack_int>(n), w.data());
        std::printf("n = %ld: LAPACKE_dsyevd info = %d (%s)\n", static_cast<long>(n), static_cast<int>(info),
                    info > 0 ? "the fallback runs" : "the ordinary path");
        Decomposition ours, reference;
        ASSERT_NO_THROW(ours = pieces(A, n, Blas{}));
        ASSERT_NO_THROW(reference = one_call(A, n));
        EXPECT_TRUE(same_bits(ours.values, reference.values));
        EXPECT_TRUE(same_bits(ours.vectors, reference.vectors));
        expect_orthonormal_eigenvectors(A, n, ours, 1e-12 * static_cast<double>(n));
        EXPECT_NEAR(ours.values.back(), 8.0, 1e-9);  // eight equal rows of ones, to round-off
        Decomposition engine;                        // the engine's products take the same fallback
        ASSERT_NO_THROW(engine = pieces(A, n, engine::best_isa()));
        expect_orthonormal_eigenvectors(A, n, engine, 1e-12 * static_cast<double>(n));
        EXPECT_NEAR(engine.values.back(), 8.0, 1e-9);
    }
}

TEST(SymmetricEigen, OrthonormalEigenvectorsWithSmallResiduals) {
    for (const auto& [n, A] : {std::pair<int64_t, Square>{600, rbf(600, 50, 11)},
                               {600, rbf(600, 2, 12)},
                               {530, random_symmetric(530, 13)},
                               {540, block_diagonal(540, 14)}}) {
        SCOPED_TRACE(n);
        expect_orthonormal_eigenvectors(A, n, pieces(A, n, Blas{}), 1e-12 * static_cast<double>(n));
        expect_orthonormal_eigenvectors(A, n, pieces(A, n, engine::best_isa()), 1e-12 * static_cast<double>(n));
    }
}

/// A progress callback that sleeps past the poll interval at its first call (the stage
/// start), so that the next poll calls it again at once, and cancels at its second call.
struct CancelAtSecondCall {
    int calls = 0;
    static int callback(const char*, double, void* user) {
        auto* c = static_cast<CancelAtSecondCall*>(user);
        ++c->calls;
        if (c->calls == 1) {
            std::this_thread::sleep_for(std::chrono::duration<double>(1.5 * Progress::kPollSeconds));
            return 0;
        }
        return 1;
    }
};

TEST(SymmetricEigen, ACancelFromTheProgressCallbackThrowsCancelledAndLeavesNothingBehind) {
    const int64_t n = 900;
    const Square A = rbf(n, 20, 21);
    CancelAtSecondCall cancel;
    {
        Progress progress(&CancelAtSecondCall::callback, &cancel);
        ProgressScope scope(progress);
        progress.begin("kernel+eigen");
        Decomposition d{A, std::vector<double>(static_cast<size_t>(n))};
        try {
            engine::Dgemm products(engine::best_isa());
            dsyevd_rows(n, d.vectors.data(), d.values.data(), &products);
            ADD_FAILURE() << "not cancelled";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_CANCELLED);
            EXPECT_NE(std::string(e.what()).find("kernel+eigen"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(cancel.calls, 2);  // the stage start, then the decomposition's first poll
    // Nothing left over: the next decomposition, with no progress installed, is the usual one.
    const Decomposition after = pieces(A, n, Blas{}), reference = one_call(A, n);
    EXPECT_TRUE(same_bits(after.values, reference.values));
    EXPECT_TRUE(same_bits(after.vectors, reference.vectors));
}

TEST(SymmetricEigen, NonFiniteInputIsInvalidData) {
    for (const int64_t n : {int64_t{40}, int64_t{600}}) {
        Square A = rbf(n, 3, 31);
        A[static_cast<size_t>(3 * n + 5)] = std::nan("");
        std::vector<double> w(static_cast<size_t>(n));
        try {
            engine::Dgemm products(engine::best_isa());
            dsyevd_rows(n, A.data(), w.data(), &products);
            ADD_FAILURE() << "accepted a NaN";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_INVALID_DATA);
            EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace kkm::linalg
