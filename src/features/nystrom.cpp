#include "features/nystrom.h"

#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/linalg.h"
#include "core/parallel.h"

namespace kkm {
namespace {

constexpr int64_t kRowBlock = 256;

/// P = U_r Λ_r^-½ for the eigenpairs above the cut-off.
Matrix whitening_projection(const Matrix& kll, int64_t m, double rcond) {
    std::vector<double> A(static_cast<size_t>(m * m)), w(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < m; ++j) {
            A[static_cast<size_t>(i * m + j)] =
                0.5 * (static_cast<double>(kll.row(i)[j]) + kll.row(j)[i]);
        }
    }
    linalg::dsyevd(m, A.data(), w.data());
    const double top = w[static_cast<size_t>(m - 1)];
    if (!(top > 0)) {
        invalid_data("the landmark kernel matrix K_LL has no positive eigenvalue (is the kernel "
                     "positive semi-definite, and are the data not all zero?)");
    }
    int64_t r = 0;
    while (r < m && w[static_cast<size_t>(m - 1 - r)] > rcond * top) ++r;
    Matrix P(m, r);
    for (int64_t c = 0; c < r; ++c) {
        const int64_t e = m - 1 - c;
        const double scale = 1.0 / std::sqrt(w[static_cast<size_t>(e)]);
        for (int64_t i = 0; i < m; ++i) P.row(i)[c] = static_cast<float>(A[static_cast<size_t>(i * m + e)] * scale);
    }
    return P;
}

}  // namespace

Matrix NystromMap::projection(const KernelBasis& basis, ConstMatrix landmark_rows, double rcond) {
    const int64_t m = basis.size();
    Matrix kll(m, m);
    basis.evaluate(landmark_rows, kll.data(), m);
    return whitening_projection(kll, m, rcond);
}

void NystromMap::transform(ConstMatrix X, float* out, int threads) const {
    const int64_t m = basis_.size(), r = P_.cols;
    struct Scratch {
        Matrix rows, kernel, features;
    };
    std::vector<Scratch> scratch(static_cast<size_t>(threads));
    parallel_blocks(threads, block_count(X.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, X.rows - begin);
        Scratch& s = scratch[static_cast<size_t>(omp_get_thread_num())];
        copy_into(X.slice(begin, count), s.rows);
        s.kernel.reshape(count, m);
        s.features.reshape(count, r);
        basis_.evaluate(s.rows.view(), s.kernel.data(), m);
        linalg::sgemm(linalg::Trans::no, linalg::Trans::no, count, r, m, 1.0f, s.kernel.data(), m,
                      P_.data(), r, 0.0f, s.features.data(), r, 1);
        std::copy(s.features.data(), s.features.data() + count * r, out + begin * r);
    });
}

}  // namespace kkm
