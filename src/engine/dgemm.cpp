// The blocking, packing and write-back of the float64 products (engine/dgemm.h), and the
// portable register tile. Blocks of kColumnBlock columns of op(B) and kRowBlock rows of op(A)
// are packed whole along k (never split: each C(i, j) stays one chain from p = 0), a path's
// register tile runs over each pair of panels, and the write-back applies alpha and beta.
#include "engine/dgemm.h"

#include <algorithm>
#include <cmath>

namespace kkm::engine {
namespace {

/// Rows of op(A) per packed block (a few MR-row panels: 384 KB at k = 1000, within L2) and
/// columns of op(B) per packed block (1.9 MB at k = 1000, within L3).
constexpr int64_t kRowBlock = 48;
constexpr int64_t kColumnBlock = 240;

constexpr int64_t kPortableRows = 4, kPortableCols = 4;

void tile_portable(int64_t k, const double* a, const double* b, double alpha, double beta, double* C, int64_t ldc,
                   int64_t h, int64_t w) {
    double s[kPortableRows * kPortableCols] = {};
    for (int64_t p = 0; p < k; ++p) {
        for (int64_t j = 0; j < kPortableCols; ++j) {
            for (int64_t i = 0; i < kPortableRows; ++i) {
                s[i + j * kPortableRows] =
                    std::fma(a[p * kPortableRows + i], b[p * kPortableCols + j], s[i + j * kPortableRows]);
            }
        }
    }
    for (int64_t j = 0; j < w; ++j) {
        for (int64_t i = 0; i < h; ++i) {
            C[i + j * ldc] = dgemm_finish(s[i + j * kPortableRows], alpha, beta, C[i + j * ldc]);
        }
    }
}

DgemmKernel kernel_of(Isa isa) {
    switch (isa) {
        case Isa::avx512: return dgemm_kernel_avx512();
        case Isa::avx2: return dgemm_kernel_avx2();
        case Isa::portable: break;
    }
    return {tile_portable, kPortableRows, kPortableCols};
}

/// op(A) rows [i0, i0 + rows) into panels of mr rows, each k steps of mr values (rows past
/// the end are zero).
void pack_rows(DOperand A, int64_t i0, int64_t rows, int64_t k, int64_t mr, double* out) {
    for (int64_t r = 0; r < rows; r += mr, out += mr * k) {
        const int64_t h = std::min(mr, rows - r);
        if (h < mr) std::fill(out, out + mr * k, 0.0);
        if (A.trans) {  // row i of op(A) is contiguous
            for (int64_t i = 0; i < h; ++i) {
                const double* x = A.x + (i0 + r + i) * A.ld;
                for (int64_t p = 0; p < k; ++p) out[p * mr + i] = x[p];
            }
        } else {  // column p of op(A) is contiguous
            for (int64_t p = 0; p < k; ++p) std::copy_n(A.x + i0 + r + p * A.ld, h, out + p * mr);
        }
    }
}

/// op(B) columns [j0, j0 + cols) into panels of nr columns, each k steps of nr values.
void pack_columns(DOperand B, int64_t j0, int64_t cols, int64_t k, int64_t nr, double* out) {
    for (int64_t c = 0; c < cols; c += nr, out += nr * k) {
        const int64_t w = std::min(nr, cols - c);
        if (w < nr) std::fill(out, out + nr * k, 0.0);
        if (B.trans) {  // row p of op(B) is contiguous
            for (int64_t p = 0; p < k; ++p) std::copy_n(B.x + j0 + c + p * B.ld, w, out + p * nr);
        } else {  // column j of op(B) is contiguous
            for (int64_t j = 0; j < w; ++j) {
                const double* x = B.x + (j0 + c + j) * B.ld;
                for (int64_t p = 0; p < k; ++p) out[p * nr + j] = x[p];
            }
        }
    }
}

}  // namespace

void dgemm_reference(DOperand A, DOperand B, int64_t m, int64_t n, int64_t k, double alpha, double beta, double* C,
                     int64_t ldc) {
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < m; ++i) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p) s = std::fma(A.at(i, p), B.at(p, j), s);
            C[i + j * ldc] = dgemm_finish(s, alpha, beta, C[i + j * ldc]);
        }
    }
}

Dgemm::Dgemm(Isa isa) : isa_(isa) {}

void Dgemm::operator()(DOperand A, DOperand B, int64_t m, int64_t n, int64_t k, double alpha, double beta, double* C,
                       int64_t ldc) {
    if (m <= 0 || n <= 0) return;
    const DgemmKernel kernel = kernel_of(isa_);
    const int64_t mr = kernel.mr, nr = kernel.nr;
    const int64_t row_block = (kRowBlock + mr - 1) / mr * mr, column_block = (kColumnBlock + nr - 1) / nr * nr;
    // One buffer for both panels (B's after A's), at least a huge page: mapped on huge pages
    // (zeroed_buffer.h) it costs a few page faults per decomposition, where growing with k in
    // small pages faulted in 600 of them (7 ms in a KVM guest).
    const int64_t depth = std::max<int64_t>(1, k);  // packed doubles per row (A) or column (B)
    const auto need = static_cast<size_t>((row_block + column_block) * depth);
    if (packed_.size() < need) packed_ = ZeroedArray<double>(std::max(need, kMappedBytes / sizeof(double)));
    double* const packed_a = packed_.data();
    double* const packed_b = packed_a + row_block * depth;
    for (int64_t j0 = 0; j0 < n; j0 += column_block) {
        const int64_t cols = std::min(column_block, n - j0);
        pack_columns(B, j0, cols, k, nr, packed_b);
        for (int64_t i0 = 0; i0 < m; i0 += row_block) {
            const int64_t rows = std::min(row_block, m - i0);
            pack_rows(A, i0, rows, k, mr, packed_a);
            for (int64_t c = 0; c < cols; c += nr) {
                const double* b = packed_b + (c / nr) * nr * k;
                for (int64_t r = 0; r < rows; r += mr) {
                    kernel.tile(k, packed_a + (r / mr) * mr * k, b, alpha, beta, C + (i0 + r) + (j0 + c) * ldc, ldc,
                                std::min(mr, rows - r), std::min(nr, cols - c));
                }
            }
        }
    }
}

}  // namespace kkm::engine
