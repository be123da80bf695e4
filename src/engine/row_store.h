// RowStore: the n×m kernel rows G = K(X, L) of the landmark methods, kept as float32 or, with
// `kernel_rows=f16`, as IEEE binary16 (half the memory and half the bytes every Lloyd
// iteration and seeding step streams). Readers never see the storage: they ask for rows as
// float32, which is a view into a float32 store and a block decoded into their scratch for
// a half store; every reader of a given store sees the same values.
#pragma once

#include <cstdint>
#include <vector>

#include "core/matrix.h"
#include "core/zeroed_buffer.h"
#include "engine/isa.h"

namespace kkm {

/// Storage precision of kernel rows.
enum class RowPrecision { f32, f16 };

class RowStore {
public:
    RowStore() = default;
    /// rows×cols zeros in `precision`; conversions run on path `isa`.
    RowStore(int64_t rows, int64_t cols, RowPrecision precision, engine::Isa isa);
    /// A read-only float32 view of rows owned by the caller (they must outlive the store).
    static RowStore view(ConstMatrix rows, engine::Isa isa);
    RowStore(const RowStore&) = delete;  // a view would point into the other's rows
    RowStore& operator=(const RowStore&) = delete;
    RowStore(RowStore&&) noexcept = default;
    RowStore& operator=(RowStore&&) noexcept = default;
    ~RowStore() = default;

    int64_t rows() const { return rows_; }
    int64_t cols() const { return cols_; }
    RowPrecision precision() const { return precision_; }
    engine::Isa isa() const { return isa_; }

    /// Where rows [begin, ...) of an owned float32 store can be written in place; nullptr for a
    /// half store (use put).
    float* writable(int64_t begin);
    /// Stores `count` float32 rows (row stride cols) at row `begin`, rounding for a half store.
    void put(int64_t begin, int64_t count, const float* src);

    /// Rows [begin, begin + count) as float32: a view of the store (float32), or decoded into
    /// scratch (half). The view is valid until scratch changes.
    ConstMatrix block(int64_t begin, int64_t count, Matrix& scratch) const;
    /// Rows idx, in that order, as float32 in scratch.
    ConstMatrix gather(const std::vector<int64_t>& idx, Matrix& scratch) const;
    /// out[i·ldo + j] = (row idx[i], or row first + i when idx is NULL) · (row j of B) for
    /// i < count, j < B.rows (B.cols = cols()), read where the rows are stored (half rows are
    /// widened in registers, never decoded into memory): the same bits as block or gather
    /// followed by engine::row_dots. Single-threaded.
    void dots(const int64_t* idx, int64_t first, int64_t count, ConstMatrix B, float* out, int64_t ldo) const;
    /// acc[t] += w · row i [t] for t < cols(), read where the row is stored (float32 sums:
    /// the bits of decoding it first).
    void add_row(int64_t i, float w, float* acc) const;
    /// Values [lo, hi) of row i as float32: a pointer into the store, or decoded into buf
    /// (room for hi − lo floats).
    const float* segment(int64_t i, int64_t lo, int64_t hi, float* buf) const;

private:
    int64_t rows_ = 0, cols_ = 0;
    RowPrecision precision_ = RowPrecision::f32;
    engine::Isa isa_ = engine::Isa::portable;
    Matrix own_;                  ///< float32 rows this store owns
    ConstMatrix f32_;             ///< the float32 rows (own_ or the caller's)
    ZeroedArray<uint16_t> half_;  ///< half rows
};

}  // namespace kkm
