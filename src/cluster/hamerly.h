// Hamerly's bounds (Hamerly 2010), shared by the Lloyd variants whose distances are Euclidean
// in some feature space (explicit features, or the kernel's feature space through landmark
// rows): the triangle inequality turns last iteration's distances and how far each centre
// moved into bounds that prove most labels without computing a distance.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/comm.h"

#include "core/matrix.h"

namespace kkm {

/// How far each centre moved since the bounds were made (float64), and the two largest
/// movements.
struct Drift {
    std::vector<double> moved;
    double largest = 0, second = 0;
    int64_t largest_at = -1;
};

Drift centre_drift(const Matrix& now, const Matrix& before);

/// Half the distance from each live centre to its nearest other live centre: a point within
/// it of its own centre is nearer to that centre than to any other.
std::vector<double> half_separation(const Matrix& C, const std::vector<char>& alive);

/// float32 distances carry rounding of about 1e-6 of the terms they cancel (the point's and
/// the largest centre's squared norms): a bound proves a label only beyond this margin.
inline double rounding_slack(float point_term, float top_centre_term) {
    return std::sqrt(4e-6 * (std::fabs(point_term) + top_centre_term));
}

/// True when some cluster of 0..k-1 has no row at all. After a bounded pass that emptied a
/// cluster, the pass is redone in full: the driver refills the cluster with the row farthest
/// by `dist`, which a bounded pass only bounds for the rows it skipped.
/// Over rows spread across ranks (collective): some cluster has no row on any rank.
bool leaves_cluster_empty(const std::vector<int32_t>& labels, int64_t k, const Comm& comm = solo_comm());

}  // namespace kkm
