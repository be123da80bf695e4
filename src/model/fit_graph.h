// The graph kernels' fit (kernel=knn, kernel=heat): their checks, their budget and their stages.
// Private to src/model.
#pragma once

#include <cstdint>
#include <memory>

#include "graph/sparse_graph.h"
#include "model/fit_common.h"

namespace kkm {

/// kernel=knn or kernel=heat.
bool graph_kernel(const Params& p);

/// Throws INVALID_ARGUMENT for parameters the graph kernels refuse (a method without a graph
/// form, refine=hartigan, gamma, k=auto).
void validate_graph_params(const Params& p);

/// Throws INVALID_ARGUMENT for n rows the graph kernels cannot take: sample weights, neighbors
/// ≥ n, a single row.
void validate_graph_data(const Params& p, int64_t n, bool weighted);

/// Arithmetic of building the graph of n rows of d columns (for the thread count).
double graph_work(const Params& p, int64_t n, int64_t d);

/// The up-front memory check (require_budget with the graph footprint).
double check_graph_budget(const FitShape& s, const MemoryLedger& ledger);

/// Fits on the session's rows: their neighbour graph, then fit_graph_user's stages.
std::unique_ptr<FittedModel> fit_graph_rows(FitSession& c);

/// Fits on a user's graph (checked and canonical); the session's X is {nullptr, n, 0}.
std::unique_ptr<FittedModel> fit_graph_user(FitSession& c, graph::SparseGraph A);

}  // namespace kkm
