#include "graph/point_kernels.h"

#include <algorithm>

#include "core/parallel.h"
#include "engine/dots.h"

namespace kkm::graph {
namespace {

constexpr int64_t kRows = 256;

}  // namespace

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
