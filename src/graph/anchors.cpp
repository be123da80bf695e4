#include "graph/anchors.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/blocking.h"
#include "core/error.h"
#include "core/linalg.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "engine/dgemm.h"

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

/// Makes the entry of largest magnitude (the first, on ties) positive.
void fix_sign(std::vector<double>& v) {
    size_t at = 0;
    for (size_t i = 1; i < v.size(); ++i) {
        if (std::abs(v[i]) > std::abs(v[at])) at = i;
    }
    if (!v.empty() && v[at] < 0) {
        for (double& x : v) x = -x;
    }
}

struct Pair {
    double value;
    int32_t part;
    int64_t rank;
    std::vector<double> vector;  ///< over the component's anchors
};

/// The top R pairs of component `id` of M̂ (anchors `nodes`), densely.
void component_pairs(const AnchorGram& g, const std::vector<int64_t>& nodes, int32_t id, int64_t R,
                     std::vector<Pair>& out) {
    const auto m = static_cast<int64_t>(nodes.size());
    std::vector<double> S(static_cast<size_t>(m * m)), w(static_cast<size_t>(m));
    for (int64_t a = 0; a < m; ++a) {
        const int64_t i = nodes[static_cast<size_t>(a)];
        const double si = 1.0 / std::sqrt(g.degree[static_cast<size_t>(i)]);
        for (int64_t b = 0; b < m; ++b) {
            const int64_t j = nodes[static_cast<size_t>(b)];
            S[static_cast<size_t>(a * m + b)] =
                g.M[static_cast<size_t>(i * g.p + j)] * si / std::sqrt(g.degree[static_cast<size_t>(j)]);
        }
    }
    engine::Dgemm products(engine::best_isa());
    linalg::dsyevd_rows(m, S.data(), w.data(), &products);
    for (int64_t rank = 0; rank < std::min(R, m); ++rank) {
        const int64_t e = m - 1 - rank;  // ascending order: the largest last
        out.push_back(
            {w[static_cast<size_t>(e)], id, rank, std::vector<double>(S.begin() + e * m, S.begin() + (e + 1) * m)});
    }
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
    Components c;
    c.of.assign(static_cast<size_t>(g.p), -1);
    std::vector<int64_t> stack;
    for (int64_t start = 0; start < g.p; ++start) {
        if (c.of[static_cast<size_t>(start)] >= 0) continue;
        const auto id = static_cast<int32_t>(c.count++);
        int64_t size = 0;
        stack.assign(1, start);
        c.of[static_cast<size_t>(start)] = id;
        while (!stack.empty()) {
            const int64_t i = stack.back();
            stack.pop_back();
            ++size;
            for (int64_t j = 0; j < g.p; ++j) {
                if (c.of[static_cast<size_t>(j)] < 0 && g.M[static_cast<size_t>(i * g.p + j)] > 0) {
                    c.of[static_cast<size_t>(j)] = id;
                    stack.push_back(j);
                }
            }
        }
        c.sizes.push_back(size);
    }
    return c;
}

Eigenpairs anchor_eigenpairs(const AnchorGram& g, const Components& parts, int64_t R, double floor) {
    std::vector<Pair> pairs;
    std::vector<std::vector<int64_t>> nodes(static_cast<size_t>(parts.count));
    for (int64_t j = 0; j < g.p; ++j) nodes[static_cast<size_t>(parts.of[static_cast<size_t>(j)])].push_back(j);
    for (int32_t id = 0; id < static_cast<int32_t>(parts.count); ++id) {
        progress_check();
        progress_range(static_cast<double>(id) / static_cast<double>(parts.count),
                       static_cast<double>(id + 1) / static_cast<double>(parts.count));
        component_pairs(g, nodes[static_cast<size_t>(id)], id, R, pairs);
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
        if (a.value != b.value) return a.value > b.value;
        return a.part != b.part ? a.part < b.part : a.rank < b.rank;
    });
    int64_t kept = 0;
    while (kept < std::min<int64_t>(R, static_cast<int64_t>(pairs.size())) &&
           pairs[static_cast<size_t>(kept)].value > floor) {
        ++kept;
    }
    Eigenpairs out;
    out.vectors = Matrix(g.p, kept);
    for (int64_t l = 0; l < kept; ++l) {
        Pair& pair = pairs[static_cast<size_t>(l)];
        fix_sign(pair.vector);
        out.values.push_back(pair.value);
        const std::vector<int64_t>& where = nodes[static_cast<size_t>(pair.part)];
        for (size_t i = 0; i < where.size(); ++i) out.vectors.row(where[i])[l] = static_cast<float>(pair.vector[i]);
    }
    return out;
}

double anchor_eigenpairs_footprint(double p, double R) {
    return 2 * 8.0 * p * p + linalg::dsyevd_footprint(p) + Matrix::footprint(p, R) + 8.0 * p * R;
}

}  // namespace kkm::graph
