#include "features/nystrom.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/blocking.h"
#include "core/error.h"
#include "core/linalg.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "engine/dgemm.h"
#include "engine/products.h"

namespace kkm {

void symmetric_eigen(const Matrix& A, ZeroedArray<double>& vectors, std::vector<double>& values, engine::Isa isa) {
    const int64_t m = A.rows;
    vectors = ZeroedArray<double>(static_cast<size_t>(m * m));
    values.assign(static_cast<size_t>(m), 0.0);
    // (A + Aᵀ) / 2 in tiles (A.row(j)[i] down a column missed the cache at every step: 0.08 s
    // at m = 4000), with a cancellation poll after each row of tiles.
    constexpr int64_t kTile = 64;
    for (int64_t i0 = 0; i0 < m; i0 += kTile) {
        for (int64_t j0 = 0; j0 < m; j0 += kTile) {
            for (int64_t i = i0; i < std::min(m, i0 + kTile); ++i) {
                for (int64_t j = j0; j < std::min(m, j0 + kTile); ++j) {
                    vectors[static_cast<size_t>(i * m + j)] = 0.5 * (static_cast<double>(A.row(i)[j]) + A.row(j)[i]);
                }
            }
        }
        progress_check();
    }
    engine::Dgemm products(isa);
    linalg::dsyevd_rows(m, vectors.data(), values.data(), &products);
}

namespace {

constexpr int64_t kChunks = kReduceChunks;

}  // namespace

Matrix nystrom_projection(const KernelBasis& basis, ConstMatrix landmark_rows, double rcond, int64_t max_rank) {
    const int64_t m = basis.size();
    Matrix kll(m, m);
    basis.evaluate(landmark_rows, kll.data(), m);
    ZeroedArray<double> U;
    std::vector<double> w;
    symmetric_eigen(kll, U, w, basis.isa());
    const double top = w[static_cast<size_t>(m - 1)];
    if (!(top > 0)) {
        invalid_data(
            "the landmark kernel matrix K_LL has no positive eigenvalue (is the kernel "
            "positive semi-definite, and are the data not all zero?)");
    }
    // Eigenvalues below the float64 round-off of the decomposition (m·eps·top) are zero: even
    // with rcond=0, 1/sqrt of one of them (1e-60 happens for duplicate landmarks) overflows P.
    const double cutoff = std::max(rcond, static_cast<double>(m) * std::numeric_limits<double>::epsilon()) * top;
    int64_t r = 0;
    while (r < m && w[static_cast<size_t>(m - 1 - r)] > cutoff && (max_rank == 0 || r < max_rank)) ++r;
    Matrix P(m, r);
    for (int64_t c = 0; c < r; ++c) {
        const int64_t e = m - 1 - c;
        const double scale = 1.0 / std::sqrt(w[static_cast<size_t>(e)]);
        for (int64_t i = 0; i < m; ++i) P.row(i)[c] = static_cast<float>(U[static_cast<size_t>(e * m + i)] * scale);
    }
    return P;
}

RankGram::RankGram(int64_t l, int64_t chunks, engine::Isa isa)
    : l_(l), isa_(isa), partial_(static_cast<size_t>(chunks * l * l), 0.0) {}

double RankGram::footprint(int64_t l, int64_t chunks) {
    return 8.0 * static_cast<double>(chunks) * static_cast<double>(l) * static_cast<double>(l);
}

void RankGram::add(int64_t chunk, ConstMatrix R_b, engine::GramScratch& scratch) {
    const int64_t l = l_;
    const ConstMatrix RtR = engine::gram(isa_, R_b, scratch);
    double* acc = partial_.data() + chunk * l * l;
    for (int64_t t = 0; t < l * l; ++t) acc[t] += RtR.data[t];
}

Matrix RankGram::restrict(const Matrix& P_l, int64_t s, const Comm& comm, Matrix* Vs) {
    const int64_t l = l_, m = P_l.rows, chunks = static_cast<int64_t>(partial_.size()) / std::max<int64_t>(1, l * l);
    std::vector<double> V(static_cast<size_t>(l * l), 0.0), w(static_cast<size_t>(l));
    for (int64_t c = 0; c < chunks; ++c) {
        for (int64_t t = 0; t < l * l; ++t) V[static_cast<size_t>(t)] += partial_[static_cast<size_t>(c * l * l + t)];
    }
    sum_over_ranks(comm, V.data(), V.size());
    std::vector<double>().swap(partial_);        // not held through the decomposition
    engine::Dgemm products(engine::best_isa());
    linalg::dsyevd_rows(l, V.data(), w.data(), &products);  // RᵀR in float64: its eigenvectors are the rows of V
    // P = P_ℓ V_s with V_s the eigenvectors of the s largest eigenvalues (last columns).
    Matrix P(m, s);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t c = 0; c < s; ++c) {
            const int64_t e = l - 1 - c;
            double acc = 0;
            for (int64_t q = 0; q < l; ++q)
                acc += static_cast<double>(P_l.row(i)[q]) * V[static_cast<size_t>(e * l + q)];
            P.row(i)[c] = static_cast<float>(acc);
        }
    }
    if (Vs != nullptr) {
        *Vs = Matrix(l, s);
        for (int64_t q = 0; q < l; ++q) {
            for (int64_t c = 0; c < s; ++c)
                Vs->row(q)[c] = static_cast<float>(V[static_cast<size_t>((l - 1 - c) * l + q)]);
        }
    }
    return P;
}

