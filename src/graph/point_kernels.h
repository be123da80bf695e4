// The heat kernel as a kernel between training points by index (cluster/minibatch_kernel.h's
// PointKernel), for seed 004's mini-batch algorithm on kernel=heat: K(i, j) = f(i)·f(j) over the
// heat features. (kernel=knn takes no mini-batches: validate_graph_params says why.)
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/minibatch_kernel.h"
#include "core/matrix.h"
#include "engine/isa.h"

namespace kkm::graph {

class FeaturePointKernel final : public PointKernel {
public:
    /// F: n × r features (kept by reference).
    FeaturePointKernel(const Matrix& F, engine::Isa isa) : F_(F), isa_(isa) {}
    int64_t size() const override { return F_.rows; }
    void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
               int threads) const override;
    float diag(int64_t i) const override;

private:
    const Matrix& F_;
    engine::Isa isa_;
    mutable Matrix gathered_;  ///< the right-hand rows of the last block (kept: calls come one at a time)
};

}  // namespace kkm::graph
