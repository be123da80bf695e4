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
