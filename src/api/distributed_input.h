// The input checks of a distributed fit (kkm_fit_mpi), agreed over the ranks: a bad argument,
// value or parameter on any rank makes every rank throw the same kkm::Error (same status, same
// message), so every rank returns the same status and none is left waiting in a collective.
// Each function is collective: every rank of comm calls it, in the same order. Messages name
// the global row (this rank's offset + its local row) and the rank. Private to src/api.
#pragma once

#include <cstdint>
#include <vector>

#include "core/comm.h"
#include "core/params.h"

namespace kkm {

/// This rank's own arguments: model (NULL or not), n_local ≥ 0, X not NULL when n_local > 0,
/// d > 0, n_local × d addressable. The lowest failing rank's message, naming that rank.
void require_local_arguments(const Comm& comm, const void* model, const float* X, int64_t n_local, int64_t d);

/// The ranks' row counts and column counts: d the same on every rank (the message names both
/// values and their ranks), the global row count within int64 and > 0. Returns where this
/// rank's rows sit in the global numbering.
RowPartition agree_on_shape(const Comm& comm, int64_t n_local, int64_t d);

/// Every rank's parameters equal rank 0's, but for `threads` (which changes no result and may
/// suit each node differently); the message names the first key that differs and its values.
void require_same_params(const Comm& comm, const ParamSet& params);

/// The data and weights of this rank (after the checks above): finite X, the sizes the fit
/// will form for the global row count, valid weight values. Returns this rank's weights as
/// float (empty when weights is NULL or the rank holds no rows).
std::vector<float> check_local_data(const Comm& comm, const RowPartition& part, const Params& params, const float* X,
                                    int64_t d, const float* weights);

/// Weights given on every rank that holds rows, or on none (ranks without rows do not
/// count), and, when given, positive in total over all ranks.
void agree_on_weights(const Comm& comm, const RowPartition& part, const std::vector<float>& weights, bool given);

}  // namespace kkm
