// Passes over the rows of a fit (X in memory, a mapped file, or a file read directly): fixed
// chunks of whole row blocks, so that what a pass sums per chunk is the same for any thread
// count, streamed with read-ahead and drop-behind. Private to src/model.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/blocking.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/row_stream.h"
#include "core/validate.h"
#include "features/nystrom.h"
#include "model/fit_common.h"

namespace kkm {

/// Fixed chunks of whole kRowBlock blocks (kRankChunks of them, fewer for few rows): what a
/// reduction over the rows sums per chunk, in the same order for any thread count, and what
/// each thread streams in one go when X is read directly.
inline int64_t chunk_rows_of(int64_t n) {
    return std::max<int64_t>(1, block_count(block_count(n, kRankChunks), kRowBlock)) * kRowBlock;
}

/// Calls block(rows, first) for every block of kRowBlock rows of chunk q of X (chunk_rows_of
/// rows each), in row order, streamed (RowStream: read ahead, directly from the file where
/// InputPages opened it so); stops between segments once the fit is cancelled.
template <class Block>
void stream_chunk(const FitSession& c, int64_t q, Block&& block) {
    const int64_t n = c.X.rows, chunk = chunk_rows_of(n);
    const Progress* progress = Progress::current();
    RowStream stream(&c.pages, c.X, q * chunk, std::min(n, (q + 1) * chunk),
                     RowStream::segment_rows(c.X.cols, kRowBlock));
    ConstMatrix rows;
    int64_t first = 0;
    while (stream.next(rows, first) && !(progress != nullptr && progress->cancelled())) {
        for (int64_t b = 0; b < rows.rows; b += kRowBlock)
            block(rows.slice(b, std::min(kRowBlock, rows.rows - b)), first + b);
    }
}

/// Calls block(rows, first) for every block of kRowBlock rows of X on the threads beside
/// `side`: block by block from X, or, when X is a file opened for direct reads, chunk by chunk
/// (stream_chunk: the same blocks, so the same bits).
template <class Side, class Block>
void row_blocks_beside(const FitSession& c, Side&& side, Block&& block) {
    const int64_t n = c.X.rows;
    if (c.pages.direct() == nullptr) {
        const size_t row_bytes = static_cast<size_t>(c.X.cols) * sizeof(float);
        parallel_blocks_beside(c.threads, side, block_count(n, kRowBlock), [&](int64_t b) {
            const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
            block(c.X.slice(begin, count), begin);
            c.pages.passed(c.X.data, static_cast<size_t>(n) * row_bytes, static_cast<size_t>(begin) * row_bytes,
                           static_cast<size_t>(begin + count) * row_bytes);
        });
        return;
    }
    parallel_blocks_beside(c.threads, side, block_count(n, chunk_rows_of(n)),
                           [&](int64_t q) { stream_chunk(c, q, block); });
}

/// Whether a pass skips the block of `rows` starting at `begin`: it holds NaN or ±Inf (then
/// recorded in `bad`), or an earlier block does; only rows the fit has not checked yet
/// (FitSession::rows_checked()) are looked at.
inline bool skip_bad(const FitSession& c, FirstBadBlock& bad, ConstMatrix rows, int64_t begin) {
    if (c.rows_checked()) return false;
    if (bad.before(begin)) return true;
    if (rows_finite(rows, 0, rows.rows)) return false;
    bad.record(begin);
    return true;
}

}  // namespace kkm
