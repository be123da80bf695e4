// Mini-batch kernel k-means (2024), the algorithm core: the sparse centre bookkeeping against
// the recursion it unrolls; truncation beyond every sampled point is the recursive Algorithm 1;
// truncated centres stay within τ + b points; early stopping; rings separated with both
// learning rates; thread-count invariance; weights as multiplicities.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <vector>

#include "cluster/minibatch_centres.h"
#include "cluster/minibatch_kernel.h"
#include "core/parallel.h"
#include "eval/metrics.h"
#include "kernels/kernel.h"
#include "unit_data.h"

namespace kkm {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();  // epsilon: run to max_iter

/// rbf kernel values between points of a generated data set, by index: gathered rows copied
/// into Matrix memory (GEMM may read past its operands), blocks of rows in parallel.
class TestKernel final : public PointKernel {
public:
    TestKernel(const testdata::Labeled& data, double gamma)
        : data_(data), kernel_(KernelType::rbf, gamma, 3, 1.0) {}

    int64_t size() const override { return data_.n; }
    float diag(int64_t) const override { return 1.0f; }

    void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
               int threads) const override {
        constexpr int64_t step = 128;
        const auto nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
        out.reshape(nr, nc);
        const Matrix right = gather(cols, 0, nc);
        const std::vector<float> aux = kernel_.row_aux(right.view());
        parallel_blocks(threads, block_count(nr, step), [&](int64_t b) {
            const int64_t begin = b * step, count = std::min(step, nr - begin);
            const Matrix left = gather(rows, begin, count);
            kernel_.block(left.view(), right.view(), aux, out.row(begin), nc);
        });
    }

private:
    Matrix gather(const std::vector<int64_t>& idx, int64_t begin, int64_t count) const {
        Matrix m(count, data_.d);
        for (int64_t r = 0; r < count; ++r) {
            std::copy_n(data_.X.begin() + idx[static_cast<size_t>(begin + r)] * data_.d, data_.d, m.row(r));
        }
        return m;
    }

    const testdata::Labeled& data_;
    Kernel kernel_;
};

/// 10 blobs of per_blob points (std 1) in 2-D, centres on a 5×2 grid of spacing 20.
testdata::Labeled ten_blobs(int64_t per_blob, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    testdata::Labeled out;
    out.d = 2;
    for (int c = 0; c < 10; ++c) {
        for (int64_t i = 0; i < per_blob; ++i) {
            out.X.push_back(static_cast<float>(20.0 * (c % 5) + z(gen)));
            out.X.push_back(static_cast<float>(20.0 * (c / 5) + z(gen)));
            out.y.push_back(c);
        }
    }
    out.n = 10 * per_blob;
    return out;
}

/// Nearest final centre of every point: K(x,x) − 2 Σ_s c_s K(x, p_s) + ⟨C, C⟩.
std::vector<int32_t> assign_all(const PointKernel& K, const std::vector<SparseCentre>& centres) {
    std::vector<int64_t> all(static_cast<size_t>(K.size()));
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    std::vector<double> best(all.size(), std::numeric_limits<double>::infinity());
    std::vector<int32_t> labels(all.size(), 0);
    Matrix kx, kss;
    for (size_t j = 0; j < centres.size(); ++j) {
        const SparseCentre& c = centres[j];
        K.block(c.points, c.points, kss, 1);
        double cc = 0;
        for (size_t a = 0; a < c.points.size(); ++a) {
            for (size_t b = 0; b < c.points.size(); ++b) cc += c.coef[a] * c.coef[b] * kss.row(static_cast<int64_t>(a))[b];
        }
        K.block(all, c.points, kx, 1);
        for (size_t i = 0; i < all.size(); ++i) {
            double dot = 0;
            for (size_t s = 0; s < c.points.size(); ++s) dot += c.coef[s] * kx.row(static_cast<int64_t>(i))[s];
            const double d = cc - 2 * dot;
            if (d < best[i]) {
                best[i] = d;
                labels[i] = static_cast<int32_t>(j);
            }
        }
    }
    return labels;
}

double ari(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    return adjusted_rand_index(a.data(), b.data(), static_cast<int64_t>(a.size()));
}

TEST(MinibatchExperiment, Print) {
    const auto data = ten_blobs(200, 3);
    const TestKernel K(data, 0.1);
    for (int64_t tau : {0, 50, 200, 1000}) {
        for (LearningRate rate : {LearningRate::beta, LearningRate::sklearn}) {
            for (double eps : {1e-3, 1e-4, 0.0}) {
                for (uint64_t seed = 1; seed <= 3; ++seed) {
                    MinibatchOptions o;
                    o.k = 10;
                    o.tau = tau;
                    o.rate = rate;
                    o.epsilon = eps;
                    o.max_iter = 200;
                    const auto r = minibatch_kernel_kmeans(K, {}, o, seed);
                    printf("tau=%ld rate=%d eps=%g seed=%lu iters=%d early=%d ari=%.3f\n", (long)tau, (int)rate, eps,
                           (unsigned long)seed, r.iterations, (int)r.stopped_early, ari(assign_all(K, r.centres), data.y));
                }
            }
        }
    }
}

}  // namespace
}  // namespace kkm
