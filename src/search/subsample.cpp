#include "search/subsample.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "core/weights.h"
#include "features/landmarks.h"
#include "kernels/kernel.h"
#include "kernels/kernel_traits.h"

namespace kkm::search {
namespace {

constexpr int64_t kRows = 64;  // rows per parallel block

/// Mirrors the upper triangle into the lower one, so that D (and every kernel built from it)
/// is exactly symmetric.
void mirror(Matrix& D) {
    for (int64_t i = 0; i < D.rows; ++i) {
        for (int64_t j = 0; j < i; ++j) D.row(i)[j] = D.row(j)[i];
        D.row(i)[i] = 0.0f;
    }
}

}  // namespace

Subsample draw_subsample(int64_t n, const std::vector<float>& weights, int64_t size, uint64_t seed) {
    std::vector<int64_t> eligible;
    for (int64_t i = 0; i < n; ++i) {
        if (weight_at(weights, i) > 0) eligible.push_back(i);
    }
    Subsample sub;
    if (static_cast<int64_t>(eligible.size()) <= size) {
        sub.rows = std::move(eligible);
    } else {
        Rng rng(seed, Stream::search);
        for (int64_t at : uniform_landmarks(static_cast<int64_t>(eligible.size()), size, rng)) {
            sub.rows.push_back(eligible[static_cast<size_t>(at)]);  // ascending: both are
        }
    }
    if (!weights.empty()) {
        for (int64_t i : sub.rows) sub.weights.push_back(weights[static_cast<size_t>(i)]);
    }
    return sub;
}

std::vector<int64_t> random_order(int64_t s, Rng& rng) {
    std::vector<int64_t> order(static_cast<size_t>(s));
    std::iota(order.begin(), order.end(), int64_t{0});
    for (int64_t t = s - 1; t > 0; --t) {
        std::swap(order[static_cast<size_t>(t)], order[rng.below(static_cast<uint64_t>(t) + 1)]);
    }
    return order;
}

Matrix pairwise_distances(const Params& p, ConstMatrix X, const Subsample& sub, int threads) {
    const int64_t s = sub.size(), d = X.cols;
    Matrix D(s, s);
    if (kernel_traits(p.kernel).distance == KernelDistance::squared) {
        // |x|^2 + |y|^2 - 2 x.y of the centred rows, from the engine's linear kernel block.
        Params linear = p;
        linear.kernel = kDotProductKernel;
        const Matrix G = kernel_matrix(linear, 0.0, X, sub, threads);
        for (int64_t a = 0; a < s; ++a) {
            for (int64_t c = a + 1; c < s; ++c) {
                const double sq = static_cast<double>(G.row(a)[a]) + G.row(c)[c] - 2.0 * G.row(a)[c];
                D.row(a)[c] = static_cast<float>(std::max(0.0, sq));
            }
        }
        mirror(D);
        return D;
    }
    Matrix rows(s, d);
    for (int64_t a = 0; a < s; ++a) std::copy_n(X.row(sub.rows[static_cast<size_t>(a)]), d, rows.row(a));
    parallel_blocks(threads, block_count(s, kRows), [&](int64_t b) {
        for (int64_t a = b * kRows; a < std::min(s, (b + 1) * kRows); ++a) {
            const float* x = rows.row(a);
            for (int64_t c = a + 1; c < s; ++c) {
                const float* y = rows.row(c);
                double acc = 0;
                for (int64_t j = 0; j < d; ++j) acc += std::fabs(static_cast<double>(x[j]) - y[j]);
                D.row(a)[c] = static_cast<float>(acc);
            }
        }
    });
    mirror(D);
    return D;
}

void kernel_from_distances(const Matrix& D, double gamma, int threads, Matrix& K) {
    K.reshape(D.rows, D.cols);
    const auto g = static_cast<float>(gamma);
    parallel_blocks(threads, block_count(D.rows, kRows), [&](int64_t b) {
        for (int64_t a = b * kRows; a < std::min(D.rows, (b + 1) * kRows); ++a) {
            for (int64_t c = 0; c < D.cols; ++c) K.row(a)[c] = std::exp(-g * D.row(a)[c]);
        }
    });
}

KernelBasis subsample_basis(const Params& p, double gamma, ConstMatrix X, const Subsample& sub, int threads) {
    if (kernel_traits(p.kernel).precomputed) return KernelBasis(sub.rows, X.cols);
    Matrix points(sub.size(), X.cols);
    for (int64_t a = 0; a < sub.size(); ++a) {
        std::copy_n(X.row(sub.rows[static_cast<size_t>(a)]), X.cols, points.row(a));
    }
    const Kernel kernel(p.kernel, gamma, p.degree, p.coef0, resolve_isa(p.isa),
                        centring_shift(p.kernel, points.view(), sub.weights, threads));
    return KernelBasis(kernel, std::move(points));
}

Matrix kernel_matrix(const Params& p, double gamma, ConstMatrix X, const Subsample& sub, int threads) {
    const int64_t s = sub.size();
    Matrix K(s, s);
    const KernelBasis basis = subsample_basis(p, gamma, X, sub, threads);
    parallel_blocks(threads, block_count(s, kRows), [&](int64_t b) {
        const int64_t first = b * kRows, count = std::min(kRows, s - first);
        if (basis.precomputed()) {
            for (int64_t a = first; a < first + count; ++a)
                basis.evaluate(X.slice(sub.rows[static_cast<size_t>(a)], 1), K.row(a), s);
            return;
        }
        basis.evaluate(basis.points().view().slice(first, count), K.row(first), s);
    });
    for (int64_t a = 0; a < s; ++a) {  // exactly symmetric, as a precomputed kernel must be
        for (int64_t c = 0; c < a; ++c) K.row(a)[c] = K.row(c)[a];
    }
    return K;
}

Matrix submatrix(const Matrix& K, const std::vector<int64_t>& rows, const std::vector<int64_t>& cols) {
    Matrix out(static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols.size()));
    for (size_t a = 0; a < rows.size(); ++a) {
        const float* src = K.row(rows[a]);
        float* dst = out.row(static_cast<int64_t>(a));
        for (size_t c = 0; c < cols.size(); ++c) dst[c] = src[cols[c]];
    }
    return out;
}

Scales data_scales(KernelType kernel, const Matrix& D, const std::vector<float>& weights) {
    const int64_t s = D.rows;
    double pairs = 0, total = 0, knn = 0;
    const auto q = std::min<int64_t>(s - 1, std::llround(std::log2(static_cast<double>(s))) + 1);
    std::vector<float> row(static_cast<size_t>(s));
    for (int64_t a = 0; a < s; ++a) {
        const double wa = weight_at(weights, a);
        total += wa;
        for (int64_t c = 0; c < s; ++c) pairs += wa * weight_at(weights, c) * D.row(a)[c];
        std::copy_n(D.row(a), s, row.begin());
        std::nth_element(row.begin(), row.begin() + q, row.end());  // row[0] is the point itself
        knn += row[static_cast<size_t>(q)];
    }
    const double mean = pairs / (total * total);
    knn /= static_cast<double>(s);
    if (!(mean > 0)) invalid_data("gamma=search: the subsample's rows are all identical (zero spread)");
    if (!(knn > 0)) knn = mean;  // more duplicates than neighbours: the mean scale stands in
    const KernelDistance distance = kernel_traits(kernel).distance;
    return {gamma_for_scale(distance, mean), gamma_for_scale(distance, knn)};
}

}  // namespace kkm::search
