#include "graph/neighbours.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "engine/dots.h"
#include "engine/engine.h"

namespace kkm::graph {
namespace {

/// Reference rows packed at once: one chunk's panels (4096 × d floats) stay in the last-level
/// cache while every query block passes over them.
constexpr int64_t kChunkRows = 4096;
/// Columns of one dot tile of a query block (252 × 1024 floats: 1 MiB per thread).
constexpr int64_t kTileCols = 1024;
/// Keys examined at once by the selection: their minimum decides whether any can enter.
constexpr int64_t kGroup = 64;
/// Fewer queries than this are searched against the reference rows where they are
/// (engine::stream_dots), not against packed panels. Packing every reference row costs as
/// much as streaming them past a dozen queries (each query re-reads its group of rows from L2
/// and transposes it again): on a kernel=knn model of 10000 Fashion-MNIST rows (Zen 5, 2
/// threads), a kkm_assign of r rows took 4.5 ms packed for any r <= 8, and 0.3 + 0.33·r ms
/// streamed.
constexpr int64_t kFewQueries = 8;
/// Reference rows of one thread's share of a chunk in that search.
constexpr int64_t kStreamRows = 512;

constexpr float kInf = std::numeric_limits<float>::infinity();

/// ‖x‖² of one row, in float32 in index order.
float squared_norm(const float* x, int64_t d) {
    float s = 0;
    for (int64_t t = 0; t < d; ++t) s += x[t] * x[t];
    return s;
}

std::vector<float> squared_norms(const Matrix& M, int threads) {
    std::vector<float> out(static_cast<size_t>(M.rows));
    parallel_blocks(threads, block_count(M.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, end = std::min(M.rows, begin + kRowBlock);
        for (int64_t i = begin; i < end; ++i) out[static_cast<size_t>(i)] = squared_norm(M.row(i), M.cols);
    });
    return out;
}

/// One query row's best q so far: keys ‖y‖² − 2 x·y ascending, ties by the lower index (the
/// columns arrive in increasing index order, so an equal key never displaces an earlier one).
struct Best {
    float* key;
    int32_t* idx;
    int64_t q;
    int64_t count;

    float worst() const { return count < q ? kInf : key[q - 1]; }
    void insert(float k, int32_t j) {
        int64_t p = std::min(count, q - 1);
        while (p > 0 && key[p - 1] > k) {
            key[p] = key[p - 1];
            idx[p] = idx[p - 1];
            --p;
        }
        key[p] = k;
        idx[p] = j;
        count = std::min(count + 1, q);
    }
};

/// Offers the columns [0, cols) of one tile row (dot products with reference rows first,
/// first + 1, ...) to a row's best, skipping reference row `skip` (-1: none).
void select_row(const float* dots, const float* ynorm, int64_t cols, int64_t first, int64_t skip, Best& best) {
    float worst = best.worst();
    alignas(64) float keys[kGroup];
    for (int64_t j0 = 0; j0 < cols; j0 += kGroup) {
        const int64_t len = std::min(kGroup, cols - j0);
        float low = kInf;
#pragma omp simd reduction(min : low)
        for (int64_t t = 0; t < len; ++t) {
            keys[t] = ynorm[j0 + t] - 2.0f * dots[j0 + t];
            low = std::min(low, keys[t]);
        }
        if (!(low < worst)) continue;
        for (int64_t t = 0; t < len; ++t) {
            if (keys[t] < worst && first + j0 + t != skip) {
                best.insert(keys[t], static_cast<int32_t>(first + j0 + t));
                worst = best.worst();
            }
        }
    }
}

/// Per-thread storage of a search.
struct SearchScratch {
    Matrix queries;  ///< a block of queries minus the shift
    Matrix tile;     ///< its dot products with kTileCols reference rows
    engine::BlockScratch engine;
};

/// The lists of a search as they fill: nq rows of q places, and how many of each row's are
/// taken. Rows are offered their reference rows in index order; different rows may be offered
/// on different threads at once.
struct Filling {
    NeighbourLists lists;
    std::vector<int64_t> counts;

