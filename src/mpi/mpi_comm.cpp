#include "mpi/mpi_comm.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kkm {
namespace {

void check(int code, const char* call) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
    throw std::runtime_error(
        std::string(call) +
        " failed: " + (length > 0 ? std::string(text, static_cast<size_t>(length)) : "error " + std::to_string(code)));
}

int as_count(size_t bytes) {
    return static_cast<int>(bytes);
}  // callers keep bytes ≤ INT_MAX

bool stats_requested() {
    const char* value = std::getenv("KKMEANS_MPI_STATS");
    return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

/// Counts one gather that moved `sent` bytes out of this rank and `received` into it.
void count(MpiComm::Traffic& traffic, size_t sent, size_t received) {
    ++traffic.calls;
    traffic.sent += sent;
    traffic.received += received;
}

}  // namespace

MpiComm::MpiComm(MPI_Comm comm, size_t max_message) : max_message_(std::clamp<size_t>(max_message, 1, INT_MAX)) {
    check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
}

MpiComm::~MpiComm() {
    if (stats_requested()) {
        std::fprintf(stderr,
                     "kkm_fit_mpi: rank %d of %d: collectives %llu, bytes sent %llu, bytes received %llu, "
                     "status checks %llu\n",
                     rank_, size_, static_cast<unsigned long long>(traffic_.calls),
                     static_cast<unsigned long long>(traffic_.sent),
                     static_cast<unsigned long long>(traffic_.received),
                     static_cast<unsigned long long>(status_checks_));
    }
    MPI_Comm_free(&comm_);
}

void MpiComm::require_owner_thread() const {
    if (std::this_thread::get_id() != owner_) {
        throw std::logic_error(
            "the fit's MPI communicator was used from a thread other than the one that called "
            "kkm_fit_mpi");
    }
}

size_t MpiComm::round_bytes() const {
    return std::max<size_t>(1, max_message_ / static_cast<size_t>(size_));
}

void MpiComm::gather_status(int32_t mine, int32_t* all) const {
    require_owner_thread();
    check(MPI_Allgather(&mine, 1, MPI_INT32_T, all, 1, MPI_INT32_T, comm_), "MPI_Allgather");
    ++status_checks_;
}

void MpiComm::gather(const void* mine, size_t bytes, void* out) const {
    require_owner_thread();
    if (bytes == 0) return;  // the same count on every rank: all return here
    const size_t round = round_bytes();
    if (bytes <= round) {
        check(MPI_Allgather(mine, as_count(bytes), MPI_BYTE, out, as_count(bytes), MPI_BYTE, comm_), "MPI_Allgather");
        count(traffic_, bytes, bytes * static_cast<size_t>(size_));
        return;
    }
    // Rounds: in each, every rank sends the same slice [done, done + len) of its bytes.
    const auto ranks = static_cast<size_t>(size_);
    std::vector<char> buffer(round * ranks);
    for (size_t done = 0; done < bytes; done += round) {
        const size_t len = std::min(round, bytes - done);
        check(MPI_Allgather(static_cast<const char*>(mine) + done, as_count(len), MPI_BYTE, buffer.data(),
                            as_count(len), MPI_BYTE, comm_),
              "MPI_Allgather");
        count(traffic_, len, len * ranks);
        for (size_t r = 0; r < ranks; ++r)
            std::memcpy(static_cast<char*>(out) + r * bytes + done, &buffer[r * len], len);
    }
}

void MpiComm::gatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const {
    require_owner_thread();
    const auto ranks = static_cast<size_t>(size_);
    std::vector<uint64_t> all(ranks);
    const uint64_t mine64 = bytes;
    check(MPI_Allgather(&mine64, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm_), "MPI_Allgather");
    count(traffic_, sizeof mine64, sizeof mine64 * ranks);
    counts.assign(all.begin(), all.end());
    std::vector<size_t> starts(ranks + 1, 0);
    for (size_t r = 0; r < ranks; ++r) starts[r + 1] = starts[r] + counts[r];
    out.resize(starts[ranks]);
    if (starts[ranks] == 0) return;
    if (starts[ranks] > max_message_) {
        allgatherv_rounds(static_cast<const char*>(mine), bytes, out.data(), counts, starts);
        return;
    }
    std::vector<int> lengths(ranks), displacements(ranks);
    for (size_t r = 0; r < ranks; ++r) {
        lengths[r] = as_count(counts[r]);
        displacements[r] = as_count(starts[r]);
    }
    check(MPI_Allgatherv(mine, as_count(bytes), MPI_BYTE, out.data(), lengths.data(), displacements.data(), MPI_BYTE,
                         comm_),
          "MPI_Allgatherv");
    count(traffic_, bytes, starts[ranks]);
}

void MpiComm::allgatherv_rounds(const char* mine, size_t bytes, char* out, const std::vector<size_t>& counts,
                                const std::vector<size_t>& starts) const {
    // In each round every rank sends the next slice of at most round_bytes() of its bytes (none
    // once it has sent them all), so one call's total stays within max_message.
    const size_t ranks = counts.size(), round = round_bytes();
    const size_t largest = *std::max_element(counts.begin(), counts.end());
    std::vector<char> buffer(round * ranks);
    std::vector<int> lengths(ranks), displacements(ranks);
    for (size_t done = 0; done < largest; done += round) {
        size_t at = 0;
        for (size_t r = 0; r < ranks; ++r) {
            const size_t len = counts[r] > done ? std::min(round, counts[r] - done) : 0;
            lengths[r] = as_count(len);
            displacements[r] = as_count(at);
            at += len;
        }
        const size_t me = static_cast<size_t>(rank_);
        check(MPI_Allgatherv(mine + std::min(done, bytes), lengths[me], MPI_BYTE, buffer.data(), lengths.data(),
                             displacements.data(), MPI_BYTE, comm_),
              "MPI_Allgatherv");
        count(traffic_, static_cast<size_t>(lengths[me]), at);
        for (size_t r = 0; r < ranks; ++r) {
            if (lengths[r] == 0) continue;
            std::memcpy(out + starts[r] + done, &buffer[static_cast<size_t>(displacements[r])],
                        static_cast<size_t>(lengths[r]));
        }
    }
}

}  // namespace kkm
