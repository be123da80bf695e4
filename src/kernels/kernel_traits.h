// What each kernel is, in one table: every dispatch on the kernel type that is about a
// property (not about how to evaluate it, which is Kernel's and the engine's business) reads
// this table, so that adding a kernel means adding one row here.
#pragma once

#include <array>

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
};

inline constexpr std::array<KernelTraits, 6> kKernelTraits{{
    // type                   precomputed shift  gamma  centred bounded norms
    {KernelType::rbf, false, true, true, true, true, KernelNorms::squared},
    {KernelType::laplacian, false, true, true, true, true, KernelNorms::none},
    {KernelType::polynomial, false, false, true, false, false, KernelNorms::none},
    {KernelType::linear, false, false, false, true, false, KernelNorms::none},
    {KernelType::cosine, false, false, false, false, true, KernelNorms::inverse},
    {KernelType::precomputed, true, false, false, false, false, KernelNorms::none},
}};

/// The row of `type`.
constexpr const KernelTraits& kernel_traits(KernelType type) {
    for (const KernelTraits& t : kKernelTraits) {
        if (t.type == type) return t;
    }
    return kKernelTraits.back();  // unreachable for a valid enum value
}

}  // namespace kkm
