// The engine's inner layer, one implementation per instruction-set path (tiles_avx512.cpp,
// tiles_avx2.cpp, tiles_portable.cpp): an MR×NR tile of kernel values held in registers
// while the whole dot product (or L1 distance) over d accumulates, then the kernel function
// applied to the tile in registers before its one store. Private to src/engine.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/isa.h"

namespace kkm::engine {

/// The function a tile's accumulators go through before the store.
enum class TileFn {
    dot,         ///< x·y (linear kernel)
    rbf,         ///< exp(−gamma · max(‖x‖² + ‖y‖² − 2 x·y, 0)); aux = squared norms
    polynomial,  ///< (gamma · x·y + coef0)^degree
    cosine,      ///< x·y · (1/‖x‖) · (1/‖y‖); aux = inverse norms (0 for a zero row)
    laplacian,   ///< exp(−gamma · Σ_t |x_t − y_t|): an L1 tile, not a dot product
};

/// The float32 scalars of one kernel instance: what a tile function reads besides its rows
/// (and what the kernel's own hooks read, kernels/kernel_traits.h).
struct KernelScalars {
    float gamma = 0.0f;
    float coef0 = 0.0f;
    int64_t degree = 1;
};

/// A tile's kernel function and its scalars.
struct TileOp : KernelScalars {
    TileFn fn = TileFn::dot;
};

/// Register tile of a path: MR rows of X by NR rows of Y.
struct Geometry {
    int64_t mr;
    int64_t nr;
};

Geometry geometry(Isa isa);

/// Every tile of `rows` packed X rows against `cols` packed Y rows.
struct TileJob {
    const float* a = nullptr;  ///< X packed: ceil(rows/MR) panels, each d×MR (row t: MR values)
    int64_t rows = 0;
    const float* b = nullptr;  ///< Y packed: ceil(cols/NR) panels, each d×NR
    int64_t cols = 0;
    int64_t d = 0;
    const float* x_aux = nullptr;  ///< per X row (padded to whole panels), or NULL when unused
    const float* y_aux = nullptr;  ///< per Y row (padded to whole panels), or NULL when unused
    TileOp op;
    float* out = nullptr;  ///< rows × cols, row stride ldo
    int64_t ldo = 0;
    int64_t depth = 0;  ///< the reduction over d in blocks of this many (0 or ≥ d: whole)
};

/// Every tile of the exact 8-bit rbf blocks (q8.h): X and Y in groups of 4 values, one 32-bit
/// word per row and group, X as unsigned bytes q, Y as signed bytes q − 128.
struct Q8Job {
    const int32_t* a = nullptr;  ///< X: ceil(rows/MR) panels, each d4×MR words
    int64_t rows = 0;
    const int32_t* b = nullptr;  ///< Y: ceil(cols/NR) panels, each d4×NR words
    int64_t cols = 0;
    int64_t d4 = 0;                    ///< groups of 4 values per row (d rounded up, zero-padded)
    const int32_t* x_terms = nullptr;  ///< per X row (whole panels): Σq² − 256·Σq
    const int32_t* y_norms = nullptr;  ///< per Y row (whole panels): Σq²
    float scale = 0.0f;                ///< −gamma/c²: the tile returns exp(scale · ‖q_x − q_y‖²)
    float* out = nullptr;              ///< rows × cols, row stride ldo
    int64_t ldo = 0;
};

/// The tiles of a Q8Job in the path's MR×NR geometry: AVX-512 VNNI (avx512), AVX-VNNI (avx2).
void run_q8_tiles_avx512(const Q8Job& job);
void run_q8_tiles_avx2(const Q8Job& job);

/// Packs rows [0, rows) of X (row stride ld, d values, each q/c: q8_value) for a Q8Job:
/// panels of `width` rows, for each group of 4 values one word per row (bytes q, or q − 128
/// when `signed_bytes`), zero words past the last row and zero values past d; sq[i] = Σq²
/// and sum[i] = Σq (wrapped to 32 bits, as the tiles' lanes), 0 past the last row of the
/// last panel. False as soon as a value is not q/c (what was written is then undefined).
/// idx: NULL, or the rows to pack (row r is X's row idx[r]).
bool pack_q8_avx512(const float* X, int64_t rows, int64_t d, int64_t ld, float c, int64_t width, bool signed_bytes,
                    int32_t* dst, int32_t* sq, int32_t* sum, const int64_t* idx = nullptr);
bool pack_q8_avx2(const float* X, int64_t rows, int64_t d, int64_t ld, float c, int64_t width, bool signed_bytes,
                  int32_t* dst, int32_t* sq, int32_t* sum, const int64_t* idx = nullptr);

/// pack_panels (engine.h) by 8×8 register transposes of groups of up to 8 rows, for any
/// width: the same floats, 3-4 times as fast as the scalar copy for the right-hand panels
/// (width 16 or 32) and the left rows' (width 14 or 6). The AVX-512 path uses it too.
void pack_panels_avx2(const float* X, int64_t rows, int64_t d, int64_t ld, int64_t width, float* dst);

/// out[i·ldo + j] = X_i · Y_j for `rows` rows of X (stride ldx) and `cols` rows of Y (stride
/// ldy), d values each, read where they are: eight Y rows at a time by register transposes,
/// each sum one fused multiply-add per term in order from zero (engine.h, stream_dots).
void stream_dots_avx2(const float* X, int64_t rows, int64_t ldx, const float* Y, int64_t cols, int64_t ldy, int64_t d,
                      float* out, int64_t ldo);

void run_tiles_avx512(const TileJob& job);
void run_tiles_avx2(const TileJob& job);
void run_tiles_portable(const TileJob& job);

/// Vector exp of the engine, the same algorithm on every path (Cephes expf: x = n ln2 + r,
/// a degree-5 polynomial in r, scaled by 2^n); exp(x) is 0 below −87.33 (no subnormals).
/// Scalar form, used by the portable path and by tests as the reference of the vector ones.
float engine_exp(float x);

}  // namespace kkm::engine

