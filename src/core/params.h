// Parameters: one table (name, type, default, range, doc) is the single source of truth for
// parsing, validation, kkm_get_param, kkm_param_info and the README table. Values are kept
// as canonical text in a ParamSet; a fit reads them into the typed Params struct.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kkm {

enum class Method { exact, nystrom, sketch, rff, minibatch };
enum class KernelType { rbf, laplacian, polynomial, linear, cosine, precomputed, knn, heat };
enum class Init { kmeanspp, random };
enum class Sampling { uniform, rls, kmeanspp };
enum class SketchKind { subgaussian, ros, gaussian, identity };
enum class LearningRate { beta, sklearn };
enum class Solver { lloyd, minibatch };
enum class Refine { none, hartigan };
enum class SearchCriterion { stability, matr };
enum class IsaChoice { automatic, avx512, avx2, portable };
enum class RowsChoice { automatic, f32, f16 };
enum class GraphChoice { automatic, exact, nndescent, anchor };
enum class Switch { on, off };

/// Every parameter of a fit, typed. Defaults here must match the table in params.cpp
/// (a unit test checks that they do).
struct Params {
    /// Number of clusters; 0 means auto (chosen in [k_min, k_max] by src/search).
    int64_t k = 8;
    /// Range of k=auto.
    int64_t k_min = 2;
    int64_t k_max = 10;
    /// Algorithm: exact kernel k-means (n×n kernel), Nyström landmarks, a randomized sketch
    /// of landmark kernel rows, random Fourier features, or truncated mini-batch kernel
    /// k-means. method_auto: the parameter said auto (ParamSet::typed); apply_kernel_defaults
    /// (kernels/kernel_traits.h) then sets the kernel's default method and clears the flag.
    Method method = Method::nystrom;
    bool method_auto = false;
    /// Kernel function.
    KernelType kernel = KernelType::rbf;
    /// Kernel scale; 0 means auto or search (resolved at fit from the data).
    double gamma = 0.0;
    /// gamma=search: chosen by search_criterion on a subsample (gamma is then 0).
    bool gamma_search = false;
    /// How gamma=search scores a candidate gamma.
    SearchCriterion search_criterion = SearchCriterion::matr;
    /// Rows of the subsample that gamma=search and k=auto fit on.
    int64_t search_size = 1000;
    /// β of gamma=auto: σ² = β² · mean pairwise squared distance.
    double bandwidth_scale = 0.4;
    /// Degree of the polynomial kernel.
    int64_t degree = 3;
    /// Constant term of the polynomial kernel.
    double coef0 = 1.0;
    /// Number of Nyström landmarks; 0 means auto = min(n, max(k, ceil(4·sqrt(n)))).
    int64_t m = 0;
    /// Relative eigenvalue cut-off for K_LL: eigenvalues below rcond·λ_max are dropped.
    double nystrom_rcond = 1e-6;
    /// Rank restriction s of Nyström features; 0 means not restricted.
    int64_t rank = 0;
    /// ℓ, eigenpairs of K_LL kept before the rank restriction; 0 means auto = ceil(m/2).
    int64_t reg_rank = 0;
    /// How Nyström / sketch landmarks are drawn.
    Sampling sampling = Sampling::uniform;
    /// λ of ridge leverage scores; 0 means auto = sqrt(n).
    double rls_lambda = 0.0;
    /// Sketch matrix S of method=sketch.
    SketchKind sketch = SketchKind::subgaussian;
    /// Points per mini-batch (method=minibatch, solver=minibatch).
    int64_t batch_size = 1024;
    /// Truncation of mini-batch kernel centres; 0 = none.
    int64_t tau = 200;
    /// Mini-batch early stopping threshold on the batch objective's improvement.
    double epsilon = 1e-3;
    /// Learning rate of mini-batch kernel k-means.
    LearningRate learning_rate = LearningRate::beta;
    /// How k-means runs on explicit features: full Lloyd passes or Sculley's mini-batches.
    Solver solver = Solver::lloyd;
    /// After Lloyd: single-point transfers that lower the objective until none does.
    Refine refine = Refine::none;
    /// Seeding of the centres.
    Init init = Init::kmeanspp;
    /// Restarts from independent seedings; the best objective is kept. n_init_auto: the
    /// parameter said auto, resolved to the kernel's default by apply_kernel_defaults.
    int64_t n_init = 1;
    bool n_init_auto = false;
    /// Maximum Lloyd iterations per restart.
    int64_t max_iter = 100;
    /// Stop when the objective improves by less than tol · objective.
    double tol = 1e-4;
    /// Seed of every random choice.
    uint64_t seed = 0;
    /// Threads (0 = all cores).
    int64_t threads = 0;
    /// Memory budget in MiB for the fit's working set.
    /// Resolved: the table's default, auto, is auto_memory_mb(); 4096 only for a Params built
    /// without the table (tests).
    int64_t max_memory_mb = 4096;
    /// Instruction-set path of the kernel-block engine (automatic: the widest the CPU has).
    IsaChoice isa = IsaChoice::automatic;
    /// Storage of Nyström kernel rows (automatic: half for kernels bounded by 1).
    RowsChoice kernel_rows = RowsChoice::automatic;
    /// Graph kernels (knn, heat): neighbours q of each training row in the graph (with
    /// graph=anchor: the nearest anchors r of each row); 0 means auto (10, raised while the
    /// graph is disconnected: src/model/fit_graph.cpp; 3 anchors).
    int64_t neighbors = 0;
    /// Graph kernels: how the neighbour graph is searched (automatic: exact for small fits).
    GraphChoice graph = GraphChoice::automatic;
    /// Graph kernels with graph=anchor: the anchors p; 0 means auto (min(n, max(1000, 10k))).
    int64_t anchors = 0;
    /// Heat kernel exp(−tL): the time t.
    double heat_t = 80.0;
    /// Heat kernel: eigenpairs r of D^-½AD^-½ kept; 0 means auto = max(2k, 20).
    int64_t heat_rank = 0;
    /// Heat kernel: features scaled to unit length (the normalised kernel).
    bool heat_normalize = true;
};

