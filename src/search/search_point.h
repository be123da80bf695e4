// One candidate of gamma=search / k=auto, as the search scores it and a fit's report keeps it.
#pragma once

#include <cstdint>

#include "core/params.h"

namespace kkm {

/// One candidate that gamma=search / k=auto scored (src/search): its kernel scale (0 for a
/// kernel without one), k, and the criterion's score (higher is better).
struct SearchPoint {
    double gamma = 0;
    int64_t k = 0;
    double score = 0;
    SearchCriterion criterion = SearchCriterion::stability;
};

}  // namespace kkm
