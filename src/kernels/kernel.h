// Kernel functions evaluated in blocks by the library's engine (src/engine): packed register
// tiles with the kernel function applied in registers before the store.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/comm.h"
#include "core/matrix.h"
#include "core/params.h"
#include "engine/engine.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"

namespace kkm {

/// A kernel function k(x, y) on R^d (not `precomputed`, which has no function). Computed in
/// float32: row_aux, block and diagonal throw INVALID_DATA for a row whose squared norm would
/// overflow the dot products (rbf, linear, polynomial, cosine; and for cosine a nonzero row
/// whose squared norm is subnormal), never returning Inf or NaN kernel values.
class Kernel {
public:
    /// Throws INVALID_ARGUMENT when gamma (rbf, laplacian, polynomial) is not a normal float32,
    /// or coef0 (polynomial) is beyond the float32 range.
    /// isa: the engine path every block of this kernel runs on (one this CPU supports).
    /// shift: empty, or d values subtracted from every row before the kernel sees it (the
    /// training mean, for the shift-invariant kernels: see centring_shift).
    Kernel(KernelType type, double gamma, int64_t degree, double coef0, engine::Isa isa = engine::best_isa(),
           std::vector<float> shift = {});

    KernelType type() const { return type_; }
    const std::vector<float>& shift() const { return shift_; }
    engine::Isa isa() const { return isa_; }

    /// Right-hand rows Y packed for block(), with the per-row quantity the kernel needs
    /// (squared norms for rbf, inverse norms for cosine). Pack once, evaluate many blocks.
    engine::PackedRows pack(ConstMatrix Y) const;
    /// As pack, into `out` and with `scratch` for the centred copy, both reused when large
    /// enough (for repeated packs of similar sizes).
    void pack_into(ConstMatrix Y, engine::PackedRows& out, Matrix& scratch) const;
    /// Only the exact 8-bit copy of the rows idx of X (engine::PackedRows::assign_q8_only,
    /// read where they are, in pieces by `run`), for blocks of 8-bit rows (block_q8): true
    /// when packed, which needs rbf, a path with the 8-bit tiles and every value of those rows
    /// 8-bit; else false, and `out` must be packed by pack_into.
    bool pack_q8_into(ConstMatrix X, const std::vector<int64_t>& idx, engine::PackedRows& out,
                      const engine::PackedRows::PieceRunner& run) const;

    /// out (X.rows × Y.rows(), row stride ldo) = k(X_i, Y_j). Single-threaded: callers
    /// parallelise over blocks of X. Any memory: no GEMM slack is needed.
    /// scratch: NULL, or storage the caller keeps between calls (one per thread).
    struct Scratch {
        Matrix centred;
        engine::BlockScratch engine;
    };
    void block(ConstMatrix X, const engine::PackedRows& Y, float* out, int64_t ldo, Scratch* scratch = nullptr) const;
    /// block() by the exact 8-bit tiles alone: false, with `out` partly written, when a value
    /// of X is not 8-bit at Y's scale or Y has no 8-bit copy (then block() against Y packed
    /// by pack_into gives the values). Against Y packed by pack_q8_into, only this one runs.
    /// idx: empty, or the rows of X to take, read where they are (not gathered first).
    bool block_q8(ConstMatrix X, const engine::PackedRows& Y, float* out, int64_t ldo, Scratch* scratch = nullptr,
                  std::span<const int64_t> idx = {}) const;
    /// block_q8 of left rows packed before (engine::Q8LeftRows, at Y's scale and path): the
    /// same values; false, with `out` untouched, otherwise.
    bool block_q8(const engine::Q8LeftRows& X, const engine::PackedRows& Y, float* out, int64_t ldo) const;
    /// The rows packed for the float32 tiles as block() packs them (centred, with their aux),
    /// to be kept for blocks against several Y in turn.
    void pack_left(ConstMatrix rows, engine::LeftRows& out, Scratch* scratch = nullptr) const;
    /// block() of rows packed by pack_left, against Y packed by pack_into: the same values as
    /// block() of the rows when they are not 8-bit at Y's scale.
    void block(const engine::LeftRows& X, const engine::PackedRows& Y, float* out, int64_t ldo) const;
    /// Bytes block() of `rows` rows of d values allocates besides its output: the centred
    /// copy, the rows' aux values, the engine's packed panel of X.
    static double block_footprint(double rows, double d);

    /// k(x, x) for every row of X.
    void diagonal(ConstMatrix X, float* out) const;

private:
    /// Squared norms (rbf), inverse norms (cosine) or nothing, after the overflow checks.
    std::vector<float> aux(ConstMatrix rows) const;
    KernelScalars scalars() const { return {gamma_, coef0_, degree_}; }
    /// X itself without a shift, else X − shift in buf.
    ConstMatrix centred(ConstMatrix X, Matrix& buf) const;

    KernelType type_;
    float gamma_;
    int64_t degree_;
    float coef0_;
    engine::Isa isa_;
    std::vector<float> shift_;
};

/// The shift a fit subtracts from every row: the (weighted) column means of X (float64, then
/// float32; weights empty or n values, so that weight 2 and a duplicated row agree)
/// for the kernels whose values depend only on x − y (rbf, laplacian) or whose k-means
/// distances do (linear), else empty. In float32, ‖x‖² + ‖y‖² − 2 x·y of rows far from the
/// origin cancels to noise (three blobs 3 apart at an offset of 1e5 clustered at random);
/// centred rows keep the digits that tell points apart.
/// (identical rows: empty).
/// moments: scan_rows' moments of X with the same weights (NULL: one pass here).
std::vector<float> centring_shift(KernelType type, ConstMatrix X, const std::vector<float>& weights, int threads,
                                  const Comm& comm = solo_comm(), const RowMoments* moments = nullptr);

/// The engine path an `isa` parameter names (automatic → the widest this CPU supports),
/// whether or not this CPU has it.
engine::Isa requested_isa(IsaChoice choice);

/// The engine path of an `isa` parameter: automatic → the widest this CPU supports; a forced
/// path this CPU lacks throws INVALID_ARGUMENT naming it and the best available.
engine::Isa resolve_isa(IsaChoice choice);

/// Resolves gamma=auto from the data (weights may be empty) with bandwidth scale β: rbf
/// 1/(2β²σ²) with σ² the (weighted) mean pairwise squared distance (Wang, Gittens & Mahoney
/// 2019, eq. 5), laplacian 1/(β · mean pairwise L1 distance), polynomial 1/d; other kernels
/// do not use gamma (returns 0). Throws INVALID_DATA when the data have zero spread.
/// moments: scan_rows' moments of X with the same weights (NULL: rbf makes one pass here).
double auto_gamma(KernelType type, ConstMatrix X, const std::vector<float>& weights, double beta, int threads,
                  const Comm& comm = solo_comm(), const RowMoments* moments = nullptr);

}  // namespace kkm
