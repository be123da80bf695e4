// The fitted models of the graph kernels (kernel=knn, kernel=heat). Both place a new row in the
// training graph first (graph/locate.h: a training row is its own node; any other row attaches
// to its q nearest training rows, or to the nodes its affinity row names), then measure its
// kernel-space distance to every centre. Training labels are these models' own assignment of
// the training nodes (the final assignment step after Lloyd, as scikit-learn's KMeans ends), so
// assigning the training rows again gives their labels exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/heat.h"
#include "graph/locate.h"
#include "graph/sparse_graph.h"
#include "model/model.h"

namespace kkm {

class GraphModel : public FittedModel {
public:
    GraphModel(Params params, int64_t n_train, int64_t d, FitReport report,
               std::shared_ptr<const graph::Locator> locator);
    /// Bytes a graph model of n training rows, k centres and r feature columns holds beside
    /// its locator: the centres and the training rows' final assignment (placements, labels,
    /// distances, every thread's block of centre distances).
    static double footprint(double n, double k, double r, int threads);
    ModelKind kind() const override { return ModelKind::graph; }
    void assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const override;
    void distances(ConstMatrix X, float* out, int threads) const override;
    /// Labels, distances (NULL: not wanted) and every centre's distance (NULL: not wanted,
    /// else rows × k) of placed rows, in parallel blocks. The training labels come from here.
    void assign_placed(const graph::Placement& p, int32_t* labels, float* dist, float* each, int threads) const;
    const graph::Locator& locator() const { return *locator_; }
    std::shared_ptr<const graph::Locator> shared_locator() const { return locator_; }

protected:
    /// Squared distances of placed rows [begin, begin + count) to every centre into out
    /// (count × k; +inf to a centre without members). Single-threaded.
    virtual void block_distances(const graph::Placement& p, int64_t begin, int64_t count, double* out) const = 0;

private:
    std::shared_ptr<const graph::Locator> locator_;
};

/// kernel=heat: centroids in the heat features' space (k × r).
class HeatModel final : public GraphModel {
public:
    HeatModel(Params params, int64_t n_train, int64_t d, FitReport report,
              std::shared_ptr<const graph::Locator> locator, graph::HeatMap map, Matrix centroids);
    int64_t feature_dim() const override { return map_.dim(); }
    /// The heat features of the rows of X (X.rows × r).
    void transform(ConstMatrix X, float* out, int threads) const override;
    const graph::HeatMap& map() const { return map_; }
    const Matrix& centroids() const { return centroids_; }
    Matrix feature_centres() const override { return copy_of(centroids_.view()); }
    /// The clusters with members (a centroid of a cluster that lost them all is not a centre).
    const std::vector<char>& alive() const { return alive_; }
    void set_alive(std::vector<char> alive) { alive_ = std::move(alive); }

private:
    void block_distances(const graph::Placement& p, int64_t begin, int64_t count, double* out) const override;
    graph::HeatMap map_;
    Matrix centroids_;
    std::vector<char> alive_;
};

/// A centre of the k-nn kernel as a weighted sum of training points in its feature space:
/// centre c = Σ_a z_ac φ(x_a), each point's coefficients at[a] .. at[a+1) (cluster, z).
struct DualCoefficients {
    std::vector<int64_t> at;
    std::vector<int32_t> cluster;
    std::vector<double> z;
    std::vector<double> norm;  ///< ‖centre‖² per cluster (+inf: a cluster without members)
};

/// kernel=knn: centres as weighted sums of training points under K = σD⁻¹ + D⁻¹AD⁻¹.
class KnnModel final : public GraphModel {
public:
    KnnModel(Params params, int64_t n_train, int64_t d, FitReport report, std::shared_ptr<const graph::Locator> locator,
             std::shared_ptr<const graph::SparseGraph> graph, DualCoefficients centres);
    int64_t feature_dim() const override { return 0; }
    void transform(ConstMatrix X, float* out, int threads) const override;
    const graph::SparseGraph& graph() const { return *graph_; }
    std::shared_ptr<const graph::SparseGraph> shared_graph() const { return graph_; }
    const std::vector<double>& degree() const { return degree_; }
    const DualCoefficients& centres() const { return centres_; }

private:
    void block_distances(const graph::Placement& p, int64_t begin, int64_t count, double* out) const override;
    std::shared_ptr<const graph::SparseGraph> graph_;
    std::vector<double> degree_;
    DualCoefficients centres_;
};

}  // namespace kkm
