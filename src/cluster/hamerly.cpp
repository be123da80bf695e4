#include "cluster/hamerly.h"

#include <algorithm>
#include <limits>

namespace kkm {

Drift centre_drift(const Matrix& now, const Matrix& before) {
    Drift d;
    for (int64_t j = 0; j < now.rows; ++j) {
        double s = 0;
        for (int64_t q = 0; q < now.cols; ++q) {
            const double diff = static_cast<double>(now.row(j)[q]) - before.row(j)[q];
            s += diff * diff;
        }
        d.moved.push_back(std::sqrt(s));
        if (d.moved.back() > d.largest) {
            d.second = d.largest;
            d.largest = d.moved.back();
            d.largest_at = j;
        } else if (d.moved.back() > d.second) {
            d.second = d.moved.back();
        }
    }
    return d;
}

namespace {

/// ½‖c_a − c_b‖ in float64.
double half_distance(const Matrix& C, int64_t a, int64_t b) {
    double s = 0;
    for (int64_t q = 0; q < C.cols; ++q) {
        const double diff = static_cast<double>(C.row(a)[q]) - C.row(b)[q];
        s += diff * diff;
    }
    return 0.5 * std::sqrt(s);
}

}  // namespace

std::vector<double> half_separation(const Matrix& C, const std::vector<char>& alive) {
    // O(k) memory: Hamerly's bounds serve any k (half_distances holds k² values).
    std::vector<double> half(static_cast<size_t>(C.rows), std::numeric_limits<double>::infinity());
    for (int64_t a = 0; a < C.rows; ++a) {
        for (int64_t b = 0; b < a; ++b) {
            if (!alive[static_cast<size_t>(a)] || !alive[static_cast<size_t>(b)]) continue;
            const double h = half_distance(C, a, b);
            half[static_cast<size_t>(a)] = std::min(half[static_cast<size_t>(a)], h);
            half[static_cast<size_t>(b)] = std::min(half[static_cast<size_t>(b)], h);
        }
    }
    return half;
}

std::vector<double> half_distances(const Matrix& C, const std::vector<char>& alive) {
    const int64_t k = C.rows;
    std::vector<double> pairs(static_cast<size_t>(k * k), std::numeric_limits<double>::infinity());
    for (int64_t a = 0; a < k; ++a) {
        for (int64_t b = 0; b < a; ++b) {
            if (!alive[static_cast<size_t>(a)] || !alive[static_cast<size_t>(b)]) continue;
            pairs[static_cast<size_t>(a * k + b)] = pairs[static_cast<size_t>(b * k + a)] = half_distance(C, a, b);
        }
    }
    return pairs;
}

std::vector<double> nearest_half(const std::vector<double>& pairs, int64_t k) {
    std::vector<double> half(static_cast<size_t>(k));
    for (int64_t a = 0; a < k; ++a) {
        half[static_cast<size_t>(a)] = *std::min_element(pairs.begin() + a * k, pairs.begin() + (a + 1) * k);
    }
    return half;
}

bool leaves_cluster_empty(const std::vector<int32_t>& labels, int64_t k, const Comm& comm) {
    std::vector<double> seen(static_cast<size_t>(k), 0.0);
    for (int32_t l : labels) seen[static_cast<size_t>(l)] = 1.0;
    sum_over_ranks(comm, seen.data(), seen.size());
    return std::find(seen.begin(), seen.end(), 0.0) != seen.end();
}

}  // namespace kkm
