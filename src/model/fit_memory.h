// What each stage of each method holds, in bytes: the sums behind both the up-front estimate
// of a fit (checked against max_memory_mb before any stage starts) and the charges the stages
// take through the fit's MemoryLedger (core/memory_ledger.h) as they allocate. Each component
// states its own footprint beside its allocations, from the constants it allocates with
// (Matrix::footprint, engine::PackedRows::footprint, Kernel::block_footprint,
// KernelBasis::footprint, engine::FixedRight::footprint, linalg::dsyevd_footprint, seeding_footprint,
// lloyd_driver_footprint, FeatureLloyd::footprint, LandmarkLloyd::footprint,
// minibatch_lloyd_footprint, RankGram::footprint, scan_footprint, each sampler's footprint
// hook); a method's footprint here names the items it holds from them, and its peak() is the
// largest sum of the items alive at the same time, in the order the fit allocates and frees
// them. Sizes are upper bounds where the data decide them (the rank of K_LL, mini-batch
// support points).
// Private to src/model.
#pragma once

#include <cstdint>

#include "core/params.h"
#include "engine/row_store.h"

namespace kkm::memory {

// ---------------------------------------------------------------- shared stages

/// Lloyd on n×r features by cluster_features (either solver), with the final centroids.
double cluster_features(const Params& p, double n, double r, int threads, bool weighted);
/// What fit_model holds beside the method: a Laplacian auto-gamma's per-thread sort orders
/// and the centring sums (released before the method starts).
double gamma_stage(const Params& p, double n, double d, int threads);

// ---------------------------------------------------------------- methods

/// method=exact. The kernel is stored when it fits in `available` bytes, else recomputed in
/// blocks of block_rows rows per thread, as many as fit.
struct ExactFootprint {
    bool store = false;
    int64_t block_rows = 0;   ///< rows per thread per recomputed block (0: not even one fits)
    double basis = 0;         ///< the training copy and its packed panels (kept by the model)
    double basis_build = 0;   ///< while packing it
    double kernel = 0;        ///< the stored n×n K, or every thread's recomputed row block
    double points = 0;        ///< diagonal, n×k sums S, label caches, moves, Lloyd driver, centres Z
                              ///< and the model's terms of Z
    double stored_peak = 0;   ///< peak() with the kernel stored
    double one_row_peak = 0;  ///< the least peak() recomputing rows (over every block size)
    double peak() const;
};
/// cols: the points whose sums this process keeps (a distributed fit: this rank's; the
/// kernel is n × cols); -1: all n.
ExactFootprint exact_footprint(const Params& p, int64_t n, int64_t d, int threads, bool weighted, double available,
                               int64_t cols = -1);

/// method=nystrom. The feature columns r are those of P: r_actual when known (after the
/// eigen-decomposition), else at most m, or min(rank, ℓ) with a rank restriction.
struct NystromFootprint {
    bool fused = false;              ///< a rank restriction whose features are taken: R = G P_ℓ
                                     ///< kept instead of G (nystrom_fused)
    bool direct = false;             ///< solver=minibatch without a rank restriction: features
                                     ///< straight from blocks of kernel rows, no G kept
    bool features_required = false;  ///< solver=minibatch: features, beside G when it is kept
    double sampling = 0;             ///< choosing the landmarks (released after)
    double basis = 0;                ///< the landmarks (kept by the model)
    double basis_build = 0;          ///< while packing them
    double landmark_rows = 0;        ///< a precomputed kernel's m×n landmark rows, until K_LL is decomposed
    double projection = 0;           ///< P from K_LL (m × r, or m × ℓ before the rank restriction)
    double eigen = 0;                ///< K_LL and its eigen-decomposition (besides P)
    double kernel_rows = 0;          ///< G, n×m (float32 or half); fused: R, n×ℓ
    double row_scratch = 0;          ///< every thread's block of kernel rows (fused: and of R, RᵀR)
    double rank = 0;                 ///< the rank restriction's chunk sums, eigen-decomposition, new P
    double final_projection = 0;     ///< P after the rank restriction (m × r)
    double diag = 0;                 ///< K_ii of the training rows
    double features = 0;             ///< F (n×r) and the residuals K_ii − ‖f_i‖²
    double feature_scratch = 0;      ///< every thread's block while F is computed
    double landmark_lloyd = 0;       ///< LandmarkLloyd and the Lloyd driver (on G)
    double feature_cluster = 0;      ///< cluster_features on F
    /// The peak of the path a fit must be able to take: features beside G are optional with
    /// solver=lloyd (taken only when features_beside_rows() fits).
    double peak() const;
    /// What a features path needs beyond G, P, the landmarks and the diagonal.
    double features_beside_rows() const;
};
/// Features cost one n×m×r product but make each Lloyd iteration n·r·k instead of n·m·k:
/// worth it when r(m + I k) < I k m, with I = 20 expected iterations.
bool features_cheaper(const Params& p, int64_t m, int64_t r);
/// Whether a rank-restricted Nyström fit (s feature columns) takes its features, and so runs
/// the rank restriction fused into the kernel pass (solver=minibatch, or features cheaper).
bool nystrom_fused(const Params& p, int64_t m, int64_t s);

NystromFootprint nystrom_footprint(const Params& p, int64_t n, int64_t d, int64_t m, int64_t l, RowPrecision precision,
                                   int threads, bool weighted, int64_t r_actual = -1);

/// method=sketch (r: feature columns, the next power of two of m for ros).
struct SketchFootprint {
    double sampling = 0, basis = 0, basis_build = 0, projection = 0, features = 0, feature_scratch = 0, cluster = 0;
    double peak() const;
};
SketchFootprint sketch_footprint(const Params& p, int64_t n, int64_t d, int64_t m, int threads, bool weighted);

/// method=rff.
struct RffFootprint {
    double map = 0, features = 0, feature_scratch = 0, cluster = 0;
    double peak() const;
};
RffFootprint rff_footprint(const Params& p, int64_t n, int64_t d, int64_t m, int threads, bool weighted);

/// method=minibatch, with the bounds on the support points (k(τ + b), at most n).
struct MinibatchFootprint {
    double diag = 0;        ///< K_ii and the batch sampler's cumulative weights
    double seeding = 0;     ///< the seeding sample, its kernel block and seeding state
    double iterations = 0;  ///< batch, products, kernel block, Gram blocks, centre histories
    double assign = 0;      ///< support centres, K(S, S), support basis, labels of every row
    double best = 0;        ///< the best restart's support basis, centres and labels (n_init > 1)
    double peak() const;
};
MinibatchFootprint minibatch_footprint(const Params& p, int64_t n, int64_t d, int threads, bool weighted);

/// The graph kernels (kernel=knn, heat), method=exact or minibatch. q: the largest neighbour
/// count the fit may try; r: eigenpairs; search: how the graph is built from rows (none: it
/// is given, with given_entries stored entries).
enum class GraphSearch { none, exact, nndescent };
struct GraphFootprint {
    double rows = 0;        ///< the centred training rows, their norms and hashes (kept by the model)
    double search = 0;      ///< the neighbour lists and the search's working set (NN-descent's samples)
    double graph = 0;       ///< the symmetrised (or given, checked) graph, kept by the model, and its construction
    double spectrum = 0;    ///< the Lanczos basis and restarts, a dense component, the eigenvectors
    double features = 0;    ///< the n × r heat features and the eigenvectors beside them
    double clustering = 0;  ///< k-means on the features and the normalized-cut Lloyd (or the mini-batches)
    double model = 0;       ///< the model's centres and the training rows' final assignment
    double peak() const;
};
GraphFootprint graph_footprint(const Params& p, int64_t n, int64_t d, int64_t q, int64_t r, int threads,
                               GraphSearch search, int64_t given_entries = 0);

}  // namespace kkm::memory
