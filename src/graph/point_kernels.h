// The graph kernels as kernels between training points by index (cluster/minibatch_kernel.h's
// PointKernel), for seed 004's mini-batch algorithm on kernel=knn and kernel=heat:
//  - knn: K(i, j) = σ[i = j]/d_i + A_ij/(d_i d_j), read from the sparse rows of A;
//  - heat: K(i, j) = f(i)·f(j) over the heat features.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/minibatch_kernel.h"
#include "core/matrix.h"
#include "engine/isa.h"
#include "graph/sparse_graph.h"

namespace kkm::graph {

class KnnPointKernel final : public PointKernel {
public:
    /// A, degree: kept by reference.
    KnnPointKernel(const SparseGraph& A, const std::vector<double>& degree) : A_(A), degree_(degree) {}
    int64_t size() const override { return A_.n; }
    void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
               int threads) const override;
    float diag(int64_t i) const override;

private:
    const SparseGraph& A_;
    const std::vector<double>& degree_;
};

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
