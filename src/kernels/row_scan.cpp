// scan_rows: finiteness and moments in one read of X, in fixed chunks of in-cache blocks.
#include "kernels/row_scan.h"

#include <algorithm>
#include <atomic>

#include "core/parallel.h"
#include "core/validate.h"

namespace kkm {
namespace {

constexpr int64_t kBlockRows = 256;  // 256 rows of 784 floats: 800 KB, read again from cache

/// One chunk's running state: its column sums (centring_shift's, then the weight) and the
/// squared deviations about its running mean (sums / weight), merged block by block.
struct Chunk {
    std::vector<double> sums;
    double m2 = 0;
    int64_t bad_block = -1;  ///< first row of the first block holding NaN or ±Inf
};

double weight_of(const std::vector<float>& w, int64_t i) {
    return w.empty() ? 1.0 : static_cast<double>(w[static_cast<size_t>(i)]);
}

/// The block's weighted mean into `mean` (d values), its weight returned.
double block_mean(ConstMatrix X, const std::vector<float>& w, int64_t begin, int64_t end, std::vector<double>& mean) {
    std::fill(mean.begin(), mean.end(), 0.0);
    double bw = 0;
    for (int64_t i = begin; i < end; ++i) {
        const double wi = weight_of(w, i);
        const float* x = X.row(i);
        double* m = mean.data();
#pragma omp simd
        for (int64_t t = 0; t < X.cols; ++t) m[t] += wi * x[t];
        bw += wi;
    }
    if (bw > 0) {
        for (double& v : mean) v /= bw;
    }
    return bw;
}

/// Adds rows [begin, end) to the chunk: the block's squared deviations about its own mean
/// (reads from cache) merged with Chan, Golub & LeVeque's update against the chunk's running
/// mean, then the rows to the chunk's sums one by one (centring_shift's order).
void add_block(ConstMatrix X, const std::vector<float>& w, int64_t begin, int64_t end, Chunk& c,
               std::vector<double>& mean) {
    const int64_t d = X.cols;
    double* sums = c.sums.data();
    const double bw = block_mean(X, w, begin, end, mean);
    if (bw > 0) {
        double m2 = 0;
        for (int64_t i = begin; i < end; ++i) {
            const float* x = X.row(i);
            const double* m = mean.data();
            // In order, not a simd reduction: a vectorised sum's split can follow the row's
            // alignment, and a mapped file and a heap copy of it must give the same bits.
            double s = 0;
            for (int64_t t = 0; t < d; ++t) s += (x[t] - m[t]) * (x[t] - m[t]);
            m2 += weight_of(w, i) * s;
        }
        const double cw = sums[d];
        double between = 0;
        for (int64_t t = 0; cw > 0 && t < d; ++t) {
            const double delta = mean[static_cast<size_t>(t)] - sums[t] / cw;
            between += delta * delta;
        }
        c.m2 += m2 + (cw > 0 ? between * cw * bw / (cw + bw) : 0.0);
    }
    for (int64_t i = begin; i < end; ++i) {
        const double wi = weight_of(w, i);
        const float* x = X.row(i);
#pragma omp simd
        for (int64_t t = 0; t < d; ++t) sums[t] += wi * x[t];
        sums[d] += wi;
    }
}

void scan_chunk(ConstMatrix X, const std::vector<float>& w, bool moments, int64_t begin, int64_t end, Chunk& c,
                const std::atomic<int64_t>& first_bad, const InputPages* pages) {
    std::vector<double> mean(moments ? static_cast<size_t>(X.cols) : 0);
    const size_t row_bytes = static_cast<size_t>(X.cols) * sizeof(float);
    const size_t chunk_bytes = static_cast<size_t>(end - begin) * row_bytes;
    for (int64_t b = begin; b < end; b += kBlockRows) {
        if (first_bad.load(std::memory_order_relaxed) < b) return;  // an earlier row is already bad
        const int64_t e = std::min(end, b + kBlockRows);
        if (pages != nullptr) {  // the chunk is one pass in order: advice per region of it
            pages->passed(X.row(begin), chunk_bytes, static_cast<size_t>(b - begin) * row_bytes,
                          static_cast<size_t>(e - begin) * row_bytes);
        }
        if (!rows_finite(X, b, e)) {
            c.bad_block = b;
            return;
        }
        if (moments) add_block(X, w, b, e, c, mean);
    }
}

}  // namespace

RowMoments scan_rows(ConstMatrix X, const std::vector<float>& weights, bool moments, int64_t row_offset,
                     int threads, const InputPages* pages) {
    const int64_t d = X.cols, per_chunk = block_count(X.rows, kScanChunks);
    std::vector<Chunk> chunks(static_cast<size_t>(kScanChunks));
    for (Chunk& c : chunks) c.sums.assign(moments ? static_cast<size_t>(d + 1) : 0, 0.0);
    std::atomic<int64_t> first_bad{INT64_MAX};
    parallel_blocks(threads, kScanChunks, [&](int64_t c) {
        Chunk& chunk = chunks[static_cast<size_t>(c)];
        scan_chunk(X, weights, moments, c * per_chunk, std::min(X.rows, (c + 1) * per_chunk), chunk, first_bad,
                   pages);
        if (chunk.bad_block < 0) return;
        int64_t seen = first_bad.load();
        while (chunk.bad_block < seen && !first_bad.compare_exchange_weak(seen, chunk.bad_block)) {
        }
    });
    const int64_t bad = first_bad.load();
    if (bad != INT64_MAX) {
        // The block names its first bad value exactly as require_finite does for all of X.
        require_finite(X.slice(bad, std::min(kBlockRows, X.rows - bad)), "X", row_offset + bad);
    }
    RowMoments out;
    if (!moments) return out;
    out.sums.assign(static_cast<size_t>(d + 1), 0.0);
    for (const Chunk& c : chunks) {
        for (int64_t t = 0; t <= d; ++t) out.sums[static_cast<size_t>(t)] += c.sums[static_cast<size_t>(t)];
    }
    out.weight = out.sums.back();
    out.sums.pop_back();
    if (!(out.weight > 0)) return out;
    out.mean.resize(static_cast<size_t>(d));
    for (int64_t t = 0; t < d; ++t) out.mean[static_cast<size_t>(t)] = out.sums[static_cast<size_t>(t)] / out.weight;
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

double scan_footprint(int64_t d, int threads) {
    const double dd = static_cast<double>(d);
    return 8.0 * static_cast<double>(kScanChunks) * (dd + 1) + 8.0 * threads * dd + 16.0 * (dd + 1);
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
