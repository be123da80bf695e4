// kernel=knn with method=exact: weighted kernel k-means on seed 004's k-nn kernel D⁻¹AD⁻¹ made
// usable (Dhillon, Guan & Kulis, "Kernel k-means, spectral clustering and normalized cuts",
// KDD 2004, and "Weighted graph cuts without eigenvectors", TPAMI 2007): the kernel
// K = σD⁻¹ + D⁻¹AD⁻¹ with each point weighted by its degree d_i. Then
//   Σ_i d_i ‖φ(x_i) − m_c(i)‖² = σ(n − k') + Σ_i A_ii/d_i − k' + ncut(A),
// k' the clusters with members, so Lloyd on it minimises the normalized cut. σ = 1 makes K
// positive semi-definite (σD + A = D^½(σI + D^-½AD^-½)D^½, whose eigenvalues are ≥ σ − 1 ≥ 0),
// so no Lloyd step can raise the objective. Every quantity is a sum over sparse rows:
//   Σ_{b∈c} d_b K(a, b) = σ[a ∈ c] + links(a, c)/d_a,   links(a, c) = Σ_{b∈c} A_ab,
//   ‖m_c‖² = (σW_c + links(c, c))/W_c²,                  W_c = Σ_{a∈c} d_a,
// so an iteration costs O(nnz(A) + nk): no kernel matrix, no kernel rows.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/lloyd_driver.h"
#include "graph/sparse_graph.h"

namespace kkm::graph {

/// The diagonal shift σ of the k-nn kernel: the smallest that makes K positive semi-definite
/// for every graph.
inline constexpr double kKnnShift = 1.0;

/// The centres of a labelling under the k-nn kernel.
struct NcutCentres {
    std::vector<double> mass;   ///< W_c, the degrees of the members (0: no centre)
    std::vector<double> links;  ///< links(c, c)
    std::vector<double> norm;   ///< ‖m_c‖² (+inf without members)
};

class NcutLloyd final : public LloydProblem {
public:
    /// A, degree: the graph and its degrees (kept by reference). threads: for the passes over
    /// the rows; results never depend on it.
    NcutLloyd(const SparseGraph& A, const std::vector<double>& degree, int64_t k, int threads);
    /// Bytes it holds on n rows: labels, distances and their caches, every thread's centre
    /// sums, the blocks' partial sums.
    static double footprint(double n, double k, int threads);

    int64_t size() const override { return A_.n; }
    /// Distances (float) to the centres of `labels`; returns Σ d_i dist_i.
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) override;
    /// Σ_i d_i ‖φ(x_i) − m_c(i)‖², exactly (float64) from the formula above; against the
    /// centres of other `members` than the labels, point by point (objective_against).
    double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) override;

    NcutCentres centres(const std::vector<int32_t>& labels) const;
    /// ncut = Σ_c cut(c, rest)/vol(c) over the clusters with members.
    double normalized_cut(const std::vector<int32_t>& labels) const;
    /// The degrees as float weights (run_lloyd's weights).
    std::vector<float> weights() const;

private:
    /// Point i's own term of its squared distances, kKnnShift/d_i + A_ii/d_i².
    double self_term(int64_t i) const;
    /// Point i's squared distance to centre j of c (mass > 0): self its self_term, d its
    /// degree, own its cluster in c's labelling, links its links to each cluster.
    static double centre_distance(const NcutCentres& c, double self, double d, int32_t own, int64_t j,
                                  const double* links);
    double objective_against(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) const;

    const SparseGraph& A_;
    const std::vector<double>& degree_;
    int64_t k_;
    int threads_;
};

}  // namespace kkm::graph
