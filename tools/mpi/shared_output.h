// A binary output file that every rank writes a part of, at its own offset, and that appears
// complete or not at all (as StagedOutput does for one process): rank 0 creates a temporary
// file beside the target, every rank writes its bytes into it (pwrite), and commit() has
// rank 0 rename it over the path. An uncommitted file is removed by rank 0. Every member
// function is collective; an error on any rank is an error on every rank (together()).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

namespace kkm_tool {

/// The regular file an output path replaces (symbolic links followed). Every rank writes its
/// part at an offset, which a device, FIFO or terminal cannot take: those are a ToolError.
std::string regular_target(const std::string& path);

class SharedOutput {
public:
    /// Rank 0 creates the temporary file, `bytes` long; its name is given to every rank.
    SharedOutput(MPI_Comm comm, std::string path, uint64_t bytes);
    ~SharedOutput();
    SharedOutput(const SharedOutput&) = delete;
    SharedOutput& operator=(const SharedOutput&) = delete;

    /// Writes this rank's bytes at offset (and flushes them to the disk).
    void write_at(uint64_t offset, const void* data, size_t bytes);
    /// Renames the complete file over the path.
    void commit();

private:
    MPI_Comm comm_;
    std::string path_;
    std::string temp_;  ///< "" once committed
};

}  // namespace kkm_tool
