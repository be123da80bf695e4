// A fitted model: immutable once built, so concurrent assign calls are safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/exact.h"
#include "cluster/landmark_lloyd.h"
#include "cluster/minibatch_kernel.h"
#include "core/comm.h"
#include "core/matrix.h"
#include "core/memory_ledger.h"
#include "core/params.h"
#include "engine/isa.h"
#include "engine/row_store.h"
#include "features/feature_map.h"
#include "graph/sparse_graph.h"
#include "search/search_point.h"

namespace kkm {

/// What a method chose that its report shows besides the clustering (0, empty: not used); a
/// fit's method returns them (model/fit_common.h) and they are part of its FitReport.
struct MethodFacts {
    int64_t m = 0;                            ///< landmarks / features used (0 for exact)
    int64_t reg_rank = 0;                     ///< ℓ of a rank-restricted Nyström fit (0 if none)
    double rls_lambda = 0;                    ///< λ of leverage-score sampling (0 if unused)
    std::optional<RowPrecision> kernel_rows;  ///< storage of Nyström kernel rows (fits that kept them)
    int64_t neighbors = 0;                    ///< neighbours q of the graph kernels' graph (0: none, or a user's graph)
    int64_t heat_rank = 0;                    ///< eigenpairs r of the graph kernels' spectrum (0: none)
    /// How the graph kernels' neighbour graph was searched (automatic: no graph was searched).
    GraphChoice graph = GraphChoice::automatic;
};

/// What a fit reports back (scikit-learn / stats::kmeans style).
struct FitReport : MethodFacts {
    std::vector<int32_t> labels;                          ///< training labels
    double objective = 0;                                 ///< Σ w_i ‖φ(x_i) − μ_{c(i)}‖²
    int32_t iterations = 0;                               ///< Lloyd iterations of the best restart
    std::vector<double> mass;                             ///< total weight per cluster
    double gamma = 0;                                     ///< gamma used (resolved when auto; 0 if unused)
    engine::Isa isa = engine::Isa::portable;              ///< the engine path the kernel blocks ran on
    std::vector<float> shift;                             ///< subtracted from every row before the kernel (empty: none)
    std::vector<std::pair<std::string, double>> timings;  ///< seconds per stage
    std::vector<SearchPoint> search;                      ///< what gamma=search / k=auto scored (empty: no search)
    /// Bytes the fit's up-front check estimated for its peak (core/memory_ledger.h), what
    /// the ledger held before it included.
    double memory_estimate = 0;
};

/// How a Nyström fit stores the kernel rows it keeps (kernel_rows=auto|f16|f32): half only for
/// kernels whose values lie in [-1, 1] (a linear or polynomial kernel can exceed the half
/// range, 65504; a precomputed one is the caller's numbers). The fit's choice (which refuses
/// kernel_rows=f16 with another kernel first), and the loader's for a saved model.
RowPrecision kernel_row_precision(const Params& p);

/// What a fitted model is: the model file's codes for it (never renumbered). Each kind has
/// one class (graph: GraphModel's two) and one body in the file (model/serialize.cpp).
enum class ModelKind : uint32_t { dual = 1, nystrom = 2, feature = 3, graph = 4 };

class FittedModel {
public:
    FittedModel(Params params, int64_t n_train, int64_t d, FitReport report)
        : params_(std::move(params)), n_train_(n_train), d_(d), report_(std::move(report)) {}
    virtual ~FittedModel() = default;
    virtual ModelKind kind() const = 0;

    const Params& params() const { return params_; }
    int64_t n_train() const { return n_train_; }
    int64_t input_dim() const { return d_; }
    const FitReport& report() const { return report_; }
    /// Records a search that chose this fit's gamma and k, and its seconds (before the fit
    /// is shared: a fitted model is immutable once returned).
    void record_search(std::vector<SearchPoint> scan, double seconds) {
        report_.search = std::move(scan);
        report_.timings.insert(report_.timings.begin(), {"search", seconds});
    }
    /// Records the training rows' final assignment to this model's own centres, its
    /// objective and the cluster sizes (before the fit is shared): the graph models' labels
    /// are their own assignment of the training rows, made once the model exists.
    void record_assignment(std::vector<int32_t> labels, double objective, std::vector<double> mass, double seconds) {
        report_.labels = std::move(labels);
        report_.objective = objective;
        report_.mass = std::move(mass);
        report_.timings.emplace_back("assign", seconds);
    }

