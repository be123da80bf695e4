// Model files: a fitted model as a self-contained, versioned, checksummed byte string.
//
// Layout (little-endian on disk; a big-endian host reads the byte-order mark and refuses):
//   header   "KKMEANS\0" (8 bytes) | u32 format version | u32 byte-order mark 0x01020304
//   sections repeated: u32 tag | u64 payload bytes | payload
//   trailer  u32 tag "END." | u64 4 | u32 CRC-32 of every byte before the trailer payload
// Each array section's payload starts with its element count; the loader checks every count
// against the bytes left and against the other sections before it allocates anything.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/params.h"
#include "model/model.h"

namespace kkm {

/// Format version written by this library; a file with a larger one is refused.
/// 2: the report carries the centring shift (SHFT); version-1 files load without one.
/// 3: the report carries the gamma=search / k=auto scan (SRCG, SRCK, SRCS, SRCC).
/// 4: the report carries the graph kernels' neighbors and heat_rank; model kind 4, a graph
/// model (model/serialize_graph.cpp).
/// 5: a feature body keeps which centroids take points (FEAA).
/// 6: a truncated method=minibatch body ends with its centres' batch histories and rate counts
/// (MBST, model/serialize_minibatch.cpp), which kkm_partial_fit goes on from; a version-5
/// minibatch file loads without them (it assigns, but does not stream).
inline constexpr uint32_t kModelFormatVersion = 6;

/// Serialises a fitted model and the parameters it was fitted with.
std::vector<unsigned char> save_model(const ParamSet& params, const FittedModel& model);

struct LoadedModel {
    ParamSet params;
    std::shared_ptr<const FittedModel> fitted;
};

/// Parses and validates a serialised model; throws Error(KKM_ERR_FORMAT) saying what is wrong.
LoadedModel load_model(std::span<const unsigned char> bytes);

/// Whole-file I/O; throws Error(KKM_ERR_IO) naming the path and the reason. read_file stops
/// past max_bytes. write_file writes a temporary file in the same directory and renames it
/// over path once complete (through a symbolic link, over its target): on failure an
/// existing file is left as it was. A device or FIFO is written through, never replaced.
std::vector<unsigned char> read_file(const std::string& path, uint64_t max_bytes);
void write_file(const std::string& path, const std::vector<unsigned char>& bytes);

}  // namespace kkm