    Filling(int64_t nq, int64_t q) : counts(static_cast<size_t>(nq), 0) {
        lists.rows = nq;
        lists.q = q;
        lists.index.assign(static_cast<size_t>(nq * q), -1);
        lists.dist.assign(static_cast<size_t>(nq * q), kInf);
    }
    /// Offers row `row` the reference rows [first, first + cols) of ref by its dot products
    /// with them, skipping reference row `skip` (-1: none).
    void offer(int64_t row, const float* dots, const SearchRows& ref, int64_t first, int64_t cols, int64_t skip) {
        const int64_t q = lists.q;
        Best best{lists.dist.data() + row * q, lists.index.data() + row * q, q, counts[static_cast<size_t>(row)]};
        select_row(dots, ref.norms().data() + first, cols, first, skip, best);
        counts[static_cast<size_t>(row)] = best.count;
    }
};

/// The search of a few queries Q (centred), the reference rows read where they are: each
/// chunk's dot products by engine::stream_dots (the threads share its rows), then every
/// query's selection over the chunk in index order. The same keys, bit for bit, as search()
/// computes by the tiles, offered in the same order: the same lists.
NeighbourLists search_few(const SearchRows& ref, ConstMatrix Q, int64_t q, int threads) {
    Filling out(Q.rows, q);
    const int64_t n = ref.size(), chunks = block_count(n, kChunkRows);
    Matrix dots(Q.rows, std::min(n, kChunkRows));
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t c0 = c * kChunkRows, cn = std::min(kChunkRows, n - c0);
        progress_range(static_cast<double>(c) / static_cast<double>(chunks),
                       static_cast<double>(c + 1) / static_cast<double>(chunks));
        parallel_blocks(threads, block_count(cn, kStreamRows), [&](int64_t b) {
            const int64_t begin = b * kStreamRows;
            engine::stream_dots(ref.isa(), Q, ref.centred().view().slice(c0 + begin, std::min(kStreamRows, cn - begin)),
                                dots.data() + begin, dots.cols);
        });
        for (int64_t i = 0; i < Q.rows; ++i) out.offer(i, dots.row(i), ref, c0, cn, -1);
    }
    return std::move(out.lists);
}

/// The search shared by both entry points: `centred(b, buf)` gives query block b (kRowBlock
/// rows) minus the shift; self: query i is reference row i, skipped.
template <class Block>
NeighbourLists search(const SearchRows& ref, int64_t nq, int64_t q, bool self, int threads, Block&& centred) {
    Filling out(nq, q);
    PerThread<SearchScratch> scratch(threads);
    const int64_t n = ref.size(), chunks = block_count(n, kChunkRows);
    const engine::TileOp dot{{}, engine::TileFn::dot};
    engine::PackedRows packed;
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t c0 = c * kChunkRows, cn = std::min(kChunkRows, n - c0);
        packed.assign(ref.isa(), ref.centred().view().slice(c0, cn), {});
        progress_range(static_cast<double>(c) / static_cast<double>(chunks),
                       static_cast<double>(c + 1) / static_cast<double>(chunks));
        parallel_blocks(threads, block_count(nq, kRowBlock), [&](int64_t b) {
            SearchScratch& s = scratch.local();
            const int64_t begin = b * kRowBlock, rows = std::min(kRowBlock, nq - begin);
            const ConstMatrix Q = centred(b, s.queries);
            s.tile.reshape(rows, std::min(kTileCols, cn));
            for (int64_t t0 = 0; t0 < cn; t0 += kTileCols) {
                const int64_t cols = std::min(kTileCols, cn - t0);
                engine::kernel_block_cols(Q, nullptr, packed, t0, cols, dot, s.tile.data(), s.tile.cols, &s.engine);
                for (int64_t i = 0; i < rows; ++i) {
                    const int64_t row = begin + i;
                    out.offer(row, s.tile.row(i), ref, c0 + t0, cols, self ? row : -1);
                }
            }
        });
    }
    return std::move(out.lists);
}

