// The body of a graph model (kernel=knn, kernel=heat) in a model file: how new rows are placed
// (the centred training rows and q, or the user's graph), the graph or the heat spectrum, and
// the centres. Read back through the same checks as a user's graph (graph::checked_graph).
// Private to src/model (serialize.cpp calls it).
#pragma once

#include <cstdint>
#include <memory>

#include "core/archive.h"
#include "model/graph_model.h"

namespace kkm {

void save_graph_body(const FittedModel& model, Writer& w);
/// Throws Error(KKM_ERR_FORMAT) (or INVALID_* from the graph checks, which load_model turns
/// into FORMAT) naming what is inconsistent.
std::shared_ptr<const FittedModel> load_graph_body(Reader& r, Params p, FitReport report, int64_t n_train, int64_t d,
                                                   int64_t k);

}  // namespace kkm
