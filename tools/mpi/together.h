// How the ranks of kkmeans-mpi agree on failures: a step that fails on some ranks fails on
// every rank, with the message of the lowest failing rank, so that every rank exits with the
// same status and rank 0 alone prints the message.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

namespace kkm_tool {

int rank_of(MPI_Comm comm);
int size_of(MPI_Comm comm);

/// Runs step on every rank of comm (collective). When it throws on any rank, every rank
/// throws the lowest failing rank's error: a UsageError if that was one, else a ToolError,
/// with its message. step must make no collective call a failing rank could skip.
void together(MPI_Comm comm, const std::function<void()>& step);

/// Rank root's text, on every rank (collective).
std::string broadcast_text(MPI_Comm comm, const std::string& text, int root);

}  // namespace kkm_tool
