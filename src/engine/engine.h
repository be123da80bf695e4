// The library's kernel-block engine: K(X, Y) computed by its own packed, cache-blocked,
// register-blocked single-precision micro-kernels (AVX-512, AVX2+FMA, portable), with the
// kernel function applied to each register tile before it is stored. Every method's kernel
// rows go through it (Kernel::block); BLIS remains for LAPACK and for products that are not
// kernel blocks.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/matrix.h"
#include "engine/isa.h"
#include "engine/tiles.h"

namespace kkm::engine {

/// The widest register panel of any path: geometry(isa).nr ≤ this (unit_engine checks it).
/// The footprints pad packed rows to it, an upper bound for whichever path runs.
inline constexpr int64_t kWidestPanel = 32;

/// The widest left register panel of any path: geometry(isa).mr ≤ this (unit_engine checks it).
inline constexpr int64_t kWidestLeftPanel = 16;

/// Bytes a BlockScratch takes packing `rows` left rows of d values on any path: a pass holds
/// whole panels, no more than the rows need (at most rows + kWidestLeftPanel − 1 rows), of
/// floats with their aux, or of 8-bit words with their terms.
double left_pack_footprint(double rows, double d);

/// Right-hand rows Y (and a per-row auxiliary value: squared norm, inverse norm) packed once
/// into NR-wide panels of the chosen path, zero-padded, 64-byte aligned.
class PackedRows {
public:
    PackedRows() = default;
    /// Bytes packing `rows` rows of d values allocates on any path (the panels, padded to
    /// kWidestPanel rows and aligned, and the aux); the engine's BlockScratch packs X alike.
    static double footprint(double rows, double d);
    /// aux: one value per row of Y, or empty when the kernel needs none.
    PackedRows(Isa isa, ConstMatrix Y, const std::vector<float>& aux) { assign(isa, Y, aux); }
    /// Packs Y as the constructor does, into this object's storage when it is large enough:
    /// for callers that pack rows of similar sizes again and again (mini-batch iterations), so
    /// that tens of megabytes are not mapped and faulted in afresh every time.
    void assign(Isa isa, ConstMatrix Y, const std::vector<float>& aux);
    /// The columns of A packed as the rows (what assign(isa, Aᵀ, {}) packs, without forming Aᵀ:
    /// panel p holds, at depth t, A's row t from column p·NR on, a contiguous copy).
    void assign_columns(Isa isa, ConstMatrix A);
    /// After assign, for an rbf kernel: Y's rows as they were given (not centred: the 8-bit
    /// tiles need the values themselves, and ‖x − y‖² does not change with a shift) also packed
    /// for the exact 8-bit tiles (q8.h) when the CPU runs them on this path (q8_supported)
    /// and every value of Y is 8-bit (q8_scale); else nothing (q8_scale() 0). assign clears it.
    void assign_q8(ConstMatrix Y);
    /// How a pack's pieces run: run(pieces, piece) calls piece(p) once for every p in
    /// [0, pieces), in any order, on any threads (the engine starts none of its own).
    using PieceRunner = std::function<void(int64_t pieces, const std::function<void(int64_t)>& piece)>;
    /// Only the 8-bit copy (as assign_q8 packs it) of the rows idx of X, read where they are
    /// (not gathered first), packed in pieces by `run`; no float32 panels: for blocks whose
    /// left rows are 8-bit too (kernel_block_q8), where the float32 panels would go unused.
    /// False, with nothing packed (rows() 0), when assign_q8 would pack no copy.
    bool assign_q8_only(Isa isa, ConstMatrix X, const std::vector<int64_t>& idx, const PieceRunner& run);
    /// Whether the float32 panels were packed (assign, not assign_q8_only).
    bool has_floats() const { return has_floats_; }

