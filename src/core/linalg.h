// The one wrapper around BLAS and LAPACK. Nobody else includes blis.h, cblas.h or lapacke.h.
// All matrices are row-major. The thread count is passed per call; global BLAS/OpenMP state
// is never changed, except in a forked child (one_blas_thread_in_forked_child).
#pragma once

#include <cstdint>

namespace kkm::linalg {

enum class Trans { no, yes };

/// C = alpha · op(A) · op(B) + beta · C, float32, row-major, with op(X) = X or Xᵀ.
/// op(A) is m×k, op(B) is k×n, C is m×n; lda/ldb/ldc are the row strides of the stored
/// matrices. Runs on `threads` threads (1 inside an outer parallel loop).
void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int threads);

/// The large matrix products of dsyevd_rows (those of dlaed3, dormtr's dlarfb and dsytrd's
/// rank-2k updates, about two thirds of its work): C = alpha·op(A)·op(B) + beta·C, float64,
/// column-major, with dgemm_'s arguments. engine::Dgemm is the library's (engine/dgemm.h).
class Products {
public:
    virtual ~Products() = default;
    virtual void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* A, int64_t lda,
                      const double* B, int64_t ldb, double beta, double* C, int64_t ldc) = 0;
};

/// Symmetric eigen-decomposition in float64 (LAPACK dsyevd): A (n×n, row-major, its upper
/// triangle read) is overwritten by the eigenvectors as rows, row e for eigenvalue w[e]; w
/// receives the eigenvalues in ascending order. Throws kkm::Error(KKM_ERR_INVALID_DATA) if A
/// holds a non-finite value, kkm::Error(KKM_ERR_INTERNAL) if LAPACK does not converge (where
/// dsyevd's divide and conquer does not, its steps run again with dsteqr's QL/QR iteration
/// in its place, in both functions alike; only that failing too is an error).
/// Cancellable: from n = 512 on, dsyevd's steps run one by one with a progress poll
/// (core/progress.h) between pieces of at most 0.04 s at n = 2000, so a fit's cancel
/// throws Error(KKM_ERR_CANCELLED) from here (A and w then hold nothing of use). The results
/// are those of dsyevd_rows_one_call below n = 512 (it makes them); from there on, with
/// `products` NULL (the BLAS's dgemm_ and LAPACK's dlarfb, as in the one call), bit for bit
/// where LAPACK's BLAS is the library's (see core/linalg_lapack.cpp), and else the same up to
/// the rounding of the products. Workspace: dsyevd's (1 + 6n + 2n² doubles, 3 + 5n ints)
/// and the products' own packing (dsyevd_footprint counts the BLAS's, the larger).
void dsyevd_rows(int64_t n, double* A, double* w, Products* products);

/// Bytes dsyevd_rows of an s×s matrix holds: the matrix, the divide-and-conquer workspace
/// (1 + 6s + 2s² doubles, 3 + 5s ints), the eigenvalues and the packing of its products (the
/// BLAS's; engine::Dgemm packs less).
double dsyevd_footprint(double s);

/// Bytes one thread's sgemm of an M×K by K×N product packs its operands into (at most the
/// BLAS's cache blocks: 256 rows of A, 512 of K, 4096 columns of B).
double sgemm_footprint(double M, double K, double N);

/// The same, in one LAPACKE dsyevd call that nothing interrupts: the reference of the unit
/// tests and benchmarks.
void dsyevd_rows_one_call(int64_t n, double* A, double* w);

/// In a forked child (core/parallel.h), sets the thread count of the BLAS that takes none per
/// call (the BLAS under LAPACK; cblas_sgemm of OpenBLAS) to 1, for good: more threads hang
/// there. Elsewhere it does nothing. dsyevd and OpenBLAS's sgemm call it; nothing else needs to.
void one_blas_thread_in_forked_child();

/// Name of the BLAS this build uses ("blis" or "openblas").
const char* blas_name();

}  // namespace kkm::linalg
