#include "graph/anchors.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/blocking.h"
#include "core/error.h"
#include "core/linalg.h"
#include "core/parallel.h"
#include "core/progress.h"

namespace kkm::graph {
namespace {

/// Anchors per task of the gram.
constexpr int64_t kGramAnchors = 16;

/// The lists transposed: anchor j's rows rows[at[j] .. at[j+1]) in row order, with the slot of
/// each (row·r + t) so that its weight and the row's other anchors can be read.
struct ByAnchor {
    std::vector<int64_t> at;
    std::vector<int64_t> slot;
};

ByAnchor by_anchor(const AnchorLists& Z, int64_t p) {
    ByAnchor t;
    t.at.assign(static_cast<size_t>(p + 1), 0);
    for (const int32_t j : Z.index) ++t.at[static_cast<size_t>(j) + 1];
    for (int64_t j = 0; j < p; ++j) t.at[static_cast<size_t>(j + 1)] += t.at[static_cast<size_t>(j)];
    std::vector<int64_t> next(t.at.begin(), t.at.end() - 1);
    t.slot.resize(Z.index.size());
    for (size_t s = 0; s < Z.index.size(); ++s) {
        t.slot[static_cast<size_t>(next[static_cast<size_t>(Z.index[s])]++)] = static_cast<int64_t>(s);
    }
    return t;
}

/// The top R pairs of component `id` of M̂ (anchors `nodes`), densely.
void component_pairs(const AnchorGram& g, const std::vector<int64_t>& nodes, int32_t id, int64_t R,
                     std::vector<ComponentPair>& out) {
    const auto m = static_cast<int64_t>(nodes.size());
    std::vector<double> S(static_cast<size_t>(m * m));
    for (int64_t a = 0; a < m; ++a) {
        const int64_t i = nodes[static_cast<size_t>(a)];
        const double si = 1.0 / std::sqrt(g.degree[static_cast<size_t>(i)]);
        for (int64_t b = 0; b < m; ++b) {
            const int64_t j = nodes[static_cast<size_t>(b)];
            S[static_cast<size_t>(a * m + b)] =
                g.M[static_cast<size_t>(i * g.p + j)] * si / std::sqrt(g.degree[static_cast<size_t>(j)]);
        }
    }
    dense_component_pairs(m, S, id, R, out);
}

}  // namespace

void anchor_weights(const float* dist, int64_t r, double sigma2, float* w) {
    double total = 0;
    std::vector<double> e(static_cast<size_t>(r));
    for (int64_t t = 0; t < r; ++t) {
        e[static_cast<size_t>(t)] = std::exp(-(static_cast<double>(dist[t]) - dist[0]) / (2.0 * sigma2));
        total += e[static_cast<size_t>(t)];
    }
    for (int64_t t = 0; t < r; ++t) w[t] = static_cast<float>(e[static_cast<size_t>(t)] / total);
}

AnchorGram anchor_gram(const AnchorLists& Z, int64_t p, int threads) {
    AnchorGram g;
    g.p = p;
    g.M.assign(static_cast<size_t>(p * p), 0.0);
    g.degree.assign(static_cast<size_t>(p), 0.0);
    const ByAnchor t = by_anchor(Z, p);
    const int64_t r = Z.r;
    parallel_blocks(threads, block_count(p, kGramAnchors), [&](int64_t b) {
        for (int64_t j = b * kGramAnchors; j < std::min(p, (b + 1) * kGramAnchors); ++j) {
            double* row = g.M.data() + j * p;
            double deg = 0;
            for (int64_t e = t.at[static_cast<size_t>(j)]; e < t.at[static_cast<size_t>(j + 1)]; ++e) {
                const int64_t s = t.slot[static_cast<size_t>(e)], first = s - s % r;
                const double wj = Z.weight[static_cast<size_t>(s)];
                deg += wj;
                for (int64_t u = first; u < first + r; ++u) {
                    row[Z.index[static_cast<size_t>(u)]] += wj * static_cast<double>(Z.weight[static_cast<size_t>(u)]);
                }
            }
            g.degree[static_cast<size_t>(j)] = deg;
        }
    });
    return g;
}

double anchor_gram_footprint(double n, double r, double p) {
    return 16.0 * p * p + 8.0 * p + 8.0 * (p + 1) + 8.0 * n * r + 8.0 * p;
}

std::vector<int64_t> used_anchors(const AnchorGram& g) {
    std::vector<int64_t> keep;
    for (int64_t j = 0; j < g.p; ++j) {
        if (g.degree[static_cast<size_t>(j)] > 0) keep.push_back(j);
    }
    return keep;
}

AnchorGram restrict_gram(const AnchorGram& g, const std::vector<int64_t>& keep) {
    AnchorGram out;
    out.p = static_cast<int64_t>(keep.size());
    out.M.resize(static_cast<size_t>(out.p * out.p));
    out.degree.resize(static_cast<size_t>(out.p));
    for (int64_t a = 0; a < out.p; ++a) {
        const int64_t i = keep[static_cast<size_t>(a)];
        out.degree[static_cast<size_t>(a)] = g.degree[static_cast<size_t>(i)];
        for (int64_t b = 0; b < out.p; ++b) {
            out.M[static_cast<size_t>(a * out.p + b)] =
                g.M[static_cast<size_t>(i * g.p + keep[static_cast<size_t>(b)])];
        }
    }
    return out;
}

void renumber(AnchorLists& Z, const std::vector<int64_t>& keep, int64_t p) {
    std::vector<int32_t> to(static_cast<size_t>(p), -1);
    for (size_t a = 0; a < keep.size(); ++a) to[static_cast<size_t>(keep[a])] = static_cast<int32_t>(a);
    for (int32_t& j : Z.index) {
        j = to[static_cast<size_t>(j)];
        if (j < 0) fail(KKM_ERR_INTERNAL, "renumber: a listed anchor was not kept");
    }
}

Components anchor_components(const AnchorGram& g) {
    SparseGraph pattern;  // anchors j and l joined where M_jl > 0
    pattern.n = g.p;
    pattern.indptr.assign(1, 0);
    for (int64_t i = 0; i < g.p; ++i) {
        for (int64_t j = 0; j < g.p; ++j) {
            if (g.M[static_cast<size_t>(i * g.p + j)] > 0) {
                pattern.indices.push_back(static_cast<int32_t>(j));
                pattern.values.push_back(1.0f);
            }
        }
        pattern.indptr.push_back(pattern.entries());
    }
    return components(pattern);
}

Eigenpairs anchor_eigenpairs(const AnchorGram& g, const Components& parts, int64_t R, double floor) {
    std::vector<ComponentPair> pairs;
    std::vector<std::vector<int64_t>> nodes(static_cast<size_t>(parts.count));
    for (int64_t j = 0; j < g.p; ++j) nodes[static_cast<size_t>(parts.of[static_cast<size_t>(j)])].push_back(j);
    for (int32_t id = 0; id < static_cast<int32_t>(parts.count); ++id) {
        progress_check();
        progress_range(static_cast<double>(id) / static_cast<double>(parts.count),
                       static_cast<double>(id + 1) / static_cast<double>(parts.count));
        component_pairs(g, nodes[static_cast<size_t>(id)], id, R, pairs);
    }
    return merge_component_pairs(std::move(pairs), nodes, g.p, R, floor);
}

double anchor_eigenpairs_footprint(double p, double R) {
    return 2 * 8.0 * p * p + linalg::dsyevd_footprint(p) + Matrix::footprint(p, R) + 8.0 * p * R;
}

}  // namespace kkm::graph