/// One query row's keys (‖y‖² − 2 x·y) into squared distances, given its ‖x‖²; a row too far
/// (or, never for rows within the limit, one left short) gets indices 0 .. q-1 and NaN.
void keys_to_distances(int32_t* index, float* dist, int64_t q, float xnorm) {
    const bool full = searchable(xnorm) && index[q - 1] >= 0;
    for (int64_t j = 0; j < q; ++j) {
        if (full) {
            dist[j] = std::max(0.0f, xnorm + dist[j]);
        } else {
            index[j] = static_cast<int32_t>(j);
            dist[j] = std::numeric_limits<float>::quiet_NaN();
        }
    }
}

void keys_to_distances(NeighbourLists& lists, const std::vector<float>& xnorm) {
    for (int64_t i = 0; i < lists.rows; ++i) {
        keys_to_distances(lists.index.data() + i * lists.q, lists.dist.data() + i * lists.q, lists.q,
                          xnorm[static_cast<size_t>(i)]);
    }
}

}  // namespace

void too_far(const std::string& what, int64_t row) {
    invalid_data(what + ": row " + std::to_string(row) +
                 " is too far from the training rows' mean: its squared distance from it exceeds " +
                 message_number(kSearchNormLimit) +
                 " (float32's largest value / 8), and the graph kernels (knn, heat) compare squared distances in "
                 "float32; rescale the data");
}

int64_t SearchRows::first_too_far() const {
    for (size_t i = 0; i < norms_.size(); ++i) {
        if (!searchable(norms_[i])) return static_cast<int64_t>(i);
    }
    return -1;
}

int64_t NeighbourLists::first_too_far() const {
    for (int64_t i = 0; i < rows; ++i) {
        if (q > 0 && std::isnan(dist[static_cast<size_t>(i * q)])) return i;
    }
    return -1;
}

SearchRows::SearchRows(ConstMatrix rows, std::vector<float> shift, engine::Isa isa, int threads)
    : shift_(std::move(shift)), isa_(isa) {
    centre(rows, centred_);
    norms_ = squared_norms(centred_, threads);
}

SearchRows::SearchRows(Matrix centred, std::vector<float> shift, engine::Isa isa, int threads)
    : centred_(std::move(centred)), shift_(std::move(shift)), isa_(isa) {
    norms_ = squared_norms(centred_, threads);
}

void SearchRows::centre(ConstMatrix X, Matrix& out) const {
    out.reshape(X.rows, X.cols);
    for (int64_t i = 0; i < X.rows; ++i) {
        const float* x = X.row(i);
        float* o = out.row(i);
        if (shift_.empty()) {
            std::copy(x, x + X.cols, o);
        } else {
            for (int64_t t = 0; t < X.cols; ++t) o[t] = x[t] - shift_[static_cast<size_t>(t)];
        }
    }
}

float SearchRows::distance(int64_t a, int64_t b) const {
    // One dot product through the engine's row_dots, whose value depends only on the two rows
    // (and not on their order: the products commute and the sums run over the same lanes).
    float dot = 0;
    engine::row_dots(isa_, centred_.row(a), 1, centred_.cols, centred_.row(b), 1, centred_.cols, centred_.cols, &dot,
                     1);
    const float na = norms_[static_cast<size_t>(a)], nb = norms_[static_cast<size_t>(b)];
    return std::max(0.0f, na + nb - 2.0f * dot);
}

NeighbourLists exact_neighbours(const SearchRows& ref, ConstMatrix queries, int64_t q, int threads) {
    if (q < 1 || q > ref.size() || queries.cols != ref.dim()) {
        fail(KKM_ERR_INTERNAL, "exact_neighbours: q=" + std::to_string(q) + " among " + std::to_string(ref.size()) +
                                   " rows, or a width mismatch");
    }
    NeighbourLists out;
    if (queries.rows < kFewQueries && engine::streams_dots(ref.isa())) {
        Matrix centred;
        ref.centre(queries, centred);
        out = search_few(ref, centred.view(), q, threads);
    } else {
        out = search(ref, queries.rows, q, false, threads, [&](int64_t b, Matrix& buf) {
            const int64_t begin = b * kRowBlock, rows = std::min(kRowBlock, queries.rows - begin);
            ref.centre(queries.slice(begin, rows), buf);
            return buf.view();
        });
    }
    std::vector<float> xnorm(static_cast<size_t>(queries.rows));
    PerThread<Matrix> buffers(threads);
    parallel_blocks(threads, block_count(queries.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, rows = std::min(kRowBlock, queries.rows - begin);
        Matrix& buf = buffers.local();
        ref.centre(queries.slice(begin, rows), buf);
        for (int64_t i = 0; i < rows; ++i) xnorm[static_cast<size_t>(begin + i)] = squared_norm(buf.row(i), buf.cols);
    });
    keys_to_distances(out, xnorm);
    return out;
}

