#include "graph/heat.h"

#include <algorithm>
#include <cmath>

#include "core/blocking.h"
#include "core/parallel.h"

namespace kkm::graph {
namespace {

/// f (r values, float64) scaled by e^{−t(1−λ_l)/2}, then to unit length when asked, into out.
void finish_row(const HeatMap& m, std::vector<double>& f, float* out) {
    double norm = 0;
    for (size_t l = 0; l < f.size(); ++l) {
        f[l] *= std::exp(-m.t * (1.0 - m.values[l]) / 2.0);
        norm += f[l] * f[l];
    }
    const double scale = m.normalise && norm > 0 ? 1.0 / std::sqrt(norm) : 1.0;
    for (size_t l = 0; l < f.size(); ++l) out[l] = static_cast<float>(f[l] * scale);
}

}  // namespace

void HeatMap::features(const Placement& p, int64_t begin, int64_t count, float* out) const {
    const auto r = static_cast<size_t>(dim());
    std::vector<double> f(r);
    for (int64_t i = begin; i < begin + count; ++i) {
        float* o = out + (i - begin) * dim();
        const int64_t self = p.self[static_cast<size_t>(i)];
        if (self >= 0) {
            for (size_t l = 0; l < r; ++l) f[l] = vectors.row(self)[l];
            finish_row(*this, f, o);
            continue;
        }
        double dx = 0;
        for (int64_t e = p.at[static_cast<size_t>(i)]; e < p.at[static_cast<size_t>(i) + 1]; ++e) {
            dx += p.weights[static_cast<size_t>(e)];
        }
        std::fill(f.begin(), f.end(), 0.0);
        for (int64_t e = p.at[static_cast<size_t>(i)]; e < p.at[static_cast<size_t>(i) + 1]; ++e) {
            const int32_t j = p.nodes[static_cast<size_t>(e)];
            const double s = p.weights[static_cast<size_t>(e)] / std::sqrt(dx * degree[static_cast<size_t>(j)]);
            for (size_t l = 0; l < r; ++l) f[l] += s * vectors.row(j)[l];
        }
        for (size_t l = 0; l < r; ++l) f[l] = values[l] > kMinExtendedEigenvalue ? f[l] / values[l] : 0.0;
        finish_row(*this, f, o);
    }
}

Matrix training_features(const HeatMap& map, int threads) {
    const int64_t n = map.vectors.rows;
    Matrix F(n, map.dim());
    const Placement p = training_placement(n);
    parallel_blocks(threads, block_count(n, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
        map.features(p, begin, count, F.row(begin));
    });
    return F;
}

double heat_features_footprint(double n, double r) {
    return 2 * Matrix::footprint(n, r);
}

}  // namespace kkm::graph
