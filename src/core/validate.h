// Input checks shared by fit, assign and transform. Each throws kkm::Error with a message
// naming what is wrong (argument, row, column).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/matrix.h"

namespace kkm {

/// Throws INVALID_ARGUMENT unless ptr is non-NULL.
void require_pointer(const void* ptr, const char* name);

/// Throws INVALID_ARGUMENT unless n > 0, d > 0 and an n×d matrix of element_bytes-byte values
/// can be addressed (see require_product), before anything reads the caller's buffer.
void require_shape(int64_t n, int64_t d, size_t element_bytes = sizeof(float));

/// Throws INVALID_ARGUMENT naming both sizes unless a·b elements of element_bytes bytes each
/// fit in int64 and in size_t — as an element count and as a byte count — so that no index
/// or allocation size computed from them can wrap. a_name / b_name name the sizes ("n", "d"),
/// what says what the product is ("X", "the cluster sums"). a, b ≥ 0.
void require_product(int64_t a, const char* a_name, int64_t b, const char* b_name, size_t element_bytes,
                     const char* what);

/// No NaN or ±Inf in rows [begin, end) of X (integer tests of the exponent bits, which
/// vectorise where isfinite's branches do not).
bool rows_finite(ConstMatrix X, int64_t begin, int64_t end);

/// Throws INVALID_DATA naming the first row and column holding NaN or ±Inf. Rows are numbered
/// from row_offset (a distributed fit names the global row: this rank's offset + local row).
/// Row blocks are scanned on `threads` threads; the message is the same for any count.
void require_finite(ConstMatrix X, const char* name, int64_t row_offset = 0, int threads = 1);

/// The first block of rows found holding NaN or ±Inf by a pass whose blocks run on several
/// threads: blocks after it may be skipped, and raise() names its first bad value as
/// require_finite does, so the message is the same for any thread count.
class FirstBadBlock {
public:
    /// True when a block starting before `begin` is already known bad.
    bool before(int64_t begin) const { return first_.load(std::memory_order_relaxed) < begin; }
    /// Records the block starting at row `begin` as bad (the lowest recorded wins).
    void record(int64_t begin) {
        int64_t seen = first_.load();
        while (begin < seen && !first_.compare_exchange_weak(seen, begin)) {
        }
    }
    /// The lowest row recorded, or -1.
    int64_t first() const {
        const int64_t bad = first_.load();
        return bad == std::numeric_limits<int64_t>::max() ? -1 : bad;
    }
    /// Throws require_finite's message for the first bad block (`block_rows` rows of X from
    /// it, rows numbered from row_offset); nothing when no block was recorded.
    void raise(ConstMatrix X, int64_t block_rows, int64_t row_offset) const {
        const int64_t bad = first_.load();
        if (bad == std::numeric_limits<int64_t>::max()) return;
        require_finite(X.slice(bad, std::min(block_rows, X.rows - bad)), "X", row_offset + bad);
    }

private:
    std::atomic<int64_t> first_{std::numeric_limits<int64_t>::max()};
};

/// Checks weights (finite, ≥ 0, positive sum) and returns them as float (empty when NULL).
std::vector<float> checked_weights(const float* w, int64_t n);
std::vector<float> checked_weights(const double* w, int64_t n);

/// Checks each of n weights (finite, ≥ 0, within the float32 range; not their sum, which a
/// distributed fit checks over all ranks) and returns them as float. A bad weight is named by
/// its row, numbered from row_offset.
std::vector<float> weight_values(const float* w, int64_t n, int64_t row_offset = 0);

/// Converts float64 rows to float32, throwing INVALID_DATA on NaN/Inf or values beyond the
/// float32 range (naming row and column).
Matrix to_float32(const double* X, int64_t n, int64_t d, const char* name);

}  // namespace kkm
