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

/// How the fit of n rows of d columns builds its graph: graph, or graph=auto's choice (the
/// anchor graph for kernel=heat above 20000 rows; exact while 2n²d ≤ 5e10; NN-descent).
GraphChoice graph_choice(const Params& p, int64_t n, int64_t d);

/// A graph kernel on the anchor graph (fit_anchor.cpp): a feature method, distributable.
bool anchor_graph(const Params& p, int64_t n, int64_t d);

/// heat_rank, or auto = max(2k, 20) plus one eigenpair for every connected component beyond
/// the first; at most n (the nodes, or the anchors).
int64_t heat_rank(const Params& p, int64_t n, int64_t components = 1);

/// An explicit heat_rank must give every component its indicator (INVALID_DATA otherwise).
void require_rank_for_components(const Params& p, int64_t components);

/// Throws INVALID_ARGUMENT for parameters the graph kernels refuse (a method without a graph
/// form, refine=hartigan, gamma, k=auto).
void validate_graph_params(const Params& p);

/// Throws INVALID_ARGUMENT for n rows the graph kernels cannot take: sample weights, neighbors
/// ≥ n, a single row, anchors where graph=auto chose another graph for n rows of d values.
void validate_graph_data(const Params& p, int64_t n, int64_t d, bool weighted);
/// Refuses what does not apply to a graph the caller gives (kkm_fit_graph): anchors.
void validate_given_graph(const Params& p);

/// Arithmetic of building the graph of n rows of d columns (for the thread count).
double graph_work(const Params& p, int64_t n, int64_t d);

/// The up-front memory check (require_budget with the graph footprint).
double check_graph_budget(const FitShape& s, const MemoryLedger& ledger);

/// graph=anchor's pass arithmetic (n rows against its anchors), up-front check and fit
/// (fit_anchor.cpp).
double anchor_graph_work(const Params& p, int64_t n, int64_t d);
double check_anchor_budget(const FitShape& s, const MemoryLedger& ledger);
std::unique_ptr<FittedModel> fit_anchor_graph(FitSession& c);

/// Refuses the fit (graph::too_far, INVALID_DATA) naming the row of X farthest from the mean
/// (squared distances in float64): a row there so far that a search in float32 fails; when
/// this rank's rows hold none beyond the limit, names `fallback` (a row found too far).
[[noreturn]] void refuse_far_rows(const FitSession& c, int64_t fallback);

/// Fits on the session's rows: their neighbour graph, then fit_graph_user's stages.
std::unique_ptr<FittedModel> fit_graph_rows(FitSession& c);

/// Fits on a user's graph, checked and made canonical (graph::checked_graph) under a charge
/// of its copy; the session's X is {nullptr, n, 0} and its graph_entries csr's.
std::unique_ptr<FittedModel> fit_graph_user(FitSession& c, const graph::CsrView& csr);

}  // namespace kkm
