// The distributed fit behind kkm_fit_mpi, over any kkm::Comm. It lives in libkkmeans, which
// knows nothing of MPI; libkkmeans_mpi only makes an MPI communicator and calls it.
//
// Why an exported entry point, and not a copy of the core inside libkkmeans_mpi: a program
// using kkm_fit_mpi also calls kkm_create, kkm_get_labels and kkm_last_error in libkkmeans.
// With a private copy of the core (libkkmeans built with -fvisibility=hidden: its internals
// cannot be reached otherwise), kkm_fit_mpi would store its error message in the copy's
// thread-local buffer, which kkm_last_error() never reads, and a second copy of every global
// (the ISA probe, the fork watch) would run beside the first. So libkkmeans exports this one
// function, in the version node KKMEANS_PRIVATE of src/kkmeans.map (the idea of glibc's
// GLIBC_PRIVATE): not declared in kkmeans.h, not part of the API, for libkkmeans_mpi of the
// same version alone (it passes its version; another is refused). Its parameters are C++:
// both libraries come from one build.
#pragma once

#include <cstdint>
#include <memory>

#include "core/comm.h"
#include "kkmeans.h"

namespace kkm {

/// Makes the communicator of one distributed fit. It runs inside the library's error
/// handling: when it cannot (MPI not initialised, a null communicator) it throws
/// std::invalid_argument, a standard type, since the exception crosses from libkkmeans_mpi
/// into libkkmeans; it becomes INVALID_ARGUMENT with its message.
using CommFactory = std::unique_ptr<Comm> (*)(void* context);

}  // namespace kkm

/// kkm_fit_mpi without MPI: make_comm(context) gives the ranks; the rest is as documented in
/// kkmeans_mpi.h. caller_version: KKM_VERSION_STRING of the calling library.
extern "C" KKM_API kkm_status kkm_private_fit_distributed(const char* caller_version, kkm::CommFactory make_comm,
                                                          void* context, kkm_model* model, const float* X,
                                                          int64_t n_local, int64_t d, const float* weights);
