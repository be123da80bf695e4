#include "graph/locate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/rng.h"

namespace kkm::graph {
namespace {

/// The bits of a value, with −0 read as +0 (equal values hash alike).
uint32_t bits_of(float v) {
    if (v == 0.0f) v = 0.0f;
    uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

/// Hash of a dense row's values.
uint64_t dense_hash(const float* x, int64_t d) {
    uint64_t h = 0x243f6a8885a308d3ULL;
    for (int64_t t = 0; t < d; ++t) h = mix64(h ^ bits_of(x[t]));
    return h;
}

/// Hash of a sparse row: its (column, value) pairs in column order.
class SparseHash {
public:
    void add(int64_t column, float value) { h_ = mix64(h_ ^ (static_cast<uint64_t>(column) << 32) ^ bits_of(value)); }
    uint64_t value() const { return h_; }

private:
    uint64_t h_ = 0x13198a2e03707344ULL;
};

/// The nodes whose hash is h.
std::pair<std::vector<std::pair<uint64_t, int32_t>>::const_iterator,
          std::vector<std::pair<uint64_t, int32_t>>::const_iterator>
with_hash(const std::vector<std::pair<uint64_t, int32_t>>& by_hash, uint64_t h) {
    const auto first = std::lower_bound(by_hash.begin(), by_hash.end(), std::make_pair(h, INT32_MIN));
    auto last = first;
    while (last != by_hash.end() && last->first == h) ++last;
    return {first, last};
}

/// Fills the attachment offsets from per-row counts (self rows have none).
void close_rows(Placement& p) {
    for (size_t i = 1; i < p.at.size(); ++i) p.at[i] += p.at[i - 1];
}

}  // namespace

PointLocator::PointLocator(SearchRows rows, int64_t q, int threads) : rows_(std::move(rows)), q_(q) {
    const int64_t n = rows_.size();
    by_hash_.resize(static_cast<size_t>(n));
    parallel_blocks(threads, block_count(n, kRowBlock), [&](int64_t b) {
        for (int64_t i = b * kRowBlock; i < std::min(n, (b + 1) * kRowBlock); ++i) {
            by_hash_[static_cast<size_t>(i)] = {dense_hash(rows_.centred().row(i), rows_.dim()),
                                                static_cast<int32_t>(i)};
        }
    });
    std::sort(by_hash_.begin(), by_hash_.end());
}

Placement PointLocator::place(ConstMatrix X, int threads) const {
    Placement p;
    p.self.assign(static_cast<size_t>(X.rows), -1);
    const int64_t d = rows_.dim();
    PerThread<Matrix> buffers(threads);
    parallel_blocks(threads, block_count(X.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, X.rows - begin);
        Matrix& c = buffers.local();
        rows_.centre(X.slice(begin, count), c);
        for (int64_t i = 0; i < count; ++i) {
            const float* x = c.row(i);
            const auto [first, last] = with_hash(by_hash_, dense_hash(x, d));
            for (auto it = first; it != last; ++it) {
                const float* y = rows_.centred().row(it->second);
                if (std::equal(x, x + d, y)) {
                    p.self[static_cast<size_t>(begin + i)] = it->second;
                    break;
                }
            }
        }
    });
    std::vector<int64_t> others;
    for (int64_t i = 0; i < X.rows; ++i) {
        if (p.self[static_cast<size_t>(i)] < 0) others.push_back(i);
    }
    p.at.assign(static_cast<size_t>(X.rows + 1), 0);
    if (others.empty()) return p;
    const NeighbourLists lists = exact_neighbours(rows_, gather_rows(X, others).view(), q_, threads);
    if (const int64_t far = lists.first_too_far(); far >= 0) too_far("X", others[static_cast<size_t>(far)]);
    for (size_t o = 0; o < others.size(); ++o) {
        p.at[static_cast<size_t>(others[o]) + 1] = q_;
    }
    close_rows(p);
    p.nodes.resize(static_cast<size_t>(p.at.back()));
    p.weights.assign(p.nodes.size(), 1.0f);
    for (size_t o = 0; o < others.size(); ++o) {
        const auto at = static_cast<size_t>(p.at[static_cast<size_t>(others[o])]);
        std::copy(lists.neighbours(static_cast<int64_t>(o)), lists.neighbours(static_cast<int64_t>(o)) + q_,
                  p.nodes.begin() + static_cast<std::ptrdiff_t>(at));
    }
    return p;
}

Placement PointLocator::training() const {
    const int64_t n = rows_.size(), d = rows_.dim();
    Placement p = training_placement(n);
    // by_hash_ is sorted by (hash, index): the first of a run of identical rows comes first.
    for (size_t a = 0; a < by_hash_.size();) {
        size_t b = a + 1;
        while (b < by_hash_.size() && by_hash_[b].first == by_hash_[a].first) ++b;
        for (size_t i = a + 1; i < b; ++i) {
            const float* x = rows_.centred().row(by_hash_[i].second);
            for (size_t j = a; j < i; ++j) {
                const float* y = rows_.centred().row(by_hash_[j].second);
                if (std::equal(x, x + d, y)) {
                    p.self[static_cast<size_t>(by_hash_[i].second)] = p.self[static_cast<size_t>(by_hash_[j].second)];
                    break;
                }
            }
        }
        a = b;
    }
    return p;
}

AffinityLocator::AffinityLocator(std::shared_ptr<const SparseGraph> graph) : graph_(std::move(graph)) {
    const SparseGraph& A = *graph_;
    by_hash_.resize(static_cast<size_t>(A.n));
    for (int64_t i = 0; i < A.n; ++i) {
        SparseHash h;
        for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
            h.add(A.indices[static_cast<size_t>(e)], A.values[static_cast<size_t>(e)]);
        }
        by_hash_[static_cast<size_t>(i)] = {h.value(), static_cast<int32_t>(i)};
    }
    std::sort(by_hash_.begin(), by_hash_.end());
}

