// The row block: fits, feature maps, samplers and both Lloyds stream their rows through kernel
// blocks of this many rows, one block per task of a parallel loop. fit_memory.cpp charges the
// per-thread scratch of a fit in blocks of this size, so the two must agree: this is the one place.
#pragma once

#include <cstdint>

namespace kkm {

/// Rows per kernel block (and per parallel task) of the row-streaming passes: 252 is a whole
/// number of every engine path's register rows (14 on AVX-512, 6 on AVX2, 4 portable), so no
/// block ends in a part-empty tile.
inline constexpr int64_t kRowBlock = 252;

}  // namespace kkm