    /// Nearest centre (and squared distance, if dist is not NULL) of each row of X.
    virtual void assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const = 0;
    /// Squared distance of each row of X to every centre: out is X.rows × params().k,
    /// row-major, each value computed as assign's dist (+inf to a centre that lost its
    /// points). Each row's minimum is assign's dist and its first minimum is at assign's
    /// label. Throws INVALID_ARGUMENT when the distances need k(x,x) of new rows and
    /// kernel=precomputed cannot give it (exact, minibatch, nystrom).
    virtual void distances(ConstMatrix X, float* out, int threads) const = 0;
    /// Dimension of the explicit feature space (0 when there is none).
    virtual int64_t feature_dim() const = 0;
    /// Features of the rows of X (X.rows × feature_dim()).
    virtual void transform(ConstMatrix X, float* out, int threads) const = 0;
    /// The k centres in the feature space of transform (k × feature_dim()), or an empty
    /// matrix for a model whose centres are weighted sums of training points (exact,
    /// minibatch, knn) or cannot be recovered (a loaded Nyström model of kernel=precomputed).
    virtual Matrix feature_centres() const { return {}; }

private:
    Params params_;
    int64_t n_train_;
    int64_t d_;
    FitReport report_;
};

/// Where a fit's first restart starts instead of a seeding (kkm_set_init_labels,
/// kkm_set_init_centres): the clusters of this process's rows, or k centres in input space
/// (each row starts at the nearest in the kernel's feature space). Neither: seeded.
struct Start {
    std::vector<int32_t> labels;  ///< one cluster in [0, k) per row (empty: none)
    std::vector<float> centres;   ///< centre_rows x d, row-major (empty: none)
    int64_t centre_rows = 0;
    bool given() const { return !labels.empty() || !centres.empty(); }
};

/// Throws INVALID_ARGUMENT naming both sizes when a fit of n rows and d columns with these
/// parameters would form a product that overflows 64-bit sizes: the n x k cluster sums, the
/// n x m kernel rows or features of the landmark and feature methods. Reads no data: the C
/// API calls it before it reads the caller's X and weights.
void require_fit_sizes(const Params& params, int64_t n, int64_t d);

/// Fits a model; throws kkm::Error on bad input or parameters. weights: empty or n values.
/// ledger: where the fit's stages charge their memory against params.max_memory_mb; NULL
/// gives the fit its own. A caller's ledger may already hold charges (the float32 copy of
/// float64 rows), which count against the same budget.
/// start: NULL (or empty), or where the first restart starts (Start).
std::unique_ptr<FittedModel> fit_model(const Params& params, ConstMatrix X, const std::vector<float>& weights,
                                       MemoryLedger* ledger = nullptr, const Start* start = nullptr);

/// The same fit over rows spread across the ranks of `comm` (collective): X and weights are
/// this rank's rows (any split; a rank may hold none), in the global row order rank by rank.
/// Every rank returns the same model but for its training labels, which are its own rows'
/// (n_train() is this rank's row count). The result does not depend on the number of ranks
/// beyond float64 rounding: the same labels and objective as one process on the concatenated
/// rows. Errors are collective: every rank throws the same kkm::Error. With solo_comm() this
/// is the single-process fit_model above.
std::unique_ptr<FittedModel> fit_model(const Params& params, ConstMatrix X, const std::vector<float>& weights,
                                       const Comm& comm, MemoryLedger* ledger = nullptr, const Start* start = nullptr);

/// Fits a graph kernel (kernel=knn or heat) on a user's graph (CSR of n nodes in caller memory,
/// checked and copied canonical by graph::checked_graph once the parameters and the memory
/// estimate of its entries are checked) instead of points; the model assigns affinity rows
/// against the n training nodes. Throws kkm::Error as fit_model does.
std::unique_ptr<FittedModel> fit_graph_model(const Params& params, const graph::CsrView& csr,
                                             MemoryLedger* ledger = nullptr);

/// Charges the float32 copy of n×d float64 rows (kkm_fit_f64) to a fit's ledger before the
/// copy is made, and runs the fit's up-front check on top of it (weighted: weights will be
/// given), so that a fit that cannot fit is refused before the copy too. Throws
/// OUT_OF_MEMORY naming max_memory_mb (or INVALID_ARGUMENT for parameters the data refuse).
[[nodiscard]] MemoryLedger::Charge charge_float32_copy(MemoryLedger& ledger, const Params& params, int64_t n, int64_t d,
                                                       bool weighted);

/// Centres as weighted sums of reference points in feature space: the cluster means over all
/// training points (exact), or the sparse mini-batch centres over their support points
/// (minibatch). Distances are kernel distances K(x,x) − 2 Σ_a z_aj K(x,a)/W_j + C_j.
class DualModel final : public FittedModel {
public:
    /// stream: a truncated minibatch fit's centre histories over the basis points and its
    /// rate counts, for kkm_partial_fit to go on from (empty: exact, tau=0, a file before
    /// format 6).
    DualModel(Params params, int64_t n_train, int64_t d, FitReport report, KernelBasis basis, DualCentres centres,
              MinibatchState stream = {});
    ModelKind kind() const override { return ModelKind::dual; }
    void assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const override;
    void distances(ConstMatrix X, float* out, int threads) const override;
    int64_t feature_dim() const override { return 0; }
    void transform(ConstMatrix X, float* out, int threads) const override;
    /// The reference points and the centres' coefficients over them (for tests and tools).
    const KernelBasis& basis() const { return basis_; }
    const DualCentres& centres() const { return centres_; }
    /// The centres' non-zero coefficients, listed once when the model is made: an assignment
    /// of a few rows costs their kernel rows, not a scan of all of Z.
    const DualTerms& terms() const { return terms_; }
    const MinibatchState& stream_state() const { return stream_; }

private:
    KernelBasis basis_;
    DualCentres centres_;
    DualTerms terms_;
    MinibatchState stream_;
};

/// Nyström, clustered on the kernel rows: centres in the span of the landmarks, kept as
/// H = P c (k×m) so that assigning a row costs its kernel row against the landmarks and one
/// k×m product; distances are kernel distances K(x,x) − 2 f·c + ‖c‖².
class NystromModel final : public FittedModel {
public:
    /// map: landmarks with a DenseProjection P (Pᵀ K_LL P = I).
    NystromModel(Params params, int64_t n_train, int64_t d, FitReport report, std::shared_ptr<const LandmarkMap> map,
                 LandmarkCentres centres);
    ModelKind kind() const override { return ModelKind::nystrom; }
    void assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const override;
    void distances(ConstMatrix X, float* out, int threads) const override;
    int64_t feature_dim() const override { return map_->dim(); }
    void transform(ConstMatrix X, float* out, int threads) const override;
    const LandmarkMap& map() const { return *map_; }
    /// The map, shared (kkm_partial_fit's models go on with it).
    const std::shared_ptr<const LandmarkMap>& shared_map() const { return map_; }
    const LandmarkCentres& centres() const { return centres_; }
    /// The fit's C, or (a loaded model) C = H K_LL P, since Pᵀ K_LL P = I and H = C Pᵀ.
    Matrix feature_centres() const override;

private:
    std::shared_ptr<const LandmarkMap> map_;
    LandmarkCentres centres_;
};

/// Any explicit feature map (sketches, random features, Nyström clustered on its features)
/// with centroids in feature space. With kernel_distances (Nyström maps, Pᵀ K_LL P = I) the
/// distances are kernel distances to centres in the landmark span, ‖f − c‖² + K(x,x) − ‖f‖²;
/// otherwise they are feature-space distances ‖f − c‖².
class FeatureModel final : public FittedModel {
public:
    /// alive: which centroids take points (1) or lost every point (0); empty: those whose
    /// cluster has a positive mass in the report (a fit's, or a file before format 5).
    FeatureModel(Params params, int64_t n_train, int64_t d, FitReport report, std::shared_ptr<const FeatureMap> map,
                 Matrix centroids, bool kernel_distances, std::vector<char> alive = {});
    ModelKind kind() const override { return ModelKind::feature; }
    void assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const override;
    void distances(ConstMatrix X, float* out, int threads) const override;
    int64_t feature_dim() const override { return map_->dim(); }
    void transform(ConstMatrix X, float* out, int threads) const override;
    const FeatureMap& map() const { return *map_; }
    /// The map, shared (kkm_partial_fit's models go on with it).
    const std::shared_ptr<const FeatureMap>& shared_map() const { return map_; }
    const Matrix& centroids() const { return centroids_; }
    Matrix feature_centres() const override { return copy_of(centroids_.view()); }
    bool kernel_distances() const { return kernel_distances_; }
    const std::vector<char>& alive() const { return alive_; }

private:
    /// The pass assign and distances share: labels and dist (NULL: not wanted) for assign, or
    /// every centre's distance into each (X.rows × k) for distances (labels, dist NULL).
    void pass(ConstMatrix X, int32_t* labels, float* dist, float* each, int threads) const;

    std::shared_ptr<const FeatureMap> map_;
    Matrix centroids_;
    std::vector<float> cnorms_;
    std::vector<char> alive_;
    bool kernel_distances_;
};

}  // namespace kkm
