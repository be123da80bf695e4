// graph=anchor: the anchor (landmark) bipartite graph of landmark spectral clustering (Chen &
// Cai, "Large scale spectral clustering with landmark-based representation", AAAI 2011; Huang
// et al., U-SPEC, TKDE 2020). p anchors (k-means centres of a uniform sample of the rows); each
// row x attaches to its r nearest anchors with Gaussian weights normalised to sum 1,
//   z_j(x) = exp(−‖x − a_j‖²/(2σ²)) / Σ_{j' ∈ r nearest} exp(−‖x − a_j'‖²/(2σ²)),
// σ the mean distance of the sample's rows to their r nearest anchors. The rows' graph is
// W = Ẑ Ẑᵀ with Ẑ = Z D^-½, D = diag(Zᵀ1) the anchors' degrees: every row's degree is 1
// (W1 = Z D⁻¹ Zᵀ1 = Z1 = 1), so W is its own normalized adjacency S, and its eigenpairs come
// from the p×p matrix M = ẐᵀẐ = V Λ Vᵀ: u_l = Ẑ v_l / √λ_l (λ_l ∈ [0, 1]). A row's u_l(x) is
// z(x) D^-½ v_l / √λ_l, for training and new rows alike (the Nyström extension of W's
// eigenvectors is this same formula), so a model needs the anchors, not the training rows.
// The graph costs one pass over the rows, O(n·p·d) like a Nyström kernel pass, and
// O(n·r² + p³) after it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "graph/sparse_graph.h"
#include "graph/spectrum.h"

namespace kkm::graph {

/// Each row's r nearest anchors (ascending distance, ties by the lower index) and their
/// normalised weights.
struct AnchorLists {
    int64_t rows = 0;
    int64_t r = 0;
    std::vector<int32_t> index;
    std::vector<float> weight;

    AnchorLists() = default;
    AnchorLists(int64_t n, int64_t q)
        : rows(n), r(q), index(static_cast<size_t>(n * q)), weight(static_cast<size_t>(n * q)) {}
    /// Bytes the lists of n rows with r anchors each hold.
    static double footprint(double n, double r) { return 8.0 * n * r; }
};

/// The Gaussian weights of one row's r nearest anchors at squared distances `dist`
/// (ascending) into w, normalised to sum 1; sigma2 = σ². Each weight is taken relative to the
/// nearest anchor's (exp(−(d_j − d_0)/(2σ²)): the nearest has 1 before normalising), so a row
/// far from every anchor keeps its weights instead of underflowing to 0/0.
void anchor_weights(const float* dist, int64_t r, double sigma2, float* w);

/// M = ZᵀZ (p×p, row-major) and the anchors' degrees D = Zᵀ1 in float64: each entry summed
/// over the rows in row order, so the same bits for any thread count.
struct AnchorGram {
    int64_t p = 0;
    std::vector<double> M;
    std::vector<double> degree;
};
AnchorGram anchor_gram(const AnchorLists& Z, int64_t p, int threads);

/// Bytes anchor_gram holds for n rows of r anchors among p: the gram, the degrees and the
/// lists transposed by anchor.
double anchor_gram_footprint(double n, double r, double p);

/// The anchors some row attaches to (degree > 0), ascending.
std::vector<int64_t> used_anchors(const AnchorGram& g);

/// The gram of the anchors `keep` only (in that order), and the lists renumbered to them (every
/// listed anchor must be kept).
AnchorGram restrict_gram(const AnchorGram& g, const std::vector<int64_t>& keep);
void renumber(AnchorLists& Z, const std::vector<int64_t>& keep, int64_t p);

/// Connected components of the bipartite graph, as components of the anchors (anchors j and l
/// are joined when some row attaches to both: M_jl > 0), numbered by their smallest anchor.
Components anchor_components(const AnchorGram& g);

/// The top R eigenpairs of Ẑ Ẑᵀ through M̂ = D^-½ M D^-½ (p×p): values λ_l descending and the
/// p-vectors v_l (vectors: p × R), each component of the anchors decomposed densely on its own
/// and the pairs merged as top_eigenpairs merges them (ties by component; each vector's
/// largest entry, the first on ties, positive). Eigenvalues at or below `floor` are dropped
/// (their u_l = Ẑv_l/√λ_l would amplify rounding). Cancellable between components.
Eigenpairs anchor_eigenpairs(const AnchorGram& g, const Components& parts, int64_t R, double floor);

/// Bytes anchor_eigenpairs holds for p anchors and R pairs (a component's dense copy and its
/// decomposition's workspace, the merged vectors).
double anchor_eigenpairs_footprint(double p, double R);

}  // namespace kkm::graph
