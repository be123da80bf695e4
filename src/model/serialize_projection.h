// The projection S of a landmark map in a model file (dense, identity, ros, subgaussian):
// written and read back here, beside the other bodies of model/serialize*.cpp.
// Private to src/model (serialize.cpp calls it).
#pragma once

#include <cstdint>
#include <memory>

#include "core/archive.h"
#include "features/feature_map.h"

namespace kkm {

/// Writes any projection of a landmark map to w.
void save_projection(const Projection& projection, Writer& w);

/// Reads a projection written by save_projection, checking that it maps kernel rows of
/// length in_dim and that every stored index lies in range; throws KKM_ERR_FORMAT otherwise.
std::unique_ptr<Projection> load_projection(Reader& r, int64_t in_dim, engine::Isa isa);

}  // namespace kkm
