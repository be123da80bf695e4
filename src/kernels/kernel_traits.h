// Each kernel's descriptor, in one table: what the kernel is (its properties) and how the
// library evaluates, validates and scales it (its hooks). Every dispatch on the kernel type
// reads this table (kernel.cpp, auto_gamma.cpp, the rff map, the gamma search, the fit's
// checks), so that a kernel is its row here, its hooks in kernel_traits.cpp and its engine
// tile function (engine/tiles.h): docs/ARCHITECTURE.md, "Add a kernel".
#pragma once

#include <array>
#include <cstdint>

#include "core/params.h"
#include "engine/tiles.h"

namespace kkm {

/// How a kernel's row aux data is formed for the engine (Kernel::pack).
enum class KernelNorms { none, squared, inverse };

/// What gamma=auto resolves to (auto_gamma; bandwidth_scale β).
enum class AutoScale {
    none,         ///< the kernel reads no gamma
    squared,      ///< 1/(2 β² σ²), σ² the mean pairwise squared distance (scan_rows' moments)
    l1,           ///< 1/(β · mean pairwise L1 distance), from a sort of every column (one process)
    inverse_dim,  ///< 1/d
};

/// The distance a shift-invariant kernel is a function of: what gamma=search's scales and
/// pairwise distances are measured in, and (method=rff) the spectral density of its random
/// frequencies (Rahimi & Recht: Gaussian for the squared distance, Cauchy for L1).
enum class KernelDistance { none, squared, l1 };

/// The float32 scalars of one kernel instance, as the hooks read them (the engine's tiles
/// read the same).
using KernelScalars = engine::KernelScalars;

struct KernelTraits {
    KernelType type;
    /// X is the kernel matrix itself: no kernel function, no feature map, no landmark rows.
    bool precomputed;
    /// k(x, y) depends only on x - y (rbf, laplacian): gamma=auto from a spread, gamma=search,
    /// random Fourier features.
    bool shift_invariant;
    /// The kernel function reads gamma (rbf, laplacian, polynomial).
    bool uses_gamma;
    /// A fit subtracts the training mean from every row first (rbf and laplacian: invariant;
    /// linear: its k-means distances are).
    bool centred;
    /// |k(x, y)| <= 1 for every pair: values fit half precision (kernel_rows=f16).
    bool bounded;
    /// The per-row quantity the engine needs beside the rows.
    KernelNorms norms;
    /// A graph kernel (knn, heat): defined on the neighbour graph of the training rows, not by
    /// a function of two rows; fitted by src/model/fit_graph.cpp (exact or minibatch).
    bool graph;
    /// What method=auto means with this kernel.
    Method method;
    /// What n_init=auto means with this kernel: restarts up to kFewRows rows, and beyond.
    int64_t restarts;
    int64_t restarts_many;
    /// The engine's tile function (dot: the plain dot product, as linear).
    engine::TileFn tile;
    /// The kernel reads coef0 and degree (polynomial).
    bool uses_coef0;
    /// What gamma=auto resolves to.
    AutoScale auto_scale;
    /// What a shift-invariant kernel is a function of (else none).
    KernelDistance distance;
    /// Throws INVALID_DATA when a row of squared norm `sq` (inf if it overflowed) cannot be
    /// computed in float32 without overflow; NULL when the kernel takes no dot products.
    void (*check_row)(KernelType type, float sq, const KernelScalars& s);
    /// k(x, x) from the (centred) row's squared norm; NULL without a kernel function.
    float (*diagonal)(float sq, const KernelScalars& s);
    /// Kernel-space distances are >= 0 for every X: positive semi-definite by construction.
    bool (*positive_semidefinite)(double coef0);
};

// The hooks (kernel_traits.cpp).
void check_dot_row(KernelType type, float sq, const KernelScalars& s);
void check_cosine_row(KernelType type, float sq, const KernelScalars& s);
void check_polynomial_row(KernelType type, float sq, const KernelScalars& s);
float unit_diagonal(float sq, const KernelScalars& s);
float cosine_diagonal(float sq, const KernelScalars& s);
float linear_diagonal(float sq, const KernelScalars& s);
float polynomial_diagonal(float sq, const KernelScalars& s);
bool always_psd(double coef0);
bool never_known_psd(double coef0);
bool psd_when_coef0_nonnegative(double coef0);

/// Rows up to which n_init=auto restarts the point kernels ten times. Measured (README,
/// "Defaults"): one k-means++ start splits two rings or two circles in half in about half the
/// seeds, ten never did; below 10000 rows the ten cost at most a few tenths of a second, while
/// at Fashion-MNIST's 60000 they would triple the fit (0.99 s -> 3.1 s, 2 cores) for +0.01 NMI.
inline constexpr int64_t kFewRows = 10000;

inline constexpr std::array<KernelTraits, 8> kKernelTraits{{
    // type, precomputed, shift_invariant, uses_gamma, centred, bounded, norms, graph, method,
    // restarts (few, many rows); tile, uses_coef0, auto_scale, distance; check_row, diagonal, psd
    {KernelType::rbf, false, true, true, true, true, KernelNorms::squared, false, Method::nystrom, 10, 1,
     engine::TileFn::rbf, false, AutoScale::squared, KernelDistance::squared,  //
     check_dot_row, unit_diagonal, always_psd},
    {KernelType::laplacian, false, true, true, true, true, KernelNorms::none, false, Method::nystrom, 10, 1,
     engine::TileFn::laplacian, false, AutoScale::l1, KernelDistance::l1,  //
     nullptr, unit_diagonal, always_psd},
    {KernelType::polynomial, false, false, true, false, false, KernelNorms::none, false, Method::nystrom, 10, 1,
     engine::TileFn::polynomial, true, AutoScale::inverse_dim, KernelDistance::none,  //
     check_polynomial_row, polynomial_diagonal, psd_when_coef0_nonnegative},
    {KernelType::linear, false, false, false, true, false, KernelNorms::none, false, Method::nystrom, 10, 1,
     engine::TileFn::dot, false, AutoScale::none, KernelDistance::none,  //
     check_dot_row, linear_diagonal, always_psd},
    {KernelType::cosine, false, false, false, false, true, KernelNorms::inverse, false, Method::nystrom, 10, 1,
     engine::TileFn::cosine, false, AutoScale::none, KernelDistance::none,  //
     check_cosine_row, cosine_diagonal, always_psd},
    {KernelType::precomputed, true, false, false, false, false, KernelNorms::none, false, Method::nystrom, 10, 1,
     engine::TileFn::dot, false, AutoScale::none, KernelDistance::none,  //
     nullptr, nullptr, never_known_psd},
    // The graph kernels cluster r-dimensional features (or sparse rows) seeded from them: ten
    // restarts cost little beside the graph, and k-means++ on heat features is seed-sensitive
    // (Satellite: NMI 0.61-0.64 from single starts, 0.65 from the best of ten).
    {KernelType::knn, false, false, false, true, false, KernelNorms::none, true, Method::exact, 10, 10,
     engine::TileFn::dot, false, AutoScale::none, KernelDistance::none,  //
     nullptr, nullptr, always_psd},
    {KernelType::heat, false, false, false, true, false, KernelNorms::none, true, Method::exact, 10, 10,
     engine::TileFn::dot, false, AutoScale::none, KernelDistance::none,  //
     nullptr, nullptr, always_psd},
}};

/// gamma of a shift-invariant kernel for the distance scale s (a mean or a neighbour's
/// distance): 1/(2s) for the squared distance (rbf: exp(-d²/(2s))), 1/s for L1.
constexpr double gamma_for_scale(KernelDistance distance, double s) {
    return 1.0 / ((distance == KernelDistance::squared ? 2.0 : 1.0) * s);
}

/// The kernel whose values are the rows' dot products (the engine's plain tile), and the one
/// that takes X as the kernel matrix: what code that needs such a matrix asks for.
inline constexpr KernelType kDotProductKernel = KernelType::linear;
inline constexpr KernelType kGivenMatrixKernel = KernelType::precomputed;

/// The table's rows agree with themselves: a scale to resolve exactly when gamma is read, a
/// distance exactly for the shift-invariant kernels. (Its hooks, function pointers, are checked
/// by tests/unit_methods.cpp: a sanitizer build cannot compare them in a constant expression.)
constexpr bool descriptors_consistent() {
    for (const KernelTraits& t : kKernelTraits) {
        if (t.uses_gamma != (t.auto_scale != AutoScale::none)) return false;
        if (t.shift_invariant != (t.distance != KernelDistance::none)) return false;
    }
    return true;
}
static_assert(descriptors_consistent(), "kKernelTraits: a row contradicts itself (see descriptors_consistent)");

/// The row of `type`.
constexpr const KernelTraits& kernel_traits(KernelType type) {
    for (const KernelTraits& t : kKernelTraits) {
        if (t.type == type) return t;
    }
    return kKernelTraits.back();  // unreachable for a valid enum value
}

/// What n_init=auto means for `type` with `method` on n rows (over every rank). The restarts of
/// exact, nystrom, sketch and rff share the kernel matrix or the features and repeat seeding and
/// Lloyd only (at 10000 Fashion-MNIST rows ten of them add 0.25-1.2 s on a Zen 3), but a
/// minibatch restart of a point kernel repeats the whole fit, every batch's kernel blocks: ten
/// took 46 s where one took 4.8 s at 10001 rows. It restarts once, as scikit-learn's
/// MiniBatchKMeans does; the graph kernels' minibatch restarts share the graph and keep theirs.
/// graph=auto takes the anchor graph for kernel=heat (method=exact) above this many rows
/// (model/fit_graph.cpp, graph_choice), and for kernel=knn above kKnnAnchorGraphAbove: the
/// k-NN graph's normalized cut stays the better choice longer (Fashion-MNIST 60000: NMI 0.652
/// on NN-descent's graph in 7.7 s, 0.619 on the anchor graph in 2.5 s), and its cost grows
/// faster than n (k = 100 on 100000 two-dimensional points: 200 Lanczos pairs).
inline constexpr int64_t kAnchorGraphAbove = 20000;
inline constexpr int64_t kKnnAnchorGraphAbove = 60000;
/// n_init=auto on the anchor graph: its heat features' k-means restarts reach one partition
/// (Fashion-MNIST 60000, k = 10: NMI 0.619/0.625/0.625 with 3 restarts, seeds 0-2, as with 10;
/// 100000 two-dimensional blobs, k = 100: 0.975 with 3 and with 10, in 2.5 s against 10.6 s).
inline constexpr int64_t kAnchorRestarts = 3;

constexpr bool anchor_graph_rows(KernelType type, Method method, GraphChoice graph, int64_t n) {
    const int64_t above = type == KernelType::knn ? kKnnAnchorGraphAbove : kAnchorGraphAbove;
    return kernel_traits(type).graph && method != Method::minibatch &&
           (graph == GraphChoice::anchor || (graph == GraphChoice::automatic && n > above));
}

constexpr int64_t auto_restarts(KernelType type, Method method, int64_t n, GraphChoice graph = GraphChoice::automatic) {
    const KernelTraits& t = kernel_traits(type);
    if (method == Method::minibatch && !t.graph) return 1;
    if (anchor_graph_rows(type, method, graph, n)) return kAnchorRestarts;
    return n <= kFewRows ? t.restarts : t.restarts_many;
}

/// Resolves method=auto and n_init=auto (for n rows) to the kernel's defaults (the table
/// above), once: the flags are cleared, so that code which then sets a method itself (the
/// search's scoring fits) keeps it. Every Params a fit or a loaded model uses goes through here.
constexpr void apply_kernel_defaults(Params& p, int64_t n) {
    const KernelTraits& t = kernel_traits(p.kernel);
    if (p.method_auto) p.method = t.method;
    if (p.n_init_auto) p.n_init = auto_restarts(p.kernel, p.method, n, p.graph);
    p.method_auto = false;
    p.n_init_auto = false;
}

}  // namespace kkm
