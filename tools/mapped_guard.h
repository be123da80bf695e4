// What a program does when a file it maps is truncated (or its disk fails) while it runs: a
// read of a page past the new end raises SIGBUS, which would end the process with status 135
// and no message. kkmeans and kkmeans-mpi install this before they map an input.
#pragma once

#include <string>

namespace kkm_tool {

/// Installs (once) a SIGBUS handler that writes "PROGRAM: error: the input file 'PATH' was
/// truncated or could not be read while it was mapped (SIGBUS) ..." to stderr and ends the
/// process with status 1 (its outputs as they were: written files are replaced only at the
/// end). `path` is the file mapped; a later call names a later file. Not thread-safe: call
/// it before mapping, from the main thread.
void guard_mapped_input(const char* program, const std::string& path);

}  // namespace kkm_tool
