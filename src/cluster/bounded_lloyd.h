// What the two Lloyds whose distances are Euclidean in some feature space share: FeatureLloyd
// (explicit features) and LandmarkLloyd (the kernel's feature space through landmark rows).
// Both keep their per-cluster sums from one reassignment to the next (moved by the rows whose
// label changed) and the bounds of cluster/hamerly.h, and reassign the same way
// (bounded_reassign); they differ in how a row's distances and sums are computed.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "cluster/hamerly.h"
#include "cluster/lloyd_driver.h"
#include "core/comm.h"
#include "core/matrix.h"
#include "engine/isa.h"

namespace kkm {

class BoundedLloyd : public LloydProblem {
public:
    /// Rows whose distances the last reassign computed (the rest were proved unchanged).
    int64_t last_computed() const { return bounds_.computed; }
    /// The centres (k × feature columns) of the last reassign, kept by each reassign.
    Matrix measured_centres() const override { return measured_; }

protected:
    /// rows: this rank's; weights: empty or one per row; bounds: keep bounds (false: every
    /// distance every iteration); part: this rank's place among the ranks (NULL: one process).
    BoundedLloyd(int64_t rows, std::vector<float> weights, int64_t k, int threads, engine::Isa isa, bool bounds,
                 const Comm& comm, const RowPartition* part)
        : comm_(comm),
          part_(part != nullptr ? *part : solo_partition(rows)),
          weights_(std::move(weights)),
          k_(k),
          threads_(threads),
          isa_(isa),
          bounds_(bounds) {}

    /// This rank's sums and the weights of `labels` added over all ranks, in one reduction:
    /// {sums, weight per cluster}.
    std::pair<std::vector<double>, std::vector<double>> global_sums_and_mass(std::vector<double> sums,
                                                                             const std::vector<int32_t>& labels) const {
        return sums_and_mass_over_ranks(comm_, std::move(sums), labels, weights_, k_);
    }
    /// The cached sums are those of `labels`.
    bool sums_cached_for(const std::vector<int32_t>& labels) const {
        return !cached_sums_.empty() && labels == cached_labels_;
    }

    const Comm& comm_;
    RowPartition part_;
    std::vector<float> weights_;
    int64_t k_;
    int threads_;
    engine::Isa isa_;
    std::vector<int32_t> cached_labels_;  ///< labels the cached sums belong to
    std::vector<double> cached_sums_;     ///< Σ w_i x_i per cluster over this rank's rows (k × columns)
    Matrix measured_;                     ///< the last reassign's centres in feature coordinates (k × columns)
    LloydBounds bounds_;
};

}  // namespace kkm
