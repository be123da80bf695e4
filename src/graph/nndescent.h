// Approximate q-NN of every row among the others by NN-descent (Dong, Charikar & Li, WWW 2011):
// start from random neighbours, then repeatedly compare each row's neighbours and reverse
// neighbours with one another ("a neighbour of a neighbour is likely a neighbour"), keeping
// each row's q best, until an iteration changes almost nothing.
//
// Deterministic for any thread count: every random choice is a function of (seed, row,
// iteration); each row keeps the q smallest (distance, index) pairs offered to it, a set that
// does not depend on the order of the offers; a pair's distance has the same bits whoever
// computes it; convergence counts the entries an iteration left in the lists, not the offers.
#pragma once

#include <cstdint>

#include "graph/neighbours.h"

namespace kkm::graph {

struct NndescentOptions {
    /// Iteration cap. 16: Fashion-MNIST 60000 × 784 with q = 10 converges in 8-10.
    int64_t max_iter = 16;
    /// Sampling rate ρ: each row joins at most ceil(ρq) of its new neighbours (and as many
    /// reverse ones) per iteration.
    double rho = 1.0;
    /// Stop when an iteration brings fewer than δ·n·q new entries into the lists.
    double delta = 0.001;
};

/// Approximate exact_self_neighbours(rows, q): the same layout (ascending distance, ties by
/// the lower index, never the row itself). Small sets (n ≤ 8q + 64) are searched exactly.
NeighbourLists nndescent_neighbours(const SearchRows& rows, int64_t q, uint64_t seed, int threads,
                                    const NndescentOptions& options = {});

/// Bytes the neighbour lists of n rows with q neighbours take while they are searched: index
/// and distance (NN-descent's flags and birth beside them), the samples and reverse lists
/// (four lists of up to q per row, their offsets).
double neighbour_lists_footprint(double n, double q);

/// Bytes NN-descent's join holds besides the lists: each thread's gathered candidates (at most
/// 4q rows, at most n; its tasks of 256 rows charged as row blocks) and the locks.
double nndescent_join_footprint(double n, double d, double q, int threads);

/// The fraction of exact's neighbours an approximate list found (the measured recall).
double recall(const NeighbourLists& approximate, const NeighbourLists& exact);

}  // namespace kkm::graph
