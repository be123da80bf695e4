#include "model/graph_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "graph/ncut.h"

namespace kkm {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

GraphModel::GraphModel(Params params, int64_t n_train, int64_t d, FitReport report,
                       std::shared_ptr<const graph::Locator> locator)
    : FittedModel(std::move(params), n_train, d, std::move(report)), locator_(std::move(locator)) {}

void GraphModel::assign(ConstMatrix X, int32_t* labels, float* dist, int threads) const {
    assign_placed(locator_->place(X, threads), labels, dist, nullptr, threads);
}

void GraphModel::distances(ConstMatrix X, float* out, int threads) const {
    assign_placed(locator_->place(X, threads), nullptr, nullptr, out, threads);
}

void GraphModel::assign_placed(const graph::Placement& p, int32_t* labels, float* dist, float* each,
                               int threads) const {
    const int64_t k = params().k, rows = p.rows();
    parallel_blocks(threads, block_count(rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, rows - begin);
        std::vector<double> d(static_cast<size_t>(count * k));
        block_distances(p, begin, count, d.data());
        for (int64_t i = 0; i < count; ++i) {
            const double* row = d.data() + i * k;
            int32_t best = 0;
            for (int64_t j = 1; j < k; ++j) {
                if (row[j] < row[best]) best = static_cast<int32_t>(j);
            }
            const auto nearest = static_cast<float>(std::max(row[best], 0.0));
            if (labels != nullptr) labels[begin + i] = best;
            if (dist != nullptr) dist[begin + i] = nearest;
            if (each == nullptr) continue;
            float* out = each + (begin + i) * k;
            for (int64_t j = 0; j < k; ++j) out[j] = static_cast<float>(std::max(row[j], 0.0));
            // The first minimum stays at the label: a centre before it that rounds to the same
            // float is reported one step above (as every model's kkm_distances does).
            for (int32_t j = 0; j < best; ++j) {
                if (out[j] <= nearest) out[j] = std::nextafter(nearest, std::numeric_limits<float>::infinity());
            }
        }
    });
}

HeatModel::HeatModel(Params params, int64_t n_train, int64_t d, FitReport report,
                     std::shared_ptr<const graph::Locator> locator, graph::HeatMap map, Matrix centroids)
    : GraphModel(std::move(params), n_train, d, std::move(report), std::move(locator)),
      map_(std::move(map)),
      centroids_(std::move(centroids)),
      alive_(static_cast<size_t>(centroids_.rows), 1) {}

void HeatModel::transform(ConstMatrix X, float* out, int threads) const {
    const graph::Placement p = locator().place(X, threads);
    parallel_blocks(threads, block_count(X.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, X.rows - begin);
        map_.features(p, begin, count, out + begin * map_.dim());
    });
}

void HeatModel::block_distances(const graph::Placement& p, int64_t begin, int64_t count, double* out) const {
    const int64_t r = map_.dim(), k = centroids_.rows;
    std::vector<float> f(static_cast<size_t>(count * r));
    map_.features(p, begin, count, f.data());
    for (int64_t i = 0; i < count; ++i) {
        for (int64_t j = 0; j < k; ++j) {
            if (alive_[static_cast<size_t>(j)] == 0) {
                out[i * k + j] = kInf;
                continue;
            }
            double s = 0;
            for (int64_t l = 0; l < r; ++l) {
                const double diff = static_cast<double>(f[static_cast<size_t>(i * r + l)]) - centroids_.row(j)[l];
                s += diff * diff;
            }
            out[i * k + j] = s;
        }
    }
}

KnnModel::KnnModel(Params params, int64_t n_train, int64_t d, FitReport report,
                   std::shared_ptr<const graph::Locator> locator, std::shared_ptr<const graph::SparseGraph> graph,
                   DualCoefficients centres)
    : GraphModel(std::move(params), n_train, d, std::move(report), std::move(locator)),
      graph_(std::move(graph)),
      degree_(graph::degrees(*graph_)),
      centres_(std::move(centres)) {}

void KnnModel::transform(ConstMatrix, float*, int) const {
    invalid_argument(
        "kernel=knn has no explicit feature map (its kernel is a sparse matrix over the training graph); "
        "kkm_distances gives each row's distance to every centre, and kernel=heat has features");
}

void KnnModel::block_distances(const graph::Placement& p, int64_t begin, int64_t count, double* out) const {
    const int64_t k = params().k;
    const graph::SparseGraph& A = *graph_;
    const DualCoefficients& z = centres_;
    // Σ_a z_ac K(x, a) over a's coefficients, for K(x, a) = w/(d_x d_a) (+ σ/d_x when x is a).
    auto add_point = [&](double* inner, int64_t a, double kernel) {
        for (int64_t e = z.at[static_cast<size_t>(a)]; e < z.at[static_cast<size_t>(a) + 1]; ++e) {
            inner[z.cluster[static_cast<size_t>(e)]] += z.z[static_cast<size_t>(e)] * kernel;
        }
    };
    std::vector<double> inner(static_cast<size_t>(k));
    for (int64_t i = begin; i < begin + count; ++i) {
        std::fill(inner.begin(), inner.end(), 0.0);
        const int64_t self = p.self[static_cast<size_t>(i)];
        double kxx = 0;
        if (self >= 0) {
            const double di = degree_[static_cast<size_t>(self)];
            kxx = graph::kKnnShift / di + static_cast<double>(A.weight(self, self)) / (di * di);
            add_point(inner.data(), self, graph::kKnnShift / di);
            for (int64_t e = A.row_begin(self); e < A.row_end(self); ++e) {
                const int32_t j = A.indices[static_cast<size_t>(e)];
                add_point(inner.data(), j, A.values[static_cast<size_t>(e)] / (di * degree_[static_cast<size_t>(j)]));
            }
        } else {
            double dx = 0;
            for (int64_t e = p.at[static_cast<size_t>(i)]; e < p.at[static_cast<size_t>(i) + 1]; ++e) {
                dx += p.weights[static_cast<size_t>(e)];
            }
            kxx = graph::kKnnShift / dx;
            for (int64_t e = p.at[static_cast<size_t>(i)]; e < p.at[static_cast<size_t>(i) + 1]; ++e) {
                const int32_t j = p.nodes[static_cast<size_t>(e)];
                add_point(inner.data(), j, p.weights[static_cast<size_t>(e)] / (dx * degree_[static_cast<size_t>(j)]));
            }
        }
        double* row = out + (i - begin) * k;
        for (int64_t c = 0; c < k; ++c) {
            const double norm = z.norm[static_cast<size_t>(c)];
            row[c] = std::isfinite(norm) ? kxx - 2.0 * inner[static_cast<size_t>(c)] + norm : kInf;
        }
    }
}

double GraphModel::footprint(double n, double k, double r, int threads) {
    const RowBlocks b = row_blocks(n, threads);
    return Matrix::footprint(k, r) + n * (8 + 4 + 8) + 8 * k + n * (4 + 4) + b.workers * 8 * b.rows * k;
}

}  // namespace kkm
