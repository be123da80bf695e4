// kkm_fit_mpi: makes the fit's communicator (a duplicate of the caller's) and hands the fit to
// libkkmeans (api/fit_distributed.h), where the input is checked across the ranks, the fit
// runs and errors become a status and kkm_last_error()'s message.
#include <memory>
#include <stdexcept>

#include "api/fit_distributed.h"
#include "kkmeans_mpi.h"
#include "mpi/mpi_comm.h"

namespace {

/// These checks come before any communication, so they are the calling rank's own; every rank
/// that passes the same communicator gets the same verdict.
void require_usable(MPI_Comm comm) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized == 0) {
        throw std::invalid_argument("MPI is not initialized: call MPI_Init or MPI_Init_thread before kkm_fit_mpi");
    }
    if (finalized != 0) throw std::invalid_argument("MPI is finalized: kkm_fit_mpi must run before MPI_Finalize");
    if (comm == MPI_COMM_NULL) throw std::invalid_argument("comm is MPI_COMM_NULL");
    int inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter != 0) {
        throw std::invalid_argument(
            "comm is an intercommunicator: pass an intracommunicator "
            "(MPI_Intercomm_merge makes one)");
    }
}

std::unique_ptr<kkm::Comm> make_mpi_comm(void* context) {
    const MPI_Comm comm = *static_cast<const MPI_Comm*>(context);
    require_usable(comm);
    return std::make_unique<kkm::MpiComm>(comm);
}

}  // namespace

extern "C" kkm_status kkm_fit_mpi(kkm_model* model, MPI_Comm comm, const float* X, int64_t n_local, int64_t d,
                                  const float* weights) {
    // Everything, make_mpi_comm included, runs inside libkkmeans's error handling: nothing
    // throws out of this call.
    return kkm_private_fit_distributed(KKM_VERSION_STRING, &make_mpi_comm, &comm, model, X, n_local, d, weights);
}
