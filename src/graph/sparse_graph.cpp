#include "graph/sparse_graph.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "core/error.h"

namespace kkm::graph {
namespace {

/// Sorts each row's (column, weight) entries by column, then weight, and sums the entries of
/// one column in that order in float64 (so any order of the same entries gives the same sum);
/// entries of weight 0 are dropped. offsets: n + 1 row offsets into entries.
SparseGraph compress(int64_t n, const std::vector<int64_t>& offsets, std::vector<std::pair<int32_t, float>>& entries) {
    SparseGraph A;
    A.n = n;
    A.indptr.assign(static_cast<size_t>(n + 1), 0);
    A.indices.reserve(entries.size());  // no doubling beyond the entries (checked_graph_footprint)
    A.values.reserve(entries.size());
    for (int64_t i = 0; i < n; ++i) {
        auto first = entries.begin() + offsets[static_cast<size_t>(i)];
        auto last = entries.begin() + offsets[static_cast<size_t>(i) + 1];
        std::sort(first, last);
        for (auto e = first; e != last;) {
            const int32_t col = e->first;
            double sum = 0;
            for (; e != last && e->first == col; ++e) sum += static_cast<double>(e->second);
            if (sum == 0) continue;
            A.indices.push_back(col);
            A.values.push_back(static_cast<float>(sum));
        }
        A.indptr[static_cast<size_t>(i) + 1] = A.entries();
    }
    return A;
}

[[noreturn]] void bad_entry(const std::string& what) {
    invalid_argument("graph: " + what);
}

/// Repeated entries of one (i, j) are summed (compress): a sum beyond float32 is refused here,
/// naming the entry, before anything reads the weights.
void require_finite_sums(const SparseGraph& A) {
    for (int64_t i = 0; i < A.n; ++i) {
        for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
            if (std::isfinite(A.values[static_cast<size_t>(e)])) continue;
            invalid_data("graph: the repeated entries of (" + std::to_string(i) + ", " +
                         std::to_string(A.indices[static_cast<size_t>(e)]) +
                         ") sum beyond float32 (FLT_MAX = 3.4e38); an affinity is their sum: scale the weights");
        }
    }
}

}  // namespace

float SparseGraph::weight(int64_t i, int64_t j) const {
    const auto first = indices.begin() + row_begin(i), last = indices.begin() + row_end(i);
    const auto at = std::lower_bound(first, last, static_cast<int32_t>(j));
    return at != last && *at == j ? values[static_cast<size_t>(at - indices.begin())] : 0.0f;
}

SparseGraph symmetrised(const NeighbourLists& lists) {
    const int64_t n = lists.rows, q = lists.q;
    std::vector<int64_t> offsets(static_cast<size_t>(n + 1), 0);
    for (int64_t i = 0; i < n; ++i) {
        offsets[static_cast<size_t>(i) + 1] += q;
        for (int64_t j = 0; j < q; ++j) {
            const int32_t c = lists.neighbours(i)[j];
            if (c < 0 || c >= n || std::isnan(lists.distances(i)[j])) {
                fail(KKM_ERR_INTERNAL, "symmetrised: row " + std::to_string(i) + " has no neighbour " +
                                           std::to_string(j) + " among the " + std::to_string(n) + " rows");
            }
            ++offsets[static_cast<size_t>(c) + 1];
        }
    }
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    std::vector<std::pair<int32_t, float>> entries(static_cast<size_t>(offsets.back()));
    std::vector<int64_t> fill(offsets.begin(), offsets.end() - 1);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < q; ++j) {
            const int32_t c = lists.neighbours(i)[j];
            entries[static_cast<size_t>(fill[static_cast<size_t>(i)]++)] = {c, 0.5f};
            entries[static_cast<size_t>(fill[static_cast<size_t>(c)]++)] = {static_cast<int32_t>(i), 0.5f};
        }
    }
    return compress(n, offsets, entries);
}

std::vector<double> degrees(const SparseGraph& A) {
    std::vector<double> d(static_cast<size_t>(A.n), 0.0);
    for (int64_t i = 0; i < A.n; ++i) {
        double s = 0;
        for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) s += A.values[static_cast<size_t>(e)];
        d[static_cast<size_t>(i)] = s;
    }
    return d;
}

