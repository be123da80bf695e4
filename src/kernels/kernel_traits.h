// What each kernel is, in one table: every dispatch on the kernel type that is about a
// property (not about how to evaluate it, which is Kernel's and the engine's business) reads
// this table, so that adding a kernel means adding one row here.
#pragma once

#include <array>
#include <cstdint>

#include "core/params.h"

namespace kkm {

/// How a kernel's row aux data is formed for the engine (Kernel::pack).
enum class KernelNorms { none, squared, inverse };

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
};

/// Rows up to which n_init=auto restarts the point kernels ten times. Measured (README,
/// "Defaults"): one k-means++ start splits two rings or two circles in half in about half the
/// seeds, ten never did; below 10000 rows the ten cost at most a few tenths of a second, while
/// at Fashion-MNIST's 60000 they would triple the fit (0.99 s -> 3.1 s, 2 cores) for +0.01 NMI.
inline constexpr int64_t kFewRows = 10000;

inline constexpr std::array<KernelTraits, 8> kKernelTraits{{
    // type                   precomputed shift  gamma  centred bounded norms  graph  method  restarts (few, many rows)
    {KernelType::rbf, false, true, true, true, true, KernelNorms::squared, false, Method::nystrom, 10, 1},
    {KernelType::laplacian, false, true, true, true, true, KernelNorms::none, false, Method::nystrom, 10, 1},
    {KernelType::polynomial, false, false, true, false, false, KernelNorms::none, false, Method::nystrom, 10, 1},
    {KernelType::linear, false, false, false, true, false, KernelNorms::none, false, Method::nystrom, 10, 1},
    {KernelType::cosine, false, false, false, false, true, KernelNorms::inverse, false, Method::nystrom, 10, 1},
    {KernelType::precomputed, true, false, false, false, false, KernelNorms::none, false, Method::nystrom, 10, 1},
    // The graph kernels cluster r-dimensional features (or sparse rows) seeded from them: ten
    // restarts cost little beside the graph, and k-means++ on heat features is seed-sensitive
    // (Satellite: NMI 0.61-0.64 from single starts, 0.65 from the best of ten).
    {KernelType::knn, false, false, false, true, false, KernelNorms::none, true, Method::exact, 10, 10},
    {KernelType::heat, false, false, false, true, false, KernelNorms::none, true, Method::exact, 10, 10},
}};

/// The row of `type`.
constexpr const KernelTraits& kernel_traits(KernelType type) {
    for (const KernelTraits& t : kKernelTraits) {
        if (t.type == type) return t;
    }
    return kKernelTraits.back();  // unreachable for a valid enum value
}

/// What n_init=auto means for `type` on n rows (over every rank).
constexpr int64_t auto_restarts(KernelType type, int64_t n) {
    const KernelTraits& t = kernel_traits(type);
    return n <= kFewRows ? t.restarts : t.restarts_many;
}

/// Resolves method=auto and n_init=auto (for n rows) to the kernel's defaults (the table
/// above), once: the flags are cleared, so that code which then sets a method itself (the
/// search's scoring fits) keeps it. Every Params a fit or a loaded model uses goes through here.
constexpr void apply_kernel_defaults(Params& p, int64_t n) {
    const KernelTraits& t = kernel_traits(p.kernel);
    if (p.method_auto) p.method = t.method;
    if (p.n_init_auto) p.n_init = auto_restarts(p.kernel, n);
    p.method_auto = false;
    p.n_init_auto = false;
}

}  // namespace kkm
