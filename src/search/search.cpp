#include "search/search.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/weights.h"
#include "kernels/kernel_traits.h"
#include "search/criteria.h"
#include "search/subsample.h"

namespace kkm::search {
namespace {

constexpr int kSplits = 2;               ///< random halvings per stability score
constexpr double kStabilityTies = 0.02;  ///< adjusted Rand index within this of the best ties
constexpr double kMatrTies = 0.01;       ///< MATR's tolerance (CRAN kkmeans::matr, tol = 0.01)
constexpr int kStepsPerDecade = 4;       ///< the gamma grid's density
constexpr int64_t kStartRestarts = 10;   ///< restarts of the clustering the fit starts from
constexpr int64_t kStartSupport = 32;    ///< members per cluster behind its starting mean

/// The largest k the search can score on s rows: each half of a split needs k rows.
int64_t largest_k(const Params& p, int64_t s) {
    return std::min(p.k_max, s / 2);
}

/// The log grid 0.1 x the smaller to 10 x the larger of the two scales.
std::vector<double> gamma_grid(const Scales& scales) {
    const double lo = 0.1 * std::min(scales.mean_gamma, scales.knn_gamma);
    const double hi = 10.0 * std::max(scales.mean_gamma, scales.knn_gamma);
    std::vector<double> grid;
    for (int j = 0;; ++j) {
        const double g = lo * std::pow(10.0, static_cast<double>(j) / kStepsPerDecade);
        if (g > hi * (1 + 1e-9)) break;
        grid.push_back(g);
    }
    return grid;
}

/// Stability's pick: the middle of the longest run of neighbouring grid points whose scores
/// tie with the best (within kStabilityTies): a plateau, not a lucky spike.
size_t plateau_middle(const std::vector<double>& scores) {
    const double best = *std::max_element(scores.begin(), scores.end());
    size_t best_start = 0, best_len = 0;
    for (size_t i = 0; i < scores.size();) {
        if (scores[i] < best - kStabilityTies) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < scores.size() && scores[j] >= best - kStabilityTies) ++j;
        if (j - i > best_len) best_start = i, best_len = j - i;
        i = j;
    }
    return best_start + (best_len - 1) / 2;
}

/// MATR's pick: the largest bandwidth (smallest gamma) scoring within 1% of the best.
size_t matr_pick(const std::vector<double>& scores) {
    const double best = *std::max_element(scores.begin(), scores.end());
    for (size_t i = 0; i < scores.size(); ++i) {
        if (scores[i] >= best * (1 - kMatrTies)) return i;
    }
    return 0;
}

/// The kernel matrices the scores read: one per candidate gamma (exp(-gamma D)), or the one
/// kernel of a fit whose gamma is not searched.
class Kernels {
public:
    Kernels(const Params& p, ConstMatrix X, const Subsample& sub, double gamma, int threads)
        : p_(p), threads_(threads) {
        if (!p.gamma_search) {
            grid_ = {gamma};
            fixed_ = kernel_matrix(p, gamma, X, sub, threads);
            return;
        }
        D_ = pairwise_distances(p, X, sub, threads);
        scales_ = data_scales(p.kernel, D_, sub.weights);
        grid_ = gamma_grid(scales_);
    }
    const std::vector<double>& grid() const { return grid_; }
    /// The kernel matrix of grid point g, into K (its storage reused).
    void fill(size_t g, Matrix& K) const {
        if (p_.gamma_search) {
            kernel_from_distances(D_, grid_[g], threads_, K);
        } else {
            K.reshape(fixed_.rows, fixed_.cols);
            std::copy_n(fixed_.data(), fixed_.rows * fixed_.cols, K.data());
        }
    }
    /// MATR's reference kernel: the larger of the k-nearest-neighbour scale and the 10% quantile
    /// of the pairwise distances (as kkmeans::matr's rough bandwidth), so a local one.
    Matrix reference() const {
        std::vector<float> upper;
        for (int64_t a = 0; a < D_.rows; ++a) upper.insert(upper.end(), D_.row(a) + a + 1, D_.row(a) + D_.cols);
        const auto q = upper.begin() + static_cast<std::ptrdiff_t>(upper.size() / 10);
        std::nth_element(upper.begin(), q, upper.end());
        const double gamma = std::min(scales_.knn_gamma,
                                      gamma_for_scale(kernel_traits(p_.kernel).distance, std::max<double>(*q, 1e-30)));
        Matrix S;
        kernel_from_distances(D_, gamma, threads_, S);
        return S;
    }

private:
    const Params& p_;
    int threads_;
    Matrix D_, fixed_;
    Scales scales_;
    std::vector<double> grid_;
};

/// Scores of every (gamma, k) under one criterion, grid-major: scores[g][k - k_lo].
using Table = std::vector<std::vector<double>>;

/// The share [lo, hi] of the "search" stage's progress a part of it reports in.
struct Share {
    double lo, hi;
    double at(double f) const { return lo + (hi - lo) * f; }
};

Table score_all(const Kernels& kernels, const ScoringFits& fits, int64_t k_lo, int64_t k_hi, SearchCriterion c,
                const Matrix* reference, Share share, std::vector<SearchPoint>& scan) {
    Table table(kernels.grid().size());
    Matrix K;
    const auto total = static_cast<double>(kernels.grid().size() * static_cast<size_t>(k_hi - k_lo + 1));
    double done = 0;
    for (size_t g = 0; g < kernels.grid().size(); ++g) {
        kernels.fill(g, K);
        for (int64_t k = k_lo; k <= k_hi; ++k, ++done) {
            progress_range(share.at(done / total), share.at((done + 1) / total));  // the fits' parallel loops
            const double score = c == SearchCriterion::matr ? matr(fits, K, *reference, k) : stability(fits, K, k);
            table[g].push_back(score);
            scan.push_back({kernels.grid()[g], k, score, c});
            progress_poll(share.at((done + 1) / total));
        }
    }
    return table;
}

std::vector<double> column(const Table& table, size_t j) {
    std::vector<double> out;
    for (const auto& row : table) out.push_back(row[j]);
    return out;
}

/// Up to kStartSupport members of each cluster of the subsample's clustering (in a random
/// order), with their clusters: the support of the cluster means the fit starts from.
std::pair<Subsample, std::vector<int32_t>> start_support(const Subsample& sub, const std::vector<int32_t>& labels,
                                                         int64_t k, uint64_t seed) {
    Rng rng(seed, Stream::search, 0x5ea7);
    const std::vector<int64_t> order = random_order(sub.size(), rng);
    Subsample support;
    std::vector<int32_t> of;
    std::vector<int64_t> taken(static_cast<size_t>(k), 0);
    for (int64_t a : order) {
        const int32_t c = labels[static_cast<size_t>(a)];
        if (taken[static_cast<size_t>(c)]++ >= kStartSupport) continue;
        support.rows.push_back(sub.rows[static_cast<size_t>(a)]);
        if (!sub.weights.empty()) support.weights.push_back(sub.weights[static_cast<size_t>(a)]);
        of.push_back(c);
    }
    return {std::move(support), std::move(of)};
}

/// What the fit starts from: exact kernel k-means with the chosen gamma and k on the whole
/// subsample (kStartRestarts restarts); every row of X goes to the nearest of its clusters'
/// kernel means, each estimated from at most kStartSupport members: n x (k kStartSupport)
/// kernel values rather than n x s.
std::vector<int32_t> start_labels(const Params& p, double gamma, int64_t k, ConstMatrix X, const Subsample& sub,
                                  const Matrix& K, const ScoringFits& fits) {
    std::vector<int64_t> all(static_cast<size_t>(sub.size()));
    std::iota(all.begin(), all.end(), int64_t{0});
    const auto model = fit_subsample(fits, K, all, k, fits.threads, kStartRestarts);
    // Named members, not a structured binding: clang before 16 cannot capture one in a lambda.
    const std::pair<Subsample, std::vector<int32_t>> chosen = start_support(sub, model->labels(), k, p.seed);
    const Subsample& support = chosen.first;
    const std::vector<int32_t>& of = chosen.second;
    const auto w = [&](size_t a) { return weight_at(support.weights, static_cast<int64_t>(a)); };
    // ‖μ_c‖² = Σ_ab w_a w_b K_ab / W_c² over the support, under the kernel the rows meet.
    const Matrix Ks = kernel_matrix(p, gamma, X, support, fits.threads);
    std::vector<double> mass(static_cast<size_t>(k), 0.0), self(static_cast<size_t>(k), 0.0);
    for (size_t a = 0; a < of.size(); ++a) {
        mass[static_cast<size_t>(of[a])] += w(a);
        for (size_t b = 0; b < of.size(); ++b) {
            if (of[b] == of[a]) self[static_cast<size_t>(of[a])] += w(a) * w(b) * Ks.row(static_cast<int64_t>(a))[b];
        }
    }
    const KernelBasis cross = subsample_basis(p, gamma, X, support, fits.threads);
    const auto S = static_cast<int64_t>(of.size());
    std::vector<int32_t> labels(static_cast<size_t>(X.rows));
    constexpr int64_t kBlock = 256;
    parallel_blocks(fits.threads, block_count(X.rows, kBlock), [&](int64_t b) {
        const int64_t begin = b * kBlock, count = std::min(kBlock, X.rows - begin);
        Matrix block(count, S);
        cross.evaluate(X.slice(begin, count), block.data(), S);
        std::vector<double> dot(static_cast<size_t>(k));
        for (int64_t i = 0; i < count; ++i) {
            std::fill(dot.begin(), dot.end(), 0.0);
            for (int64_t a = 0; a < S; ++a)
                dot[static_cast<size_t>(of[static_cast<size_t>(a)])] += w(static_cast<size_t>(a)) * block.row(i)[a];
            double best = std::numeric_limits<double>::infinity();
            for (int64_t c = 0; c < k; ++c) {
                const auto j = static_cast<size_t>(c);
                if (mass[j] <= 0) continue;
                const double d = self[j] / (mass[j] * mass[j]) - 2.0 * dot[j] / mass[j];
                if (d < best) best = d, labels[static_cast<size_t>(begin + i)] = static_cast<int32_t>(c);
            }
        }
    });
    return labels;
}

}  // namespace

