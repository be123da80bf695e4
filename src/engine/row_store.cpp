#include "engine/row_store.h"

#include <algorithm>

#include "engine/dots.h"
#include "engine/half.h"

namespace kkm {

RowStore::RowStore(int64_t rows, int64_t cols, RowPrecision precision, engine::Isa isa)
    : rows_(rows), cols_(cols), precision_(precision), isa_(isa) {
    if (precision == RowPrecision::f16) {
        half_ = ZeroedArray<uint16_t>(static_cast<size_t>(rows * cols));
    } else {
        own_ = Matrix(rows, cols);
        f32_ = own_.view();
    }
}

RowStore RowStore::view(ConstMatrix rows, engine::Isa isa) {
    RowStore s;
    s.rows_ = rows.rows;
    s.cols_ = rows.cols;
    s.isa_ = isa;
    s.f32_ = rows;
    return s;
}

float* RowStore::writable(int64_t begin) {
    return precision_ == RowPrecision::f32 && own_.data() != nullptr ? own_.row(begin) : nullptr;
}

void RowStore::put(int64_t begin, int64_t count, const float* src) {
    if (precision_ == RowPrecision::f16) {
        engine::encode_half(isa_, src, count * cols_, half_.data() + begin * cols_);
    } else {
        std::copy(src, src + count * cols_, own_.row(begin));
    }
}

ConstMatrix RowStore::block(int64_t begin, int64_t count, Matrix& scratch) const {
    if (precision_ == RowPrecision::f32) return f32_.slice(begin, count);
    scratch.reshape(count, cols_);
    engine::decode_half(isa_, half_.data() + begin * cols_, count * cols_, scratch.data());
    return scratch.view();
}

ConstMatrix RowStore::gather(const std::vector<int64_t>& idx, Matrix& scratch) const {
    const auto count = static_cast<int64_t>(idx.size());
    scratch.reshape(count, cols_);
    for (int64_t t = 0; t < count; ++t) {
        const int64_t i = idx[static_cast<size_t>(t)];
        if (precision_ == RowPrecision::f16) {
            engine::decode_half(isa_, half_.data() + i * cols_, cols_, scratch.row(t));
        } else {
            std::copy(f32_.row(i), f32_.row(i) + cols_, scratch.row(t));
        }
    }
    return scratch.view();
}

void RowStore::dots(const int64_t* idx, int64_t first, int64_t count, ConstMatrix B, float* out, int64_t ldo) const {
    const int64_t offset = idx != nullptr ? 0 : first * cols_;
    if (precision_ == RowPrecision::f16) {
        engine::row_dots_half(isa_, half_.data() + offset, idx, count, cols_, B.data, B.rows, B.cols, cols_, out, ldo);
    } else {
        engine::row_dots_at(isa_, f32_.data + offset, idx, count, cols_, B.data, B.rows, B.cols, cols_, out, ldo);
    }
}

void RowStore::add_row(int64_t i, float w, float* acc) const {
    if (precision_ == RowPrecision::f16) {
        engine::axpy(isa_, w, half_.data() + i * cols_, acc, cols_);
    } else {
        engine::axpy(isa_, w, f32_.row(i), acc, cols_);
    }
}

const float* RowStore::segment(int64_t i, int64_t lo, int64_t hi, float* buf) const {
    if (precision_ == RowPrecision::f32) return f32_.row(i) + lo;
    engine::decode_half(isa_, half_.data() + i * cols_ + lo, hi - lo, buf);
    return buf;
}

}  // namespace kkm
