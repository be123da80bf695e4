// Skinny products of the Lloyd and seeding steps: the dot products of many long rows (kernel
// rows or features, n×m) with a few (k centres or seeding candidates, t×m). Memory-bound:
// each row of A is read once, the few rows of B stay in L1/L2, and register tiles of
// R rows × J centres accumulate in vector lanes along m. The long rows may be float32 or half
// (binary16, widened exactly in registers as they are loaded, so a half store streams half
// the bytes and is never decoded into memory), contiguous or picked by index.
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

/// row_dots for the rows of A at A + idx[i]·lda (idx NULL: A + i·lda), i < rows.
void row_dots_at(Isa isa, const float* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                 int64_t ldb, int64_t m, float* out, int64_t ldo);

/// row_dots_at for rows stored as half: the same bits as widening the rows into float32
/// (from_half) and calling row_dots on them.
void row_dots_half(Isa isa, const uint16_t* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B,
                   int64_t cols, int64_t ldb, int64_t m, float* out, int64_t ldo);

/// o[s] += g · p[s] for s < count, in float64 (each p[s] widened exactly; a product, then a
/// sum: the bits of the plain loop on every path). The accumulations of cluster sums and
/// projections in float64.
void axpy_widen(Isa isa, double g, const float* p, double* o, int64_t count);
/// o[s] += g · p[s] for s < count in float32 (a product, then a sum: the plain loop's bits
/// on every path), p float32 or half (widened exactly). The cluster sums of kernel rows.
void axpy(Isa isa, float g, const float* p, float* o, int64_t count);
void axpy(Isa isa, float g, const uint16_t* p, float* o, int64_t count);
void axpy_avx512(float g, const float* p, float* o, int64_t count);
void axpy_avx512(float g, const uint16_t* p, float* o, int64_t count);
void axpy_avx2(float g, const float* p, float* o, int64_t count);
void axpy_avx2(float g, const uint16_t* p, float* o, int64_t count);
void axpy_widen_avx512(double g, const float* p, double* o, int64_t count);
void axpy_widen_avx2(double g, const float* p, double* o, int64_t count);

void row_dots_avx512(const float* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                     int64_t ldb, int64_t m, float* out, int64_t ldo);
void row_dots_avx512(const uint16_t* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                     int64_t ldb, int64_t m, float* out, int64_t ldo);
void row_dots_avx2(const float* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                   int64_t ldb, int64_t m, float* out, int64_t ldo);
void row_dots_avx2(const uint16_t* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                   int64_t ldb, int64_t m, float* out, int64_t ldo);

/// One register tile of row_dots: NR × NJ dot products over m terms (NR, NJ fixed by the
/// tile), the NR rows of A given by pointer. `next` (NULL, or NR row pointers) are rows a
/// later tile reads: the tile prefetches them as it goes, the line of each at term t when
/// t·sizeof(T) is a multiple of 64. (Written out in each tile's loop: GCC 12 drops the
/// prefetches of a helper function inlined there.)
template <class T>
using DotTile = void (*)(const T* const* A, const T* const* next, const float* B, int64_t ldb, int64_t m, float* out,
                         int64_t ldo);

template <class T, template <int64_t, int64_t, class> class Tile, int64_t NR, std::size_t... J>
constexpr std::array<DotTile<T>, sizeof...(J)> dot_tile_row(std::index_sequence<J...>) {
    return {&Tile<NR, static_cast<int64_t>(J) + 1, T>::run...};
}

template <class T, template <int64_t, int64_t, class> class Tile, int64_t J, std::size_t... I>
constexpr std::array<std::array<DotTile<T>, J>, sizeof...(I)> dot_tile_table(std::index_sequence<I...>) {
    return {dot_tile_row<T, Tile, static_cast<int64_t>(I) + 1>(std::make_index_sequence<J>())...};
}

/// row_dots_at over tiles of R rows × J columns of a path: Tile<nr, nj, T>::run computes one
/// tile (edge tiles use the smaller instantiations, 1 ≤ nr ≤ R, 1 ≤ nj ≤ J).
template <int64_t R, int64_t J, template <int64_t, int64_t, class> class Tile, class T>
void for_each_dot_tile(const T* A, const int64_t* idx, int64_t rows, int64_t lda, const float* B, int64_t cols,
                       int64_t ldb, int64_t m, float* out, int64_t ldo) {
    static constexpr auto table = dot_tile_table<T, Tile, J>(std::make_index_sequence<R>());
    const auto row = [&](int64_t r) { return A + (idx != nullptr ? idx[r] : r) * lda; };
    for (int64_t i = 0; i < rows; i += R) {
        const int64_t nr = rows - i < R ? rows - i : R;
        const T* a[R] = {};
        for (int64_t r = 0; r < nr; ++r) a[r] = row(i + r);
        // The rows two tiles ahead are fetched while this tile computes, a line of each in step
        // with its own reads (past the last row: this tile's own again). The hardware
        // prefetcher alone left the tiles waiting on memory, contiguous rows or not (AMD Zen 3,
        // 2 threads, 60000 half rows of m = 1000: 4 candidates 8-10 ms, 10 centres 15-18 ms);
        // the next tile's first 4 KiB at once brought that to 6.5 and 12 ms there, and to
        // 4.3 and 7.3 ms on Zen 5, where this way takes 3.1 and 6.1 ms.
        const T* ahead[R] = {};
        for (int64_t r = 0; r < R; ++r) ahead[r] = i + 2 * R + r < rows ? row(i + 2 * R + r) : a[r < nr ? r : 0];
        for (int64_t j = 0; j < cols; j += J) {
            const int64_t nj = cols - j < J ? cols - j : J;
            table[static_cast<std::size_t>(nr - 1)][static_cast<std::size_t>(nj - 1)](
                a, j == 0 ? ahead : nullptr, B + j * ldb, ldb, m, out + i * ldo + j, ldo);
        }
    }
}

}  // namespace kkm::engine
