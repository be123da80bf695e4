// LAPACK half of the linear-algebra wrapper.
#include <lapacke.h>

#include <string>

#include "core/error.h"
#include "core/linalg.h"

namespace kkm::linalg {

void dsyevd(int64_t n, double* A, double* w) {
    const lapack_int info = LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', static_cast<lapack_int>(n),
                                           A, static_cast<lapack_int>(n), w);
    if (info != 0) {
        fail(KKM_ERR_INTERNAL, "eigen-decomposition (LAPACK dsyevd) of a " + std::to_string(n) +
                                   "x" + std::to_string(n) + " matrix failed, info=" +
                                   std::to_string(info));
    }
}

}  // namespace kkm::linalg
