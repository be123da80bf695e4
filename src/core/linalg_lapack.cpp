// LAPACK half of the linear-algebra wrapper.
//
// dsyevd_rows is LAPACK's dsyevd (tridiagonal reduction dsytrd, divide and conquer dstedc,
// back-transformation dormtr) taken apart into the calls those routines make, in the same
// order on the same arguments, with a cancellation poll (core/progress.h) between them. One
// dsyevd call, which nothing interrupts, takes 1.3 s at n = 2000 and 13 s at n = 4000 (AMD
// EPYC Zen 4, one thread, BLIS); the longest stretch between two polls here is 0.04 s at
// n = 2000 and 0.11 s at n = 4000 (a block of dlaed3's products), and the whole takes as
// long as the one call. The loops of dsytrd, dlatrd, dstedc, dlaed0, dlaed1, dlaed3 and
// dormql are written out below (LAPACK 3.11's; the comments keep its 1-based names); the
// leaves (dlarfg, dsytd2, dlaed2, dlaed4, dsteqr, dlarft, dlarfb, dormtr for small sizes,
// the BLAS) are LAPACK's and the BLAS's own.
//
// The large products go one of two ways (Products, core/linalg.h). The library's callers pass
// its float64 engine (engine::Dgemm, engine/dgemm.h), which makes dlaed3's two products, dormtr's
// block reflectors (dlarfb, written out below for the one case dormql uses) and dsytrd's
// rank-2k updates; the level-2 and triangular BLAS calls and LAPACK's leaves stay as they
// are. Debian's BLIS runs its generic kernels on Zen 4 and Zen 5 (17 GFLOP/s in dgemm on one
// Zen 5 core), where the engine's paths run 4-5x faster: a 1000x1000 decomposition takes
// 0.15-0.22 s instead of 0.33-0.40 s there. The engine's products do not depend on the path
// or the CPU, so neither does this decomposition's result where the BLAS calls left agree.
//
// With no Products (NULL), the steps call the BLAS as LAPACK does, and the eigenvalues and
// eigenvectors are bit for bit those of one dsyevd call (tests/unit_linalg.cpp), given two
// conditions. (1) dlaed3's two matrix products are made in blocks of columns, each as wide
// as the BLAS's usual blocked path needs to compute a column as in the whole product
// (product_in_column_blocks). (2) LAPACK's own BLAS calls reach the BLAS ours reach: true in
// a C host (both bind to the library's BLAS, BLIS), not in a process that loaded LAPACK
// before the library (Python with numpy: LAPACK's calls go to numpy's BLAS, OpenBLAS on
// Debian, and ours to BLIS, README "BLIS stays the BLAS"). The results are then a mix of
// the two BLASes' roundings: deterministic, but not those of the one call in that process.
//
// Where dstedc does not converge (LAPACK 3.11 on a 37x37 laplacian kernel matrix of duplicate
// rows: info=75; tests/unit_linalg.cpp keeps it), both functions run dsyevd's steps again with
// dsteqr in dstedc's place (dsyevd_steps): the same bits from both where the steps' products
// are the BLAS's, and only that failing too is an error.
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/linalg.h"
#include "core/progress.h"
#include "core/zeroed_buffer.h"

// Fortran routines that lapack.h does not declare: LAPACK's auxiliaries and the BLAS (both
// LP64, as lapack_int; gfortran passes each CHARACTER argument's length last).
extern "C" {
void dsytd2_(const char* uplo, const lapack_int* n, double* a, const lapack_int* lda, double* d, double* e, double* tau,
             lapack_int* info, size_t);
lapack_int ilaenv_(const lapack_int* ispec, const char* name, const char* opts, const lapack_int* n1,
                   const lapack_int* n2, const lapack_int* n3, const lapack_int* n4, size_t, size_t);
void dlaed2_(lapack_int* k, const lapack_int* n, const lapack_int* n1, double* d, double* q, const lapack_int* ldq,
             lapack_int* indxq, double* rho, double* z, double* dlamda, double* w, double* q2, lapack_int* indx,
             lapack_int* indxc, lapack_int* indxp, lapack_int* coltyp, lapack_int* info);
void dlaed4_(const lapack_int* n, const lapack_int* i, const double* d, const double* z, double* delta,
             const double* rho, double* dlam, lapack_int* info);
void dlamrg_(const lapack_int* n1, const lapack_int* n2, const double* a, const lapack_int* dtrd1,
             const lapack_int* dtrd2, lapack_int* index);
void dgemv_(const char* trans, const lapack_int* m, const lapack_int* n, const double* alpha, const double* a,
            const lapack_int* lda, const double* x, const lapack_int* incx, const double* beta, double* y,
            const lapack_int* incy, size_t);
void dsymv_(const char* uplo, const lapack_int* n, const double* alpha, const double* a, const lapack_int* lda,
            const double* x, const lapack_int* incx, const double* beta, double* y, const lapack_int* incy, size_t);
void dsyr2k_(const char* uplo, const char* trans, const lapack_int* n, const lapack_int* k, const double* alpha,
             const double* a, const lapack_int* lda, const double* b, const lapack_int* ldb, const double* beta,
             double* c, const lapack_int* ldc, size_t, size_t);
void dgemm_(const char* transa, const char* transb, const lapack_int* m, const lapack_int* n, const lapack_int* k,
            const double* alpha, const double* a, const lapack_int* lda, const double* b, const lapack_int* ldb,
            const double* beta, double* c, const lapack_int* ldc, size_t, size_t);
void dscal_(const lapack_int* n, const double* alpha, double* x, const lapack_int* incx);
void daxpy_(const lapack_int* n, const double* alpha, const double* x, const lapack_int* incx, double* y,
            const lapack_int* incy);
double ddot_(const lapack_int* n, const double* x, const lapack_int* incx, const double* y, const lapack_int* incy);
double dnrm2_(const lapack_int* n, const double* x, const lapack_int* incx);
void dtrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const lapack_int* m,
            const lapack_int* n, const double* alpha, const double* a, const lapack_int* lda, double* b,
            const lapack_int* ldb, size_t, size_t, size_t, size_t);
}

