#include "kernels/precomputed.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/parallel.h"

namespace kkm {
namespace {

constexpr int64_t kCheckBlock = 64;

std::string entry(int64_t i, int64_t j) {
    return "K[" + std::to_string(i) + "][" + std::to_string(j) + "]";
}

/// The violation of entries (i, j) and (j, i), as a message, or "".
std::string violation(ConstMatrix K, int64_t i, int64_t j, double scale) {
    const double kij = K.row(i)[j], kji = K.row(j)[i];
    const double bound = std::sqrt(static_cast<double>(K.row(i)[i]) * K.row(j)[j]);
    const std::string where = " (row " + std::to_string(i) + ", column " + std::to_string(j);
    if (std::fabs(kij - kji) > 1e-4 * (bound + std::fabs(kij) + std::fabs(kji)) + 1e-6 * scale) {
        return "kernel=precomputed: K is not symmetric: " + entry(i, j) + " = " + message_number(kij) + " but " +
               entry(j, i) + " = " + message_number(kji) + where + ")";
    }
    if (std::fabs(kij) > (1.0 + 1e-3) * bound + 1e-6 * scale) {
        return "kernel=precomputed: K is not positive semi-definite: |" + entry(i, j) +
               "| = " + message_number(std::fabs(kij)) + " exceeds sqrt(K[i][i] K[j][j]) = " + message_number(bound) +
               where + "; every kernel matrix satisfies Cauchy-Schwarz)";
    }
    return "";
}

/// The first violation with i in row block b (tile by tile against the blocks at and after
/// it, so that K[j][i] is read from a cached tile), as a message, or "".
std::string first_violation(ConstMatrix K, int64_t b, double scale) {
    const int64_t begin = b * kCheckBlock, end = std::min(K.rows, begin + kCheckBlock);
    for (int64_t tile = begin; tile < K.rows; tile += kCheckBlock) {
        const int64_t tile_end = std::min(K.rows, tile + kCheckBlock);
        for (int64_t i = begin; i < end; ++i) {
            for (int64_t j = std::max(tile, i + 1); j < tile_end; ++j) {
                std::string message = violation(K, i, j, scale);
                if (!message.empty()) return message;
            }
        }
    }
    return "";
}

}  // namespace

void check_precomputed_kernel(ConstMatrix K, int threads) {
    double scale = 0;
    for (int64_t i = 0; i < K.rows; ++i) {
        const float kii = K.row(i)[i];
        if (kii < 0.0f) {
            invalid_data("kernel=precomputed: K[" + std::to_string(i) + "][" + std::to_string(i) +
                         "] = " + message_number(kii) + " < 0 (row " + std::to_string(i) +
                         "): a kernel matrix has a non-negative diagonal (K_ii = |phi(x_i)|^2)");
        }
        scale = std::max(scale, static_cast<double>(kii));
    }
    // Each row block finds its first violation; that of the lowest block is reported, so the
    // message does not depend on the thread count.
    const int64_t nblocks = block_count(K.rows, kCheckBlock);
    std::vector<std::string> found(static_cast<size_t>(nblocks));
    parallel_blocks(threads, nblocks, [&](int64_t b) { found[static_cast<size_t>(b)] = first_violation(K, b, scale); });
    for (const std::string& message : found) {
        if (!message.empty()) invalid_data(message);
    }
}

}  // namespace kkm
