// Label-free scores of a clustering of the search subsample under one kernel matrix (higher is
// better), from fits of exact kernel k-means on the precomputed subsample kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"

namespace kkm::search {

/// A clustering of subsample rows, as the criteria read it: its labels, and the clusters of
/// other rows given their kernel values against its rows. The model layer provides it
/// (model/fit.cpp), so that the search depends on this interface, not on model/.
class SubsetModel {
public:
    virtual ~SubsetModel() = default;
    /// The fitted rows' clusters.
    virtual const std::vector<int32_t>& labels() const = 0;
    /// labels[i] = the cluster of row i of `cross` (its kernel values against the fitted rows).
    virtual void assign(ConstMatrix cross, int32_t* labels) const = 0;
};

/// Fits exact kernel k-means with parameters q (kernel=precomputed) on the kernel matrix K
/// with weights w (empty: none).
using SubsetFitter =
    std::function<std::unique_ptr<SubsetModel>(const Params& q, ConstMatrix K, const std::vector<float>& w)>;

/// What every scoring fit shares: the fit's parameters (init, max_iter, tol, seed, threads,
/// isa, max_memory_mb) and the subsample's weights (empty: none).
struct ScoringFits {
    const SubsetFitter& fit;
    const Params& p;
    const std::vector<float>& weights;
    int threads;
    /// Random halvings of the subsample (indices into it): first half, second half.
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> splits;
};

/// Exact kernel k-means (method=exact, kernel=precomputed, refine=hartigan) with k clusters
/// and `restarts` restarts on the subsample rows idx under K, with the fit's seeding and
/// stopping rule.
std::unique_ptr<SubsetModel> fit_subsample(const ScoringFits& fits, const Matrix& K, const std::vector<int64_t>& idx,
                                           int64_t k, int threads, int64_t restarts);

/// `count` random halvings of s indices, drawn from seed (the same for every candidate).
std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> draw_splits(int64_t s, int count, uint64_t seed);

/// Stability (Lange, Roth, Braun & Buhmann 2004, transfer by prediction): for each split,
/// exact kernel k-means with k clusters on each half; each half's model labels the other half,
/// and the adjusted Rand index against that half's own labels measures the agreement (chance-
/// corrected, so scores compare across k). The mean over splits and both directions.
double stability(const ScoringFits& fits, const Matrix& K, int64_t k);

/// MATR (Berlinski & Maitra, CRAN kkmeans::matr): k-means on the whole subsample under K, then
/// tr(S Z (Zᵀ W Z)⁻¹ Zᵀ) weighted, = Σ_c Σ_{i,j∈c} w_i w_j S_ij / W_c, for a fixed reference
/// kernel S: how much of S's (local) similarity the clusters keep together.
double matr(const ScoringFits& fits, const Matrix& K, const Matrix& S, int64_t k);

}  // namespace kkm::search
