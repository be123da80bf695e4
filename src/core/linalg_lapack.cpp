// LAPACK half of the linear-algebra wrapper.
#include <lapacke.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/linalg.h"

namespace kkm::linalg {

void dsyevd_rows(int64_t n, double* A, double* w) {
    // Kernel values beyond float32 (a polynomial kernel with a huge gamma or degree) arrive
    // here as Inf/NaN, on which LAPACK fails: say what is wrong instead of reporting a bug.
    for (int64_t i = 0; i < n * n; ++i) {
        if (!std::isfinite(A[i])) {
            invalid_data("the " + std::to_string(n) + "x" + std::to_string(n) +
                         " matrix to eigen-decompose holds a non-finite value (" + message_number(A[i]) +
                         "): kernel values overflow float32; reduce gamma, degree or the scale of X");
        }
    }
    // LAPACK works in column-major order. The upper triangle of the row-major matrix is
    // mirrored into the lower one, so that read column-major with uplo 'U' it is the matrix
    // LAPACKE's row-major call would pass (the same bits out), without its two n×n
    // transpositions and copies; the eigenvectors come back as the columns of the
    // column-major result, that is the rows of A.
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = i + 1; j < n; ++j) A[j * n + i] = A[i * n + j];
    }
    one_blas_thread_in_forked_child();
    const auto order = static_cast<lapack_int>(n);
    double work_size = 0;
    lapack_int iwork_size = 0;
    lapack_int info =
        LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', order, A, order, w, &work_size, -1, &iwork_size, -1);
    if (info == 0) {
        std::vector<double> work(static_cast<size_t>(work_size));
        std::vector<lapack_int> iwork(static_cast<size_t>(iwork_size));
        info = LAPACKE_dsyevd_work(LAPACK_COL_MAJOR, 'V', 'U', order, A, order, w, work.data(),
                                   static_cast<lapack_int>(work.size()), iwork.data(),
                                   static_cast<lapack_int>(iwork.size()));
    }
    if (info != 0) {
        fail(KKM_ERR_INTERNAL, "eigen-decomposition (LAPACK dsyevd) of a " + std::to_string(n) + "x" +
                                   std::to_string(n) + " matrix failed, info=" + std::to_string(info));
    }
}

}  // namespace kkm::linalg