    Isa isa() const { return isa_; }
    int64_t rows() const { return rows_; }
    int64_t dim() const { return d_; }
    const float* panels() const { return panels_.data() + offset_; }
    const float* aux() const { return has_aux_ ? aux_.data() : nullptr; }
    /// The scale of the 8-bit copy (q8.h), 0 without one.
    float q8_scale() const { return q8_scale_; }
    /// The 8-bit copy: NR-wide panels of groups of 4 values (q − 128 as signed bytes, one
    /// 32-bit word per row and group), and Σq² of every row (padded to whole panels).
    const int32_t* q8_panels() const { return q8_panels_.data(); }
    const int32_t* q8_norms() const { return q8_norms_.data(); }

private:
    /// The 8-bit copy of rows_ × d_ values, row r at X + (idx ? idx[r] : r)·ld, at the first
    /// of q8.h's scales that every value packs at (q8_scale_ 0 when none); pieces by *run
    /// (NULL: here, in order).
    void pack_q8_copy(const float* X, int64_t ld, const int64_t* idx, const PieceRunner* run);

    Isa isa_ = Isa::portable;
    int64_t rows_ = 0;
    int64_t d_ = 0;
    ZeroedBuffer panels_;
    size_t offset_ = 0;  // floats from panels_.data() to the first 64-byte boundary
    std::vector<float> aux_;
    bool has_aux_ = false;
    bool has_floats_ = false;
    float q8_scale_ = 0.0f;
    ZeroedArray<int32_t> q8_panels_;
    std::vector<int32_t> q8_norms_;
};

/// out (X.rows × Y.rows(), row stride ldo) = op(X_i, Y_j), on Y's path. x_aux: one value per
/// row of X when op needs it (as Y's aux), else NULL. Single-threaded: callers parallelise
/// over blocks of X; every value depends only on its two rows, so results never depend on
/// the blocking or the thread count.
/// scratch: NULL, or storage the caller keeps from one call to the next (one per thread), so
/// that repeated blocks do not allocate (and fault in) their packed rows every time.
/// depth: the reduction over d in blocks of this many values (the tiles keep their sums in
/// `out` between blocks), 0 for depth_block(d); any depth gives the same bits.
struct BlockScratch {
    ZeroedBuffer packed;
    std::vector<float> aux;
    ZeroedArray<int32_t> q8;        ///< X's rows for the 8-bit tiles
    std::vector<int32_t> q8_terms;  ///< and their Σq² − 256·Σq
};
void kernel_block(ConstMatrix X, const float* x_aux, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo,
                  BlockScratch* scratch = nullptr, int64_t depth = 0);

/// kernel_block by the exact 8-bit tiles (q8.h), X as given (not centred): true when it ran,
/// which needs op rbf, Y with an 8-bit copy (PackedRows::assign_q8) and every value of X
/// 8-bit at Y's scale; false (out untouched or partly written) otherwise, and the caller
/// takes kernel_block. Which of the two computes a row's values depends on the other rows
/// of its call only when some rows are 8-bit and others are not. idx: empty, or the rows of
/// X to take, read where they are (out has idx.size() rows): the values of those rows
/// gathered first.
bool kernel_block_q8(ConstMatrix X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo,
                     BlockScratch* scratch = nullptr, std::span<const int64_t> idx = {});

/// Left rows packed once for the float32 tiles (with their aux values), for blocks against
/// several right-hand packs in turn: the panels kernel_block packs pass by pass, every pass kept.
class LeftRows {
public:
    /// X (rows as the kernel takes them: centred where it centres) and its aux (one value per
    /// row, or NULL), packed for path isa.
    void pack(Isa isa, ConstMatrix X, const float* x_aux);
    /// Bytes pack() keeps for `rows` rows of d values (with a pass of slack).
    static double footprint(double rows, double d);
    Isa isa() const { return isa_; }
    int64_t rows() const { return rows_; }
    int64_t dim() const { return d_; }

private:
    friend void kernel_block(const LeftRows& X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo);
    const float* first() const;
    float* first();
    Isa isa_ = Isa::portable;
    int64_t rows_ = 0, d_ = 0, step_ = 1, stride_ = 0, depth_ = 1;
    ZeroedBuffer packed_;
    std::vector<float> aux_;
};

/// kernel_block of left rows packed before, against every row of Y (packed for X's path):
/// the same values, bit for bit, as kernel_block of the rows themselves.
void kernel_block(const LeftRows& X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo);

/// Left rows packed once for the exact 8-bit tiles, for blocks against several right-hand
/// packs in turn (the seeding's sample against each k-means++ step's candidates): the words
/// and terms kernel_block_q8 packs pass by pass, every pass kept.
class Q8LeftRows {
public:
    /// The rows idx of X at scale c on path isa: false (nothing kept, scale() 0) when the
    /// path has no 8-bit tiles or a value is not q/c.
    /// What it keeps stays within LeftRows::footprint (a word per 4 values and a term per row).
    bool pack(Isa isa, ConstMatrix X, std::span<const int64_t> idx, float c);
    Isa isa() const { return isa_; }
    float scale() const { return scale_; }
    int64_t rows() const { return rows_; }
    int64_t dim() const { return d_; }

private:
    friend bool kernel_block_q8(const Q8LeftRows& X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo);
    Isa isa_ = Isa::portable;
    float scale_ = 0.0f;
    int64_t rows_ = 0, d_ = 0, step_ = 1;
    ZeroedArray<int32_t> words_;
    std::vector<int32_t> terms_;
};

/// kernel_block_q8 of left rows packed before: the same values, bit for bit, as the rows
/// packed by the call. False (out untouched) when op is not rbf, or Y has no 8-bit copy at
/// X's scale on X's path.
bool kernel_block_q8(const Q8LeftRows& X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo);

/// As kernel_block against packed rows [col_begin, col_begin + cols) of Y only: out is
/// X.rows × cols. col_begin must be a multiple of the path's panel width (geometry(isa).nr),
/// so the columns start on a packed panel. The same values as the whole block's columns.
void kernel_block_cols(ConstMatrix X, const float* x_aux, const PackedRows& Y, int64_t col_begin, int64_t cols,
                       const TileOp& op, float* out, int64_t ldo, BlockScratch* scratch = nullptr, int64_t depth = 0);

/// out (A.cols × A.cols, row stride ldo) = AᵀA for a block A (rows × l), with Y = the columns
/// of A packed by PackedRows::assign_columns: the upper triangle by the tiles (TileFn::dot,
/// each value one fused multiply-add chain over the rows in order from zero, A's columns
/// packed as left rows without forming Aᵀ), the lower one mirrored from it, which is the same
/// bits (a product's two factors commute). Single-threaded.
void column_gram(ConstMatrix A, const PackedRows& Y, float* out, int64_t ldo, BlockScratch* scratch = nullptr);

/// Whether stream_dots runs on path isa: the vector paths, on a CPU with AVX2 (where
/// PackedRows::assign packs its panels by the same AVX2 transposes).
bool streams_dots(Isa isa);

/// out[i·ldo + j] = X_i · Y_j for every row of X and of Y (X.cols == Y.cols), both read where
/// they are: nothing is packed or allocated. For a few rows of X against many rows of Y,
/// where packing Y for kernel_block would cost more than the products. Each value is summed
/// as the tiles sum it (one fused multiply-add per term, in order, from zero), so it equals
/// kernel_block's with TileFn::dot on path isa bit for bit. Only where streams_dots(isa).
/// Single-threaded; every value depends only on its two rows.
void stream_dots(Isa isa, ConstMatrix X, ConstMatrix Y, float* out, int64_t ldo);

/// The depth blocks kernel_block runs rows of d values in: d itself (the whole reduction in
/// registers) up to 2048; beyond, equal blocks of at most 256, so that one block's slice of
/// a Y panel stays in L1 and of the packed X rows in L2 (on a 2-core Zen 3, d = 4096: about
/// twice the rate of the whole reduction, whose Y panels no longer fit the caches).
int64_t depth_block(int64_t d);

/// Copies rows [0, rows) of X (row stride ld, d columns) into panels of `width` rows: panel p
/// holds, for each t < d, the values X[p·width + i][t] for i < width (zero past the last row).
void pack_panels(const float* X, int64_t rows, int64_t d, int64_t ld, int64_t width, float* dst);

}  // namespace kkm::engine