void validate(const Params& p, int64_t n) {
    if (p.gamma_search && !kernel_traits(p.kernel).shift_invariant) {
        invalid_argument(std::string("gamma=search chooses the scale of kernel=rbf or laplacian; kernel=") +
                         to_text(p.kernel) + (kernel_traits(p.kernel).uses_gamma ? " (set gamma)" : " has none"));
    }
    const int64_t s = std::min(n, p.search_size);
    if (p.k == 0) {
        if (p.k_min > p.k_max) {
            invalid_argument("k=auto: k_min=" + std::to_string(p.k_min) + " exceeds k_max=" + std::to_string(p.k_max));
        }
        if (p.k_min > largest_k(p, s)) {
            invalid_argument("k=auto: k_min=" + std::to_string(p.k_min) +
                             " exceeds the largest k the search can score, " + std::to_string(largest_k(p, s)) +
                             " (half its subsample of " + std::to_string(s) +
                             " rows: min(n, search_size)); lower k_min or give more rows");
        }
    } else if (p.search_criterion == SearchCriterion::stability && 2 * p.k > s) {
        invalid_argument("gamma=search with k=" + std::to_string(p.k) + " and search_criterion=stability needs 2k=" +
                         std::to_string(2 * p.k) + " rows in its subsample of " + std::to_string(s) +
                         " (min(n, search_size)); raise search_size or use search_criterion=matr");
    }
}

