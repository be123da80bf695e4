#include "graph/ncut.h"

#include <algorithm>
#include <limits>

#include "core/parallel.h"

namespace kkm::graph {
namespace {

constexpr int64_t kRows = 1024;
constexpr double kInf = std::numeric_limits<double>::infinity();

/// links(i, c) for every c, into row (k values, zeroed here).
void row_links(const SparseGraph& A, const std::vector<int32_t>& labels, int64_t i, double* row, int64_t k) {
    std::fill(row, row + k, 0.0);
    for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
        row[labels[static_cast<size_t>(A.indices[static_cast<size_t>(e)])]] += A.values[static_cast<size_t>(e)];
    }
}

}  // namespace

NcutLloyd::NcutLloyd(const SparseGraph& A, const std::vector<double>& degree, int64_t k, int threads)
    : A_(A), degree_(degree), k_(k), threads_(threads) {}

std::vector<float> NcutLloyd::weights() const {
    return std::vector<float>(degree_.begin(), degree_.end());
}

NcutCentres NcutLloyd::centres(const std::vector<int32_t>& labels) const {
    const auto k = static_cast<size_t>(k_);
    NcutCentres c;
    c.mass.assign(k, 0.0);
    for (int64_t i = 0; i < A_.n; ++i)
        c.mass[static_cast<size_t>(labels[static_cast<size_t>(i)])] += degree_[static_cast<size_t>(i)];
    // links(c, c) summed per block of rows, the blocks combined in order (thread-count free).
    const int64_t blocks = block_count(A_.n, kRows);
    std::vector<double> partial(static_cast<size_t>(blocks) * k, 0.0);
    parallel_blocks(threads_, blocks, [&](int64_t b) {
        std::vector<double> row(k);
        double* sums = partial.data() + static_cast<size_t>(b) * k;
        for (int64_t i = b * kRows; i < std::min(A_.n, (b + 1) * kRows); ++i) {
            const int32_t own = labels[static_cast<size_t>(i)];
            row_links(A_, labels, i, row.data(), k_);
            sums[own] += row[static_cast<size_t>(own)];
        }
    });
    c.links.assign(k, 0.0);
    for (int64_t b = 0; b < blocks; ++b) {
        for (size_t j = 0; j < k; ++j) c.links[j] += partial[static_cast<size_t>(b) * k + j];
    }
    c.norm.assign(k, kInf);
    for (size_t j = 0; j < k; ++j) {
        if (c.mass[j] > 0) c.norm[j] = (kKnnShift * c.mass[j] + c.links[j]) / (c.mass[j] * c.mass[j]);
    }
    return c;
}

double NcutLloyd::self_term(int64_t i) const {
    const double d = degree_[static_cast<size_t>(i)];
    return kKnnShift / d + static_cast<double>(A_.weight(i, i)) / (d * d);
}

double NcutLloyd::centre_distance(const NcutCentres& c, double self, double d, int32_t own, int64_t j,
                                  const double* links) {
    const double inner = ((j == own ? kKnnShift : 0.0) + links[j] / d) / c.mass[static_cast<size_t>(j)];
    return self - 2.0 * inner + c.norm[static_cast<size_t>(j)];
}

double NcutLloyd::reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) {
    const NcutCentres c = centres(labels);
    const int64_t blocks = block_count(A_.n, kRows);
    std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
    parallel_blocks(threads_, blocks, [&](int64_t b) {
        std::vector<double> row(static_cast<size_t>(k_));
        for (int64_t i = b * kRows; i < std::min(A_.n, (b + 1) * kRows); ++i) {
            const double d = degree_[static_cast<size_t>(i)], self = self_term(i);
            const int32_t own = labels[static_cast<size_t>(i)];
            row_links(A_, labels, i, row.data(), k_);
            int32_t best = -1;
            double best_d = kInf;
            for (int64_t j = 0; j < k_; ++j) {
                if (!(c.mass[static_cast<size_t>(j)] > 0)) continue;
                const double v = centre_distance(c, self, d, own, j, row.data());
                if (v < best_d) {
                    best_d = v;
                    best = static_cast<int32_t>(j);
                }
            }
            next[static_cast<size_t>(i)] = best;
            const double clamped = std::max(best_d, 0.0);
            dist[static_cast<size_t>(i)] = static_cast<float>(clamped);
            partial[static_cast<size_t>(b)] += d * clamped;
        }
    });
    double total = 0;
    for (double v : partial) total += v;
    return total;
}

double NcutLloyd::objective_against(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) const {
    // Point by point, as reassign measures a point's distance to a centre (degree-weighted,
    // each clamped at 0): the closed form below holds only for the centres' own clusters.
    const NcutCentres c = centres(members);
    const int64_t blocks = block_count(A_.n, kRows);
    std::vector<double> partial(static_cast<size_t>(blocks), 0.0);
    parallel_blocks(threads_, blocks, [&](int64_t b) {
        std::vector<double> row(static_cast<size_t>(k_));
        for (int64_t i = b * kRows; i < std::min(A_.n, (b + 1) * kRows); ++i) {
            const double d = degree_[static_cast<size_t>(i)];
            const int32_t own = members[static_cast<size_t>(i)];
            row_links(A_, members, i, row.data(), k_);
            const double v = centre_distance(c, self_term(i), d, own, labels[static_cast<size_t>(i)], row.data());
            partial[static_cast<size_t>(b)] += d * std::max(v, 0.0);
        }
    });
    double total = 0;
    for (double v : partial) total += v;
    return total;
}

double NcutLloyd::objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) {
    if (members != labels) return objective_against(members, labels);
    const NcutCentres c = centres(labels);
    double loops = 0;
    for (int64_t i = 0; i < A_.n; ++i) {
        loops += static_cast<double>(A_.weight(i, i)) / degree_[static_cast<size_t>(i)];
    }
    double total = kKnnShift * static_cast<double>(A_.n) + loops;
    for (int64_t j = 0; j < k_; ++j) {
        const double w = c.mass[static_cast<size_t>(j)];
        if (w > 0) total -= kKnnShift + c.links[static_cast<size_t>(j)] / w;
    }
    return total;
}

double NcutLloyd::normalized_cut(const std::vector<int32_t>& labels) const {
    const NcutCentres c = centres(labels);
    double cut = 0;
    for (int64_t j = 0; j < k_; ++j) {
        const double w = c.mass[static_cast<size_t>(j)];
        if (w > 0) cut += (w - c.links[static_cast<size_t>(j)]) / w;
    }
    return cut;
}

double NcutLloyd::footprint(double n, double k, int threads) {
    return n * (4 + 4 + 4 + 4) + threads * 8 * k + 8 * k * (n / static_cast<double>(kRows) + 4);
}

}  // namespace kkm::graph
