// Where new rows sit in a fitted graph. A row identical to a training row is that training node
// (so assigning the training rows again gives their labels); any other row attaches to training
// nodes with weights: to its q nearest training rows with weight 1 (a model fitted on points),
// or to the nodes its affinity row names (a model fitted on a user's graph, kkm_fit_graph).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/matrix.h"
#include "graph/neighbours.h"
#include "graph/sparse_graph.h"

namespace kkm::graph {

/// Each row: the training node it is (self ≥ 0), or its attachments (self = −1): nodes
/// nodes[at[i] .. at[i+1]) with weights weights[...] > 0.
struct Placement {
    std::vector<int64_t> self;
    std::vector<int64_t> at;
    std::vector<int32_t> nodes;
    std::vector<float> weights;

    int64_t rows() const { return static_cast<int64_t>(self.size()); }
};

/// How a fitted graph model places rows.
class Locator {
public:
    virtual ~Locator() = default;
    /// Columns of an input row.
    virtual int64_t input_dim() const = 0;
    /// Places the rows of X (finite, input_dim() columns) on `threads` threads.
    virtual Placement place(ConstMatrix X, int threads) const = 0;
    /// Where the training rows themselves are placed: each at the first training row identical
    /// to it (itself, unless it repeats an earlier one), so that identical rows get one label
    /// and assigning the training rows again gives their labels.
    virtual Placement training() const = 0;
};

/// Rows of a model fitted on points: the training rows (centred, as SearchRows) and q.
class PointLocator final : public Locator {
public:
    PointLocator(SearchRows rows, int64_t q, int threads);
    /// Bytes it keeps for n training rows of d values: the centred rows, their norms and the
    /// sorted (hash, index) pairs.
    static double footprint(double n, double d);
    int64_t input_dim() const override { return rows_.dim(); }
    Placement place(ConstMatrix X, int threads) const override;
    Placement training() const override;
    const SearchRows& rows() const { return rows_; }
    int64_t q() const { return q_; }

private:
    SearchRows rows_;
    int64_t q_;
    std::vector<std::pair<uint64_t, int32_t>> by_hash_;  ///< (row hash, index), sorted
};

/// Affinity rows against the training nodes of a model fitted on a user's graph: a dense row of
/// n_train non-negative values; its positive entries are the attachments. A row with no
/// positive entry is INVALID_DATA (it has no place in the graph).
class AffinityLocator final : public Locator {
public:
    explicit AffinityLocator(std::shared_ptr<const SparseGraph> graph);
    int64_t input_dim() const override { return graph_->n; }
    Placement place(ConstMatrix X, int threads) const override;
    Placement training() const override;
    const SparseGraph& graph() const { return *graph_; }

private:
    std::shared_ptr<const SparseGraph> graph_;
    std::vector<std::pair<uint64_t, int32_t>> by_hash_;  ///< (hash of a node's row of A, node), sorted
};

/// Placements of the n training nodes themselves (self = i).
Placement training_placement(int64_t n);

}  // namespace kkm::graph
