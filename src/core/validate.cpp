#include "core/validate.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.h"
#include "core/parallel.h"

namespace kkm {
namespace {

[[noreturn]] void bad_value(const char* name, int64_t row, int64_t col, double value) {
    invalid_data(std::string(name) + " has a non-finite value (" + message_number(value, 9) + ") at row " +
                 std::to_string(row) + ", column " + std::to_string(col) + " (0-based)");
}

template <class T>
std::vector<float> weight_values_impl(const T* w, int64_t n, int64_t row_offset) {
    std::vector<float> out(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const double v = static_cast<double>(w[i]);
        if (!std::isfinite(v) || v < 0 || v > FLT_MAX) {
            invalid_data("weights[" + std::to_string(row_offset + i) + "] = " + message_number(v, 9) +
                         ": weights must be finite, >= 0 and within the float32 range (at most " +
                         message_number(FLT_MAX, 9) + ")");
        }
        out[static_cast<size_t>(i)] = static_cast<float>(v);
    }
    return out;
}

template <class T>
std::vector<float> check_weights_impl(const T* w, int64_t n) {
    if (w == nullptr) return {};
    std::vector<float> out = weight_values_impl(w, n, 0);
    double total = 0;
    for (int64_t i = 0; i < n; ++i) total += static_cast<double>(w[i]);
    if (!(total > 0)) invalid_data("weights: all weights are zero; at least one must be positive");
    return out;
}

}  // namespace

void require_pointer(const void* ptr, const char* name) {
    if (ptr == nullptr) invalid_argument(std::string(name) + " is NULL");
}

void require_shape(int64_t n, int64_t d, size_t element_bytes) {
    if (n <= 0) invalid_argument("n (number of rows) must be > 0, got " + std::to_string(n));
    if (d <= 0) invalid_argument("d (number of columns) must be > 0, got " + std::to_string(d));
    require_product(n, "n", d, "d", element_bytes, "X");
}

void require_product(int64_t a, const char* a_name, int64_t b, const char* b_name, size_t element_bytes,
                     const char* what) {
    // The largest byte count both an int64 offset and a size_t can hold.
    constexpr auto kMaxBytes =
        static_cast<uint64_t>(std::min<uint64_t>(static_cast<uint64_t>(INT64_MAX), static_cast<uint64_t>(SIZE_MAX)));
    int64_t count = 0;
    const bool fits = a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &count) &&
                      static_cast<uint64_t>(count) <= kMaxBytes / element_bytes;
    if (fits) return;
    invalid_argument(std::string(a_name) + "=" + std::to_string(a) + " times " + b_name + "=" + std::to_string(b) +
                     " overflows 64-bit sizes: " + what + ", " + a_name + " x " + b_name + " values of " +
                     std::to_string(element_bytes) + " bytes, would need more than " + std::to_string(kMaxBytes) +
                     " bytes; check " + a_name + " and " + b_name);
}

bool rows_finite(ConstMatrix X, int64_t begin, int64_t end) {
    uint32_t special = 0;
    for (int64_t i = begin; i < end && special == 0; ++i) {
        const float* r = X.row(i);
#pragma omp simd reduction(| : special)
        for (int64_t j = 0; j < X.cols; ++j) {
            uint32_t bits = 0;
            std::memcpy(&bits, r + j, sizeof bits);
            special |= (bits & 0x7F800000u) == 0x7F800000u ? 1u : 0u;
        }
    }
    return special == 0;
}

void require_finite(ConstMatrix X, const char* name, int64_t row_offset, int threads) {
    // Blocks checked over the threads; the first bad value (lowest row, then column) named.
    constexpr int64_t kBlock = 1024;
    const int64_t nblocks = block_count(X.rows, kBlock);
    std::vector<char> bad(static_cast<size_t>(nblocks), 0);
    parallel_blocks(threads, nblocks, [&](int64_t b) {
        bad[static_cast<size_t>(b)] = rows_finite(X, b * kBlock, std::min(X.rows, (b + 1) * kBlock)) ? 0 : 1;
    });
    const auto first = std::find(bad.begin(), bad.end(), 1);
    if (first == bad.end()) return;
    const int64_t begin = (first - bad.begin()) * kBlock;
    for (int64_t i = begin; i < std::min(X.rows, begin + kBlock); ++i) {
        for (int64_t j = 0; j < X.cols; ++j) {
            if (!std::isfinite(X.row(i)[j])) bad_value(name, row_offset + i, j, X.row(i)[j]);
        }
    }
}

std::vector<float> checked_weights(const float* w, int64_t n) {
    return check_weights_impl(w, n);
}
std::vector<float> checked_weights(const double* w, int64_t n) {
    return check_weights_impl(w, n);
}

std::vector<float> weight_values(const float* w, int64_t n, int64_t row_offset) {
    return weight_values_impl(w, n, row_offset);
}

Matrix to_float32(const double* X, int64_t n, int64_t d, const char* name) {
    Matrix out(n, d);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < d; ++j) {
            const double v = X[i * d + j];
            if (!std::isfinite(v)) bad_value(name, i, j, v);
            if (std::fabs(v) > FLT_MAX) {
                invalid_data(std::string(name) + " value " + message_number(v, 9) + " at row " + std::to_string(i) +
                             ", column " + std::to_string(j) + " is beyond the float32 range");
            }
            out.row(i)[j] = static_cast<float>(v);
        }
    }
    return out;
}

}  // namespace kkm
