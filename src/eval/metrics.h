// Agreement between two labelings: adjusted Rand index and normalized mutual information
// (scikit-learn's definitions, including their conventions for degenerate labelings).
#pragma once

#include <cstdint>

namespace kkm {

double adjusted_rand_index(const int32_t* a, const int32_t* b, int64_t n);
double normalized_mutual_info(const int32_t* a, const int32_t* b, int64_t n);

}  // namespace kkm