Placement AffinityLocator::place(ConstMatrix X, int threads) const {
    const SparseGraph& A = *graph_;
    Placement p;
    p.self.assign(static_cast<size_t>(X.rows), -1);
    p.at.assign(static_cast<size_t>(X.rows + 1), 0);
    // Per row: its positive entries, or -1 - j for a negative value in column j (reported
    // after the loop for the first bad row, whatever the thread count).
    std::vector<int64_t> positive(static_cast<size_t>(X.rows), 0);
    parallel_blocks(threads, block_count(X.rows, kRowBlock), [&](int64_t b) {
        for (int64_t i = b * kRowBlock; i < std::min(X.rows, (b + 1) * kRowBlock); ++i) {
            const float* x = X.row(i);
            SparseHash h;
            int64_t count = 0;
            for (int64_t j = 0; j < X.cols && count >= 0; ++j) {
                if (x[j] < 0) count = -1 - j;
                if (x[j] > 0) {
                    h.add(j, x[j]);
                    ++count;
                }
            }
            positive[static_cast<size_t>(i)] = count;
            if (count <= 0) continue;
            const auto [first, last] = with_hash(by_hash_, h.value());
            for (auto it = first; it != last; ++it) {
                const int64_t node = it->second;
                if (A.row_end(node) - A.row_begin(node) != count) continue;
                bool same = true;
                for (int64_t e = A.row_begin(node); e < A.row_end(node) && same; ++e) {
                    same = x[A.indices[static_cast<size_t>(e)]] == A.values[static_cast<size_t>(e)];
                }
                if (same) {
                    p.self[static_cast<size_t>(i)] = node;
                    break;
                }
            }
        }
    });
    for (int64_t i = 0; i < X.rows; ++i) {
        const int64_t count = positive[static_cast<size_t>(i)];
        if (count < 0) {
            const int64_t j = -1 - count;
            invalid_data("X: row " + std::to_string(i) + ", column " + std::to_string(j) + " holds " +
                         message_number(X.row(i)[j]) + "; affinities to the training nodes must be >= 0");
        }
        if (count == 0) {
            invalid_data("X: row " + std::to_string(i) +
                         " has no positive affinity to any training node, so it has no place in the graph");
        }
    }
    for (int64_t i = 0; i < X.rows; ++i) {
        if (p.self[static_cast<size_t>(i)] < 0) p.at[static_cast<size_t>(i) + 1] = positive[static_cast<size_t>(i)];
    }
    close_rows(p);
    p.nodes.resize(static_cast<size_t>(p.at.back()));
    p.weights.resize(p.nodes.size());
    for (int64_t i = 0; i < X.rows; ++i) {
        if (p.self[static_cast<size_t>(i)] >= 0) continue;
        auto at = static_cast<size_t>(p.at[static_cast<size_t>(i)]);
        for (int64_t j = 0; j < X.cols; ++j) {
            if (X.row(i)[j] > 0) {
                p.nodes[at] = static_cast<int32_t>(j);
                p.weights[at++] = X.row(i)[j];
            }
        }
    }
    return p;
}

Placement AffinityLocator::training() const {
    const SparseGraph& A = *graph_;
    Placement p = training_placement(A.n);
    auto same = [&](int64_t u, int64_t v) {
        return A.row_end(u) - A.row_begin(u) == A.row_end(v) - A.row_begin(v) &&
               std::equal(A.indices.begin() + A.row_begin(u), A.indices.begin() + A.row_end(u),
                          A.indices.begin() + A.row_begin(v)) &&
               std::equal(A.values.begin() + A.row_begin(u), A.values.begin() + A.row_end(u),
                          A.values.begin() + A.row_begin(v));
    };
    for (size_t a = 0; a < by_hash_.size();) {
        size_t b = a + 1;
        while (b < by_hash_.size() && by_hash_[b].first == by_hash_[a].first) ++b;
        for (size_t i = a + 1; i < b; ++i) {
            for (size_t j = a; j < i; ++j) {
                if (same(by_hash_[i].second, by_hash_[j].second)) {
                    p.self[static_cast<size_t>(by_hash_[i].second)] = p.self[static_cast<size_t>(by_hash_[j].second)];
                    break;
                }
            }
        }
        a = b;
    }
    return p;
}

Placement training_placement(int64_t n) {
    Placement p;
    p.self.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) p.self[static_cast<size_t>(i)] = i;
    p.at.assign(static_cast<size_t>(n + 1), 0);
    return p;
}

double PointLocator::footprint(double n, double d) {
    return Matrix::footprint(n, d) + 4 * n + 16 * n;
}

}  // namespace kkm::graph
