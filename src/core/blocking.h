// The row block: fits, feature maps, samplers and both Lloyds stream their rows through kernel
// blocks of this many rows, one block per task of a parallel loop. fit_memory.cpp charges the
// per-thread scratch of a fit in blocks of this size, so the two must agree: this is the one place.
#pragma once

#include <cstdint>

namespace kkm {

/// Rows per kernel block (and per parallel task) of the row-streaming passes.
inline constexpr int64_t kRowBlock = 256;

}  // namespace kkm
