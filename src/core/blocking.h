// The row blocks and the reduction chunks: fits, feature maps, samplers and both Lloyds stream
// their rows through blocks of these many rows, one block per task of a parallel loop, and sum
// over rows in these chunks. The footprints charge the per-thread scratch of a fit in the same
// blocks and chunks (row_blocks), so the two must agree: this is the one place.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace kkm {

/// Rows per kernel block (and per parallel task) of the row-streaming passes: 252 is a whole
/// number of every engine path's register rows (14 on AVX-512, 6 on AVX2, 4 portable), so no
/// block ends in a part-empty tile.
inline constexpr int64_t kRowBlock = 252;

/// Rows per block of the light passes over stored rows (Lloyd on features, LandmarkLloyd's
/// decoded kernel rows, the candidates' distances): their dot products stay in L1 and the
/// rows in L2 for a second read.
inline constexpr int64_t kSmallRowBlock = 64;

/// Fixed chunks of rows that sums over rows are made in, then added in chunk order: the
/// rounding, so the result, is the same for any thread count (Lloyd's and LandmarkLloyd's
/// centre sums, the rank restriction's R'R, scan_rows' moments).
inline constexpr int64_t kReduceChunks = 32;

/// The blocks of a pass over n rows on `threads` threads, for the memory estimates: a block
/// holds at most n rows, and no more threads hold one at once than there are tasks. Per-thread
/// scratch is charged through this, not as threads full blocks: 2 rows of a million columns
/// hold 2 rows, whatever the thread count.
struct RowBlocks {
    double rows;           ///< rows of one block: min(n, kRowBlock)
    double workers;        ///< threads holding a block at once: min(threads, ⌈n / kRowBlock⌉)
    double small;          ///< rows of one small block: min(n, kSmallRowBlock)
    double small_workers;  ///< threads holding a small block: min(threads, ⌈n / kSmallRowBlock⌉)
};

inline RowBlocks row_blocks(double n, int threads) {
    const double rows = std::clamp(n, 1.0, static_cast<double>(kRowBlock));
    const double small = std::clamp(n, 1.0, static_cast<double>(kSmallRowBlock));
    const double t = std::max(1.0, static_cast<double>(threads));
    return {rows, std::min(t, std::ceil(std::max(n, 1.0) / rows)), small,
            std::min(t, std::ceil(std::max(n, 1.0) / small))};
}

/// A pass over `rows` rows in tasks balanced over the threads: beyond kRowBlock rows, tasks of
/// 84 (a whole number of every path's register rows) instead of kRowBlock, so that two
/// threads end within a small task of each other (1024 rows: 13 tasks of 84, not 5 of 252
/// split 3 to 2). The tasks depend on the rows alone, never on the thread count (with the
/// 8-bit tiles a value depends on whether its task's other rows are 8-bit); the team is
/// row_blocks' workers, min(threads, ⌈rows / kRowBlock⌉), so that no more threads hold a
/// task's scratch than the memory estimates charge.
struct BalancedBlocks {
    int64_t rows;  ///< rows per task
    int threads;   ///< the team
};

inline BalancedBlocks balanced_blocks(int64_t rows, int threads) {
    constexpr int64_t kBalancedRowBlock = 84;
    const auto team = static_cast<int>(row_blocks(static_cast<double>(rows), threads).workers);
    return {rows <= kRowBlock ? kRowBlock : kBalancedRowBlock, team};
}

}  // namespace kkm
