#include "graph/nndescent.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/rng.h"
#include "engine/dots.h"

namespace kkm::graph {
namespace {

/// Rows per task of the parallel passes.
constexpr int64_t kRows = 256;
/// Locks guarding the lists, a row's lock being number row % kLocks.
constexpr size_t kLocks = 4096;

/// The lists being improved: each row's q entries ascending by (distance, index), with a flag
/// for entries not yet joined (new) and the iteration that brought each in.
struct Lists {
    int64_t n = 0, q = 0;
    std::vector<int32_t> idx;
    std::vector<float> dist;
    std::vector<uint8_t> fresh;
    std::vector<int32_t> born;

    bool holds(int64_t v, int32_t c) const {
        const int32_t* row = idx.data() + v * q;
        return std::find(row, row + q, c) != row + q;
    }
    /// Offers c at distance d to row v: it enters if (d, c) beats the last entry and c is not
    /// there yet. Returns whether it entered.
    bool offer(int64_t v, int32_t c, float d, int32_t iteration) {
        const size_t base = static_cast<size_t>(v * q);
        const size_t last = base + static_cast<size_t>(q) - 1;
        if (!(d < dist[last] || (d == dist[last] && c < idx[last]))) return false;
        if (holds(v, c)) return false;
        size_t p = last;
        while (p > base && (dist[p - 1] > d || (dist[p - 1] == d && idx[p - 1] > c))) {
            idx[p] = idx[p - 1];
            dist[p] = dist[p - 1];
            fresh[p] = fresh[p - 1];
            born[p] = born[p - 1];
            --p;
        }
        idx[p] = c;
        dist[p] = d;
        fresh[p] = 1;
        born[p] = iteration;
        return true;
    }
};

/// Distances of row a (by index into the centred rows) to the rows gathered in B.
void distances_to(const SearchRows& rows, const int64_t* a, int64_t count, const Matrix& B,
                  const std::vector<int64_t>& b_index, std::vector<float>& out) {
    out.resize(static_cast<size_t>(count * B.rows));
    const Matrix& X = rows.centred();
    engine::row_dots_at(rows.isa(), X.data(), a, count, X.cols, B.data(), B.rows, B.cols, X.cols, out.data(), B.rows);
    for (int64_t i = 0; i < count; ++i) {
        const float na = rows.norms()[static_cast<size_t>(a[i])];
        for (int64_t j = 0; j < B.rows; ++j) {
            const float nb = rows.norms()[static_cast<size_t>(b_index[static_cast<size_t>(j)])];
            float& v = out[static_cast<size_t>(i * B.rows + j)];
            v = std::max(0.0f, na + nb - 2.0f * v);
        }
    }
}

/// q distinct random rows other than v for each row v, from its own stream, sorted.
Lists random_lists(const SearchRows& rows, int64_t q, uint64_t seed, int threads) {
    Lists L;
    L.n = rows.size();
    L.q = q;
    const auto total = static_cast<size_t>(L.n * q);
    L.idx.assign(total, 0);
    L.dist.assign(total, 0.0f);
    L.fresh.assign(total, 1);
    L.born.assign(total, 0);
    struct Scratch {
        std::vector<int64_t> pick;
        Matrix B;
        std::vector<float> d;
    };
    PerThread<Scratch> scratch(threads);
    parallel_blocks(threads, block_count(L.n, kRows), [&](int64_t b) {
        Scratch& s = scratch.local();
        for (int64_t v = b * kRows; v < std::min(L.n, (b + 1) * kRows); ++v) {
            Rng rng(seed, Stream::graph, static_cast<uint64_t>(v));
            s.pick.clear();
            while (static_cast<int64_t>(s.pick.size()) < q) {
                const auto c = static_cast<int64_t>(rng.below(static_cast<uint64_t>(L.n)));
                if (c != v && std::find(s.pick.begin(), s.pick.end(), c) == s.pick.end()) s.pick.push_back(c);
            }
            gather_rows_into(rows.centred().view(), s.pick, s.B);
            distances_to(rows, &v, 1, s.B, s.pick, s.d);
            std::vector<std::pair<float, int32_t>> entries;
            for (int64_t j = 0; j < q; ++j) {
                entries.emplace_back(s.d[static_cast<size_t>(j)], static_cast<int32_t>(s.pick[static_cast<size_t>(j)]));
            }
            std::sort(entries.begin(), entries.end());
            for (int64_t j = 0; j < q; ++j) {
                L.dist[static_cast<size_t>(v * q + j)] = entries[static_cast<size_t>(j)].first;
                L.idx[static_cast<size_t>(v * q + j)] = entries[static_cast<size_t>(j)].second;
            }
        }
    });
    return L;
}

/// Variable-length lists of rows per row (compressed: row v's entries at at[v] .. at[v+1]).
struct Compressed {
    std::vector<int64_t> at;
    std::vector<int32_t> items;
    const int32_t* begin(int64_t v) const { return items.data() + at[static_cast<size_t>(v)]; }
    const int32_t* end(int64_t v) const { return items.data() + at[static_cast<size_t>(v) + 1]; }
};

/// What one iteration joins: each row's sampled new and old neighbours.
struct Samples {
    Compressed fresh, old;
};

/// Each row's new entries (the first `take`, which stop being new) and its old entries.
Samples sample(Lists& L, int64_t take) {
    Samples s;
    s.fresh.at.assign(static_cast<size_t>(L.n + 1), 0);
    s.old.at.assign(static_cast<size_t>(L.n + 1), 0);
    for (int64_t v = 0; v < L.n; ++v) {
        int64_t taken = 0;
        for (int64_t j = 0; j < L.q; ++j) {
            const size_t e = static_cast<size_t>(v * L.q + j);
            if (L.fresh[e] != 0 && taken < take) {
                s.fresh.items.push_back(L.idx[e]);
                L.fresh[e] = 0;
                ++taken;
            } else if (L.fresh[e] == 0) {
                s.old.items.push_back(L.idx[e]);
            }
        }
        s.fresh.at[static_cast<size_t>(v) + 1] = static_cast<int64_t>(s.fresh.items.size());
        s.old.at[static_cast<size_t>(v) + 1] = static_cast<int64_t>(s.old.items.size());
    }
    return s;
}

/// The reverse of `forward` (u lists v when v lists u), at most `take` per row, chosen by a
/// hash of (row, reverse neighbour, iteration).
Compressed reverse(const Compressed& forward, int64_t n, int64_t take, uint64_t seed, int64_t iteration) {
    std::vector<int64_t> count(static_cast<size_t>(n + 1), 0);
    for (int32_t u : forward.items) ++count[static_cast<size_t>(u) + 1];
    for (int64_t v = 0; v < n; ++v) count[static_cast<size_t>(v) + 1] += count[static_cast<size_t>(v)];
    std::vector<int32_t> all(forward.items.size());
    std::vector<int64_t> fill(count.begin(), count.end() - 1);
    for (int64_t v = 0; v < n; ++v) {
        for (const int32_t* u = forward.begin(v); u != forward.end(v); ++u) {
            all[static_cast<size_t>(fill[static_cast<size_t>(*u)]++)] = static_cast<int32_t>(v);
        }
    }
    Compressed out;
    out.at.assign(static_cast<size_t>(n + 1), 0);
    const uint64_t key = mix64(seed ^ (static_cast<uint64_t>(iteration) * 0x9e3779b97f4a7c15ULL));
    std::vector<std::pair<uint64_t, int32_t>> ranked;
    for (int64_t u = 0; u < n; ++u) {
        ranked.clear();
        for (int64_t e = count[static_cast<size_t>(u)]; e < count[static_cast<size_t>(u) + 1]; ++e) {
            const int32_t v = all[static_cast<size_t>(e)];
            ranked.emplace_back(mix64(key ^ (static_cast<uint64_t>(u) << 32) ^ static_cast<uint64_t>(v)), v);
        }
        if (static_cast<int64_t>(ranked.size()) > take) {
            std::nth_element(ranked.begin(), ranked.begin() + take, ranked.end());
            ranked.resize(static_cast<size_t>(take));
        }
        for (const auto& [h, v] : ranked) out.items.push_back(v);
        out.at[static_cast<size_t>(u) + 1] = static_cast<int64_t>(out.items.size());
    }
    return out;
}

/// One row's candidates: new ones (its sampled new neighbours and reverse ones) and old ones
/// (the rest, minus the new), each sorted and without duplicates or the row itself.
void candidates(int64_t v, const Samples& s, const Samples& r, std::vector<int64_t>& fresh, std::vector<int64_t>& old) {
    fresh.assign(s.fresh.begin(v), s.fresh.end(v));
    fresh.insert(fresh.end(), r.fresh.begin(v), r.fresh.end(v));
    old.assign(s.old.begin(v), s.old.end(v));
    old.insert(old.end(), r.old.begin(v), r.old.end(v));
    auto tidy = [v](std::vector<int64_t>& list) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
        list.erase(std::remove(list.begin(), list.end(), v), list.end());
    };
    tidy(fresh);
    tidy(old);
    old.erase(std::remove_if(old.begin(), old.end(),
                             [&](int64_t c) { return std::binary_search(fresh.begin(), fresh.end(), c); }),
              old.end());
}

/// The local join of every row: each new candidate against the later new ones and every old
/// one; both ends of each pair are offered the other.
void local_join(Lists& L, const SearchRows& rows, const Samples& s, const Samples& r, int32_t iteration,
                std::vector<std::mutex>& locks, int threads) {
    struct Scratch {
        std::vector<int64_t> fresh, old, all;
        Matrix B;
        std::vector<float> d;
    };
    PerThread<Scratch> scratch(threads);
    // Each list's last entry as the join starts: lists only improve during the join, so an
    // offer that does not beat it would not beat the last entry when it arrives either, and
    // it is dropped without taking the lock.
    std::vector<float> last_d(static_cast<size_t>(L.n));
    std::vector<int32_t> last_i(static_cast<size_t>(L.n));
    for (int64_t v = 0; v < L.n; ++v) {
        last_d[static_cast<size_t>(v)] = L.dist[static_cast<size_t>(v * L.q + L.q - 1)];
        last_i[static_cast<size_t>(v)] = L.idx[static_cast<size_t>(v * L.q + L.q - 1)];
    }
    auto offer = [&](int64_t v, int64_t c, float d) {
        const float ld = last_d[static_cast<size_t>(v)];
        if (!(d < ld || (d == ld && c < last_i[static_cast<size_t>(v)]))) return;
        std::lock_guard<std::mutex> lock(locks[static_cast<size_t>(v) % locks.size()]);
        L.offer(v, static_cast<int32_t>(c), d, iteration);
    };
    parallel_blocks(threads, block_count(L.n, kRows), [&](int64_t b) {
        Scratch& w = scratch.local();
        for (int64_t v = b * kRows; v < std::min(L.n, (b + 1) * kRows); ++v) {
            candidates(v, s, r, w.fresh, w.old);
            if (w.fresh.empty()) continue;
            w.all = w.fresh;
            w.all.insert(w.all.end(), w.old.begin(), w.old.end());
            gather_rows_into(rows.centred().view(), w.all, w.B);
            const auto nf = static_cast<int64_t>(w.fresh.size()), na = static_cast<int64_t>(w.all.size());
            distances_to(rows, w.fresh.data(), nf, w.B, w.all, w.d);
            for (int64_t i = 0; i < nf; ++i) {
                for (int64_t j = i + 1; j < na; ++j) {
                    const float d = w.d[static_cast<size_t>(i * na + j)];
                    const int64_t a = w.all[static_cast<size_t>(i)], c = w.all[static_cast<size_t>(j)];
                    offer(a, c, d);
                    offer(c, a, d);
                }
            }
        }
    });
}

int64_t entries_born(const Lists& L, int32_t iteration) {
    return std::count(L.born.begin(), L.born.end(), iteration);
}

}  // namespace

