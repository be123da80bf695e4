// scan_rows: finiteness and moments in one read of X, in fixed chunks of in-cache blocks.
#include "kernels/row_scan.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/parallel.h"
#include "core/row_stream.h"
#include "core/validate.h"

namespace kkm {
namespace {

constexpr int64_t kBlockRows = kScanBlockRows;  // 256 rows of 784 floats: 800 KB, read again from cache

/// One chunk's running state: its column sums (centring_shift's, then the weight) and the
/// squared deviations about its running mean (sums / weight), merged block by block.
struct Chunk {
    std::vector<double> sums;
    double m2 = 0;
};

double weight_of(const float* w, int64_t i) {
    return w == nullptr ? 1.0 : static_cast<double>(w[i]);
}

/// sums[t] += w_i x_i[t] for the rows of B in order, four rows per load and store of a sum
/// (the same additions in the same order as one row at a time: the same bits). Unweighted
/// rows skip the product by 1, which is exact.
void add_rows(ConstMatrix B, const float* w, double* sums) {
    const int64_t d = B.cols;
    int64_t i = 0;
    for (; i + 4 <= B.rows; i += 4) {
        const float *x0 = B.row(i), *x1 = B.row(i + 1), *x2 = B.row(i + 2), *x3 = B.row(i + 3);
        if (w == nullptr) {
#pragma omp simd
            for (int64_t t = 0; t < d; ++t) sums[t] = (((sums[t] + x0[t]) + x1[t]) + x2[t]) + x3[t];
        } else {
            const double w0 = w[i], w1 = w[i + 1], w2 = w[i + 2], w3 = w[i + 3];
#pragma omp simd
            for (int64_t t = 0; t < d; ++t) sums[t] = (((sums[t] + w0 * x0[t]) + w1 * x1[t]) + w2 * x2[t]) + w3 * x3[t];
        }
    }
    for (; i < B.rows; ++i) {
        const double wi = weight_of(w, i);
        const float* x = B.row(i);
#pragma omp simd
        for (int64_t t = 0; t < d; ++t) sums[t] += wi * x[t];
    }
    for (int64_t r = 0; r < B.rows; ++r) sums[d] += weight_of(w, r);
}

/// The block's weighted mean into `mean` (d values, then the block's weight), its weight
/// returned.
double block_mean(ConstMatrix B, const float* w, std::vector<double>& mean) {
    std::fill(mean.begin(), mean.end(), 0.0);
    add_rows(B, w, mean.data());
    const double bw = mean[static_cast<size_t>(B.cols)];
    if (bw > 0) {
        for (int64_t t = 0; t < B.cols; ++t) mean[static_cast<size_t>(t)] /= bw;
    }
    return bw;
}

/// Σ_t (x_t − m_t)² in an order fixed by d alone: kLanes running sums, lane j over the
/// columns t ≡ j (mod kLanes), added in lane order at the end. Not a simd reduction, whose
/// split can follow the row's alignment (a mapped file and a heap copy of it must give the
/// same bits), and not one running sum either, whose chain of dependent additions made this
/// the slowest loop of the pass (about 4 cycles per value).
double squared_deviation(const float* x, const double* m, int64_t d) {
    constexpr int64_t kLanes = 8;
    std::array<double, kLanes> lane{};
    int64_t t = 0;
    for (; t + kLanes <= d; t += kLanes) {
        for (int64_t j = 0; j < kLanes; ++j) {
            const double e = x[t + j] - m[t + j];
            lane[static_cast<size_t>(j)] += e * e;
        }
    }
    for (int64_t j = 0; t < d; ++t, ++j) {
        const double e = x[t] - m[t];
        lane[static_cast<size_t>(j)] += e * e;
    }
    double s = 0;
    for (const double v : lane) s += v;
    return s;
}

/// Merges the block B's squared deviations about its own mean (reads from cache) into the
/// chunk's with Chan, Golub & LeVeque's update against the chunk's running mean (sums / weight,
/// before the block is added).
void add_spread(ConstMatrix B, const float* w, Chunk& c, std::vector<double>& mean) {
    const int64_t d = B.cols;
    const double* sums = c.sums.data();
    const double bw = block_mean(B, w, mean);
    if (!(bw > 0)) return;
    double m2 = 0;
    for (int64_t i = 0; i < B.rows; ++i) m2 += weight_of(w, i) * squared_deviation(B.row(i), mean.data(), d);
    const double cw = sums[d];
    double between = 0;
    for (int64_t t = 0; cw > 0 && t < d; ++t) {
        const double delta = mean[static_cast<size_t>(t)] - sums[t] / cw;
        between += delta * delta;
    }
    c.m2 += m2 + (cw > 0 ? between * cw * bw / (cw + bw) : 0.0);
}

/// Adds the block B (weights w, NULL: all 1) to the chunk: its spread when asked for, then the
/// rows to the chunk's sums one by one (centring_shift's order).
void add_block(ConstMatrix B, const float* w, Moments moments, Chunk& c, std::vector<double>& mean) {
    if (moments == Moments::spread) add_spread(B, w, c, mean);
    add_rows(B, w, c.sums.data());
}

/// Rows [begin, end) in blocks of kBlockRows from `begin` (every `every`-th block when
/// sampling), streamed (RowStream: read ahead, directly from the file where InputPages opened
/// it so).
void scan_chunk(ConstMatrix X, const std::vector<float>& w, Moments moments, int64_t begin, int64_t end, int64_t every,
                Chunk& c, FirstBadBlock& bad, const InputPages* pages) {
    std::vector<double> mean(moments == Moments::spread ? static_cast<size_t>(X.cols + 1) : 0);
    const bool sampled = every > 1;
    RowStream stream(pages, X, begin, end, sampled ? kBlockRows : RowStream::segment_rows(X.cols, kBlockRows),
                     sampled ? every * kBlockRows : 0);
    ConstMatrix rows;
    int64_t first = 0;
    while (stream.next(rows, first)) {
        for (int64_t b = 0; b < rows.rows; b += kBlockRows) {
            if (bad.before(first + b)) return;  // an earlier row is already bad
            const ConstMatrix block = rows.slice(b, std::min(kBlockRows, rows.rows - b));
            if (!rows_finite(block, 0, block.rows)) {
                bad.record(first + b);
                return;
            }
            if (moments != Moments::none)
                add_block(block, w.empty() ? nullptr : w.data() + first + b, moments, c, mean);
        }
    }
}

}  // namespace

RowMoments scan_rows(ConstMatrix X, const std::vector<float>& weights, Moments moments, int64_t row_offset, int threads,
                     const InputPages* pages, int64_t sample_every) {
    const int64_t d = X.cols, per_chunk = block_count(X.rows, kScanChunks);
    // Chunks past the last row (fewer rows than kScanChunks) hold nothing: no sums for them
    // (32 · (d + 1) doubles were 4.3 GB for one row of 2^24 floats; adding their zeros changed
    // no sum).
    const int64_t used = scan_chunks(X.rows);
    std::vector<Chunk> chunks(static_cast<size_t>(used));
    for (Chunk& c : chunks) c.sums.assign(moments != Moments::none ? static_cast<size_t>(d + 1) : 0, 0.0);
    FirstBadBlock bad;
    parallel_blocks(threads, used, [&](int64_t c) {
        scan_chunk(X, weights, moments, c * per_chunk, std::min(X.rows, (c + 1) * per_chunk), sample_every,
                   chunks[static_cast<size_t>(c)], bad, pages);
    });
    bad.raise(X, kBlockRows, row_offset);  // named exactly as require_finite names it for all of X
    RowMoments out;
    if (moments == Moments::none) return out;
    out.sums.assign(static_cast<size_t>(d + 1), 0.0);
    for (const Chunk& c : chunks) {
        for (int64_t t = 0; t <= d; ++t) out.sums[static_cast<size_t>(t)] += c.sums[static_cast<size_t>(t)];
    }
    out.weight = out.sums.back();
    out.sums.pop_back();
    if (!(out.weight > 0)) return out;
    out.mean.resize(static_cast<size_t>(d));
    for (int64_t t = 0; t < d; ++t) out.mean[static_cast<size_t>(t)] = out.sums[static_cast<size_t>(t)] / out.weight;
    if (moments != Moments::spread) return out;
    for (const Chunk& c : chunks) {
        const double cw = c.sums[static_cast<size_t>(d)];
        if (!(cw > 0)) continue;
        double between = 0;
        for (int64_t t = 0; t < d; ++t) {
            const double delta = c.sums[static_cast<size_t>(t)] / cw - out.mean[static_cast<size_t>(t)];
            between += delta * delta;
        }
        out.spread += c.m2 + cw * between;
    }
    return out;
}

int64_t moments_sample(int64_t rows, int64_t global) {
    if (global <= kSampledMomentsAbove || rows <= 0) return 0;
    const double blocks = std::ceil(static_cast<double>(block_count(rows, kScanChunks)) / kBlockRows);
    const double wanted = std::ceil(static_cast<double>(kMomentSampleRows) * static_cast<double>(rows) /
                                    static_cast<double>(global) / static_cast<double>(kScanChunks * kBlockRows));
    return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(blocks / std::max(wanted, 1.0))));
}

int64_t scan_chunks(int64_t rows) {
    return rows <= 0 ? 0 : block_count(rows, block_count(rows, kScanChunks));
}

double scan_footprint(int64_t rows, int64_t d, int threads) {
    const int64_t chunks = scan_chunks(rows);
    const double dd = static_cast<double>(d), running = static_cast<double>(std::min<int64_t>(threads, chunks));
    return 8.0 * static_cast<double>(chunks) * (dd + 1) + 8.0 * running * (dd + 1) + 16.0 * (dd + 1);
}

double pairwise_sq_distance(const RowMoments& local, const Comm& comm) {
    const size_t d = local.sums.size();
    std::vector<double> global(d + 1, 0.0);  // sums, then the weight
    std::copy(local.sums.begin(), local.sums.end(), global.begin());
    global[d] = local.weight;
    sum_over_ranks(comm, global.data(), global.size());
    const double total = global[d];
    double between = 0;
    for (size_t t = 0; t < d && local.weight > 0; ++t) {
        const double delta = local.mean[t] - global[t] / total;
        between += delta * delta;
    }
    return 2.0 * sum_over_ranks(comm, local.spread + local.weight * between) / total;
}

}  // namespace kkm
