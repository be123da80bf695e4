// Double-precision matrix products for the eigen-decompositions (core/linalg_lapack.cpp):
// C = alpha·op(A)·op(B) + beta·C in BLAS's column-major convention, so that LAPACK's loops
// written out there call it where they called dgemm_.
//
// Why ours: the BLAS the library links (Debian's BLIS 0.9) has no sub-configuration for AMD
// Zen 4 or Zen 5 and runs its generic kernels there: 17 GFLOP/s in dgemm on one Zen 5 core,
// where OpenBLAS makes 90. A Nyström fit's m×m eigen-decomposition spent two thirds of its
// time in those products (0.2 of 0.35 s at m = 1000 on one thread), beside kernel tiles that
// take 0.27 s on two threads (P1 on Zen 5).
//
// Every C(i, j) is one chain of fused multiply-adds over p = 0..k−1 in order, from zero, so
// the result does not depend on the path (avx512, avx2, portable), the blocking or the CPU:
// the bits of dgemm_reference everywhere. The path only decides the speed.
#pragma once

#include <cstdint>

#include "core/linalg.h"
#include "core/zeroed_buffer.h"
#include "engine/isa.h"

namespace kkm::engine {

/// A column-major operand as the BLAS takes it: op(X)(i, j) is X[i + j·ld], or X[j + i·ld]
/// when transposed.
struct DOperand {
    const double* x;
    int64_t ld;
    bool trans;
    double at(int64_t i, int64_t j) const { return trans ? x[j + i * ld] : x[i + j * ld]; }
};

/// C = alpha·op(A)·op(B) + beta·C with op(A) m×k, op(B) k×n and C(i, j) at C[i + j·ldc].
/// Each C(i, j): s = fma(op(A)(i, p), op(B)(p, j), s) for p = 0..k−1 from s = 0; then alpha·s
/// when beta = 0 (C is not read), else fma(alpha, s, beta·C(i, j)). This is the definition
/// the paths are tested against, one scalar loop.
void dgemm_reference(DOperand A, DOperand B, int64_t m, int64_t n, int64_t k, double alpha, double beta, double* C,
                     int64_t ldc);

/// The products of one eigen-decomposition on path `isa` (linalg::dsyevd_rows takes it): the
/// same bits as dgemm_reference, single-threaded. Keeps its packing buffer between calls:
/// (48 + 240)·k doubles for an inner dimension k, at least 2 MiB (2.3 MB at k = 1000, within
/// what linalg::dsyevd_footprint allows the BLAS's packing). Not thread-safe: one per thread.
class Dgemm final : public linalg::Products {
public:
    explicit Dgemm(Isa isa);
    void operator()(DOperand A, DOperand B, int64_t m, int64_t n, int64_t k, double alpha, double beta, double* C,
                    int64_t ldc);
    void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double* A, int64_t lda,
              const double* B, int64_t ldb, double beta, double* C, int64_t ldc) override {
        (*this)({A, lda, ta}, {B, ldb, tb}, m, n, k, alpha, beta, C, ldc);
    }

private:
    Isa isa_;
    ZeroedArray<double> packed_;  ///< A's panels, then B's
};

/// One register tile: the h×w top-left part (h ≤ MR, w ≤ NR) of S = Σ_p a[p·MR + i] ·
/// b[p·NR + j] over k packed steps, each S(i, j) an fma chain from zero, finished into
/// C(i, j) = C[i + j·ldc] as dgemm_reference finishes it.
using DgemmTile = void (*)(int64_t k, const double* a, const double* b, double alpha, double beta, double* C,
                           int64_t ldc, int64_t h, int64_t w);

/// C(i, j) from its chain s, as dgemm_reference finishes it (inline, so that each path's
/// file compiles it with its own fma instruction).
inline double dgemm_finish(double s, double alpha, double beta, const double& c) {
    return beta == 0 ? alpha * s : __builtin_fma(alpha, s, beta * c);
}

/// A path's register tile and its shape.
struct DgemmKernel {
    DgemmTile tile;
    int64_t mr, nr;
};

DgemmKernel dgemm_kernel_avx512();
DgemmKernel dgemm_kernel_avx2();

}  // namespace kkm::engine
