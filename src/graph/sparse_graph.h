// The neighbour graph of the graph kernels: a weighted undirected graph on the training rows in
// compressed sparse rows, its degrees and connected components; built from q-NN lists or
// taken from a user's CSR affinity matrix (kkm_fit_graph), both in one canonical form so that
// the same graph gives the same clustering whichever way it came.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/neighbours.h"

namespace kkm::graph {

/// Node i's edges go to indices[indptr[i] .. indptr[i+1]) with weights values[...]: columns
/// ascending and distinct, weights positive and finite, and A symmetric (A_ij = A_ji bit for
/// bit). A self-loop (i, i) is allowed.
struct SparseGraph {
    int64_t n = 0;
    std::vector<int64_t> indptr;  ///< n + 1 offsets
    std::vector<int32_t> indices;
    std::vector<float> values;

    int64_t entries() const { return static_cast<int64_t>(indices.size()); }
    int64_t row_begin(int64_t i) const { return indptr[static_cast<size_t>(i)]; }
    int64_t row_end(int64_t i) const { return indptr[static_cast<size_t>(i) + 1]; }
    /// A_ij, or 0 (binary search in row i).
    float weight(int64_t i, int64_t j) const;
};

/// A = (B + Bᵀ)/2 of the q-NN lists B (B_ij = 1 when j is among i's neighbours): weight 1
/// between mutual neighbours, ½ where only one lists the other (scikit-learn's
/// SpectralClustering symmetrises its neighbour graph the same way).
SparseGraph symmetrised(const NeighbourLists& lists);

/// Bytes symmetrised holds for n rows of q neighbours (2nq entries at most): the (column,
/// weight) pairs and offsets while it builds, then the compressed graph and the degrees.
double symmetrised_footprint(double n, double q);

/// Degrees d_i = Σ_j A_ij in float64, each summed in column order.
std::vector<double> degrees(const SparseGraph& A);

/// Connected components, numbered in the order of their smallest node.
struct Components {
    int64_t count = 0;
    std::vector<int32_t> of;     ///< the component of each node
    std::vector<int64_t> sizes;  ///< nodes per component
};
Components components(const SparseGraph& A);

/// A user's affinity matrix in CSR as given (caller memory; checked_graph's arguments).
struct CsrView {
    int64_t n = 0;
    const int64_t* indptr = nullptr;
    const int64_t* indices = nullptr;
    const float* values = nullptr;
};

/// The entries indptr[n] of a user's CSR offsets (n + 1 of them), checked as checked_graph
/// checks them (starting at 0, never decreasing, addressable) before anything is copied.
int64_t checked_offsets(int64_t n, const int64_t* indptr);

/// A user's affinity matrix in CSR (n nodes; indptr: n + 1 offsets from 0; indices: column of
/// each stored entry; values: its weight, NULL for all ones), checked and made canonical:
/// columns sorted within each row, repeated entries of one (i, j) summed in ascending order of
/// their weights in float64 (scipy.sparse reads them so; any order of them gives the same
/// sum), zeros dropped. Throws INVALID_ARGUMENT naming the offending offset, entry or node
/// for: indptr not starting at 0 or decreasing, a column outside [0, n), more than 2^31 − 1
/// nodes; INVALID_DATA for: a negative, NaN or infinite weight, A_ij ≠ A_ji (naming both
/// entries), repeated entries whose sum overflows float32, a node without any edge (degree 0:
/// normalized cut and the heat kernel divide by the degree).
SparseGraph checked_graph(int64_t n, const int64_t* indptr, const int64_t* indices, const float* values);

/// Bytes checked_graph holds at its peak for n nodes and `entries` stored entries: the offsets
/// and (column, weight) pairs it sorts, and the compressed graph beside them.
double checked_graph_footprint(double n, double entries);

/// Bytes a graph of n nodes and `entries` entries holds through a fit: the compressed graph,
/// its degrees and its components.
double held_graph_footprint(double n, double entries);

}  // namespace kkm::graph
