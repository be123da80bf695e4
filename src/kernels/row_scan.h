// The one pass over the training rows before the kernel stage: finiteness, and the moments
// gamma=auto and the centring shift are derived from.
#pragma once

#include <cstdint>
#include <vector>

#include "core/blocking.h"
#include "core/comm.h"
#include "core/input_pages.h"
#include "core/matrix.h"

namespace kkm {

/// The fixed chunks of rows scan_rows sums in (their order fixes the rounding for any thread
/// count).
inline constexpr int64_t kScanChunks = kReduceChunks;
/// Rows per block of scan_rows (its segments are whole blocks; a sample takes whole blocks).
inline constexpr int64_t kScanBlockRows = 256;

/// What scan_rows computes besides finiteness: nothing; the column sums and weight (the
/// centring shift's); or those and the spread too (gamma=auto's mean pairwise squared
/// distance), which costs two more in-cache reads of every block.
enum class Moments { none, sums, spread };

/// What one pass over a rank's rows gives (weights empty: all 1).
struct RowMoments {
    /// Σ w_i x_i per column, accumulated row by row in 32 fixed chunks of rows and summed in
    /// chunk order: the same sums, in the same order, as centring_shift's own pass.
    std::vector<double> sums;
    double weight = 0;  ///< Σ w_i
    /// Σ w_i ‖x_i − μ‖² about this rank's weighted mean μ, from in-cache blocks merged with
    /// Chan, Golub & LeVeque's pairwise update (no cancellation, one read of X); 0 unless
    /// Moments::spread was asked for.
    double spread = 0;
    std::vector<double> mean;  ///< μ = sums / weight; empty when weight is 0
};

/// One pass over X on `threads` threads: throws INVALID_DATA naming the first row and column
/// holding NaN or ±Inf (require_finite's message, rows numbered from row_offset), and returns
/// the moments asked for (Moments::none: an empty RowMoments). The sums are the same bits
/// whether or not the spread is asked for, and no result depends on the thread count.
/// pages: where X lives (NULL: the caller's memory): rows in a file mapping are read ahead of
/// each chunk and, for a file larger than the memory, dropped behind it or read directly
/// (InputPages, RowStream).
/// sample_every > 1 scans only every sample_every-th block of kScanBlockRows rows of each of
/// the kScanChunks chunks (moments_sample), whose finiteness alone is checked.
RowMoments scan_rows(ConstMatrix X, const std::vector<float>& weights, Moments moments, int64_t row_offset = 0,
                     int threads = 1, const InputPages* pages = nullptr, int64_t sample_every = 0);

/// Rows over all ranks above which gamma=auto and the centring shift take the moments of a
/// sample instead of every row: blocks of kScanBlockRows rows evenly spaced through X, about
/// kMomentSampleRows rows over all ranks (each rank in proportion to its rows). The full pass
/// would read a file larger than the memory once more before the kernel pass; 2048 blocks
/// follow the data's order closely enough that the mean pairwise squared distance is within
/// 1e-3 (relative) of every row's even on rows sorted by class.
inline constexpr int64_t kSampledMomentsAbove = int64_t{1} << 21;
inline constexpr int64_t kMomentSampleRows = int64_t{1} << 19;

/// The sample_every of scan_rows for this rank's `rows` of `global` rows: 0 (every block) up
/// to kSampledMomentsAbove rows, else the spacing in blocks that gives this rank's share.
int64_t moments_sample(int64_t rows, int64_t global);

/// The chunks of kScanChunks that hold some of `rows` rows (each holds ⌈rows / kScanChunks⌉):
/// kScanChunks from kScanChunks · (kScanChunks − 1) + 1 rows on, fewer below.
int64_t scan_chunks(int64_t rows);

/// Bytes scan_rows allocates with moments for `rows` rows of d columns on `threads` threads:
/// the sums of the chunks that hold rows, a block mean per running thread, the totals and the
/// mean.
double scan_footprint(int64_t rows, int64_t d, int threads);

/// The weighted mean pairwise squared distance over all ranks' rows, (1/W²) Σ_ij w_i w_j
/// ‖x_i − x_j‖² = 2 Σ_i w_i ‖x_i − μ‖² / W, from each rank's moments (one collective).
double pairwise_sq_distance(const RowMoments& local, const Comm& comm);

}  // namespace kkm