Components components(const SparseGraph& A) {
    Components c;
    c.of.assign(static_cast<size_t>(A.n), -1);
    std::vector<int64_t> stack;
    for (int64_t start = 0; start < A.n; ++start) {
        if (c.of[static_cast<size_t>(start)] >= 0) continue;
        const auto id = static_cast<int32_t>(c.count++);
        int64_t size = 0;
        stack.assign(1, start);
        c.of[static_cast<size_t>(start)] = id;
        while (!stack.empty()) {
            const int64_t i = stack.back();
            stack.pop_back();
            ++size;
            for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
                const int32_t j = A.indices[static_cast<size_t>(e)];
                if (c.of[static_cast<size_t>(j)] < 0) {
                    c.of[static_cast<size_t>(j)] = id;
                    stack.push_back(j);
                }
            }
        }
        c.sizes.push_back(size);
    }
    return c;
}

int64_t checked_offsets(int64_t n, const int64_t* indptr) {
    if (n < 1) bad_entry("n=" + std::to_string(n) + " nodes; a graph needs at least one");
    if (n > std::numeric_limits<int32_t>::max()) {
        bad_entry("n=" + std::to_string(n) + " nodes exceeds the 2147483647 the graph kernels index");
    }
    if (indptr[0] != 0) bad_entry("indptr[0]=" + std::to_string(indptr[0]) + "; CSR offsets start at 0");
    for (int64_t i = 0; i < n; ++i) {
        if (indptr[i + 1] < indptr[i]) {
            bad_entry("indptr[" + std::to_string(i + 1) + "]=" + std::to_string(indptr[i + 1]) + " is below indptr[" +
                      std::to_string(i) + "]=" + std::to_string(indptr[i]) + "; offsets must not decrease");
        }
    }
    const int64_t nnz = indptr[n];
    // The caller's nnz int64 indices must be addressable (else the entries' size would wrap, or
    // the allocation fail as an internal error).
    if (nnz > std::numeric_limits<int64_t>::max() / static_cast<int64_t>(sizeof(int64_t))) {
        bad_entry("indptr[" + std::to_string(n) + "]=" + std::to_string(nnz) +
                  " entries overflow 64-bit sizes (8-byte indices); check indptr");
    }
    return nnz;
}

SparseGraph checked_graph(int64_t n, const int64_t* indptr, const int64_t* indices, const float* values) {
    const int64_t nnz = checked_offsets(n, indptr);
    std::vector<int64_t> offsets(indptr, indptr + n + 1);
    std::vector<std::pair<int32_t, float>> entries(static_cast<size_t>(nnz));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t e = indptr[i]; e < indptr[i + 1]; ++e) {
            const int64_t j = indices[e];
            const float v = values != nullptr ? values[e] : 1.0f;
            if (j < 0 || j >= n) {
                bad_entry("indices[" + std::to_string(e) + "]=" + std::to_string(j) + " (row " + std::to_string(i) +
                          ") is outside [0, n=" + std::to_string(n) + ")");
            }
            if (!std::isfinite(v) || v < 0) {
                invalid_data("graph: values[" + std::to_string(e) + "]=" + message_number(v) + " (entry " +
                             std::to_string(i) + ", " + std::to_string(j) +
                             ") is not a finite non-negative weight; affinities must be >= 0");
            }
            entries[static_cast<size_t>(e)] = {static_cast<int32_t>(j), v};
        }
    }
    SparseGraph A = compress(n, offsets, entries);
    std::vector<std::pair<int32_t, float>>().swap(entries);  // freed before the checks read A
    require_finite_sums(A);
    for (int64_t i = 0; i < n; ++i) {
        if (A.row_begin(i) == A.row_end(i)) {
            invalid_data("graph: node " + std::to_string(i) +
                         " has no edge (degree 0); normalized cut and the heat kernel divide by each node's degree: "
                         "give it an edge (a self-loop A[i,i] > 0 makes it a cluster of its own) or drop it");
        }
        for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
            const int32_t j = A.indices[static_cast<size_t>(e)];
            const float v = A.values[static_cast<size_t>(e)], back = A.weight(j, i);
            if (back != v) {
                invalid_data("graph: the affinity matrix is not symmetric: A[" + std::to_string(i) + "," +
                             std::to_string(j) + "]=" + message_number(v, 9) + " but A[" + std::to_string(j) + "," +
                             std::to_string(i) + "]=" + message_number(back, 9) +
                             "; pass (A + A^T)/2 for a directed graph");
            }
        }
    }
    return A;
}

double checked_graph_footprint(double n, double entries) {
    return 8 * (n + 1) + 8 * entries + 8 * (n + 1) + 8 * entries + 12 * n;
}

double held_graph_footprint(double n, double entries) {
    return 8 * (n + 1) + 8 * entries + 8 * n + 4 * n;
}

double symmetrised_footprint(double n, double q) {
    const double entries = 2 * n * q;
    return 8 * entries + 8 * n + 8 * n + 8 * entries + 8 * n + 4 * n + 8 * n;
}

}  // namespace kkm::graph
