#include "mpi/together.h"

#include <algorithm>
#include <exception>
#include <new>
#include <vector>

#include "cli.h"

namespace kkm_tool {
namespace {

enum Outcome : int { kDone = 0, kToolError = 1, kUsageError = 2 };

}  // namespace

int rank_of(MPI_Comm comm) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    return size;
}

void together(MPI_Comm comm, const std::function<void()>& step) {
    int outcome = kDone;
    std::string message;
    try {
        step();
    } catch (const UsageError& e) {
        outcome = kUsageError;
        message = e.what();
    } catch (const std::bad_alloc&) {
        outcome = kToolError;
        message = "out of memory";
    } catch (const std::exception& e) {
        outcome = kToolError;
        message = e.what();
    }
    std::vector<int> outcomes(static_cast<size_t>(size_of(comm)));
    MPI_Allgather(&outcome, 1, MPI_INT, outcomes.data(), 1, MPI_INT, comm);
    const auto first = std::find_if(outcomes.begin(), outcomes.end(), [](int o) { return o != kDone; });
    if (first == outcomes.end()) return;
    const std::string agreed = broadcast_text(comm, message, static_cast<int>(first - outcomes.begin()));
    if (*first == kUsageError) throw UsageError(agreed);
    throw ToolError(agreed);
}

std::string broadcast_text(MPI_Comm comm, const std::string& text, int root) {
    int length = static_cast<int>(text.size());
    MPI_Bcast(&length, 1, MPI_INT, root, comm);
    std::string out = rank_of(comm) == root ? text : std::string(static_cast<size_t>(length), '\0');
    MPI_Bcast(out.data(), length, MPI_CHAR, root, comm);
    return out;
}

}  // namespace kkm_tool
