// BLAS half of the linear-algebra wrapper (kept apart from LAPACKE: blis.h and lapacke.h
// clash in one translation unit).
#include <omp.h>

#include <algorithm>

#include "core/linalg.h"
#include "core/parallel.h"

#if defined(KKM_BLAS_BLIS)
#include <blis.h>
#else
#include <cblas.h>
#endif

namespace kkm::linalg {

// LAPACK's BLAS calls reach whichever BLAS the process resolved first: BLIS's BLAS layer
// (threads by its global count, from BLIS_NUM_THREADS or OMP_NUM_THREADS at start-up) or an
// OpenMP OpenBLAS, the host's own included (R links one; it threads by omp_get_max_threads()
// of the calling thread). Neither takes a count per call, so in the child, and only there,
// both process-wide counts go to 1. The BLAS LAPACK reaches may also be another copy of BLIS
// than ours (Debian's blis-openmp libblas.so.3 is a library of its own, with its own thread
// count and no bli_ symbols to set it), which asks libgomp for its start-up thread count with
// a num_threads clause that omp_set_num_threads does not override: no active levels at all
// makes every region of this thread one thread, whichever library opens it. Called at each
// use rather than once: it is cheap.
void one_blas_thread_in_forked_child() {
    if (!in_forked_child()) return;
    omp_set_num_threads(1);
    omp_set_max_active_levels(0);
#if defined(KKM_BLAS_BLIS)
    bli_thread_set_num_threads(1);
#endif
}

double sgemm_footprint(double M, double K, double N) {
    const double kc = std::min(K, 512.0);
    return 4 * (kc * std::min(N, 4096.0) + std::min(M, 256.0) * kc);
}

#if defined(KKM_BLAS_BLIS)

void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int threads) {
    if (m <= 0 || n <= 0) return;
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(usable_threads(threads), &rntm);  // 1 in a forked child
    const trans_t blis_ta = ta == Trans::yes ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
    const trans_t blis_tb = tb == Trans::yes ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
    bli_sgemm_ex(blis_ta, blis_tb, m, n, k, &alpha, const_cast<float*>(A), lda, 1, const_cast<float*>(B), ldb, 1, &beta,
                 C, ldc, 1, nullptr, &rntm);
}

const char* blas_name() {
    return "blis";
}

#else

void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc, int /*threads*/) {
    if (m <= 0 || n <= 0) return;
    one_blas_thread_in_forked_child();  // OpenBLAS takes no thread count per call
    cblas_sgemm(CblasRowMajor, ta == Trans::yes ? CblasTrans : CblasNoTrans,
                tb == Trans::yes ? CblasTrans : CblasNoTrans, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb), beta, C,
                static_cast<int>(ldc));
}

const char* blas_name() {
    return "openblas";
}

#endif

}  // namespace kkm::linalg
