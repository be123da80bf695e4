// Lloyd on Nyström features without building them. With g_i = k_L(x_i) (the kernel row of
// point i against the m landmarks) and features f_i = Pᵀ g_i (P is m×r), a centroid is
// c_j = Pᵀ ḡ_j (ḡ_j the weighted mean kernel row of cluster j), and the kernel distance from
// φ(x_i) to the centre Φ_L P c_j in the landmark span (Calandriello & Rosasco 2018, §3) is
//     ‖φ(x_i) − c_j‖² = K_ii − 2 g_iᵀ (P c_j) + ‖c_j‖²
// = ‖f_i − c_j‖² + (K_ii − ‖f_i‖²), the Nyström-space distance plus a per-point residual that
// no centre can change. So the assignments are those of k-means on the features, the
// objective is the exact kernel k-means objective of the Nyström centres, and the n×m×r
// projection is never computed: each iteration costs one n×m×k GEMM.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cluster/bounded_lloyd.h"
#include "cluster/hamerly.h"
#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "core/comm.h"
#include "core/matrix.h"
#include "engine/isa.h"
#include "engine/row_store.h"

namespace kkm {

/// Centres in kernel-row space: H_j = P c_j (so that f_i·c_j = g_i·H_j) and ‖c_j‖².
/// (P is applied twice rather than forming P Pᵀ, whose condition number is squared.)
struct LandmarkCentres {
    Matrix H;                     ///< k×m
    std::vector<float> self_dot;  ///< k
    std::vector<char> alive;      ///< clusters with positive weight
    Matrix C;                     ///< k×r, the centres in feature coordinates (fit only; not saved)
};

/// The largest centre term |self_dot[j]|: with a row's own term, it scales the rounding of a
/// float32 distance (rounding_slack in cluster/hamerly.h).
float largest_centre_term(const LandmarkCentres& c);

/// Nearest centre of `count` kernel rows G (count×m), with K(x,x) in self (NULL: distances
/// omit it), and, when `second` is not NULL, the distance to the second nearest (+inf when
/// there is none). `each` (count×k, when not NULL) receives every squared distance, computed
/// and clamped as dist is (+inf to a dead centre): dist[i] is its row's entry at labels[i].
/// Single-threaded.
void landmark_nearest(ConstMatrix G, const float* self, const LandmarkCentres& c, int32_t* labels, float* dist,
                      engine::Isa isa, float* second = nullptr, float* each = nullptr);

/// landmark_nearest for `count` rows of a store: rows idx[0..count) (idx NULL: rows first,
/// first + 1, ...), read where they are stored; self[t] belongs to the t-th of them; `each`
/// as above.
void landmark_nearest(const RowStore& G, const int64_t* idx, int64_t first, int64_t count, const float* self,
                      const LandmarkCentres& c, int32_t* labels, float* dist, float* second = nullptr,
                      float* each = nullptr);

class LandmarkLloyd final : public BoundedLloyd {
public:
    /// G: n×m kernel rows (not copied: must outlive this object; float32 or half), P: m×r
    /// projection, diag: K_ii of the n points.
    /// bounds: skip the distances that Elkan's or Hamerly's bounds prove cannot change a label
    /// (the distances are Euclidean in the kernel's feature space, so the triangle inequality
    /// holds); Bounds::none computes every distance every iteration (the tests compare them).
    /// comm, part: the ranks the rows are spread over and this rank's place (G, diag and
    /// weights are this rank's rows; reassign and objective return the objective over all
    /// ranks). Default: one process.
    LandmarkLloyd(const RowStore& G, const Matrix& P, std::vector<float> diag, std::vector<float> weights, int64_t k,
                  int threads, engine::Isa isa, Bounds bounds = Bounds::elkan, const Comm& comm = solo_comm(),
                  const RowPartition* part = nullptr);
    /// Bytes it holds on n kernel rows against m landmarks with r feature columns (besides
    /// G, P, the diagonal it takes over and the Lloyd driver): Pᵀ, the weights' copy, label
    /// caches, bounds (Elkan's k per row), the chunks' partial sums and the centres, every
    /// thread's decoded rows and products, the seeding oracle's candidate rows.
    static double footprint(const Params& p, double n, double m, double r, int threads, bool weighted);

    int64_t size() const override { return G_.rows(); }
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) override;
    double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) override;

    /// Centres of a labelling, and the weighted mean kernel rows ḡ_j (k×m) behind them.
    LandmarkCentres centres(const std::vector<int32_t>& labels, Matrix* means = nullptr);
    /// The model's centres of a run: those its labels were measured against (result.centres,
    /// bit for bit) when it kept them, else centres(result.centre_members()).
    LandmarkCentres centres_of(const LloydResult& result);
    /// D²(i, c) = K_ii − 2 f_i·f_c + ‖f_c‖²: kernel distance to the landmark-span
    /// projection of point c (the exact kernel distance when every point is a landmark).
    SquaredDistanceToPoint distance_oracle() const;

private:
    /// Every point against every centre; sums for the new labels from the same pass; bounds.
    double full_pass(const LandmarkCentres& c, std::vector<int32_t>& next, std::vector<float>& dist);
    /// Hamerly: points whose bounds hold keep their label; the sums change by the movers.
    double bounded_pass(const LandmarkCentres& c, const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                        std::vector<float>& dist);
    /// Elkan's bounds of `count` rows (first + t, or idx[t]) from their squared distances
    /// to every centre (count×k).
    void set_lower_bounds(int64_t first, int64_t count, const float* each, const int64_t* idx);
    /// cached_sums_ (for `labels`) moved to `next` by the points whose label changed.
    void move_sums(const std::vector<int32_t>& labels, const std::vector<int32_t>& next);
    /// partial_ as kChunks·k·m zeros, for a pass to add its chunks into.
    std::vector<float>& zeroed_partial();
    /// This rank's sums Σ w_i g_i per cluster (k×m), cached for the last labels.
    std::vector<double> sums_for(const std::vector<int32_t>& labels);
    LandmarkCentres centres_from_sums(const std::vector<double>& sums, const std::vector<double>& mass,
                                      Matrix* means) const;
    /// The centres with feature coordinates C (k×r): ‖c_j‖² and H = C Pᵀ from C alone.
    LandmarkCentres centres_at(Matrix C, std::vector<char> alive) const;
    /// Columns per thread when `columns` are split over the threads (whole cache lines).
    int64_t column_slice(int64_t columns) const;
    /// rows (t×m, float64) → their features Pᵀ g (t×r, float64).
    std::vector<double> project(const std::vector<double>& rows, int64_t t) const;
    /// features (t×r) → P f (t×m, float32), the kernel-row form of those centres.
    Matrix lift(const std::vector<double>& features, int64_t t) const;

    const RowStore& G_;
    const Matrix& P_;
    Matrix Pt_;  ///< Pᵀ (r×m), for the centres' products
    std::vector<float> diag_;
    /// The chunks' partial sums of a pass (kChunks·k·m), kept between passes: a fresh 1.3 MB
    /// each pass (k = 10, m = 1000) was 320 page faults.
    std::vector<float> partial_;
    int64_t lower_per_row_;  ///< bounds_.lower per point: k (Elkan's), or 1 (Hamerly's)
};

}  // namespace kkm
