// The top eigenpairs of the normalized adjacency S = D^-½ A D^-½ of a graph, the spectrum the
// heat kernel exp(−tL) = exp(−t(I − S)) is built from. S is block diagonal over the graph's
// connected components, so each component is decomposed on its own (Lanczos through Spectra for
// large ones, LAPACK for small ones) and the top pairs of all of them are merged: a component
// contributes its indicator direction (eigenvalue 1) exactly, which one Lanczos run over the
// whole graph cannot resolve (an eigenvalue repeated once per component).
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "graph/sparse_graph.h"

namespace kkm::graph {

struct Eigenpairs {
    std::vector<double> values;  ///< r eigenvalues, descending
    Matrix vectors;              ///< n × r: column l is the unit eigenvector of values[l]
};

/// One eigenpair of a connected component, before the components' pairs are merged.
struct ComponentPair {
    double value;
    int32_t part;                ///< the component
    int64_t rank;                ///< its place among the component's pairs (0: the largest)
    std::vector<double> vector;  ///< over the component's nodes
};

/// The r largest eigenpairs of component `id`'s dense symmetric m×m matrix S (row-major, its
/// upper triangle read; overwritten), by LAPACK, appended to out.
void dense_component_pairs(int64_t m, std::vector<double>& S, int32_t id, int64_t r, std::vector<ComponentPair>& out);

/// The pairs of all components merged: the r largest with an eigenvalue above `floor`, ties
/// between components ordered by component, each vector's largest entry (the first, on ties)
/// made positive and placed at its component's nodes (nodes[part], of n in all).
Eigenpairs merge_component_pairs(std::vector<ComponentPair> pairs, const std::vector<std::vector<int64_t>>& nodes,
                                 int64_t n, int64_t r, double floor);

/// Components of at most this many nodes are decomposed densely (LAPACK).
inline constexpr int64_t kDenseComponent = 512;

/// The r largest eigenpairs of S (fewer when the graph has fewer than r nodes), eigenvalues
/// tied between components ordered by component, each eigenvector's largest entry (the first,
/// on ties) positive. Lanczos starts from a vector drawn from (seed, Stream::graph), so results
/// depend on the seed (to the solver's tolerance) and never on the thread count. Throws
/// INTERNAL naming the component when Lanczos does not converge.
Eigenpairs top_eigenpairs(const SparseGraph& A, const std::vector<double>& degree, const Components& parts, int64_t r,
                          uint64_t seed, int threads);

/// Bytes top_eigenpairs holds at its peak for a graph of n nodes, `entries` stored entries and
/// r pairs: the Lanczos basis (at up to twice ncv), its restarts and pairs, the component's
/// copy with its scales and map, a dense component, the merged vectors.
double eigenpairs_footprint(double n, double entries, double r);

}  // namespace kkm::graph
