// A pass over a range of the caller's rows, in order, segment by segment. Rows in the
// caller's memory (or a mapping read through the page cache) are handed out in place; rows of
// a file that InputPages opened for direct reads are read ahead on a helper thread with
// O_DIRECT into a few aligned buffers, so that the disk streams while the pass computes and no
// page-cache management lands on the fit's threads. Either way the rows handed out are the
// same numbers at the same alignment modulo 4096 bytes, so the pass computes the same bits.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/input_pages.h"
#include "core/matrix.h"

namespace kkm {

class RowStream {
public:
    /// Rows [begin, end) of X in segments of `segment_rows` rows (the last may be shorter),
    /// one starting every `stride` rows (0: every segment_rows rows, the whole range; more:
    /// evenly spaced runs, a sample). pages: where X lives (NULL or no direct file: views of
    /// X, with InputPages' advice).
    RowStream(const InputPages* pages, ConstMatrix X, int64_t begin, int64_t end, int64_t segment_rows,
              int64_t stride = 0);
    RowStream(const RowStream&) = delete;
    RowStream& operator=(const RowStream&) = delete;
    /// Stops and joins the reader (a pass may end early: an error, a cancellation).
    ~RowStream();

    /// The next segment: rows [first, first + rows.rows) of X, valid until the next call.
    /// False after the last segment.
    bool next(ConstMatrix& rows, int64_t& first);

    /// Bytes of the read-ahead buffers one stream over rows of d columns holds when it reads
    /// directly (0 otherwise): what the fit charges per thread that streams.
    static double footprint(int64_t d, int64_t segment_rows);

    /// Rows per segment for rows of d columns: a multiple of `block_rows` near kSegmentBytes.
    static int64_t segment_rows(int64_t d, int64_t block_rows);

    static constexpr int kSlots = 3;                          ///< segments read ahead or in use
    static constexpr size_t kSegmentBytes = size_t{8} << 20;  ///< one read: 8 MiB
    static constexpr size_t kAlign = 4096;                    ///< O_DIRECT offsets, sizes, buffers

private:
    struct Slot;
    void read_ahead();
    bool read_segment(int64_t s, Slot& slot) const;
    int64_t segment_begin(int64_t s) const { return begin_ + s * stride_; }
    int64_t segment_count(int64_t s) const;

    const InputPages* pages_;
    const ConstMatrix X_;
    const int64_t begin_, end_, segment_rows_, stride_, segments_;
    int64_t next_ = 0;  ///< the segment next() hands out next
    std::vector<std::unique_ptr<Slot>> slots_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool stop_ = false;
    std::thread reader_;
};

}  // namespace kkm