/// Static description of one parameter (one row of the table).
struct ParamSpec {
    const char* name;
    const char* aliases;  ///< space-separated alternative keys, "" if none
    const char* type;     ///< "int", "float", "enum", "int|auto", "float|auto", "int|none"
    const char* default_value;
    const char* range;  ///< human-readable accepted range or values
    const char* doc;
    double min;           ///< numeric lower bound
    double max;           ///< numeric upper bound
    bool min_exclusive;   ///< lower bound is exclusive
    bool max_exclusive;   ///< upper bound is exclusive
    const char* choices;  ///< enum values separated by '|', nullptr for numbers
};

/// The table.
const std::vector<ParamSpec>& param_table();

/// Index of a parameter by name or alias, or -1.
int find_param(std::string_view key);

/// Validates `value` for parameter `index` and returns its canonical text.
/// Throws kkm::Error(KKM_ERR_INVALID_ARGUMENT) naming the key and the accepted range.
std::string canonical_value(int index, std::string_view value);

/// Current values of every parameter, as canonical text.
class ParamSet {
public:
    ParamSet();
    /// Sets one key (name or alias); throws on an unknown key or an invalid value.
    void set(std::string_view key, std::string_view value);
    /// Sets "key=value key=value ..." all-or-nothing; a parameter given twice (under its name
    /// or an alias) is an error naming it.
    void set_many(std::string_view text);
    /// Canonical text of a key (name or alias); throws on an unknown key.
    const std::string& get(std::string_view key) const;
    /// The typed view used by a fit.
    Params typed() const;
    /// Every parameter as "name=value name=value ..." (set_many reads it back).
    std::string text() const;
    /// Same value for every parameter.
    bool operator==(const ParamSet& other) const = default;

private:
    std::vector<std::string> values_;
};

}  // namespace kkm
