// Non-owning views over row-major matrices in caller or library memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include "core/zeroed_buffer.h"

namespace kkm {

/// A read-only row-major n×d matrix view.
template <class T>
struct MatrixView {
    const T* data = nullptr;
    int64_t rows = 0;
    int64_t cols = 0;

    const T* row(int64_t i) const { return data + i * cols; }
    MatrixView slice(int64_t begin, int64_t count) const { return {row(begin), count, cols}; }
};

using ConstMatrix = MatrixView<float>;

/// Zero floats every Matrix keeps after its last element. Debian's BLIS 0.9 reads (never
/// writes) past the end of its operands in some shapes — up to one whole row of A when it
/// has a single row, a few floats past B and C — so every buffer handed to GEMM is a Matrix
/// (or a caller's block copied into one) with one spare row plus this slack behind it.
inline constexpr int64_t kGemmSlack = 64;

/// Floats a padded r×c Matrix allocates: r·c + c + kGemmSlack. Throws std::bad_array_new_length
/// (OUT_OF_MEMORY at the C API) when that overflows, instead of allocating a wrapped size: a
/// last line of defence behind the entry points' size checks (core/validate.h).
inline size_t padded_floats(int64_t r, int64_t c) {
    int64_t elements = 0;
    if (r < 0 || c < 0 || __builtin_mul_overflow(r, c, &elements) ||
        __builtin_add_overflow(elements, c + kGemmSlack, &elements) ||
        static_cast<uint64_t>(elements) > SIZE_MAX / sizeof(float)) {
        throw std::bad_array_new_length();
    }
    return static_cast<size_t>(elements);
}

/// An owning row-major float matrix, zero-initialised (without writing: see ZeroedBuffer),
/// with one spare row plus kGemmSlack zero floats after the last element (see kGemmSlack).
struct Matrix {
    ZeroedBuffer values;
    int64_t rows = 0;
    int64_t cols = 0;

    Matrix() = default;
    Matrix(int64_t r, int64_t c) : values(padded_floats(r, c)), rows(r), cols(c) {}
    /// Bytes an r×c Matrix allocates (padded_floats), for the up-front memory estimates.
    static double footprint(double r, double c) { return 4 * (r * c + c + static_cast<double>(kGemmSlack)); }
    float* data() { return values.data(); }
    const float* data() const { return values.data(); }
    float* row(int64_t i) { return values.data() + i * cols; }
    const float* row(int64_t i) const { return values.data() + i * cols; }
    ConstMatrix view() const { return {values.data(), rows, cols}; }
    /// Makes this a rows×cols matrix, reusing the storage when it is large enough.
    void reshape(int64_t r, int64_t c) {
        const size_t need = padded_floats(r, c);
        if (values.size() < need) values = ZeroedBuffer(need);
        rows = r;
        cols = c;
    }
};

/// An owning copy of a view.
inline Matrix copy_of(ConstMatrix m) {
    Matrix out(m.rows, m.cols);
    for (int64_t i = 0; i < m.rows; ++i) {
        for (int64_t j = 0; j < m.cols; ++j) out.row(i)[j] = m.row(i)[j];
    }
    return out;
}

/// As out.reshape(r, c), but storage that must grow grows to half as much again: for buffers
/// reused by calls whose sizes creep up (the mini-batch iterations' kernel blocks), a few
/// reallocations instead of one (and a fresh mapping to fault in) per call. The slack is
/// mapped but not touched.
inline void reshape_growing(Matrix& out, int64_t r, int64_t c) {
    const size_t need = padded_floats(r, c);
    if (out.values.size() < need) out.values = ZeroedBuffer(need + need / 2);
    out.reshape(r, c);
}

/// Rows i in [begin, end) of out = rows idx[i] of X (out shaped idx.size() x X.cols).
inline void copy_rows(ConstMatrix X, std::span<const int64_t> idx, int64_t begin, int64_t end, Matrix& out) {
    for (int64_t i = begin; i < end; ++i) {
        const float* src = X.row(idx[static_cast<size_t>(i)]);
        std::copy(src, src + X.cols, out.row(i));
    }
}

/// out = rows idx of X, in that order (out's storage reused when large enough).
inline void gather_rows_into(ConstMatrix X, const std::vector<int64_t>& idx, Matrix& out) {
    out.reshape(static_cast<int64_t>(idx.size()), X.cols);
    copy_rows(X, idx, 0, static_cast<int64_t>(idx.size()), out);
}

/// Rows idx of X, in that order, as a padded Matrix.
inline Matrix gather_rows(ConstMatrix X, const std::vector<int64_t>& idx) {
    Matrix rows;
    gather_rows_into(X, idx, rows);
    return rows;
}

/// out (M.cols × M.rows) = Mᵀ, copied in tiles of 32 × 32 so that both sides stay within a
/// few cache lines.
inline void transpose_into(ConstMatrix M, Matrix& out) {
    constexpr int64_t kTile = 32;
    out.reshape(M.cols, M.rows);
    for (int64_t i0 = 0; i0 < M.rows; i0 += kTile) {
        for (int64_t j0 = 0; j0 < M.cols; j0 += kTile) {
            for (int64_t i = i0; i < std::min(M.rows, i0 + kTile); ++i) {
                for (int64_t j = j0; j < std::min(M.cols, j0 + kTile); ++j) out.row(j)[i] = M.row(i)[j];
            }
        }
    }
}

/// A copy of a (caller's) block in a padded Matrix, safe to hand to GEMM.
inline void copy_into(ConstMatrix block, Matrix& out) {
    out.reshape(block.rows, block.cols);
    for (int64_t i = 0; i < block.rows * block.cols; ++i) out.values[static_cast<size_t>(i)] = block.data[i];
}

}  // namespace kkm
