// Linear (weighted) k-means on explicit features: distances through GEMM blocks, centroid
// sums combined in a fixed chunk order so results never depend on the thread count, and
// Hamerly's bounds (cluster/hamerly.h) to skip the rows whose label cannot change.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cluster/bounded_lloyd.h"
#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "core/comm.h"
#include "core/matrix.h"
#include "engine/isa.h"
#include "engine/row_store.h"

namespace kkm {

class FeatureLloyd final : public BoundedLloyd {
public:
    /// F: n×r features (not copied: must outlive this object, and have GEMM slack behind it,
    /// see kGemmSlack). weights: empty or n values. offset: empty, or a constant per point
    /// added to every distance of that point (Nyström features: the residual K_ii − ‖f_i‖²,
    /// which turns feature distances into kernel distances to centres in the landmark span;
    /// it changes no assignment; it may be slightly negative by rounding, and each point's whole
    /// distance is then clamped at 0).
    /// bounds: skip the rows that Hamerly's bounds prove keep their label (the bounds are on
    /// the feature distance, without the offset); false computes every distance every
    /// iteration (the tests compare the two).
    /// comm, part: the ranks the rows are spread over and this rank's place (F, weights and
    /// offset are this rank's rows; reassign and objective return the objective over all
    /// ranks, the centres are those of all rows). Default: one process.
    FeatureLloyd(ConstMatrix F, std::vector<float> weights, int64_t k, int threads, engine::Isa isa,
                 std::vector<float> offset = {}, bool bounds = true, const Comm& comm = solo_comm(),
                 const RowPartition* part = nullptr);
    /// Bytes it holds on n×r features (besides the features and their offset): the weights'
    /// copy, norms, Hamerly bounds, label caches, the chunks' partial sums, every thread's
    /// distance blocks and the seeding's candidate rows.
    static double footprint(const Params& p, double n, double r, int threads, bool weighted);

    int64_t size() const override { return F_.rows; }
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) override;
    double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) override;

    /// Weighted means of the clusters (rows of clusters without weight are zero).
    Matrix centroids(const std::vector<int32_t>& labels) const;
    /// The model's centroids of a run: those its labels were measured against (result.centres,
    /// bit for bit) when it kept them, else centroids(result.centre_members()).
    Matrix centroids_of(const LloydResult& result) const;
    /// Every row to its nearest of the given centroids (all alive): labels, and the objective
    /// Σ w_i (‖f_i − c‖² + offset_i) in float64.
    LloydResult assign_to(const Matrix& C) const;
    /// Hartigan's refinement (one process): sweeps over the rows in order, moving each to the
    /// cluster that lowers Σ w_i ‖f_i − c‖² most, by the exact change of both clusters'
    /// terms, w·W_b/(W_b + w)·‖f − c_b‖² − w·W_a/(W_a − w)·‖f − c_a‖², the two centres
    /// updated after every move (float64); stops when a sweep moves nothing (a row alone in its
    /// cluster stays) or after max_sweeps. Returns the number of moves.
    int64_t hartigan(std::vector<int32_t>& labels, int64_t max_sweeps);
    /// Oracle for seeding: exact squared distances between feature rows.
    SquaredDistanceToPoint distance_oracle() const;

private:
    /// The centroids of one labelling, as the distances use them.
    struct Centres {
        Matrix C;                  ///< k×r (rows of clusters without weight are zero)
        std::vector<float> norms;  ///< ‖c_j‖²
        std::vector<char> alive;   ///< clusters with positive weight
    };
    Centres centres_for(const std::vector<int32_t>& labels) const;
    /// Every row against every centre; sums for the new labels from the same pass; bounds.
    double full_pass(const Centres& c, std::vector<int32_t>& next, std::vector<float>& dist);
    /// Hamerly: rows whose bounds hold keep their label; the sums change by the movers.
    double bounded_pass(const Centres& c, const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                        std::vector<float>& dist);
    /// Σ w_i (‖f_i − c_{next_i}‖² + offset_i) in closed form from the sums of `next`.
    double closed_objective(const Centres& c, const std::vector<int32_t>& next) const;
    /// cached_sums_ (for `labels`) moved to `next` by the rows whose label changed.
    void move_sums(const std::vector<int32_t>& labels, const std::vector<int32_t>& next);
    std::vector<double> centroid_sums(const std::vector<int32_t>& labels) const;
    /// Sums for `labels`, reused from the previous reassign when it produced these labels.
    std::vector<double> sums_for(const std::vector<int32_t>& labels) const;
    Matrix means(const std::vector<double>& sums, const std::vector<double>& mass) const;

    ConstMatrix F_;
    std::vector<float> norms_;
    std::vector<float> offset_;
    double weighted_terms_ = 0;  ///< Σ w_i (‖f_i‖² + offset_i), for closed_objective
};

/// For each row of F: the nearest of the centroids whose `alive` flag is set, and the squared
/// distance to it (clamped at 0); when `second` is not NULL, the squared distance to the
/// second nearest (not clamped; +inf when there is none); when `each` (F.rows × k) is not
/// NULL, the squared distance to every centroid, clamped as dist is (+inf to a dead one):
/// dist[i] is its row's entry at labels[i]. fnorms, cnorms: squared norms of the rows of F
/// and of the centroids. Single-threaded.
void nearest_centroid(ConstMatrix F, const float* fnorms, const Matrix& C, const std::vector<float>& cnorms,
                      const std::vector<char>& alive, int32_t* labels, float* dist, engine::Isa isa,
                      float* second = nullptr, float* each = nullptr);

/// Seeding distances for t candidates at once, in parallel row blocks (RowStore::dots, on the
/// store's path): out[c·n + i] = max(0, row_terms[i] + col_terms[c] − 2 A_i·B_c) +
/// (extra ? extra[i] : 0), A n×r (float32 or half rows) and B t×r.
void candidate_distances(const RowStore& A, const Matrix& B, const float* row_terms, const float* col_terms,
                         const float* extra, float* out, int threads);

/// Row squared norms.
std::vector<float> row_squared_norms(ConstMatrix M);

}  // namespace kkm
