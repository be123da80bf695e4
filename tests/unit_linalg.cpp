// linalg::dsyevd_rows, dsyevd taken apart into its steps with cancellation polls between
// them (core/linalg_lapack.cpp): bit for bit the eigenvalues and eigenvectors of one LAPACKE
// dsyevd call (this C++ host binds LAPACK's BLAS calls to the library's BLAS) on kernel
// matrices (slow and fast spectra; at n = 2000 the last merge's product runs in blocks of
// columns), random, block-diagonal (the tridiagonal splits), diagonal, zero and tiny
// (dsyevd's scaling) matrices; orthonormal eigenvectors with small residuals; a cancel from
// the progress callback throws CANCELLED and leaves nothing behind; non-finite input is
// refused as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/linalg.h"
#include "core/progress.h"

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

Decomposition pieces(const Square& A, int64_t n) {
    Decomposition d{A, std::vector<double>(static_cast<size_t>(n))};
    dsyevd_rows(n, d.vectors.data(), d.values.data());
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
        const Decomposition ours = pieces(c.A, c.n), reference = one_call(c.A, c.n);
        EXPECT_TRUE(same_bits(ours.values, reference.values));
        EXPECT_TRUE(same_bits(ours.vectors, reference.vectors));
    }
}

TEST(SymmetricEigen, OrthonormalEigenvectorsWithSmallResiduals) {
    for (const auto& [n, A] : {std::pair<int64_t, Square>{600, rbf(600, 50, 11)},
                               {600, rbf(600, 2, 12)},
                               {530, random_symmetric(530, 13)},
                               {540, block_diagonal(540, 14)}}) {
        SCOPED_TRACE(n);
        expect_orthonormal_eigenvectors(A, n, pieces(A, n), 1e-12 * static_cast<double>(n));
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
            dsyevd_rows(n, d.vectors.data(), d.values.data());
            ADD_FAILURE() << "not cancelled";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_CANCELLED);
            EXPECT_NE(std::string(e.what()).find("kernel+eigen"), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(cancel.calls, 2);  // the stage start, then the decomposition's first poll
    // Nothing left over: the next decomposition, with no progress installed, is the usual one.
    const Decomposition after = pieces(A, n), reference = one_call(A, n);
    EXPECT_TRUE(same_bits(after.values, reference.values));
    EXPECT_TRUE(same_bits(after.vectors, reference.vectors));
}

TEST(SymmetricEigen, NonFiniteInputIsInvalidData) {
    for (const int64_t n : {int64_t{40}, int64_t{600}}) {
        Square A = rbf(n, 3, 31);
        A[static_cast<size_t>(3 * n + 5)] = std::nan("");
        std::vector<double> w(static_cast<size_t>(n));
        try {
            dsyevd_rows(n, A.data(), w.data());
            ADD_FAILURE() << "accepted a NaN";
        } catch (const Error& e) {
            EXPECT_EQ(e.status(), KKM_ERR_INVALID_DATA);
            EXPECT_NE(std::string(e.what()).find("non-finite"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace kkm::linalg
