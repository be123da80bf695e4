// The q nearest neighbours (squared Euclidean distance) of rows among a set of reference rows:
// exactly, by the engine's dot-product tiles with a per-row top-q selection after each tile
// (FAISS does the same in faiss/utils/distances.cpp: never an n × n matrix), or approximately
// by NN-descent (graph/nndescent.h). The graph kernels (kernel=knn, kernel=heat) build their
// neighbour graph of the training rows here, and place new rows among them for assign.
#pragma once

#include <cfloat>
#include <cstdint>
#include <string>
#include <vector>

#include "core/matrix.h"
#include "engine/engine.h"
#include "engine/isa.h"

namespace kkm::graph {

/// The largest squared norm (from the shift: the training mean) a row may have in a search.
/// Below it every key ‖y‖² − 2 x·y and every squared distance ‖x‖² + ‖y‖² − 2 x·y of two such
/// rows is finite in float32 (|x·y| ≤ ‖x‖‖y‖), so every row gets its q neighbours.
constexpr float kSearchNormLimit = FLT_MAX / 8;

/// Refuses row `row` of `what` (INVALID_DATA): its squared distance from the training rows'
/// mean is beyond kSearchNormLimit (or not a number).
[[noreturn]] void too_far(const std::string& what, int64_t row);

/// Reference rows prepared for searches: the rows minus a shift (the training mean, so that
/// ‖x‖² + ‖y‖² − 2 x·y keeps the digits that tell near points apart in float32), and their
/// squared norms. Searches pack them into the engine's panels a chunk at a time.
class SearchRows {
public:
    SearchRows() = default;
    /// rows: n × d (copied, minus shift); shift: empty or d values.
    SearchRows(ConstMatrix rows, std::vector<float> shift, engine::Isa isa, int threads);
    /// Rows already centred (a loaded model): taken as they are.
    SearchRows(Matrix centred, std::vector<float> shift, engine::Isa isa, int threads);

    int64_t size() const { return centred_.rows; }
    int64_t dim() const { return centred_.cols; }
    engine::Isa isa() const { return isa_; }
    const Matrix& centred() const { return centred_; }
    const std::vector<float>& shift() const { return shift_; }
    const std::vector<float>& norms() const { return norms_; }
    /// The first row whose squared norm is beyond kSearchNormLimit (or NaN), or -1: a search
    /// among rows beyond it may leave lists short; none is made.
    int64_t first_too_far() const;
    /// Rows of X minus the shift, into out (a padded matrix).
    void centre(ConstMatrix X, Matrix& out) const;
    /// The squared distance between reference rows a and b, computed the same way (bit for
    /// bit) whichever comes first and whatever else is computed beside it.
    float distance(int64_t a, int64_t b) const;

private:
    Matrix centred_;
    std::vector<float> shift_;
    std::vector<float> norms_;
    engine::Isa isa_ = engine::Isa::portable;
};

/// Each row's q nearest reference rows: row i's neighbours are index[i·q .. i·q + q) at squared
/// distances dist[...], ascending by distance, ties by the lower index. A query row beyond
/// kSearchNormLimit from the shift has no neighbours: its indices are 0 .. q-1 (valid nodes,
/// never -1) and its distances NaN, which the caller reports (first_too_far).
struct NeighbourLists {
    int64_t rows = 0;
    int64_t q = 0;
    std::vector<int32_t> index;
    std::vector<float> dist;

    const int32_t* neighbours(int64_t i) const { return index.data() + i * q; }
    const float* distances(int64_t i) const { return dist.data() + i * q; }
    /// The first row without neighbours (its distances NaN), or -1.
    int64_t first_too_far() const;
};

/// Whether a query row of the squared norm xnorm (from the shift) can be searched.
inline bool searchable(float xnorm) {
    return xnorm <= kSearchNormLimit;
}

/// Reference rows packed once, all of them, for single-threaded searches of row blocks: the
/// anchors of graph=anchor (graph/anchors.h), which every block of a pass and every new row
/// of kkm_assign searches. The same keys, bit for bit, as exact_neighbours computes by the
/// tiles (the same packed columns and dot tiles), so the same lists.
class PackedSearch {
public:
    PackedSearch() = default;
    explicit PackedSearch(SearchRows ref);
    const SearchRows& rows() const { return ref_; }
    int64_t size() const { return ref_.size(); }
    /// Bytes it holds for p reference rows of d values: the rows, their norms and the pack.
    static double footprint(double p, double d);
    /// Rows of X (not centred: the shift is subtracted): their q nearest reference rows
    /// (1 ≤ q ≤ size()) into index[i·q ..] and squared distances into dist[i·q ..], ascending,
    /// ties by the lower index; a row beyond kSearchNormLimit gets NaN distances (as in
    /// NeighbourLists). queries, tile, engine: the caller's buffers, kept from block to block.
    /// Single-threaded.
    void nearest(ConstMatrix X, int64_t q, Matrix& queries, Matrix& tile, engine::BlockScratch& engine, int32_t* index,
                 float* dist) const;

private:
    SearchRows ref_;
    engine::PackedRows packed_;
};

/// Exact q-NN of the rows of `queries` (not centred: the reference's shift is subtracted)
/// among the reference rows (1 ≤ q ≤ ref.size(), none of them too far). Parallel over blocks of queries; results do
/// not depend on the thread count.
NeighbourLists exact_neighbours(const SearchRows& ref, ConstMatrix queries, int64_t q, int threads);

/// Exact q-NN of every reference row among the others (1 ≤ q < ref.size(); the caller has
/// refused rows too far: ref.first_too_far() < 0): the neighbour
/// graph of the training rows. A duplicate of a row is its neighbour at distance 0; the row
/// itself is not.
NeighbourLists exact_self_neighbours(const SearchRows& ref, int64_t q, int threads);

/// The first q (≤ lists.q) entries of each row's lists.
NeighbourLists first_neighbours(const NeighbourLists& lists, int64_t q);

/// Floating-point operations of exact_self_neighbours (for choosing graph=auto).
double exact_graph_work(int64_t n, int64_t d);

/// Bytes exact_self_neighbours holds besides its lists: the packed chunk of reference rows and
/// every thread's query block, its packed panel and its tile of distances.
double exact_search_footprint(double n, double d, int threads);

}  // namespace kkm::graph
