// BLAS half of the linear-algebra wrapper (kept apart from LAPACKE: blis.h and lapacke.h
// clash in one translation unit).
#include "core/linalg.h"

#if defined(KKM_BLAS_BLIS)
#include <blis.h>
#else
#include <cblas.h>
#endif

namespace kkm::linalg {

#if defined(KKM_BLAS_BLIS)

void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
           int threads) {
    if (m <= 0 || n <= 0) return;
    rntm_t rntm = BLIS_RNTM_INITIALIZER;
    bli_rntm_set_num_threads(threads, &rntm);
    const trans_t blis_ta = ta == Trans::yes ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
    const trans_t blis_tb = tb == Trans::yes ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE;
    bli_sgemm_ex(blis_ta, blis_tb, m, n, k, &alpha, const_cast<float*>(A), lda, 1,
                 const_cast<float*>(B), ldb, 1, &beta, C, ldc, 1, nullptr, &rntm);
}

const char* blas_name() { return "blis"; }

#else

void sgemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
           int /*threads*/) {
    if (m <= 0 || n <= 0) return;
    cblas_sgemm(CblasRowMajor, ta == Trans::yes ? CblasTrans : CblasNoTrans,
                tb == Trans::yes ? CblasTrans : CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), alpha, A, static_cast<int>(lda), B,
                static_cast<int>(ldb), beta, C, static_cast<int>(ldc));
}

const char* blas_name() { return "openblas"; }

#endif

}  // namespace kkm::linalg