NeighbourLists nndescent_neighbours(const SearchRows& rows, int64_t q, uint64_t seed, int threads,
                                    const NndescentOptions& options) {
    const int64_t n = rows.size();
    if (q < 1 || q >= n) {
        fail(KKM_ERR_INTERNAL,
             "nndescent_neighbours: q=" + std::to_string(q) + " among " + std::to_string(n) + " rows");
    }
    if (n <= 8 * q + 64) return exact_self_neighbours(rows, q, threads);
    Lists L = random_lists(rows, q, seed, threads);
    const auto take = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(options.rho * static_cast<double>(q))));
    std::vector<std::mutex> locks(kLocks);
    const double stop = options.delta * static_cast<double>(n) * static_cast<double>(q);
    for (int64_t it = 1; it <= options.max_iter; ++it) {
        progress_range(static_cast<double>(it - 1) / static_cast<double>(options.max_iter),
                       static_cast<double>(it) / static_cast<double>(options.max_iter));
        Samples s = sample(L, take);
        Samples r{reverse(s.fresh, n, take, seed, it), reverse(s.old, n, take, seed ^ 0x5bd1e995ULL, it)};
        local_join(L, rows, s, r, static_cast<int32_t>(it), locks, threads);
        if (static_cast<double>(entries_born(L, static_cast<int32_t>(it))) < stop) break;
    }
    NeighbourLists out;
    out.rows = n;
    out.q = q;
    out.index = std::move(L.idx);
    out.dist = std::move(L.dist);
    return out;
}

double recall(const NeighbourLists& approximate, const NeighbourLists& exact) {
    if (approximate.rows != exact.rows || approximate.q != exact.q || exact.rows == 0) return 0.0;
    int64_t found = 0;
    for (int64_t i = 0; i < exact.rows; ++i) {
        const int32_t* a = approximate.neighbours(i);
        for (int64_t j = 0; j < exact.q; ++j) {
            found += std::find(a, a + approximate.q, exact.neighbours(i)[j]) != a + approximate.q ? 1 : 0;
        }
    }
    return static_cast<double>(found) / static_cast<double>(exact.rows * exact.q);
}

double neighbour_lists_footprint(double n, double q) {
    return n * q * (4 + 4 + 1 + 4) + 4 * (4 * n * q + 8 * n) + 8 * n;
}

double nndescent_join_footprint(double n, double d, double q, int threads) {
    const RowBlocks b = row_blocks(n, threads);
    return b.workers * (Matrix::footprint(std::min(4 * q, n), d) + 4 * 16 * q * q + 32 * q) +
           64 * static_cast<double>(kLocks);  // each lock on a cache line of its own
}

}  // namespace kkm::graph
