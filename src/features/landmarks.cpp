#include "features/landmarks.h"

#include <algorithm>
#include <numeric>

namespace kkm {

std::vector<int64_t> uniform_landmarks(int64_t n, int64_t m, Rng& rng) {
    std::vector<int64_t> pool(static_cast<size_t>(n));
    std::iota(pool.begin(), pool.end(), int64_t{0});
    for (int64_t i = 0; i < m; ++i) {
        const int64_t j = i + static_cast<int64_t>(rng.below(static_cast<uint64_t>(n - i)));
        std::swap(pool[static_cast<size_t>(i)], pool[static_cast<size_t>(j)]);
    }
    pool.resize(static_cast<size_t>(m));
    std::sort(pool.begin(), pool.end());
    return pool;
}

}  // namespace kkm
