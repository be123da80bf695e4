// Exact kernel k-means in the dual (Dhillon et al.): a centre is the weighted mean of its
// members in feature space, and ‖φ(x) − μ_j‖² = k(x,x) − 2 Σ_{a∈j} w_a k(x,a) / W_j + C_j
// with C_j = Σ_{a,b∈j} w_a w_b k(a,b) / W_j². The sums Σ_a w_a k(x,a) for all clusters are
// the kernel row times the n×k weighted indicator matrix Z, which has one non-zero per row:
// a new row's sums take one pass over its kernel row (dual_nearest, by Z's terms).
//
// Lloyd keeps those sums for the training points, S = K·Z (n×k, float64), across iterations
// and updates them per moved point (K is symmetric: S[:, j] changes by ±w_a K[a, :]), so a
// late iteration, where few points move, costs O(n · moved) instead of O(n²). S is rebuilt
// from all kernel rows when most points moved, or when it was never built.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "core/blocking.h"
#include "kernels/kernel_basis.h"

namespace kkm {

/// Kernel rows K(x_a, columns) for every training point a: from a stored matrix (owned, or
/// the caller's precomputed matrix) or recomputed block by block from a KernelBasis. In one
/// process the columns are all n training points (K is n×n); in a distributed fit they are
/// this rank's points (K is n × n_local, rows of all points against this rank's).
class KernelRows {
public:
    /// Rows recomputed in blocks of at most block_rows rows: the rows of `train` (all
    /// training points) against the basis's points (the columns).
    KernelRows(const KernelBasis& basis, ConstMatrix train, int64_t block_rows, int threads);
    /// Rows read from a matrix (not copied) of train-point rows and column-point columns.
    /// caller_owned: the matrix is the caller's memory, without GEMM slack, so its last
    /// block is copied before GEMM reads it.
    KernelRows(ConstMatrix matrix, int64_t block_rows, bool caller_owned);

    /// The number of columns: the points whose sums the Lloyd problem keeps.
    int64_t size() const { return cols_; }
    /// The number of rows: every training point.
    int64_t total() const { return n_; }
    int64_t block_rows() const { return block_rows_; }
    bool stored() const { return stored_ != nullptr; }
    /// Row a of the stored matrix (n floats; not for GEMM: no slack behind the caller's).
    const float* row(int64_t a) const { return stored_ + a * cols_; }
    /// Recomputed rows: out (count×n) = kernel rows of training points idx[0..count).
    void evaluate(const int64_t* idx, int64_t count, Matrix& out) const;
    /// Rows [begin, begin+count) as a count×n matrix safe to hand to GEMM: a pointer into
    /// the stored matrix, or into scratch (filled here).
    const float* rows(int64_t begin, int64_t count, Matrix& scratch) const;

private:
    const KernelBasis* basis_ = nullptr;
    ConstMatrix train_;
    const float* stored_ = nullptr;
    int64_t n_ = 0;
    int64_t cols_ = 0;
    int64_t block_rows_ = kRowBlock;
    bool caller_owned_ = false;
};

/// The implicit centres of a labelling.
struct DualCentres {
    Matrix Z;                      ///< n×k, Z[a][j] = w_a if a ∈ j
    std::vector<double> mass;      ///< W_j
    std::vector<double> self_dot;  ///< C_j
};

/// Z's non-zero entries centre by centre (its columns in compressed form): centre j's terms
/// are [start[j], start[j+1]), their points ascending. A labelling's Z has one entry per row
/// and a mini-batch model's about one (each support point in one or a few centres), so the
/// sums Σ_a Z[a][j] k(x,a) of all k centres cost one pass over a kernel row, not k.
struct DualTerms {
    std::vector<int64_t> start;  ///< k + 1 offsets
    std::vector<int64_t> point;  ///< a, the row of Z (the kernel row's column)
    std::vector<float> z;        ///< Z[a][j]
};
DualTerms dual_terms(const DualCentres& c);

/// Nearest centre for `count` rows given their kernel rows against the training points
/// (count×n), their k(x,x) (may be NULL: then distances omit it), the centres and their
/// terms (dual_terms(c)). The sums run in float64 over each centre's terms in order, the
/// same arithmetic for a fit's labels and for any later assignment of the same rows.
/// each (count×k, when not NULL) receives the distance to every centre, computed and clamped
/// as dist is (+inf to a centre without weight): dist[i] is its row's entry at labels[i].
/// Single-threaded.
void dual_nearest(const float* krows, int64_t count, const float* self, const DualCentres& c, const DualTerms& terms,
                  int32_t* labels, float* dist, float* each = nullptr);

class ExactLloyd final : public LloydProblem {
public:
    /// How reassign brings S = K·Z to the labels it is given.
    enum class Update {
        incremental,  ///< per moved point, or a rebuild when many moved (the default)
        rebuild,      ///< a rebuild from all kernel rows every time (a reference for tests)
    };

