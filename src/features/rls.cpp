// Landmarks drawn proportionally to approximate ridge leverage scores (Calandriello & Rosasco
// 2018, Definition 3; the estimator of Alaoui & Mahoney 2015 and Calandriello et al. 2017).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/blocking.h"
#include "core/linalg.h"
#include "core/parallel.h"
#include "engine/products.h"
#include "features/landmarks.h"
#include "features/nystrom.h"

namespace kkm {
namespace {

/// K_SS: in one process the rows S of C (C = K(X, X_S)); over ranks, the sample's own rows
/// against themselves (rows S are spread over the ranks).
Matrix sample_gram(const LandmarkContext& ctx, const Matrix& C, const std::vector<int64_t>& S) {
    const auto s = static_cast<int64_t>(S.size());
    Matrix K(s, s);
    if (ctx.comm->size() == 1) {
        for (int64_t a = 0; a < s; ++a)
            std::copy(C.row(S[static_cast<size_t>(a)]), C.row(S[static_cast<size_t>(a)]) + s, K.row(a));
        return K;
    }
    const KernelBasis basis = landmark_basis(ctx, S);
    Matrix rows;
    copy_into(basis.points().view(), rows);
    basis.evaluate(rows.view(), K.data(), s);
    return K;
}

/// M = U diag(1/√(w + ridge)) for the eigen-decomposition K_SS = U diag(w) Uᵀ, so that
/// ‖K_iS M‖² = K_iS (K_SS + ridge·I)⁻¹ K_Si.
Matrix inverse_root(const Matrix& Kss, double ridge) {
    const int64_t s = Kss.rows;
    ZeroedArray<double> U;
    std::vector<double> w;
    symmetric_eigen(Kss, U, w);
    Matrix M(s, s);
    for (int64_t c = 0; c < s; ++c) {
        // K_SS is positive semi-definite: a negative eigenvalue is round-off.
        const double scale = 1.0 / std::sqrt(std::max(w[static_cast<size_t>(c)], 0.0) + ridge);
        for (int64_t r = 0; r < s; ++r) M.row(r)[c] = static_cast<float>(U[static_cast<size_t>(c * s + r)] * scale);
    }
    return M;
}

/// τ̃_i = (K_ii − ‖C_i M‖²) / λ for every row, clamped at 0, in parallel row blocks (each row
/// is written by one block, so the result does not depend on the thread count).
std::vector<double> scores(const LandmarkContext& ctx, const Matrix& C, const Matrix& M, double lambda) {
    const int64_t n = C.rows, s = C.cols;
    std::vector<double> tau(static_cast<size_t>(n));
    const engine::FixedRight right(ctx.kernel ? ctx.kernel->isa() : engine::best_isa(), M.view());
    PerThread<std::pair<Matrix, engine::BlockScratch>> products(ctx.threads);
    parallel_blocks(ctx.threads, block_count(n, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
        auto& [CM, block] = products.local();
        CM.reshape(count, s);
        right.apply(C.view().slice(begin, count), CM.data(), s, &block);
        for (int64_t r = 0; r < count; ++r) {
            double covered = 0.0;
            for (int64_t c = 0; c < s; ++c) covered += static_cast<double>(CM.row(r)[c]) * CM.row(r)[c];
            const double residual = ctx.diag[static_cast<size_t>(begin + r)] - covered;
            tau[static_cast<size_t>(begin + r)] = std::max(residual, 0.0) / lambda;
        }
    });
    return tau;
}

/// m distinct indices drawn with probability ∝ weight without replacement (Efraimidis &
/// Spirakis: the m largest keys log(u)/w_i, u uniform in (0, 1]). Zero weights rank after
/// every positive one, in random order, so they are taken only to fill m. One uniform draw
/// per index, in global index order: over ranks, each rank skips the draws of the rows
/// before its own, keeps its best m keys, and every rank ranks all of those alike.
std::vector<int64_t> weighted_without_replacement(const std::vector<double>& weight, int64_t m, Rng& rng,
                                                  const Comm& comm, const RowPartition& part) {
    struct Key {
        int64_t positive;  // (an integer: the keys travel between ranks as bytes)
        double value;
        int64_t index;
    };
    const auto before = [](const Key& a, const Key& b) {
        if (a.positive != b.positive) return a.positive > b.positive;
        if (a.value != b.value) return a.value > b.value;
        return a.index < b.index;
    };
    Rng mine = rng;
    mine.skip(static_cast<uint64_t>(part.offset));
    std::vector<Key> keys(weight.size());
    for (size_t i = 0; i < weight.size(); ++i) {
        const double u = 1.0 - mine.uniform();  // (0, 1]
        const double w = weight[i];
        const int64_t index = part.offset + static_cast<int64_t>(i);
        keys[i] = w > 0 ? Key{1, std::log(u) / w, index} : Key{0, u, index};
    }
    rng.skip(static_cast<uint64_t>(part.global));
    if (comm.size() > 1) {
        const auto best = std::min<size_t>(keys.size(), static_cast<size_t>(m));
        std::partial_sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(best), keys.end(), before);
        std::vector<char> all;
        std::vector<size_t> counts;
        comm.allgatherv(keys.data(), best * sizeof(Key), all, counts);
        keys.resize(all.size() / sizeof(Key));
        if (!keys.empty()) std::memcpy(keys.data(), all.data(), keys.size() * sizeof(Key));
    }
    std::nth_element(keys.begin(), keys.begin() + (m - 1), keys.end(), before);
    std::vector<int64_t> chosen(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) chosen[static_cast<size_t>(i)] = keys[static_cast<size_t>(i)].index;
    std::sort(chosen.begin(), chosen.end());
    return chosen;
}

}  // namespace

