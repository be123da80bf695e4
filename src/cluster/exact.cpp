#include "cluster/exact.h"

#include <omp.h>

#include <algorithm>
#include <limits>

#include "core/linalg.h"
#include "core/parallel.h"

namespace kkm {
namespace {

double weight_at(const std::vector<float>& w, int64_t i) {
    return w.empty() ? 1.0 : static_cast<double>(w[static_cast<size_t>(i)]);
}

}  // namespace

KernelRows::KernelRows(const KernelBasis& basis, ConstMatrix train, int64_t block_rows, int)
    : basis_(&basis), train_(train), n_(train.rows), block_rows_(block_rows) {}

KernelRows::KernelRows(ConstMatrix matrix, int64_t block_rows, bool caller_owned)
    : stored_(matrix.data), n_(matrix.rows), block_rows_(block_rows), caller_owned_(caller_owned) {}

const float* KernelRows::rows(int64_t begin, int64_t count, Matrix& scratch) const {
    if (stored_ != nullptr) {
        const ConstMatrix block{stored_ + begin * n_, count, n_};
        if (!caller_owned_ || begin + count < n_) return block.data;  // GEMM may read past it
        copy_into(block, scratch);                                    // the caller's last rows
        return scratch.data();
    }
    scratch.reshape(count, n_);
    basis_->evaluate(train_.slice(begin, count), scratch.data(), n_);
    return scratch.data();
}

void dual_nearest(const float* krows, int64_t count, const float* self, const DualCentres& c,
                  int32_t* labels, float* dist) {
    const int64_t n = c.Z.rows, k = c.Z.cols;
    Matrix g(count, k);
    linalg::sgemm(linalg::Trans::no, linalg::Trans::no, count, k, n, 1.0f, krows, n,
                  c.Z.data(), k, 0.0f, g.data(), k, 1);
    for (int64_t i = 0; i < count; ++i) {
        double best = std::numeric_limits<double>::infinity();
        int32_t arg = 0;
        for (int64_t j = 0; j < k; ++j) {
            const double m = c.mass[static_cast<size_t>(j)];
            if (!(m > 0)) continue;
            const double d = -2.0 * g.row(i)[j] / m + c.self_dot[static_cast<size_t>(j)];
            if (d < best) {
                best = d;
                arg = static_cast<int32_t>(j);
            }
        }
        labels[i] = arg;
        const double full = best + (self != nullptr ? self[i] : 0.0);
        dist[i] = static_cast<float>(self != nullptr && full < 0 ? 0.0 : full);
    }
}

ExactLloyd::ExactLloyd(const KernelRows& rows, std::vector<float> diag,
                       const std::vector<float>& weights, int64_t k, int threads)
    : rows_(rows), diag_(std::move(diag)), weights_(weights), k_(k), threads_(threads),
      scratch_(static_cast<size_t>(threads)) {}

Matrix& ExactLloyd::scratch() { return scratch_[static_cast<size_t>(omp_get_thread_num())]; }

Matrix ExactLloyd::kernel_times(const Matrix& Z) {
    const int64_t n = rows_.size(), step = rows_.block_rows();
    Matrix G(n, k_);
    parallel_blocks(threads_, block_count(n, step), [&](int64_t b) {
        const int64_t begin = b * step, count = std::min(step, n - begin);
        const float* K = rows_.rows(begin, count, scratch());
        linalg::sgemm(linalg::Trans::no, linalg::Trans::no, count, k_, n, 1.0f, K, n,
                      Z.values.data(), k_, 0.0f, G.row(begin), k_, 1);
    });
    return G;
}

DualCentres ExactLloyd::centres(const std::vector<int32_t>& labels) {
    const int64_t n = rows_.size();
    DualCentres c;
    c.Z = Matrix(n, k_);
    for (int64_t a = 0; a < n; ++a) c.Z.row(a)[labels[static_cast<size_t>(a)]] = static_cast<float>(weight_at(weights_, a));
    c.mass = cluster_weights(labels, weights_, k_);
    const Matrix G = kernel_times(c.Z);
    c.self_dot.assign(static_cast<size_t>(k_), 0.0);
    for (int64_t a = 0; a < n; ++a) {
        const int32_t j = labels[static_cast<size_t>(a)];
        c.self_dot[static_cast<size_t>(j)] += weight_at(weights_, a) * G.row(a)[j];
    }
    for (int64_t j = 0; j < k_; ++j) {
        const double m = c.mass[static_cast<size_t>(j)];
        c.self_dot[static_cast<size_t>(j)] = m > 0 ? c.self_dot[static_cast<size_t>(j)] / (m * m) : 0.0;
    }
    return c;
}

double ExactLloyd::reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                            std::vector<float>& dist) {
    const DualCentres c = centres(labels);
    const int64_t n = rows_.size(), step = rows_.block_rows();
    const int64_t nblocks = block_count(n, step);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * step, count = std::min(step, n - begin);
        const float* K = rows_.rows(begin, count, scratch());
        dual_nearest(K, count, diag_.data() + begin, c, next.data() + begin, dist.data() + begin);
        double s = 0;
        for (int64_t i = begin; i < begin + count; ++i) s += weight_at(weights_, i) * dist[static_cast<size_t>(i)];
        partial[static_cast<size_t>(b)] = s;
    });
    double total = 0;
    for (double v : partial) total += v;
    return total;
}