NeighbourLists exact_self_neighbours(const SearchRows& ref, int64_t q, int threads) {
    if (q < 1 || q >= ref.size()) {
        fail(KKM_ERR_INTERNAL,
             "exact_self_neighbours: q=" + std::to_string(q) + " among " + std::to_string(ref.size()) + " rows");
    }
    NeighbourLists out = search(ref, ref.size(), q, true, threads, [&](int64_t b, Matrix&) {
        const int64_t begin = b * kRowBlock;
        return ref.centred().view().slice(begin, std::min(kRowBlock, ref.size() - begin));
    });
    keys_to_distances(out, ref.norms());
    return out;
}

PackedSearch::PackedSearch(SearchRows ref) : ref_(std::move(ref)) {
    packed_.assign(ref_.isa(), ref_.centred().view(), {});
}

double PackedSearch::footprint(double p, double d) {
    return Matrix::footprint(p, d) + 4.0 * p + engine::PackedRows::footprint(p, d);
}

void PackedSearch::nearest(ConstMatrix X, int64_t q, Matrix& queries, Matrix& tile, engine::BlockScratch& engine,
                           int32_t* index, float* dist) const {
    const int64_t p = ref_.size();
    if (q < 1 || q > p || X.cols != ref_.dim()) {
        fail(KKM_ERR_INTERNAL,
             "PackedSearch: q=" + std::to_string(q) + " among " + std::to_string(p) + " rows, or a width mismatch");
    }
    const engine::TileOp dot{{}, engine::TileFn::dot};
    for (int64_t i = 0; i < X.rows * q; ++i) {
        index[i] = -1;
        dist[i] = kInf;
    }
    ref_.centre(X, queries);
    std::vector<int64_t> counts(static_cast<size_t>(X.rows), 0);
    tile.reshape(X.rows, std::min(kTileCols, p));
    for (int64_t t0 = 0; t0 < p; t0 += kTileCols) {
        const int64_t cols = std::min(kTileCols, p - t0);
        engine::kernel_block_cols(queries.view(), nullptr, packed_, t0, cols, dot, tile.data(), tile.cols, &engine);
        for (int64_t i = 0; i < X.rows; ++i) {
            Best best{dist + i * q, index + i * q, q, counts[static_cast<size_t>(i)]};
            select_row(tile.row(i), ref_.norms().data() + t0, cols, t0, -1, best);
            counts[static_cast<size_t>(i)] = best.count;
        }
    }
    for (int64_t i = 0; i < X.rows; ++i) {
        keys_to_distances(index + i * q, dist + i * q, q, squared_norm(queries.row(i), queries.cols));
    }
}

NeighbourLists first_neighbours(const NeighbourLists& lists, int64_t q) {
    NeighbourLists out;
    out.rows = lists.rows;
    out.q = q;
    out.index.resize(static_cast<size_t>(lists.rows * q));
    out.dist.resize(static_cast<size_t>(lists.rows * q));
    for (int64_t i = 0; i < lists.rows; ++i) {
        std::copy(lists.neighbours(i), lists.neighbours(i) + q, out.index.begin() + i * q);
        std::copy(lists.distances(i), lists.distances(i) + q, out.dist.begin() + i * q);
    }
    return out;
}

double exact_graph_work(int64_t n, int64_t d) {
    return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(d);
}

double exact_search_footprint(double n, double d, int threads) {
    const RowBlocks b = row_blocks(n, threads);
    return engine::PackedRows::footprint(std::min(n, static_cast<double>(kChunkRows)), d) +
           b.workers * (Matrix::footprint(b.rows, d) + Matrix::footprint(b.rows, static_cast<double>(kTileCols)) +
                        engine::PackedRows::footprint(b.rows, d));
}

}  // namespace kkm::graph
