#include "graph/point_kernels.h"

#include <algorithm>
#include <utility>

#include "core/parallel.h"
#include "engine/dots.h"
#include "graph/ncut.h"

namespace kkm::graph {
namespace {

constexpr int64_t kRows = 256;

}  // namespace

void KnnPointKernel::block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                           int threads) const {
    const auto nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
    reshape_growing(out, nr, nc);
    // Where each point sits among the columns (a point may repeat: a batch is drawn with
    // replacement), sorted for lookups.
    std::vector<std::pair<int64_t, int64_t>> at(static_cast<size_t>(nc));
    for (int64_t b = 0; b < nc; ++b) at[static_cast<size_t>(b)] = {cols[static_cast<size_t>(b)], b};
    std::sort(at.begin(), at.end());
    auto positions = [&](int64_t point) {
        return std::equal_range(at.begin(), at.end(), std::make_pair(point, int64_t{0}),
                                [](const auto& x, const auto& y) { return x.first < y.first; });
    };
    parallel_blocks(threads, block_count(nr, kRows), [&](int64_t blk) {
        for (int64_t a = blk * kRows; a < std::min(nr, (blk + 1) * kRows); ++a) {
            float* row = out.row(a);
            std::fill(row, row + nc, 0.0f);
            const int64_t i = rows[static_cast<size_t>(a)];
            const double di = degree_[static_cast<size_t>(i)];
            for (int64_t e = A_.row_begin(i); e < A_.row_end(i); ++e) {
                const int32_t j = A_.indices[static_cast<size_t>(e)];
                const auto [first, last] = positions(j);
                if (first == last) continue;
                const double v = A_.values[static_cast<size_t>(e)] / (di * degree_[static_cast<size_t>(j)]);
                for (auto p = first; p != last; ++p) row[p->second] += static_cast<float>(v);
            }
            const auto [first, last] = positions(i);
            for (auto p = first; p != last; ++p) row[p->second] += static_cast<float>(kKnnShift / di);
        }
    });
}

float KnnPointKernel::diag(int64_t i) const {
    const double d = degree_[static_cast<size_t>(i)];
    return static_cast<float>(kKnnShift / d + static_cast<double>(A_.weight(i, i)) / (d * d));
}

void FeaturePointKernel::block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                               int threads) const {
    const auto nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
    reshape_growing(out, nr, nc);
    gather_rows_into(F_.view(), cols, gathered_);
    parallel_blocks(threads, block_count(nr, kRows), [&](int64_t blk) {
        const int64_t begin = blk * kRows, count = std::min(kRows, nr - begin);
        engine::row_dots_at(isa_, F_.data(), rows.data() + begin, count, F_.cols, gathered_.data(), nc, F_.cols,
                            F_.cols, out.row(begin), nc);
    });
}

float FeaturePointKernel::diag(int64_t i) const {
    float v = 0;
    engine::row_dots(isa_, F_.row(i), 1, F_.cols, F_.row(i), 1, F_.cols, F_.cols, &v, 1);
    return v;
}

}  // namespace kkm::graph