Matrix rank_restrict(const Matrix& P_l, const RowStore& G, int64_t s, int threads, const Comm& comm) {
    const int64_t l = P_l.cols, n = G.rows();
    const int64_t per_chunk = block_count(n, kChunks);
    RankGram gram(l, kChunks, G.isa());
    const engine::FixedRight right(G.isa(), P_l.view());
    parallel_blocks(threads, kChunks, [&](int64_t c) {
        const int64_t end = std::min(n, (c + 1) * per_chunk);
        Matrix R, scratch;
        engine::BlockScratch block;
        engine::GramScratch RtR;
        for (int64_t begin = c * per_chunk; begin < end; begin += kRowBlock) {
            const int64_t count = std::min(kRowBlock, end - begin);
            R.reshape(count, l);
            right.apply(G.block(begin, count, scratch), R.data(), l, &block);
            gram.add(c, R.view(), RtR);
        }
    });
    return gram.restrict(P_l, s, comm);
}

Matrix nystrom_features(const RowStore& G, const Matrix& P, const std::vector<float>& diag,
                        std::vector<float>& residual, int threads) {
    const int64_t n = G.rows(), r = P.cols;
    Matrix F(n, r);
    residual.assign(static_cast<size_t>(n), 0.0f);
    const engine::FixedRight right(G.isa(), P.view());
    PerThread<std::pair<Matrix, engine::BlockScratch>> scratch(threads);
    parallel_blocks(threads, block_count(n, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
        auto& [rows_scratch, block] = scratch.local();
        right.apply(G.block(begin, count, rows_scratch), F.row(begin), r, &block);
        for (int64_t i = begin; i < begin + count; ++i) {
            double norm = 0;
            for (int64_t t = 0; t < r; ++t) norm += static_cast<double>(F.row(i)[t]) * F.row(i)[t];
            // Signed: from half-precision rows ‖f_i‖² can exceed K_ii by rounding (up to 1e-2),
            // and clamping here would add that excess to every distance and to the objective
            // (FeatureLloyd clamps each point's whole distance instead, as LandmarkLloyd does).
            residual[static_cast<size_t>(i)] = static_cast<float>(diag[static_cast<size_t>(i)] - norm);
        }
    });
    return F;
}

}  // namespace kkm
