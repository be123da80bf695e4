// Nyström feature map (Calandriello & Rosasco 2018, Algorithm 1):
// features(x) = Λ^-½ Uᵀ k_L(x), with K_LL = U Λ Uᵀ over the m landmarks. Eigenvalues below
// rcond · λ_max are dropped: their directions are float32 round-off, and Λ^-½ would amplify
// them. Then ‖features(x) − features(y)‖² approximates the kernel distance.
#pragma once

#include <cstdint>

#include "core/matrix.h"
#include "kernels/kernel_basis.h"

namespace kkm {

class NystromMap {
public:
    /// P = U_r Λ_r^-½ from K_LL = basis.evaluate(landmark_rows) (landmark_rows: the landmarks
    /// as input rows, m × basis.input_dim(), a Matrix), dropping eigenvalues ≤ rcond·λ_max.
    static Matrix projection(const KernelBasis& basis, ConstMatrix landmark_rows, double rcond);

    NystromMap(KernelBasis basis, Matrix P) : basis_(std::move(basis)), P_(std::move(P)) {}

    int64_t dim() const { return P_.cols; }
    const KernelBasis& basis() const { return basis_; }
    const Matrix& projection() const { return P_; }

    /// out (X.rows × dim(), row-major) = K(X, L) · P, in parallel row blocks. X and out may
    /// be the caller's memory: blocks are copied through padded buffers.
    void transform(ConstMatrix X, float* out, int threads) const;

private:
    KernelBasis basis_;
    Matrix P_;  ///< m × r, columns U_i / sqrt(λ_i) in decreasing λ order
};

}  // namespace kkm
