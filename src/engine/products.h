// Float32 matrix products of the fits on the engine's tiles, in place of the BLAS's sgemm:
// the rank restriction's R = G P_ℓ and RᵀR, the Nyström features F = G P, dense projections
// (DenseProjection) and the ridge leverage scores' C M (random features pack W themselves,
// already row by row as the tiles take it). Debian's BLIS
// 0.9 has no sub-configuration for AMD Zen 5 and runs its generic kernels there (sgemm
// 60000×1000×784 on 2 threads: 31 GFLOP/s, against ~290 for the tiles; TOOLCHAIN.md): an
// MNIST8M-sized rank-restricted fit spent more than half of its time in them.
//
// Every value is one chain of fused multiply-adds over the inner dimension in order, from
// zero (the tiles' TileFn::dot), so it depends only on its row and column: not on the
// blocking, the thread count or the vector path (avx512 and avx2 give the same bits; the
// portable path rounds each product before its sum).
#pragma once

#include <cstdint>

#include "core/matrix.h"
#include "engine/engine.h"

namespace kkm::engine {

/// A k×n matrix B packed once (its columns as the tiles' right-hand rows) for the products
/// A·B of many row blocks A (rows × k). Read-only once made: any threads may apply it at once,
/// each with its own scratch.
class FixedRight {
public:
    FixedRight(Isa isa, ConstMatrix B);
    /// out (A.rows × cols(), row stride ldo) = A·B; A.cols must be B's row count.
    void apply(ConstMatrix A, float* out, int64_t ldo, BlockScratch* scratch = nullptr) const;
    int64_t cols() const { return packed_.rows(); }
    /// Bytes of the pack of a k×n matrix (and of its transpose while it is made).
    static double footprint(double k, double n);
    /// Bytes one thread's scratch holds for blocks of `rows` rows of depth k.
    static double block_footprint(double rows, double k);

private:
    PackedRows packed_;
};

/// One thread's storage for gram(), kept from one block to the next.
struct GramScratch {
    PackedRows packed;
    BlockScratch block;
    Matrix product;  ///< the last AᵀA
    /// Bytes it holds for blocks of `rows` rows of l columns.
    static double footprint(double rows, double l);
};

/// AᵀA (l×l) for a block A (rows × l) on path isa, in scratch.product: each value one fused
/// multiply-add chain over the rows in order, from zero.
ConstMatrix gram(Isa isa, ConstMatrix A, GramScratch& scratch);

}  // namespace kkm::engine