namespace kkm::linalg {
namespace {

using Int = lapack_int;

constexpr Int kOne = 1;
constexpr double kPlus = 1.0, kMinus = -1.0, kZero = 0.0;

/// Below this order dsyevd runs in one call (about 0.02 s at 512 on the machine above):
/// its small-size branches (unblocked reduction, dsteqr instead of divide and conquer, an
/// unblocked dormql when the workspace is short) are then LAPACK's own business.
constexpr int64_t kPiecewiseFrom = 512;

/// dlaed3's products are made in blocks of columns of about this many flops (0.02 s), but
/// never narrower than kMinProductBlock (at n = 4000: 5e9 flops, 0.1 s), a poll after each.
constexpr double kFlopsPerProductBlock = 1e9;
constexpr lapack_int kMinProductBlock = 512;

/// Between two pieces of work: the fit's progress callback gets its turn (at most every
/// 0.1 s), and a cancel throws Error(KKM_ERR_CANCELLED) here. Nothing to do outside a fit.
inline void poll() {
    progress_check();
}

Int ilaenv(Int ispec, const char* name, const char* opts, Int n1, Int n2, Int n3, Int n4) {
    return ilaenv_(&ispec, name, opts, &n1, &n2, &n3, &n4, std::char_traits<char>::length(name),
                   std::char_traits<char>::length(opts));
}

/// A column-major matrix seen with LAPACK's 1-based indices: at(i, j) is A(I, J).
struct Fortran {
    double* a;
    Int ld;
    double& operator()(Int i, Int j) const { return a[(i - 1) + static_cast<int64_t>(j - 1) * ld]; }
    double* at(Int i, Int j) const { return &(*this)(i, j); }
};

/// The large products of dlaed3, dormtr and dsytrd: by `products` (dsyevd_rows'), or, where
/// that is NULL, by the BLAS's dgemm_ and dsyr2k and LAPACK's dlarfb, as in one dsyevd call.
class Gemm {
public:
    explicit Gemm(Products* products) : products_(products) {}
    bool blas() const { return products_ == nullptr; }
    /// C = alpha·op(A)·op(B) + beta·C, column-major, as dgemm_ takes it.
    void operator()(bool ta, bool tb, Int m, Int n, Int k, double alpha, const double* A, Int lda, const double* B,
                    Int ldb, double beta, double* C, Int ldc) {
        if (products_ == nullptr) {
            dgemm_(ta ? "T" : "N", tb ? "T" : "N", &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc, 1, 1);
        } else {
            products_->gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
        }
    }

private:
    Products* products_;
};

// ---------------------------------------------------------------- reduction to tridiagonal

/// LAPACK dlatrd, uplo 'U': reduces the last nb columns of the leading n×n block of A and
/// returns in W the n×nb matrix that the caller's dsyr2k needs. A poll after each column.
void latrd_upper(Int n, Int nb, Fortran A, double* e, double* tau, Fortran W) {
    for (Int i = n; i >= n - nb + 1; --i) {
        const Int iw = i - n + nb, rest = n - i, im1 = i - 1;
        if (i < n) {  // update A(1:i, i)
            dgemv_("N", &i, &rest, &kMinus, A.at(1, i + 1), &A.ld, W.at(i, iw + 1), &W.ld, &kPlus, A.at(1, i), &kOne,
                   1);
            dgemv_("N", &i, &rest, &kMinus, W.at(1, iw + 1), &W.ld, A.at(i, i + 1), &A.ld, &kPlus, A.at(1, i), &kOne,
                   1);
        }
        if (i > 1) {  // the reflector H(i) that annihilates A(1:i-2, i), and W(1:i-1, i)
            LAPACK_dlarfg(&im1, A.at(i - 1, i), A.at(1, i), &kOne, &tau[i - 2]);
            e[i - 2] = A(i - 1, i);
            A(i - 1, i) = 1.0;
            dsymv_("U", &im1, &kPlus, A.a, &A.ld, A.at(1, i), &kOne, &kZero, W.at(1, iw), &kOne, 1);
            if (i < n) {
                dgemv_("T", &im1, &rest, &kPlus, W.at(1, iw + 1), &W.ld, A.at(1, i), &kOne, &kZero, W.at(i + 1, iw),
                       &kOne, 1);
                dgemv_("N", &im1, &rest, &kMinus, A.at(1, i + 1), &A.ld, W.at(i + 1, iw), &kOne, &kPlus, W.at(1, iw),
                       &kOne, 1);
                dgemv_("T", &im1, &rest, &kPlus, A.at(1, i + 1), &A.ld, A.at(1, i), &kOne, &kZero, W.at(i + 1, iw),
                       &kOne, 1);
                dgemv_("N", &im1, &rest, &kMinus, W.at(1, iw + 1), &W.ld, W.at(i + 1, iw), &kOne, &kPlus, W.at(1, iw),
                       &kOne, 1);
            }
            dscal_(&im1, &tau[i - 2], W.at(1, iw), &kOne);
            const double alpha = -0.5 * tau[i - 2] * ddot_(&im1, W.at(1, iw), &kOne, A.at(1, i), &kOne);
            daxpy_(&im1, &alpha, A.at(1, i), &kOne, W.at(1, iw), &kOne);
        }
        poll();
    }
}

/// dsyr2k('U', 'N') with alpha = −1, beta = 1: the upper triangle of C (n×n) −= V Wᵀ + W Vᵀ,
/// V and W n×k. Through the engine: by blocks of columns, the part above each diagonal block
/// in two products, the diagonal block in a copy of which only the upper triangle goes back.
void rank_2k_update(Gemm& gemm, Int n, Int k, Fortran V, Fortran W, Fortran C) {
    if (gemm.blas()) {
        dsyr2k_("U", "N", &n, &k, &kMinus, V.a, &V.ld, W.a, &W.ld, &kPlus, C.a, &C.ld, 1, 1);
        return;
    }
    constexpr Int kBlock = 64;
    double block[kBlock * kBlock];
    for (Int j0 = 0; j0 < n; j0 += kBlock) {
        const Int cols = std::min(kBlock, n - j0);
        double* above = C.at(1, j0 + 1);
        gemm(false, true, j0, cols, k, kMinus, V.a, V.ld, W.at(j0 + 1, 1), W.ld, kPlus, above, C.ld);
        gemm(false, true, j0, cols, k, kMinus, W.a, W.ld, V.at(j0 + 1, 1), V.ld, kPlus, above, C.ld);
        LAPACK_dlacpy("A", &cols, &cols, C.at(j0 + 1, j0 + 1), &C.ld, block, &cols);
        gemm(false, true, cols, cols, k, kMinus, V.at(j0 + 1, 1), V.ld, W.at(j0 + 1, 1), W.ld, kPlus, block, cols);
        gemm(false, true, cols, cols, k, kMinus, W.at(j0 + 1, 1), W.ld, V.at(j0 + 1, 1), V.ld, kPlus, block, cols);
        for (Int j = 0; j < cols; ++j) {
            for (Int i = 0; i <= j; ++i) C(j0 + 1 + i, j0 + 1 + j) = block[i + j * cols];
        }
    }
}

/// LAPACK dsytrd, uplo 'U', with a workspace of at least n·nb (dsyevd's): the diagonal to d,
/// the off-diagonal to e, the reflectors to A's upper triangle and tau.
void tridiagonalize(Gemm& gemm, Int n, Fortran A, double* d, double* e, double* tau, double* work) {
    Int nb = ilaenv(1, "DSYTRD", "U", n, -1, -1, -1);
    Int nx = n;
    if (nb > 1 && nb < n) {
        nx = std::max(nb, ilaenv(3, "DSYTRD", "U", n, -1, -1, -1));
        if (nx >= n) nx = n;
    } else {
        nb = 1;
    }
    const Int kk = n - ((n - nx + nb - 1) / nb) * nb;  // columns kk+1..n in panels of nb
    const Fortran W{work, n};
    for (Int i = n - nb + 1; i >= kk + 1; i -= nb) {
        const Int order = i + nb - 1, im1 = i - 1;
        latrd_upper(order, nb, A, e, tau, W);
        rank_2k_update(gemm, im1, nb, Fortran{A.at(1, i), A.ld}, W, A);
        for (Int j = i; j <= i + nb - 1; ++j) {
            A(j - 1, j) = e[j - 2];
            d[j - 1] = A(j, j);
        }
        poll();
    }
    Int info = 0;
    dsytd2_("U", &kk, A.a, &A.ld, d, e, tau, &info, 1);
}

// ---------------------------------------------------------------- tridiagonal eigenproblem

/// C (m × cols) = A (m × inner) · B (inner × cols), all column-major. A large product is
/// made in blocks of columns, a poll after each: blocks of nearly equal widths, each at least
/// kMinProductBlock wide and with m and inner at least that too, so that the BLAS takes its
/// usual blocked path for each (BLIS's small-matrix path, which it takes when one dimension
/// is small, can round a narrow block differently from the whole) and every column comes
/// out as from the one product. (The engine's columns never depend on the blocking.)
void product_in_column_blocks(Gemm& gemm, Int m, Int cols, Int inner, const double* A, Int lda, const double* B,
                              Int ldb, double* C, Int ldc) {
    const double per_column = 2.0 * m * inner;
    Int blocks = 1;
    if (m >= kMinProductBlock && inner >= kMinProductBlock && per_column * cols > kFlopsPerProductBlock) {
        const auto width = std::max<Int>(kMinProductBlock, static_cast<Int>(kFlopsPerProductBlock / per_column));
        blocks = std::max<Int>(1, cols / width);
    }
    Int begin = 0;
    for (Int b = 0; b < blocks; ++b) {
        const Int count = cols / blocks + (b < cols % blocks ? 1 : 0);
        gemm(false, false, m, count, inner, kPlus, A, lda, B + static_cast<int64_t>(begin) * ldb, ldb, kZero,
             C + static_cast<int64_t>(begin) * ldc, ldc);
        begin += count;
        poll();
    }
}

/// LAPACK dlaed3: the roots of the secular equation of the rank-one modification (k
/// non-deflated values dlamda, weights w) to d, their eigenvectors, and those multiplied
/// into the n×n block Q from q2 (dlaed2's packed copy). s: dlaed1's workspace. Returns
/// dlaed4's info (non-zero: a root did not converge).
Int secular(Gemm& gemm, Int k, Int n, Int n1, double* d, Fortran Q, double rho, double* dlamda, const double* q2,
            const Int* indx, const Int* ctot, double* w, double* s) {
    if (k == 0) return 0;
    // DLAMDA(I) = DLAMC3(DLAMDA(I), DLAMDA(I)) - DLAMDA(I): no change on binary machines.
    for (Int i = 0; i < k; ++i) dlamda[i] = (dlamda[i] + dlamda[i]) - dlamda[i];
    for (Int j = 1; j <= k; ++j) {
        Int info = 0;
        dlaed4_(&k, &j, dlamda, w, Q.at(1, j), &rho, &d[j - 1], &info);
        if (info != 0) return info;
        poll();
    }
    if (k == 2) {
        for (Int j = 1; j <= 2; ++j) {
            w[0] = Q(1, j);
            w[1] = Q(2, j);
            Q(1, j) = w[indx[0] - 1];
            Q(2, j) = w[indx[1] - 1];
        }
    } else if (k > 2) {
        // The updated w: w(i) = Q(i, i) times Q(i, j) / (dlamda(i) − dlamda(j)) for j ≠ i,
        // in LAPACK's order (j outer).
        std::copy(w, w + k, s);
        for (Int i = 1; i <= k; ++i) w[i - 1] = Q(i, i);
        for (Int j = 1; j <= k; ++j) {
            for (Int i = 1; i <= j - 1; ++i) w[i - 1] = w[i - 1] * (Q(i, j) / (dlamda[i - 1] - dlamda[j - 1]));
            for (Int i = j + 1; i <= k; ++i) w[i - 1] = w[i - 1] * (Q(i, j) / (dlamda[i - 1] - dlamda[j - 1]));
            if (j % 256 == 0) poll();
        }
        for (Int i = 0; i < k; ++i) w[i] = std::copysign(std::sqrt(-w[i]), s[i]);
        // The eigenvectors of the modified rank-one modification.
        for (Int j = 1; j <= k; ++j) {
            for (Int i = 1; i <= k; ++i) s[i - 1] = w[i - 1] / Q(i, j);
            const double norm = dnrm2_(&k, s, &kOne);
            for (Int i = 1; i <= k; ++i) Q(i, j) = s[indx[i - 1] - 1] / norm;
            if (j % 256 == 0) poll();
        }
    }
    // The updated eigenvectors: the two blocks of rows of Q from q2 times s.
    const Int n2 = n - n1, n12 = ctot[0] + ctot[1], n23 = ctot[1] + ctot[2];
    LAPACK_dlacpy("A", &n23, &k, Q.at(ctot[0] + 1, 1), &Q.ld, s, &n23);
    const int64_t iq2 = static_cast<int64_t>(n1) * n12;  // 0-based Q2(IQ2)
    if (n23 != 0) {
        product_in_column_blocks(gemm, n2, k, n23, q2 + iq2, n2, s, n23, Q.at(n1 + 1, 1), Q.ld);
    } else {
        LAPACK_dlaset("A", &n2, &k, &kZero, &kZero, Q.at(n1 + 1, 1), &Q.ld);
    }
    LAPACK_dlacpy("A", &n12, &k, Q.a, &Q.ld, s, &n12);
    if (n12 != 0) {
        product_in_column_blocks(gemm, n1, k, n12, q2, n1, s, n12, Q.a, Q.ld);
    } else {
        LAPACK_dlaset("A", &n1, &k, &kZero, &kZero, Q.a, &Q.ld);
    }
    return 0;
}

/// LAPACK dlaed1: merges the eigensystems of the leading cutpnt×cutpnt and the trailing block
/// of the n×n tridiagonal (cut by the rank-one modification rho) into one. work: 4n + n²;
/// iwork: 4n. Returns a non-zero info on failure.
Int merge(Gemm& gemm, Int n, double* d, Fortran Q, Int* indxq, double* rho, Int cutpnt, double* work, Int* iwork) {
    double* z = work;
    double* dlamda = work + n;
    double* w = work + 2 * static_cast<int64_t>(n);
    double* q2 = work + 3 * static_cast<int64_t>(n);
    Int* indx = iwork;
    Int* indxc = iwork + n;
    Int* coltyp = iwork + 2 * static_cast<int64_t>(n);
    Int* indxp = iwork + 3 * static_cast<int64_t>(n);
    // z: the last row of Q1 and the first row of Q2.
    for (Int j = 1; j <= cutpnt; ++j) z[j - 1] = Q(cutpnt, j);
    for (Int j = cutpnt + 1; j <= n; ++j) z[j - 1] = Q(cutpnt + 1, j);
    Int k = 0, info = 0;
    dlaed2_(&k, &n, &cutpnt, d, Q.a, &Q.ld, indxq, rho, z, dlamda, w, q2, indx, indxc, indxp, coltyp, &info);
    if (info != 0) return info;
    poll();
    if (k == 0) {
        for (Int i = 0; i < n; ++i) indxq[i] = i + 1;
        return 0;
    }
    const int64_t is = static_cast<int64_t>(coltyp[0] + coltyp[1]) * cutpnt +
                       static_cast<int64_t>(coltyp[1] + coltyp[2]) * (n - cutpnt);  // 0-based, from q2
    info = secular(gemm, k, n, cutpnt, d, Q, *rho, dlamda, q2, indxc, coltyp, w, q2 + is);
    if (info != 0) return info;
    const Int n1 = k, n2 = n - k, forward = 1, backward = -1;
    dlamrg_(&n1, &n2, d, &forward, &backward, indxq);
    return 0;
}

/// LAPACK dlaed0 with icompq = 2: the eigenvalues (to d) and eigenvectors (to the n×n block
/// Q, which holds the identity) of the unreduced n×n tridiagonal (d, e), by divide and
/// conquer. work: 4n + n² + 1; iwork: 5n + 3. Returns dlaed0's info.
Int divide_and_conquer(Gemm& gemm, Int n, double* d, double* e, Fortran Q, double* work, Int* iwork) {
    const Int smlsiz = ilaenv(9, "DLAED0", " ", 0, 0, 0, 0);
    auto iw = [&](Int i) -> Int& { return iwork[i - 1]; };  // IWORK(I)
    // The sizes of the subproblems, halved until at most smlsiz, then their end positions.
    iw(1) = n;
    Int subpbs = 1;
    while (iw(subpbs) > smlsiz) {
        for (Int j = subpbs; j >= 1; --j) {
            iw(2 * j) = (iw(j) + 1) / 2;
            iw(2 * j - 1) = iw(j) / 2;
        }
        subpbs *= 2;
    }
    for (Int j = 2; j <= subpbs; ++j) iw(j) += iw(j - 1);
    // The rank-one cuts.
    for (Int i = 1; i <= subpbs - 1; ++i) {
        const Int submat = iw(i) + 1, smm1 = submat - 1;
        d[smm1 - 1] = d[smm1 - 1] - std::abs(e[smm1 - 1]);
        d[submat - 1] = d[submat - 1] - std::abs(e[smm1 - 1]);
    }
    const Int indxq = 4 * n + 3;
    Int submat = 1, matsiz = 0;
    auto failed = [&] { return submat * (n + 1) + submat + matsiz - 1; };
    // The subproblems at the bottom of the tree, by QR.
    for (Int i = 0; i <= subpbs - 1; ++i) {
        submat = i == 0 ? 1 : iw(i) + 1;
        matsiz = i == 0 ? iw(1) : iw(i + 1) - iw(i);
        Int info = 0;
        LAPACK_dsteqr("I", &matsiz, &d[submat - 1], &e[submat - 1], Q.at(submat, submat), &Q.ld, work, &info);
        if (info != 0) return failed();
        Int k = 1;
        for (Int j = submat; j <= iw(i + 1); ++j) iw(indxq + j) = k++;
        poll();
    }
    // Merge neighbours, level by level.
    while (subpbs > 1) {
        for (Int i = 0; i <= subpbs - 2; i += 2) {
            Int msd2 = 0;
            if (i == 0) {
                submat = 1;
                matsiz = iw(2);
                msd2 = iw(1);
            } else {
                submat = iw(i) + 1;
                matsiz = iw(i + 2) - iw(i);
                msd2 = matsiz / 2;
            }
            const Fortran block{Q.at(submat, submat), Q.ld};
            if (merge(gemm, matsiz, &d[submat - 1], block, &iw(indxq + submat), &e[submat + msd2 - 2], msd2, work,
                      &iw(subpbs + 1)) != 0) {
                return failed();
            }
            iw(i / 2 + 1) = iw(i + 2);
            poll();
        }
        subpbs /= 2;
    }
    // Re-merge the values and vectors deflated at the final merge.
    for (Int i = 1; i <= n; ++i) {
        const Int j = iw(indxq + i);
        work[i - 1] = d[j - 1];
        std::copy(Q.at(1, j), Q.at(1, j) + n, work + static_cast<int64_t>(n) * i);
    }
    std::copy(work, work + n, d);
    LAPACK_dlacpy("A", &n, &n, work + n, &n, Q.a, &Q.ld);
    return 0;
}

/// LAPACK dstedc with compz 'I': the eigenvalues (ascending, to d) and eigenvectors (to Z)
/// of the symmetric tridiagonal (d, e). work: 1 + 4n + n²; iwork: 3 + 5n. Returns dstedc's
/// info.
Int tridiagonal_eigen(Gemm& gemm, Int n, double* d, double* e, Fortran Z, double* work, Int* iwork) {
    Int info = 0;
    const Int smlsiz = ilaenv(9, "DSTEDC", " ", 0, 0, 0, 0);
    if (n <= smlsiz) {
        LAPACK_dsteqr("I", &n, d, e, Z.a, &Z.ld, work, &info);
        return info;
    }
    // Z = I (LAPACK's dlaset, by blocks of columns: the first touch of n² doubles).
    for (Int j = 1; j <= n; ++j) {
        std::fill(Z.at(1, j), Z.at(1, j) + n, 0.0);
        Z(j, j) = 1.0;
        if (j % 256 == 0) poll();
    }
    double orgnrm = LAPACK_dlanst("M", &n, d, e);
    if (orgnrm == 0) return 0;
    const double eps = LAPACK_dlamch("Epsilon");
    // The unreduced blocks between negligible off-diagonal values, each solved on its own.
    for (Int start = 1; start <= n;) {
        Int finish = start;
        while (finish < n) {
            const double tiny = eps * std::sqrt(std::abs(d[finish - 1])) * std::sqrt(std::abs(d[finish]));
            if (!(std::abs(e[finish - 1]) > tiny)) break;
            ++finish;
        }
        const Int m = finish - start + 1;
        if (m == 1) {
            start = finish + 1;
            continue;
        }
        if (m > smlsiz) {
            const Int m1 = m - 1, zero = 0;
            orgnrm = LAPACK_dlanst("M", &m, &d[start - 1], &e[start - 1]);
            LAPACK_dlascl("G", &zero, &zero, &orgnrm, &kPlus, &m, &kOne, &d[start - 1], &m, &info);
            LAPACK_dlascl("G", &zero, &zero, &orgnrm, &kPlus, &m1, &kOne, &e[start - 1], &m1, &info);
            info = divide_and_conquer(gemm, m, &d[start - 1], &e[start - 1], Fortran{Z.at(start, start), Z.ld}, work,
                                      iwork);
            if (info != 0) return (info / (m + 1) + start - 1) * (n + 1) + info % (m + 1) + start - 1;
            LAPACK_dlascl("G", &zero, &zero, &kPlus, &orgnrm, &m, &kOne, &d[start - 1], &m, &info);
        } else {
            LAPACK_dsteqr("I", &m, &d[start - 1], &e[start - 1], Z.at(start, start), &Z.ld, work, &info);
            if (info != 0) return start * (n + 1) + finish;
        }
        start = finish + 1;
        poll();
    }
    // Selection sort, the fewest swaps of eigenvectors.
    for (Int ii = 2; ii <= n; ++ii) {
        const Int i = ii - 1;
        Int k = i;
        double p = d[i - 1];
        for (Int j = ii; j <= n; ++j) {
            if (d[j - 1] < p) {
                k = j;
                p = d[j - 1];
            }
        }
        if (k != i) {
            d[k - 1] = d[i - 1];
            d[i - 1] = p;
            std::swap_ranges(Z.at(1, i), Z.at(1, i) + n, Z.at(1, k));
        }
    }
    return 0;
}

// ---------------------------------------------------------------- back-transformation

/// LAPACK dlarfb('L', 'N', 'B', 'C'): C (m×n) = H C with H = I − V T Vᵀ, V (m×k) the
/// reflectors stored backward by columns (its last k rows V2 unit upper triangular), T (k×k)
/// lower triangular; W (n×k) the workspace. Its two large products through `gemm`, its
/// triangular ones through the BLAS (k = 64 columns at most: a few percent of the work).
/// (LAPACK's own also skips trailing zero rows of V and columns of C, which changes no value.)
void apply_block_reflector(Gemm& gemm, Int m, Int n, Int k, Fortran V, const double* T, Int ldt, Fortran C, Fortran W) {
    if (m <= 0 || n <= 0) return;
    const Int rest = m - k;  // the rows of C1 and V1
    const Fortran V2{V.at(rest + 1, 1), V.ld};
    for (Int j = 1; j <= k; ++j) {  // W = C2ᵀ
        for (Int i = 1; i <= n; ++i) W(i, j) = C(rest + j, i);
    }
    dtrmm_("R", "U", "N", "U", &n, &k, &kPlus, V2.a, &V2.ld, W.a, &W.ld, 1, 1, 1, 1);                     // W = W V2
    if (rest > 0) gemm(true, false, n, k, rest, kPlus, C.a, C.ld, V.a, V.ld, kPlus, W.a, W.ld);           // + C1ᵀ V1
    dtrmm_("R", "L", "T", "N", &n, &k, &kPlus, T, &ldt, W.a, &W.ld, 1, 1, 1, 1);                          // W = W Tᵀ
    if (rest > 0) gemm(false, true, rest, n, k, kMinus, V.a, V.ld, W.a, W.ld, kPlus, C.a, C.ld);  // C1 −= V1 Wᵀ
    dtrmm_("R", "U", "T", "U", &n, &k, &kPlus, V2.a, &V2.ld, W.a, &W.ld, 1, 1, 1, 1);            // W = W V2ᵀ
    for (Int j = 1; j <= k; ++j) {                                                               // C2 −= Wᵀ
        for (Int i = 1; i <= n; ++i) C(rest + j, i) -= W(i, j);
    }
}

/// LAPACK dormtr('L', 'U', 'N'): C (n×n) = Q C, with Q = H(n−1) ⋯ H(1) from tridiagonalize
/// (reflectors in A, tau), through dormql's blocked loop, a poll after each block of
/// reflectors. work: lwork doubles (dsyevd gives it 1 + 4n + n²).
void back_transform(Gemm& gemm, Int n, Fortran A, const double* tau, Fortran C, double* work, Int lwork) {
    // dormql(side 'L', trans 'N', m = n − 1, n, k = n − 1, A(1, 2)) on the first n − 1 rows of C.
    const Int m = n - 1, k = n - 1, nw = std::max<Int>(1, n), ldt = 65;
    Int info = 0;
    const Int nb = std::min<Int>(64, ilaenv(1, "DORMQL", "LN", m, n, k, -1));
    // Below, dormql's blocking depends on the workspace and on LAPACK's version (LAPACK 3.11
    // asks for nw·nb + 65·64, later ones nw·nb + 65·nb): LAPACK does it in one call.
    if (nb < 2 || nb >= k || lwork < nw * nb + ldt * 64) {
        LAPACK_dormtr("L", "U", "N", &n, &n, A.a, &A.ld, tau, C.a, &C.ld, work, &lwork, &info);
        return;
    }
    const Fortran V{A.at(1, 2), A.ld};
    double* T = work + static_cast<int64_t>(nw) * nb;
    for (Int i = 1; i <= k; i += nb) {
        const Int ib = std::min(nb, k - i + 1), rows = i + ib - 1;  // nq − k + i + ib − 1 with nq = m = k
        LAPACK_dlarft("B", "C", &rows, &ib, V.at(1, i), &V.ld, &tau[i - 1], T, &ldt);
        if (gemm.blas()) {
            LAPACK_dlarfb("L", "N", "B", "C", &rows, &n, &ib, V.at(1, i), &V.ld, T, &ldt, C.a, &C.ld, work, &nw);
        } else {
            apply_block_reflector(gemm, rows, n, ib, Fortran{V.at(1, i), V.ld}, T, ldt, C, Fortran{work, nw});
        }
        poll();
    }
}

void check_finite(int64_t n, const double* A) {
    // Kernel values beyond float32 (a polynomial kernel with a huge gamma or degree) arrive
    // here as Inf/NaN, on which LAPACK fails: say what is wrong instead of reporting a bug.
    for (int64_t i = 0; i < n * n; ++i) {
        if (!std::isfinite(A[i])) {
            invalid_data("the " + std::to_string(n) + "x" + std::to_string(n) +
                         " matrix to eigen-decompose holds a non-finite value (" + message_number(A[i]) +
                         "): kernel values overflow float32; reduce gamma, degree or the scale of X");
        }
    }
}

[[noreturn]] void failed(int64_t n, Int info) {
    fail(KKM_ERR_INTERNAL, "eigen-decomposition (LAPACK dsyevd, then dsteqr) of a " + std::to_string(n) + "x" +
                               std::to_string(n) + " matrix failed, info=" + std::to_string(info));
}

/// LAPACK works in column-major order. The upper triangle of the row-major matrix is
/// mirrored into the lower one, so that read column-major with uplo 'U' it is the matrix
/// LAPACKE's row-major call would pass (the same bits out), without its two n×n
/// transpositions and copies; the eigenvectors come back as the columns of the column-major
/// result, that is the rows of A. In tiles (a strided pass over 4000² values took 0.1 s),
/// with a poll after each row of them.
void mirror_upper(int64_t n, double* A) {
    constexpr int64_t kTile = 64;
    for (int64_t i0 = 0; i0 < n; i0 += kTile) {
        const int64_t i1 = std::min(n, i0 + kTile);
        for (int64_t j0 = i0; j0 < n; j0 += kTile) {
            const int64_t j1 = std::min(n, j0 + kTile);
            for (int64_t i = i0; i < i1; ++i) {
                for (int64_t j = std::max(j0, i + 1); j < j1; ++j) A[j * n + i] = A[i * n + j];
            }
        }
        poll();
    }
}

/// dsyevd's workspace for an n×n matrix: doubles and ints.
int64_t work_doubles(int64_t n) {
    return 1 + 6 * n + 2 * n * n;
}
int64_t work_ints(int64_t n) {
    return 3 + 5 * n;
}

/// dsyevd's steps on the mirrored, column-major matrix A (its result to A and w, as the one
/// call's), with cancellation polls between them; dsteqr where dstedc does not converge.
/// Returns 0, or the info of the step that failed.
Int dsyevd_steps(int64_t n, double* A, double* w, Products* products) {
    Gemm gemm(products);
    // dsyevd's workspace and its layout: e, tau, then the n×n eigenvectors Z of the
    // tridiagonal (dsytrd's panel workspace before them), then dstedc's and dormtr's.
    const auto N = static_cast<Int>(n);
    const int64_t nn = n * n;
    // Every piece writes what it reads; a ZeroedArray costs no memset (256 MB at n = 4000 took
    // 0.15 s to zero) and starts on a huge page (16 MB at n = 1000 took 45 ms to fault in 4 KiB
    // pages in a KVM guest).
    ZeroedArray<double> work(static_cast<size_t>(work_doubles(n)));
    const auto iwork = std::make_unique_for_overwrite<Int[]>(static_cast<size_t>(work_ints(n)));
    double* e = work.data();
    double* tau = e + n;
    double* Z = tau + n;
    double* work2 = Z + nn;
    const auto lwork2 = static_cast<Int>(1 + 4 * n + nn);
    const Fortran a{A, N};
    // Scale to the safe range, as dsyevd does (never for kernel matrices: finite float32
    // values are far inside it).
    const double safmin = LAPACK_dlamch("Safe minimum"), eps = LAPACK_dlamch("Precision");
    const double smlnum = safmin / eps, bignum = 1.0 / smlnum;
    const double rmin = std::sqrt(smlnum), rmax = std::sqrt(bignum);
    const double anrm = LAPACK_dlansy("M", "U", &N, A, &N, work.data());
    double sigma = 1.0;
    bool scaled = false;
    if (anrm > 0 && anrm < rmin) {
        scaled = true;
        sigma = rmin / anrm;
    } else if (anrm > rmax) {
        scaled = true;
        sigma = rmax / anrm;
    }
    Int info = 0;
    if (scaled) {
        const Int zero = 0;
        LAPACK_dlascl("U", &zero, &zero, &kPlus, &sigma, &N, &N, A, &N, &info);
    }
    tridiagonalize(gemm, N, a, w, e, tau, Z);
    poll();
    const std::vector<double> diagonal(w, w + n), off(e, e + n);  // for dsteqr, should dstedc fail
    info = tridiagonal_eigen(gemm, N, w, e, Fortran{Z, N}, work2, iwork.get());
    if (info > 0) {
        // dsyev's eigen step on the same tridiagonal (the reduction and the back-transformation
        // are dsyevd's): the implicit QL/QR iteration, eigenvectors of T into Z.
        std::copy(diagonal.begin(), diagonal.end(), w);
        std::copy(off.begin(), off.end(), e);
        info = LAPACKE_dsteqr_work(LAPACK_COL_MAJOR, 'I', N, w, e, Z, N, work2);
    }
    if (info != 0) return info;
    back_transform(gemm, N, a, tau, Fortran{Z, N}, work2, lwork2);
    LAPACK_dlacpy("A", &N, &N, Z, &N, A, &N);
    if (scaled) {
        const double inverse = 1.0 / sigma;
        dscal_(&N, &inverse, w, &kOne);
    }
    return 0;
}

}  // namespace

void dsyevd_rows_one_call(int64_t n, double* A, double* w) {
    check_finite(n, A);
    mirror_upper(n, A);
    one_blas_thread_in_forked_child();
    const auto order = static_cast<Int>(n);
    double work_size = 0;
    Int iwork_size = 0;
    const std::vector<double> input(A, A + n * n);  // for the steps, should dsyevd fail
    Int info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', order, A, order, w, &work_size, -1, &iwork_size, -1);
    if (info == 0) {
        std::vector<double> work(static_cast<size_t>(work_size));
        std::vector<Int> iwork(static_cast<size_t>(iwork_size));
        info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', order, A, order, w, work.data(),
                                   static_cast<Int>(work.size()), iwork.data(), static_cast<Int>(iwork.size()));
    }
    // dstedc did not converge: dsyevd's steps again from the input (their dstedc fails the
    // same way, then dsteqr takes its place on the same tridiagonal).
    if (info > 0) {
        std::copy(input.begin(), input.end(), A);
        info = dsyevd_steps(n, A, w, nullptr);
    }
    if (info != 0) failed(n, info);
}

double dsyevd_footprint(double s) {
    const auto n = static_cast<int64_t>(s);
    // The copy kept for the fallback: the matrix below kPiecewiseFrom, else the tridiagonal.
    const double fallback = s < static_cast<double>(kPiecewiseFrom) ? 8 * s * s : 16 * s;
    return fallback + 8 * s * s + 8 * static_cast<double>(work_doubles(n)) +
           static_cast<double>(sizeof(Int)) * static_cast<double>(work_ints(n)) + 8 * s + 2 * sgemm_footprint(s, s, s);
}

void dsyevd_rows(int64_t n, double* A, double* w, Products* products) {
    if (n < kPiecewiseFrom) {
        dsyevd_rows_one_call(n, A, w);
        return;
    }
    check_finite(n, A);
    poll();
    mirror_upper(n, A);
    one_blas_thread_in_forked_child();
    const Int info = dsyevd_steps(n, A, w, products);
    if (info != 0) failed(n, info);
}

}  // namespace kkm::linalg
