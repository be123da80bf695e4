// gamma=search and k=auto: the kernel scale and the number of clusters chosen from the data,
// by label-free criteria on fits of a subsample (src/search/criteria.h).
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"
#include "search/criteria.h"
#include "search/search_point.h"

namespace kkm::search {

/// What the search chose and everything it scored.
struct Outcome {
    double gamma = 0;  ///< 0 for kernels without a scale
    int64_t k = 0;
    std::vector<SearchPoint> scan;
    /// Every row's cluster under the search's clustering with the chosen gamma and k: where
    /// the fit's first restart starts.
    std::vector<int32_t> labels;
};

/// Whether a fit with these parameters searches (gamma=search or k=auto).
inline bool needed(const Params& p) {
    return p.gamma_search || p.k == 0;
}

/// Throws INVALID_ARGUMENT for a search the parameters cannot run on n rows (a kernel without
/// a scale under gamma=search, k_min above the largest k the subsample can score, k beyond
/// half the subsample).
void validate(const Params& p, int64_t n);

/// Runs the search on the rows of X (weights empty or n). `gamma` is the scale to use when
/// gamma is not searched (given, or resolved by gamma=auto); `fit` makes its scoring fits.
Outcome run(const Params& p, ConstMatrix X, const std::vector<float>& weights, double gamma, int threads,
            const SubsetFitter& fit);

}  // namespace kkm::search
