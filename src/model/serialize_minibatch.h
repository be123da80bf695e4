// What a truncated method=minibatch model keeps for kkm_partial_fit in a model file (format
// 6 on): every centre's batch history over the basis points and the learning rate's counts,
// in one MBST section at the end of the dual body (absent when the model has none). Private
// to src/model (serialize.cpp calls it).
#pragma once

#include <cstdint>

#include "cluster/minibatch_kernel.h"
#include "core/archive.h"

namespace kkm {

/// Writes the MBST section, or nothing for an empty state.
void save_minibatch_state(const MinibatchState& state, Writer& w);

/// Reads the MBST section when it comes next in the body (else an empty state), checked
/// against k centres over `support` basis points. allowed: whether the parameters may carry
/// one (method=minibatch, tau > 0). Throws Error(KKM_ERR_FORMAT) naming what is inconsistent.
MinibatchState load_minibatch_state(Reader& body, int64_t k, int64_t support, bool allowed);

}  // namespace kkm
