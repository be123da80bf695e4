// Skinny products of the Lloyd and seeding steps: the dot products of many long rows (kernel
// rows or features, n×m) with a few (k centres or seeding candidates, t×m). Memory-bound:
// each row of A is read once, the few rows of B stay in L1/L2, and register tiles of
// R rows × J centres accumulate in vector lanes along m.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "engine/isa.h"

namespace kkm::engine {

/// out[i·ldo + j] = Σ_t A[i·lda + t] · B[j·ldb + t] for i < rows, j < cols, over m terms, on
/// path `isa`. Single-threaded; each value depends only on its two rows (any blocking gives
/// the same bits).
void row_dots(Isa isa, const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
              float* out, int64_t ldo);

void row_dots_avx512(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
                     float* out, int64_t ldo);
void row_dots_avx2(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
                   float* out, int64_t ldo);
void row_dots_portable(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
                       float* out, int64_t ldo);

/// One register tile of row_dots: NR × NJ dot products over m terms (NR, NJ fixed by the tile).
using DotTile = void (*)(const float* A, int64_t lda, const float* B, int64_t ldb, int64_t m, float* out, int64_t ldo);

template <template <int64_t, int64_t> class Tile, int64_t NR, std::size_t... J>
constexpr std::array<DotTile, sizeof...(J)> dot_tile_row(std::index_sequence<J...>) {
    return {&Tile<NR, static_cast<int64_t>(J) + 1>::run...};
}

template <template <int64_t, int64_t> class Tile, int64_t J, std::size_t... I>
constexpr std::array<std::array<DotTile, J>, sizeof...(I)> dot_tile_table(std::index_sequence<I...>) {
    return {dot_tile_row<Tile, static_cast<int64_t>(I) + 1>(std::make_index_sequence<J>())...};
}

/// row_dots over tiles of R rows × J columns of a path: Tile<nr, nj>::run computes one tile
/// (edge tiles use the smaller instantiations, 1 ≤ nr ≤ R, 1 ≤ nj ≤ J).
template <int64_t R, int64_t J, template <int64_t, int64_t> class Tile>
void for_each_dot_tile(const float* A, int64_t rows, int64_t lda, const float* B, int64_t cols, int64_t ldb, int64_t m,
                       float* out, int64_t ldo) {
    static constexpr auto table = dot_tile_table<Tile, J>(std::make_index_sequence<R>());
    for (int64_t i = 0; i < rows; i += R) {
        const int64_t nr = rows - i < R ? rows - i : R;
        for (int64_t j = 0; j < cols; j += J) {
            const int64_t nj = cols - j < J ? cols - j : J;
            table[static_cast<std::size_t>(nr - 1)][static_cast<std::size_t>(nj - 1)](A + i * lda, lda, B + j * ldb,
                                                                                      ldb, m, out + i * ldo + j, ldo);
        }
    }
}

}  // namespace kkm::engine