Outcome run(const Params& p, ConstMatrix X, const std::vector<float>& weights, double gamma, int threads,
            const SubsetFitter& fit) {
    const Subsample sub = draw_subsample(X.rows, weights, p.search_size, p.seed);
    const int64_t k_lo = p.k == 0 ? p.k_min : p.k, k_hi = p.k == 0 ? largest_k(p, sub.size()) : p.k;
    if (k_hi > sub.size() || k_lo > k_hi) {
        invalid_argument("k=" + std::to_string(k_lo) + " exceeds the " + std::to_string(sub.size()) +
                         " rows of positive weight the search can fit");
    }
    progress_range(0.0, 0.05);  // the distances or kernel matrix of the subsample
    const Kernels kernels(p, X, sub, gamma, threads);
    ScoringFits fits{fit, p, sub.weights, threads, draw_splits(sub.size(), kSplits, p.seed)};
    Outcome out;
    // Stability chooses k (its scores compare across k) and, unless search_criterion=matr,
    // gamma; MATR then chooses gamma at that k (its scores compare across gamma only).
    const bool matr_gamma = p.gamma_search && p.search_criterion == SearchCriterion::matr;
    size_t pick = 0;
    out.k = p.k;
    if (p.k == 0 || !matr_gamma) {
        const Table table = score_all(kernels, fits, k_lo, k_hi, SearchCriterion::stability, nullptr,
                                      Share{0.05, matr_gamma ? 0.85 : 0.95}, out.scan);
        std::vector<size_t> picks;
        std::vector<double> stable;
        for (size_t j = 0; j < table.front().size(); ++j) {
            const std::vector<double> scores = column(table, j);
            picks.push_back(plateau_middle(scores));
            stable.push_back(scores[picks.back()]);
        }
        // The largest k whose stability ties with the best: merging true clusters can be as
        // stable as keeping them, splitting one is not.
        const double best = *std::max_element(stable.begin(), stable.end());
        size_t chosen = 0;
        for (size_t j = 0; j < stable.size(); ++j) {
            if (stable[j] >= best - kStabilityTies) chosen = j;
        }
        out.k = k_lo + static_cast<int64_t>(chosen);
        pick = picks[chosen];
    }
    if (matr_gamma) {
        const Matrix S = kernels.reference();
        const Table table = score_all(kernels, fits, out.k, out.k, SearchCriterion::matr, &S,
                                      Share{p.k == 0 ? 0.85 : 0.05, 0.95}, out.scan);
        pick = matr_pick(column(table, 0));
    }
    out.gamma = kernels.grid()[pick];
    Matrix K;
    kernels.fill(pick, K);
    progress_range(0.95, 1.0);
    out.labels = start_labels(p, out.gamma, out.k, X, sub, K, fits);
    return out;
}
}  // namespace kkm::search
