// Non-owning views over row-major matrices in caller or library memory.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

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

/// An owning row-major float matrix.
struct Matrix {
    std::vector<float> values;
    int64_t rows = 0;
    int64_t cols = 0;

    Matrix() = default;
    Matrix(int64_t r, int64_t c) : values(static_cast<size_t>(r * c)), rows(r), cols(c) {}
    float* row(int64_t i) { return values.data() + i * cols; }
    const float* row(int64_t i) const { return values.data() + i * cols; }
    ConstMatrix view() const { return {values.data(), rows, cols}; }
};

}  // namespace kkm
