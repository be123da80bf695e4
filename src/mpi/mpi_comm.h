// kkm::Comm over MPI: the ranks of a distributed fit (kkm_fit_mpi). The core library never
// sees MPI; it calls this class through kkm::Comm.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

#include "core/comm.h"

namespace kkm {

/// A private duplicate of the caller's communicator, so that the fit's collectives can never
/// match the caller's own messages (the usual practice of MPI libraries), with MPI errors
/// returned rather than fatal on it. Gathers move bytes (MPI_BYTE). MPI counts and
/// displacements are int: a gather whose total exceeds max_message bytes runs in rounds that
/// each stay within it, so any size_t count works. Failures of MPI calls throw
/// std::runtime_error (a standard type: it is caught in libkkmeans, another shared object)
/// naming the call and MPI's reason. Only the thread that made it may use it (kkmeans_mpi.h
/// promises MPI calls on the calling thread alone, so MPI_THREAD_FUNNELED suffices): a call
/// from another thread throws std::logic_error instead of calling MPI.
///
/// It counts its traffic; with the environment variable KKMEANS_MPI_STATS set (not "" or
/// "0"), each rank prints it to stderr when the communicator ends (at the end of kkm_fit_mpi):
/// "kkm_fit_mpi: rank R of P: collectives C, bytes sent S, bytes received B" (bench/).
class MpiComm final : public Comm {
public:
    /// Collective over comm (MPI_Comm_dup). max_message: the most bytes one MPI call gathers
    /// (clamped to [1, INT_MAX]; smaller values exist for tests of the rounds).
    explicit MpiComm(MPI_Comm comm, size_t max_message = INT_MAX);
    ~MpiComm() override;
    MpiComm(const MpiComm&) = delete;
    MpiComm& operator=(const MpiComm&) = delete;

    int rank() const override { return rank_; }
    int size() const override { return size_; }

    /// What this rank's gathers moved so far: MPI calls, bytes it contributed, bytes they
    /// delivered to it (every rank's share, its own included: the receive buffers' sizes).
    struct Traffic {
        uint64_t calls = 0;
        uint64_t sent = 0;
        uint64_t received = 0;
    };
    const Traffic& traffic() const { return traffic_; }
    /// Status words exchanged (one per collective step: Comm's protocol), not in traffic().
    uint64_t status_checks() const { return status_checks_; }

protected:
    void gather(const void* mine, size_t bytes, void* out) const override;
    void gatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const override;
    void gather_status(int32_t mine, int32_t* all) const override;

private:
    /// Bytes per rank in one round: round · size() ≤ max_message.
    size_t round_bytes() const;
    /// Throws unless called on the thread that made this communicator.
    void require_owner_thread() const;
    void allgatherv_rounds(const char* mine, size_t bytes, char* out, const std::vector<size_t>& counts,
                           const std::vector<size_t>& starts) const;

    MPI_Comm comm_ = MPI_COMM_NULL;
    int rank_ = 0;
    int size_ = 1;
    size_t max_message_;
    std::thread::id owner_ = std::this_thread::get_id();
    mutable Traffic traffic_;
    mutable uint64_t status_checks_ = 0;
};

}  // namespace kkm
