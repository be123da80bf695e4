// kernel=heat: the heat kernel exp(−tL) of the normalized Laplacian L = I − D^-½AD^-½ (Chung
// 1997; seed 004's appendix C prints exp(−tD^-½AD^-½)), through the top r eigenpairs (λ_l, u_l)
// of S = D^-½AD^-½: exp(−tL) ≈ Σ_l e^{−t(1−λ_l)} u_l u_lᵀ, so node i has the features
//   f_l(i) = e^{−t(1−λ_l)/2} u_l[i]                           (f(i)·f(j) = the kernel),
// scaled to unit length when normalised (the kernel K(i,j)/sqrt(K(i,i)K(j,j)), as Ng, Jordan &
// Weiss normalise the rows of a spectral embedding), and k-means on them is kernel k-means with
// this kernel. A new row attached to training nodes j with weights a_j (degree d_x = Σ a_j) gets
// the Nyström extension of each eigenvector, u_l(x) = λ_l⁻¹ Σ_j a_j/sqrt(d_x d_j) u_l[j].
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "graph/locate.h"

namespace kkm::graph {

/// Eigenvalues at or below this get no Nyström extension (their directions carry a weight of
/// at most e^{−t(1−0.01)/2}, and λ⁻¹ would amplify the rounding of their eigenvectors).
inline constexpr double kMinExtendedEigenvalue = 0.01;

struct HeatMap {
    std::vector<double> values;  ///< λ_l, descending
    Matrix vectors;              ///< U: n × r unit eigenvectors as columns
    std::vector<double> degree;  ///< of the training nodes
    double t = 0;
    bool normalise = true;

    int64_t dim() const { return vectors.cols; }
    /// Features of rows [begin, begin + count) of a placement into out (count × dim(),
    /// row stride dim()): a training node's own features, or the extension. Single-threaded.
    void features(const Placement& p, int64_t begin, int64_t count, float* out) const;
};

/// Every training node's features (n × r), in parallel row blocks.
Matrix training_features(const HeatMap& map, int threads);

/// Bytes the heat features of n nodes with r pairs hold: the eigenvectors (the map keeps them)
/// and training_features beside them.
double heat_features_footprint(double n, double r);

}  // namespace kkm::graph