// The sub-sample stands in for all n points, so each of its points carries weight n/|S|:
// Φ Φᵀ ≈ (n/|S|) Φ_S Φ_Sᵀ, and by Woodbury
//   φ_iᵀ ((n/|S|) Φ_S Φ_Sᵀ + λI)⁻¹ φ_i = (K_ii − K_iS (K_SS + λ|S|/n · I)⁻¹ K_Si) / λ.
// Without the weight (ridge λ instead of λ|S|/n) the sub-sample would explain far too little
// of each point when |S| ≪ n, and every score would sit near its ceiling K_ii/λ, i.e. close to
// uniform sampling. With |S| = n both coincide with the exact τ_i.
std::vector<double> ridge_leverage_scores(const LandmarkContext& ctx, const std::vector<int64_t>& S, double lambda) {
    const RowPartition part = ctx.part.starts.empty() ? solo_partition(ctx.X.rows) : ctx.part;
    const Matrix C = kernel_columns(ctx, S);
    const double ridge = lambda * static_cast<double>(S.size()) / static_cast<double>(part.global);
    return scores(ctx, C, inverse_root(sample_gram(ctx, C, S), ridge), lambda);
}

double rls_footprint(const SamplerShape& sh) {
    const double n = sh.n, d = sh.d, m = sh.m;
    const bool pre = sh.precomputed;
    const RowBlocks b = row_blocks(n, sh.threads);
    const double row_block = b.workers * KernelBasis::row_block_footprint(b.rows, d, 0, pre);
    const auto s = static_cast<double>(rls_subsample_size(static_cast<int64_t>(n), static_cast<int64_t>(m)));  // |S|
    const double held = 4 * n + 8 * s;  // diagonal, S
    const double pool = 4 * n + 8 * n;
    const double columns = held + Matrix::footprint(n, s) + KernelBasis::footprint(s, d, pre) +
                           KernelBasis::build_footprint(s, d, pre) + row_block;
    const double root = held + Matrix::footprint(n, s) +
                        std::max(linalg::dsyevd_footprint(s), 8 * s * s + 8 * s + Matrix::footprint(s, s));
    const double scores = held + Matrix::footprint(n, s) + Matrix::footprint(s, s) + 8 * n +
                          engine::FixedRight::footprint(s, s) +
                          b.workers * (Matrix::footprint(b.rows, s) + engine::FixedRight::block_footprint(b.rows, s));
    const double draw = held + 8 * n + 24 * n + 8 * m;  // scores, sort keys, the chosen
    return std::max({pool, columns, root, scores, draw});
}

std::vector<int64_t> rls_landmarks(const LandmarkContext& ctx, int64_t m, double lambda, Rng& rng) {
    const RowPartition part = ctx.part.starts.empty() ? solo_partition(ctx.X.rows) : ctx.part;
    const int64_t n = part.global;
    const std::vector<int64_t> S = uniform_landmarks(n, rls_subsample_size(n, m), rng);
    return weighted_without_replacement(ridge_leverage_scores(ctx, S, lambda), m, rng, *ctx.comm, part);
}

}  // namespace kkm
