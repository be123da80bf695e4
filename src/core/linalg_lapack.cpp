// LAPACK half of the linear-algebra wrapper.
#include <lapacke.h>

#include <cmath>
#include <string>

#include "core/error.h"
#include "core/linalg.h"

namespace kkm::linalg {

void dsyevd(int64_t n, double* A, double* w) {
    // Kernel values beyond float32 (a polynomial kernel with a huge gamma or degree) arrive
    // here as Inf/NaN, on which LAPACK fails: say what is wrong instead of reporting a bug.
    for (int64_t i = 0; i < n * n; ++i) {
        if (!std::isfinite(A[i])) {
            invalid_data("the " + std::to_string(n) + "x" + std::to_string(n) +
                         " matrix to eigen-decompose holds a non-finite value (" + message_number(A[i]) +
                         "): kernel values overflow float32; reduce gamma, degree or the scale of X");
        }
    }
    one_blas_thread_in_forked_child();
    const lapack_int info =
        LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', static_cast<lapack_int>(n), A, static_cast<lapack_int>(n), w);
    if (info != 0) {
        fail(KKM_ERR_INTERNAL, "eigen-decomposition (LAPACK dsyevd) of a " + std::to_string(n) + "x" +
                                   std::to_string(n) + " matrix failed, info=" + std::to_string(info));
    }
}

}  // namespace kkm::linalg