    /// Bytes it holds (with the Lloyd driver) on n points of which it keeps the sums of c
    /// (every point: c = n): diagonal, weights, S (k × c float64), S's labels, one rebuild's
    /// moves (24 bytes each, two lists), the centres Z, every thread's block of S's columns.
    static double footprint(const Params& p, double n, double c, int threads, bool weighted);

    /// diag: k(x_i, x_i) for the n training points.
    ExactLloyd(const KernelRows& rows, std::vector<float> diag, const std::vector<float>& weights, int64_t k,
               int threads, Update update = Update::incremental);
    /// Over rows spread across ranks (collective): rows has this rank's points as columns and
    /// every point as rows; diag and weights are this rank's points', diag_all every point's
    /// (for the seeding oracle); the moves are exchanged so every rank updates its columns of
    /// S by every moved point, in global index order.
    ExactLloyd(const KernelRows& rows, std::vector<float> diag, std::vector<float> diag_all,
               const std::vector<float>& weights, int64_t k, int threads, const Comm& comm, const RowPartition& part);

    int64_t size() const override { return rows_.size(); }
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) override;
    double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) override;

    /// Centres of a labelling (from S, brought to these labels).
    DualCentres centres(const std::vector<int32_t>& labels);
    /// Hartigan's refinement (one process): sweeps over the points in order, moving each to
    /// the cluster that lowers the objective most, by the exact change of both clusters'
    /// terms, w·W_b/(W_b + w)·d_b − w·W_a/(W_a − w)·d_a, with S, W and C updated after every
    /// move (one kernel row each); stops when a sweep moves nothing (a point alone in its
    /// cluster stays) or after max_sweeps. Returns the number of moves.
    int64_t hartigan(std::vector<int32_t>& labels, int64_t max_sweeps);
    SquaredDistanceToPoint distance_oracle();

    /// Points whose sums were rebuilt or updated since construction (for tests and tuning):
    /// rebuilds count n each, incremental updates the points that moved.
    int64_t rows_applied() const { return rows_applied_; }

private:
    /// One change to S: point a leaves cluster from (−1: it was not counted) and joins to.
    struct Move {
        int64_t point;
        int32_t from;
        int32_t to;
        double weight;
    };

    /// Total weight per cluster over all ranks.
    std::vector<double> global_mass(const std::vector<int32_t>& labels) const;
    /// Every rank's moves, in rank order (global index order).
    std::vector<Move> everyone(const std::vector<Move>& mine) const;
    /// Brings S to labels: a rebuild, or the moves since the labels S belongs to.
    void sync(const std::vector<int32_t>& labels);
    /// The points (with weight) whose label differs between S's labels and labels.
    std::vector<Move> moves_to(const std::vector<int32_t>& labels) const;
    /// Every point with weight joining its cluster of labels (S rebuilt from zero).
    std::vector<Move> all_points(const std::vector<int32_t>& labels) const;
    /// Applies moves to S in their order, in groups of kernel rows.
    void apply(const std::vector<Move>& moves);
    /// Kernel rows of moves[first, first+count): pointers into K, or into scratch_.
    std::vector<const float*> move_rows(const std::vector<Move>& moves, size_t first, size_t count);
    /// C_j = Σ_{a∈j} w_a S[a, j] / W_j² for the labels S belongs to.
    std::vector<double> self_dots(const std::vector<double>& mass) const;
    Matrix& scratch();

    const KernelRows& rows_;
    const Comm& comm_;
    RowPartition part_;
    std::vector<float> diag_;
    std::vector<float> diag_all_;  ///< every point's k(x,x) (distributed; else empty: diag_)
    std::vector<float> weights_;
    int64_t k_;
    int threads_;
    Update update_;
    std::vector<Matrix> scratch_;       // one kernel-row block per thread
    std::vector<double> sums_;          // Sᵀ (k×n): sums_[j·n + i] = Σ_{a∈j} w_a K(x_i, x_a)
    std::vector<int32_t> sums_labels_;  // the labels S belongs to
    bool built_ = false;                // S is consistent with sums_labels_
    int64_t rows_applied_ = 0;
};

}  // namespace kkm