namespace kkm::engine {

/// Which part of the reduction over d a tile call computes: `resume` — its accumulators
/// start from the sums already in its output (an earlier depth block), not from zero;
/// `partial` — more blocks follow, so the raw sums are stored, not the kernel function.
/// Storing and reloading a float32 sum is exact: a reduction in blocks has the whole one's bits.
struct TileSpan {
    bool resume = false;
    bool partial = false;
};

/// One MR×NR tile over `depth` values of its panels: a (depth×MR packed, row t: MR values),
/// b (depth×NR packed), the aux values of its rows and columns (or NULL), out with row stride ld.
using TileKernel = void (*)(const float* a, const float* b, int64_t depth, TileSpan span, const float* xaux,
                            const float* yaux, const TileOp& op, float* out, int64_t ld);

/// Runs `tile` over every MR×NR tile of the job. Whole reduction (job.depth 0 or ≥ d): Y
/// panels outer (one stays in L2 while the packed X panels pass under it). In depth blocks:
/// for each block, every whole tile adds that block to the sums it keeps in the output (the
/// block's slice of a Y panel stays in L1 while the X panels' slices pass under it); edge
/// tiles (fewer than MR rows or NR columns) run their whole reduction at once through a local
/// buffer.
template <int64_t MR, int64_t NR>
void for_each_tile(const TileJob& job, TileKernel tile) {
    const int64_t rp = (job.rows + MR - 1) / MR, cp = (job.cols + NR - 1) / NR, d = job.d;
    const bool blocked = job.depth > 0 && job.depth < d;
    alignas(64) float edge[MR * NR];
    const auto whole_reduction = [&](int64_t ip, int64_t jp) {
        const int64_t rows = std::min(MR, job.rows - ip * MR), cols = std::min(NR, job.cols - jp * NR);
        const bool whole = rows == MR && cols == NR;
        float* out = job.out + ip * MR * job.ldo + jp * NR;
        tile(job.a + ip * d * MR, job.b + jp * d * NR, d, TileSpan{},
             job.x_aux != nullptr ? job.x_aux + ip * MR : nullptr, job.y_aux != nullptr ? job.y_aux + jp * NR : nullptr,
             job.op, whole ? out : edge, whole ? job.ldo : NR);
        if (whole) return;
        for (int64_t i = 0; i < rows; ++i) std::copy(edge + i * NR, edge + i * NR + cols, out + i * job.ldo);
    };
    if (!blocked) {
        for (int64_t jp = 0; jp < cp; ++jp) {
            for (int64_t ip = 0; ip < rp; ++ip) whole_reduction(ip, jp);
        }
        return;
    }
    const int64_t whole_rp = job.rows / MR, whole_cp = job.cols / NR;
    for (int64_t k0 = 0; k0 < d; k0 += job.depth) {
        const int64_t kc = std::min(job.depth, d - k0);
        const TileSpan span{k0 > 0, k0 + kc < d};
        for (int64_t jp = 0; jp < whole_cp; ++jp) {
            const float* b = job.b + jp * d * NR + k0 * NR;
            const float* yaux = job.y_aux != nullptr ? job.y_aux + jp * NR : nullptr;
            for (int64_t ip = 0; ip < whole_rp; ++ip) {
                tile(job.a + ip * d * MR + k0 * MR, b, kc, span, job.x_aux != nullptr ? job.x_aux + ip * MR : nullptr,
                     yaux, job.op, job.out + ip * MR * job.ldo + jp * NR, job.ldo);
            }
        }
    }
    for (int64_t ip = 0; ip < rp; ++ip) {
        for (int64_t jp = ip < whole_rp ? whole_cp : 0; jp < cp; ++jp) whole_reduction(ip, jp);
    }
}

}  // namespace kkm::engine
