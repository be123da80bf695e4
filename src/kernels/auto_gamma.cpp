// gamma=auto: the papers' bandwidth rule (Wang, Gittens & Mahoney 2019, eq. 5 with β = 1).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.h"
#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/kernel_traits.h"

namespace kkm {
namespace {

double weight_of(const std::vector<float>& w, int64_t i) {
    return w.empty() ? 1.0 : static_cast<double>(w[static_cast<size_t>(i)]);
}

/// Weighted mean pairwise L1 distance, per column from the sorted values:
/// Σ_{i<j} w_i w_j (a_j − a_i) = Σ_j w_j a_j (W_<j) − Σ_i w_i a_i (W_>i).
double mean_pairwise_l1_distance(ConstMatrix X, const std::vector<float>& w, int threads) {
    std::vector<double> per_column(static_cast<size_t>(X.cols), 0.0);
    double total = 0;
    for (int64_t i = 0; i < X.rows; ++i) total += weight_of(w, i);
    parallel_blocks(threads, X.cols, [&](int64_t c) {
        std::vector<int64_t> order(static_cast<size_t>(X.rows));
        std::iota(order.begin(), order.end(), int64_t{0});
        std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return X.row(a)[c] < X.row(b)[c]; });
        double below = 0, sum = 0;
        for (int64_t idx : order) {
            const double wi = weight_of(w, idx), a = X.row(idx)[c];
            sum += wi * a * below - wi * a * (total - below - wi);
            below += wi;
        }
        per_column[static_cast<size_t>(c)] = sum;
    });
    double sum = 0;
    for (double v : per_column) sum += v;
    return 2.0 * sum / (total * total);
}

/// True when every row with positive weight equals the first such row. Checked exactly,
/// because the weighted mean of identical rows can round away from them (non-uniform weights)
/// and leave a spread of 1e-34 instead of 0.
bool weighted_rows_identical(ConstMatrix X, const std::vector<float>& w, const Comm& comm) {
    int64_t first = -1;
    for (int64_t i = 0; i < X.rows && first < 0; ++i) {
        if (weight_of(w, i) > 0) first = i;
    }
    // The first row with positive weight over all ranks: that of the lowest rank holding one.
    const int64_t holder =
        comm.size() - max_over_ranks(comm, first >= 0 ? int64_t{comm.size()} - comm.rank() : int64_t{0});
    if (holder == comm.size()) return true;  // no positive weight anywhere (refused before)
    std::vector<float> reference(static_cast<size_t>(X.cols));
    if (comm.rank() == holder) std::copy(X.row(first), X.row(first) + X.cols, reference.begin());
    broadcast(comm, reference.data(), reference.size() * sizeof(float), static_cast<int>(holder));
    bool identical = true;
    for (int64_t i = 0; i < X.rows && identical; ++i) {
        if (weight_of(w, i) > 0) identical = std::equal(X.row(i), X.row(i) + X.cols, reference.begin());
    }
    return every_rank(comm, identical);
}

[[noreturn]] void zero_spread() {
    invalid_data(
        "gamma=auto: all rows are identical (zero spread) in float32, which the fit computes in, so no "
        "bandwidth can be derived from the data; set gamma explicitly (or, if the rows differ, rescale the data: "
        "float32 holds no magnitude below 1.4e-45)");
}

/// The kernels compute in float32: a resolved gamma must be a normal float32, else it becomes
/// 0 or inf there and the kernel values NaN (0 * inf).
double representable(double gamma, const char* spread_name, double spread) {
    if (gamma >= FLT_MIN && gamma <= FLT_MAX) return gamma;
    invalid_data("gamma=auto resolved to " + message_number(gamma) + " from the data's " + spread_name + " " +
                 message_number(spread) + ", outside [" + message_number(FLT_MIN) + ", " + message_number(FLT_MAX) +
                 "], the float32 range the kernels are computed in: the data's scale is too " +
                 (gamma < FLT_MIN ? "large" : "small") + "; rescale the data (e.g. standardize the columns)");
}

}  // namespace

double auto_gamma(KernelType type, ConstMatrix X, const std::vector<float>& weights, double beta, int threads,
                  const Comm& comm, const RowMoments* moments) {
    const AutoScale scale = kernel_traits(type).auto_scale;
    const bool spread = scale == AutoScale::squared || scale == AutoScale::l1;
    if (spread && weighted_rows_identical(X, weights, comm)) zero_spread();
    switch (scale) {
        case AutoScale::squared: {
            // One read of X (scan_rows), unless the fit's own pass already gave the moments.
            const double sigma2 = pairwise_sq_distance(
                moments != nullptr ? *moments : scan_rows(X, weights, Moments::spread, 0, threads), comm);
            if (!(sigma2 > 0)) zero_spread();
            return representable(1.0 / (2.0 * beta * beta * sigma2), "mean pairwise squared distance", sigma2);
        }
        case AutoScale::l1: {  // one process only (a distributed fit needs gamma set)
            const double l1 = mean_pairwise_l1_distance(X, weights, threads);
            if (!(l1 > 0)) zero_spread();
            return representable(1.0 / (beta * l1), "mean pairwise L1 distance", l1);
        }
        case AutoScale::inverse_dim: return 1.0 / static_cast<double>(X.cols);
        case AutoScale::none: break;
    }
    return 0.0;
}

}  // namespace kkm