double ExactLloyd::objective(const std::vector<int32_t>& labels) {
    // Σ_a w_a (K_aa − 2 s_a / W_j + C_j) with s_a = Σ_{t∈j} w_t K_at and C_j = Σ_{a∈j} w_a s_a / W_j²,
    // each point's distance clamped at 0 before it is added: a sum of non-negative terms,
    // never negative however the kernel rows were rounded.
    const int64_t n = rows_.size(), step = rows_.block_rows();
    const std::vector<double> mass = cluster_weights(labels, weights_, k_);
    std::vector<double> same(static_cast<size_t>(n), 0.0);
    parallel_blocks(threads_, block_count(n, step), [&](int64_t b) {
        const int64_t begin = b * step, count = std::min(step, n - begin);
        const float* K = rows_.rows(begin, count, scratch());
        for (int64_t i = 0; i < count; ++i) {
            const int32_t j = labels[static_cast<size_t>(begin + i)];
            const float* row = K + i * n;
            double s = 0;
            for (int64_t t = 0; t < n; ++t) {
                if (labels[static_cast<size_t>(t)] == j) s += weight_at(weights_, t) * row[t];
            }
            same[static_cast<size_t>(begin + i)] = s;
        }
    });
    std::vector<double> centre(static_cast<size_t>(k_), 0.0);
    for (int64_t a = 0; a < n; ++a) centre[static_cast<size_t>(labels[static_cast<size_t>(a)])] += weight_at(weights_, a) * same[static_cast<size_t>(a)];
    for (int64_t j = 0; j < k_; ++j) {
        const double m = mass[static_cast<size_t>(j)];
        centre[static_cast<size_t>(j)] = m > 0 ? centre[static_cast<size_t>(j)] / (m * m) : 0.0;
    }
    double total = 0;
    for (int64_t a = 0; a < n; ++a) {
        const double wa = weight_at(weights_, a);
        if (!(wa > 0)) continue;
        const int32_t j = labels[static_cast<size_t>(a)];
        const double d = diag_[static_cast<size_t>(a)] - 2.0 * same[static_cast<size_t>(a)] / mass[static_cast<size_t>(j)] +
                         centre[static_cast<size_t>(j)];
        total += wa * std::max(d, 0.0);
    }
    return total;
}

SquaredDistanceToPoint ExactLloyd::distance_oracle() {
    return [this](const std::vector<int64_t>& centres, float* out) {
        const int64_t n = rows_.size();
        for (size_t t = 0; t < centres.size(); ++t) {
            const int64_t c = centres[t];
            const float* K = rows_.rows(c, 1, scratch());
            const float kcc = diag_[static_cast<size_t>(c)];
            float* o = out + static_cast<int64_t>(t) * n;
            for (int64_t i = 0; i < n; ++i) {
                const float d = diag_[static_cast<size_t>(i)] + kcc - 2.0f * K[i];
                o[i] = d > 0.0f ? d : 0.0f;
            }
        }
    };
}

}  // namespace kkm
