// The row blocks and the reduction chunks: fits, feature maps, samplers and both Lloyds stream
// their rows through blocks of these many rows, one block per task of a parallel loop, and sum
// over rows in these chunks. fit_memory.cpp charges the per-thread scratch of a fit in the same
// blocks and chunks, so the two must agree: this is the one place.
#pragma once

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

}  // namespace kkm
