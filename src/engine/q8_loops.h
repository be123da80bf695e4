// The loops around the 8-bit tiles and their packing (q8.h), the same on every path that has
// them (q8_avx512.cpp, q8_avx2.cpp): each path gives its register tile and its row packer.
// Private to src/engine.
#pragma once

#include <algorithm>
#include <cstdint>

#include "engine/tiles.h"

namespace kkm::engine {

/// One MR×NR tile of a Q8Job: a (d4×MR words), b (d4×NR words), the terms of its rows and
/// columns, the exp scale, out with row stride ld.
using Q8Tile = void (*)(const int32_t* a, const int32_t* b, int64_t d4, const int32_t* xterm, const int32_t* ynorm,
                        float scale, float* dst, int64_t ld);

/// Runs `tile` over every MR×NR tile of the job, Y panels outer (one stays in L1/L2 while the
/// packed X panels pass under it); edge tiles go through a local buffer.
template <int64_t MR, int64_t NR>
void for_each_q8_tile(const Q8Job& job, Q8Tile tile) {
    const int64_t rp = (job.rows + MR - 1) / MR, cp = (job.cols + NR - 1) / NR;
    alignas(64) float edge[MR * NR];
    for (int64_t jp = 0; jp < cp; ++jp) {
        const int64_t cols = std::min(NR, job.cols - jp * NR);
        for (int64_t ip = 0; ip < rp; ++ip) {
            const int64_t rows = std::min(MR, job.rows - ip * MR);
            const bool whole = rows == MR && cols == NR;
            float* out = job.out + ip * MR * job.ldo + jp * NR;
            tile(job.a + ip * job.d4 * MR, job.b + jp * job.d4 * NR, job.d4, job.x_terms + ip * MR,
                 job.y_norms + jp * NR, job.scale, whole ? out : edge, whole ? job.ldo : NR);
            if (whole) continue;
            for (int64_t i = 0; i < rows; ++i) std::copy(edge + i * NR, edge + i * NR + cols, out + i * job.ldo);
        }
    }
}

/// Packs one row x (d values) into its panel column (words `stride` apart, d4 groups); false
/// at a value that is not q/c.
using Q8PackRow = bool (*)(const float* x, int64_t d, int64_t d4, float c, bool signed_bytes, int32_t* out,
                           int64_t stride, int32_t& sq, int32_t& sum);

/// pack_q8_avx512 / pack_q8_avx2 (tiles.h) with the path's row packer.
inline bool pack_q8_rows(Q8PackRow pack_row, const float* X, int64_t rows, int64_t d, int64_t ld, float c,
                         int64_t width, bool signed_bytes, int32_t* dst, int32_t* sq, int32_t* sum,
                         const int64_t* idx) {
    const int64_t d4 = (d + 3) / 4, padded = (rows + width - 1) / width * width;
    for (int64_t r = 0; r < padded; ++r) {
        int32_t* out = dst + (r / width) * d4 * width + r % width;
        if (r >= rows) {
            for (int64_t u = 0; u < d4; ++u) out[u * width] = 0;
            sq[r] = sum[r] = 0;
            continue;
        }
        const float* x = X + (idx != nullptr ? idx[r] : r) * ld;
        if (idx != nullptr && r + 1 < rows) {
            // Rows by index are scattered: the next one's lines are requested while this one
            // packs (the hardware prefetchers follow a row only once it is being read).
            const auto* next = reinterpret_cast<const char*>(X + idx[r + 1] * ld);
            for (int64_t b = 0; b < d * static_cast<int64_t>(sizeof(float)); b += 64) __builtin_prefetch(next + b);
        }
        if (!pack_row(x, d, d4, c, signed_bytes, out, width, sq[r], sum[r])) return false;
    }
    return true;
}

}  // namespace kkm::engine
