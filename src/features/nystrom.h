// Nyström projections, for features(x) = Pᵀ k_L(x) over m landmarks with K_LL = U Λ Uᵀ:
//  - plain (Calandriello & Rosasco 2018, Algorithm 1): P = U Λ^-½;
//  - rank-restricted (Wang, Gittens & Mahoney 2019, Algorithm 2): keep the top-ℓ eigenpairs
//    (the regularised pseudo-inverse of K_LL), R = C U_ℓ Λ_ℓ^-½ with C = K(X, L), V_s the top-s
//    right singular vectors of R, and P = U_ℓ Λ_ℓ^-½ V_s, so features are s-dimensional.
// Eigenvalues below rcond · λ_max are always dropped: their directions are float32 round-off,
// and Λ^-½ would amplify them. In both cases Pᵀ K_LL P = I: the features are coordinates of
// the projection of φ(x) onto an orthonormal basis of (part of) the landmarks' span.
#pragma once

#include <cstdint>
#include <vector>

#include "core/comm.h"
#include "core/matrix.h"
#include "engine/products.h"
#include "engine/row_store.h"
#include "kernels/kernel_basis.h"

namespace kkm {

/// Eigen-decomposition of the symmetric part (A + Aᵀ)/2 of a float matrix, in float64
/// (linalg::dsyevd_rows): `vectors` gets the eigenvectors as rows, `values` the eigenvalues
/// in ascending order; its large products on engine path `isa` (engine::Dgemm).
void symmetric_eigen(const Matrix& A, ZeroedArray<double>& vectors, std::vector<double>& values,
                     engine::Isa isa = engine::best_isa());

/// P = U_r Λ_r^-½ (m×r, columns in decreasing eigenvalue order) from
/// K_LL = basis.evaluate(landmark_rows), landmark_rows a Matrix (m × basis.input_dim()).
/// At most max_rank columns are kept (0: no limit). Throws INVALID_DATA if K_LL has no
/// positive eigenvalue.
Matrix nystrom_projection(const KernelBasis& basis, ConstMatrix landmark_rows, double rcond, int64_t max_rank = 0);

/// Nyström features F = G P (n×r) from the kernel rows G (n×m, float32 or half) in parallel row
/// blocks, and each row's residual K_ii − ‖f_i‖² (diag: K_ii) into residual. The residual is
/// signed: from half-precision rows ‖f_i‖² can exceed K_ii by rounding (up to 1e-2, amplified
/// through P's small eigenvalues), and clamping it would add that excess to every distance and
/// to the objective; FeatureLloyd clamps each point's whole distance instead.
Matrix nystrom_features(const RowStore& G, const Matrix& P, const std::vector<float>& diag,
                        std::vector<float>& residual, int threads);

/// Chunks of rows the fused rank restriction sums RᵀR in (model/fit_landmarks.cpp; fewer for
/// few rows).
inline constexpr int64_t kRankChunks = 64;

/// RᵀR of rows R = G P_ℓ arriving in blocks, in float64 in a fixed order whatever the thread
/// count: one accumulator per chunk of rows (a chunk's blocks are added in row order by one
/// thread at a time), summed in chunk order at the end.
class RankGram {
public:
    /// isa: the path of the blocks' products (engine::gram).
    RankGram(int64_t l, int64_t chunks, engine::Isa isa);
    /// Adds R_bᵀ R_b (float32, engine::gram) of the block R_b (rows × ℓ) to chunk `chunk`'s
    /// sum. `scratch` is the calling thread's.
    void add(int64_t chunk, ConstMatrix R_b, engine::GramScratch& scratch);
    /// P = P_ℓ V_s, V_s the top-s eigenvectors of RᵀR summed over the chunks and the ranks
    /// (collective), into Vs (ℓ × s) too when given.
    Matrix restrict(const Matrix& P_l, int64_t s, const Comm& comm, Matrix* Vs = nullptr);
    /// Bytes of the chunks' sums.
    static double footprint(int64_t l, int64_t chunks);

private:
    int64_t l_;
    engine::Isa isa_;
    std::vector<double> partial_;  ///< chunks × ℓ × ℓ
};

/// Rank restriction of a whitening projection P_ℓ (m×ℓ) to s columns: P_ℓ V_s, with V_s the
/// top-s eigenvectors of RᵀR = Σ_blocks (G_b P_ℓ)ᵀ (G_b P_ℓ), accumulated over row blocks of
/// the kernel rows G (n×m) in float64 in a fixed block order (no n×ℓ copy is kept).
/// Over rows spread across ranks, G holds this rank's rows and the ℓ×ℓ Gram matrix is added
/// over the ranks (collective).
Matrix rank_restrict(const Matrix& P_l, const RowStore& G, int64_t s, int threads, const Comm& comm = solo_comm());

}  // namespace kkm
