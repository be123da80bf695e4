#include "model/fit_memory.h"

#include <algorithm>
#include <cmath>

#include "cluster/hamerly.h"
#include "cluster/minibatch_kernel.h"
#include "core/blocking.h"
#include "core/matrix.h"
#include "features/landmarks.h"
#include "features/nystrom.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"

namespace kkm::memory {
namespace {

// The constants the stages allocate with, defined where they are (as doubles here).
constexpr double kBlockRows = static_cast<double>(kRowBlock);                // core/blocking.h
constexpr double kSmallBlock = static_cast<double>(kSmallRowBlock);          // core/blocking.h
constexpr double kChunks = static_cast<double>(kReduceChunks);               // core/blocking.h
constexpr double kSlack = static_cast<double>(kGemmSlack);                   // core/matrix.h
constexpr double kSeedSample = static_cast<double>(kMinibatchSeedSample);    // cluster/minibatch_kernel.h
constexpr double kRecursiveChunk = static_cast<double>(kMinibatchRowChunk);  // cluster/minibatch_kernel.h
constexpr double kTermBytes = 96;  // one batch term of a mini-batch centre (deque slot and vector)

/// The row blocks of a pass over n rows: every pass streams its rows in tasks of kRowBlock
/// rows (kSmallBlock for the small ones), so a block holds at most n rows and no more threads
/// hold one at once than there are tasks. Per-thread scratch is charged through this, not as
/// threads full blocks: 2 rows of a million columns hold 2 rows, whatever the thread count.
struct Blocks {
    double rows;           ///< rows of one block: min(n, kRowBlock)
    double workers;        ///< threads holding a block at once: min(threads, ⌈n / kRowBlock⌉)
    double small;          ///< rows of one small block: min(n, kSmallBlock)
    double small_workers;  ///< threads holding a small block: min(threads, ⌈n / kSmallBlock⌉)
};

Blocks blocks(double n, int threads) {
    const double rows = std::clamp(n, 1.0, kBlockRows), small = std::clamp(n, 1.0, kSmallBlock);
    const double t = std::max(1.0, static_cast<double>(threads));
    return {rows, std::min(t, std::ceil(std::max(n, 1.0) / rows)), small,
            std::min(t, std::ceil(std::max(n, 1.0) / small))};
}

double round_up(double v, double to) {
    return std::ceil(v / to) * to;
}

/// Candidates per k-means++ step (scikit-learn's 2 + ⌊ln k⌋), or the random seeding's group.
double candidates(const Params& p) {
    if (p.init == Init::random) return 16;
    return 2.0 + std::floor(std::log(static_cast<double>(p.k)));
}

double weights_copy(double n, bool weighted) {
    return weighted ? 4.0 * n : 0.0;
}

/// TrainingKernel::block (method=minibatch) of `rows` rows against `cols` gathered points
/// besides its output: the gathered points, packed, and every thread's left rows.
double point_block(const Params& p, double cols, double d, const Blocks& b) {
    if (kernel_traits(p.kernel).precomputed) return 0;
    return matrix(cols, d) + packed(cols, d) + basis_build(cols, d, false) +
           b.workers * (matrix(b.rows, d) + kernel_block(p, b.rows, d) + 8 * b.rows);
}

/// LandmarkLloyd on n kernel rows against m landmarks, r feature columns (besides G, P, the
/// diagonal it takes over and the Lloyd driver).
double landmark_lloyd_state(const Params& p, double n, double m, double r, int threads, bool weighted) {
    const Blocks b = blocks(n, threads);
    const double k = static_cast<double>(p.k), t = candidates(p);
    // label caches, upper bound, second distance, lower bounds (Elkan's k or Hamerly's one)
    const double lower = static_cast<double>(lower_bounds_per_row(p.k));
    const double points = weights_copy(n, weighted) + n * (4 + 4 + 4 + 4 + 4 * lower);
    const double sums = 4 * kChunks * k * m + 8 * k * m * 5 + 2 * matrix(k, m) + 3 * matrix(k, r);
    const double per_thread = b.small_workers * (matrix(b.small, m) + matrix(b.small, k)) +
                              b.workers * (matrix(b.rows, m) + 32 * b.rows + 4 * b.rows * k);  // + Elkan's open rows
    const double oracle =
        8 * t * m + 8 * t * r + matrix(t, m) + b.small_workers * (matrix(b.small, t) + matrix(b.small, m));
    return matrix(r, m) + points + sums + per_thread + oracle;
}

}  // namespace

// ---------------------------------------------------------------- containers

double matrix(double rows, double cols) {
    return 4 * (rows * cols + cols + kSlack);
}

double packed(double rows, double d) {
    const double padded = round_up(std::max(rows, 1.0), 32);
    return 4 * (padded * d + 16) + 4 * padded;
}

double basis(double rows, double d, bool precomputed) {
    return precomputed ? 8 * rows : matrix(rows, d) + packed(rows, d);
}

double basis_build(double rows, double d, bool precomputed) {
    return precomputed ? 0 : matrix(rows, d) + 8 * rows;
}

double kernel_block(const Params& p, double rows, double d) {
    if (kernel_traits(p.kernel).precomputed) return 0;  // columns read from K: no kernel evaluation
    return matrix(rows, d) + 8 * rows + 4 * (round_up(rows, 32) * d + 16) + 4 * round_up(rows, 32);
}

double row_block(const Params& p, double rows, double d, double cols) {
    return matrix(rows, d) + kernel_block(p, rows, d) + (cols > 0 ? matrix(rows, cols) : 0);
}

double gemm(double M, double K, double N) {
    const double kc = std::min(K, 512.0);
    return 4 * (kc * std::min(N, 4096.0) + std::min(M, 256.0) * kc);
}

double eigen(double s) {
    return 8 * s * s + 8 * (1 + 6 * s + 2 * s * s) + 4 * (3 + 5 * s) + 8 * s + 2 * gemm(s, s, s);
}

// ---------------------------------------------------------------- shared stages

double seeding(const Params& p, double n) {
    // labels, nearest distances, unit masses, cumulative masses, candidate distances
    if (p.init == Init::random) return n * (4 + 4) + 4 * candidates(p) * n;
    return n * (4 + 4 + 4 + 8) + 4 * candidates(p) * n;
}

double lloyd_driver(const Params& p, double n) {
    const double run = 5 * 4 * n;  // labels, next, distances, and two copies of the assignment
    return std::max(seeding(p, n), run) + (p.n_init > 1 ? 4 * n : 0.0);
}

double feature_lloyd(const Params& p, double n, double r, int threads, bool weighted) {
    const double k = static_cast<double>(p.k), t = candidates(p);
    const double points = weights_copy(n, weighted) + n * (4 + 8 + 8 + 4);  // norms, bounds, label caches, second
    const double sums = 8 * kChunks * k * r + 8 * k * r * 3 + 3 * matrix(k, r);
    const Blocks b = blocks(n, threads);
    const double per_thread =
        b.workers * (matrix(b.rows, k) + matrix(b.rows, r) + 16 * b.rows) + b.small_workers * matrix(b.small, t);
    return points + sums + per_thread + matrix(t, r);
}

double feature_minibatch(const Params& p, double n, double r, int threads, bool weighted) {
    const double k = static_cast<double>(p.k), b = static_cast<double>(p.batch_size), t = candidates(p);
    const double sample = std::min(n, std::max(3 * b, 10 * k));
    const double problem = weights_copy(n, weighted) + 4 * n + (weighted ? 8 * n : 0.0);  // + the sampler's sums
    const Blocks sb = blocks(sample, threads);
    const double init = 8 * n + matrix(sample, r) + 4 * sample + seeding(p, sample) + matrix(t, r) +
                        sb.small_workers * matrix(sb.small, t) + matrix(k, r);
    const double batch = 8 * b + matrix(b, r) + 12 * b + matrix(b, k) + 8 * k * r + 8 * k;
    const double assign = 8 * n + 8 * kChunks;     // labels, distances of every row
    const double best = 4 * n + 2 * matrix(k, r);  // the best restart's labels and centroids
    return problem + std::max(init, batch) + assign + best;
}

double cluster_features(const Params& p, double n, double r, int threads, bool weighted) {
    if (p.solver == Solver::minibatch) return feature_minibatch(p, n, r, threads, weighted) + matrix(p.k, r);
    return feature_lloyd(p, n, r, threads, weighted) + lloyd_driver(p, n) + matrix(p.k, r);
}

double landmark_sampling(const Params& p, double n, double d, double m, int threads) {
    const bool pre = kernel_traits(p.kernel).precomputed;
    const Blocks b = blocks(n, threads);
    const double row_blocks = b.workers * row_block(p, b.rows, d, 0);
    switch (p.sampling) {
        case Sampling::uniform: return 8 * n;  // the index pool
        case Sampling::kmeanspp:
            // diagonal, chosen flags, D² distances, one kernel column, every thread's row block
            return 4 * n + n / 8 + 8 * n + 8 * m + matrix(n, 1) + row_blocks + basis(1, d, pre) +
                   basis_build(1, d, pre);
        case Sampling::rls: break;
    }
    const auto s = static_cast<double>(rls_subsample_size(static_cast<int64_t>(n), static_cast<int64_t>(m)));  // S
    const double held = 4 * n + 8 * s;  // diagonal, S
    const double pool = 4 * n + 8 * n;
    const double columns = held + matrix(n, s) + basis(s, d, pre) + basis_build(s, d, pre) + row_blocks;
    const double root = held + matrix(n, s) + std::max(eigen(s), 8 * s * s + 8 * s + matrix(s, s));
    const double scores =
        held + matrix(n, s) + matrix(s, s) + 8 * n + b.workers * (matrix(b.rows, s) + gemm(b.rows, s, s));
    const double draw = held + 8 * n + 24 * n + 8 * m;  // scores, sort keys, the chosen
    return std::max({pool, columns, root, scores, draw});
}

double gamma_stage(const Params& p, double n, double d, int threads) {
    const double sort = kernel_traits(p.kernel).auto_scale == AutoScale::l1 && p.gamma <= 0 ? threads * 8 * n : 0.0;
    return sort + scan_footprint(static_cast<int64_t>(d), threads) + 4 * d;  // + the float32 shift
}

// ---------------------------------------------------------------- exact

double ExactFootprint::peak() const {
    return std::max(basis + basis_build, basis + kernel + points);
}

ExactFootprint exact_footprint(const Params& p, int64_t n_, int64_t d_, int threads, bool weighted, double available,
                               int64_t cols_) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), k = static_cast<double>(p.k);
    const double c = cols_ < 0 ? n : static_cast<double>(cols_);
    const bool pre = kernel_traits(p.kernel).precomputed;
    ExactFootprint f;
    f.basis = basis(n, d, pre) + (cols_ < 0 ? 0.0 : basis(c, d, pre));  // distributed: the columns' own
    f.basis_build = basis_build(n, d, pre);
    // diagonal, weights, S (k×cols float64), S's labels, one rebuild's moves (24 bytes each,
    // two lists), the Lloyd driver, the centres Z, the per-block nearest distances
    const Blocks b = blocks(n, threads);
    const double points = 4 * n + weights_copy(c, weighted) + 8 * k * c + 4 * c + 48 * n + lloyd_driver(p, c) +
                          matrix(n, k) + b.workers * 8 * 1024.0;
    const auto with_rows = [&](double rows) {
        ExactFootprint g = f;
        g.block_rows = static_cast<int64_t>(rows);
        // blocks of `rows` rows: no more of them at once than there are
        const double workers = std::min<double>(std::max(threads, 1), std::ceil(n / std::max(rows, 1.0)));
        const double held = std::min(rows, n);
        g.kernel = workers * (matrix(held, c) + matrix(held, d) + kernel_block(p, held, d));
        g.points = points + 8 * held * workers;  // row pointers of one group of moves
        return g;
    };
    ExactFootprint stored = f;
    stored.store = true;
    stored.kernel = pre ? b.workers * matrix(1, n) : matrix(n, c) + b.workers * kernel_block(p, b.rows, d);
    stored.points = points + 8 * n;
    f.stored_peak = stored.peak();
    f.one_row_peak = with_rows(1).peak();
    if (pre || f.stored_peak <= available) {
        stored.stored_peak = f.stored_peak;
        stored.one_row_peak = f.one_row_peak;
        return stored;
    }
    // Recomputed blocks of r rows: fewer threads hold one as r nears n, so the peak is not
    // monotone in r. The most rows that fit (at most a row block), else the least peak.
    double best_rows = 0, least_peak = f.one_row_peak, least_rows = 1;
    for (double rows = 1; rows <= std::min(kBlockRows, std::max(n, 1.0)); ++rows) {
        const double peak = with_rows(rows).peak();
        if (peak <= available) best_rows = rows;
        if (peak < least_peak) {
            least_peak = peak;
            least_rows = rows;
        }
    }
    ExactFootprint g = with_rows(best_rows >= 1 ? best_rows : least_rows);
    g.block_rows = static_cast<int64_t>(best_rows);
    g.stored_peak = f.stored_peak;
    g.one_row_peak = least_peak;
    return g;
}

// ---------------------------------------------------------------- nystrom

bool features_cheaper(const Params& p, int64_t m, int64_t r) {
    const double iters = static_cast<double>(std::min<int64_t>(p.max_iter, 20));
    const double k = static_cast<double>(p.k);
    return static_cast<double>(r) * (static_cast<double>(m) + iters * k) < iters * k * static_cast<double>(m);
}

bool nystrom_fused(const Params& p, int64_t m, int64_t s) {
    return p.rank > 0 && (p.solver == Solver::minibatch || features_cheaper(p, m, s));
}

double NystromFootprint::peak() const {
    const double setup = std::max(sampling, basis + basis_build);
    if (fused) {
        return std::max({setup, basis + landmark_rows + projection + eigen,
                         basis + projection + kernel_rows + row_scratch + rank,
                         basis + final_projection + kernel_rows + diag + features + feature_scratch,
                         basis + final_projection + features + feature_cluster});
    }
    if (direct) {
        return std::max({setup, basis + landmark_rows + projection + eigen,
                         basis + final_projection + diag + features + feature_scratch,
                         basis + final_projection + features + feature_cluster});
    }
    const double rows = std::max(basis + landmark_rows + kernel_rows + row_scratch + projection + eigen,
                                 basis + kernel_rows + projection + rank);
    const double held = basis + kernel_rows + final_projection + diag;
    return std::max({setup, rows, held + (features_required ? features_beside_rows() : landmark_lloyd)});
}

double NystromFootprint::features_beside_rows() const {
    return std::max(features + feature_scratch, features + feature_cluster - kernel_rows - diag);
}

NystromFootprint nystrom_footprint(const Params& p, int64_t n_, int64_t d_, int64_t m_, int64_t l_,
                                   RowPrecision precision, int threads, bool weighted, int64_t r_actual) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), m = static_cast<double>(m_),
                 l = static_cast<double>(l_);
    const bool pre = kernel_traits(p.kernel).precomputed, half = precision == RowPrecision::f16;
    const double r_eigen = l > 0 ? l : m;  // columns of P from K_LL, at most
    const double r = r_actual >= 0 ? static_cast<double>(r_actual)
                     : l > 0       ? std::min(static_cast<double>(p.rank), l)
                                   : m;  // feature columns
    const Blocks b = blocks(n, threads);
    NystromFootprint f;
    f.direct = p.solver == Solver::minibatch && l == 0;
    f.features_required = p.solver == Solver::minibatch;
    f.sampling = landmark_sampling(p, n, d, m, threads);
    f.basis = basis(m, d, pre);
    f.basis_build = basis_build(m, d, pre);
    f.landmark_rows = pre ? matrix(m, n) : 0.0;
    f.projection = matrix(m, l > 0 ? r_eigen : r);
    f.eigen = matrix(m, m) + std::max(eigen(m), 8 * m * m + 8 * m);
    if (!f.direct) {
        f.kernel_rows = half ? 2 * n * m : matrix(n, m);
        f.row_scratch = b.workers * (matrix(b.rows, d) + kernel_block(p, b.rows, d) + (half ? matrix(b.rows, m) : 0));
    }
    f.final_projection = matrix(m, r);
    if (l > 0) {
        const double per_thread =
            matrix(b.rows, l) + matrix(l, l) + (half ? matrix(b.rows, m) : 0) + gemm(b.rows, m, l) + gemm(l, b.rows, l);
        const double sums = 8 * kChunks * l * l + b.workers * per_thread;
        f.rank = std::max(sums, eigen(l) + 8 * l) + f.final_projection;
    }
    f.fused = l > 0 && nystrom_fused(p, m_, static_cast<int64_t>(r));
    if (f.fused) {  // R (n×ℓ) instead of G; each thread's G_b, R_b and R_bᵀR_b; the chunk sums
        f.kernel_rows = half ? 2 * n * l : matrix(n, l);
        f.row_scratch = b.workers * (matrix(b.rows, d) + kernel_block(p, b.rows, d) + matrix(b.rows, m) +
                                     matrix(b.rows, l) + matrix(l, l) + gemm(b.rows, m, l) + gemm(l, b.rows, l));
        f.rank = RankGram::footprint(l_, kRankChunks) + 8 * l * l + eigen(l) + 8 * l + f.final_projection;
    }
    f.diag = 4 * n;
    f.features = matrix(n, r) + 4 * n;
    f.feature_scratch =
        f.fused ? b.workers * (gemm(b.rows, l, r) + (half ? matrix(b.rows, l) : 0.0))
                : b.workers * (gemm(b.rows, m, r) + (f.direct ? row_block(p, b.rows, d, m) + matrix(b.rows, r)
                                                     : half   ? matrix(b.rows, m)
                                                              : 0.0));
    f.feature_cluster = cluster_features(p, n, r, threads, weighted);
    f.landmark_lloyd = landmark_lloyd_state(p, n, m, r, threads, weighted) + lloyd_driver(p, n);
    return f;
}

// ---------------------------------------------------------------- sketch and rff

double SketchFootprint::peak() const {
    return std::max({sampling, basis + basis_build + projection, basis + projection + features + feature_scratch,
                     basis + projection + features + cluster});
}

SketchFootprint sketch_footprint(const Params& p, int64_t n_, int64_t d_, int64_t m_, int threads, bool weighted) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), m = static_cast<double>(m_);
    const bool pre = kernel_traits(p.kernel).precomputed;
    double r = m;
    SketchFootprint f;
    switch (p.sketch) {
        case SketchKind::subgaussian: {
            // nonzeros ~ Binomial(m², 1/√n): the mean plus six standard deviations
            const double q = std::min(1.0, 1.0 / std::sqrt(n));
            f.projection = 8 * (m + 1) + 4 * m + 2 * 8 * (m * m * q + 6 * m * std::sqrt(q) + 8);
            break;
        }
        case SketchKind::ros:
            r = std::exp2(std::ceil(std::log2(m)));
            f.projection = 4 * r;
            break;
        case SketchKind::gaussian: f.projection = matrix(m, m); break;
        case SketchKind::identity: break;
    }
    f.sampling = landmark_sampling(p, n, d, m, threads);
    f.basis = basis(m, d, pre);
    f.basis_build = basis_build(m, d, pre);
    f.features = matrix(n, r);
    const Blocks b = blocks(n, threads);
    f.feature_scratch = b.workers * (row_block(p, b.rows, d, m) + matrix(b.rows, r) +
                                     (p.sketch == SketchKind::gaussian ? gemm(b.rows, m, m) : 0.0));
    f.cluster = cluster_features(p, n, r, threads, weighted);
    return f;
}

double RffFootprint::peak() const {
    return std::max(map + features + feature_scratch, map + features + cluster);
}

RffFootprint rff_footprint(const Params& p, int64_t n_, int64_t d_, int64_t m_, int threads, bool weighted) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), m = static_cast<double>(m_);
    RffFootprint f;
    f.map = matrix(m, d) + 4 * m + 4 * d;
    f.features = matrix(n, m);
    const Blocks b = blocks(n, threads);
    f.feature_scratch = b.workers * (2 * matrix(b.rows, d) + matrix(b.rows, m) + gemm(b.rows, d, m));
    f.cluster = cluster_features(p, n, m, threads, weighted);
    return f;
}

// ---------------------------------------------------------------- minibatch

double MinibatchFootprint::peak() const {
    return diag + best + std::max({seeding, iterations, assign});
}

double minibatch_assign(const Params& p, double n, double d, int threads, double points, double largest) {
    // The run's centres (coefficient vectors grown by doubling), the support S (at most the
    // points, at most n), Z (S×k); then K over one centre's support at a time for ⟨C_j, C_j⟩,
    // or the support basis with every thread's kernel rows against S and every row's label.
    const bool pre = kernel_traits(p.kernel).precomputed;
    const double k = static_cast<double>(p.k), S = std::min(n, points);
    const double Z = matrix(S, k);
    const Blocks b = blocks(n, threads);
    const double norms = 2 * 8 * points + matrix(largest, largest) + 4 * largest + point_block(p, largest, d, b);
    const double rows = basis(S, d, pre) + basis_build(S, d, pre) + 8 * n +
                        b.workers * (matrix(b.rows, d) + matrix(b.rows, S) + kernel_block(p, b.rows, d) +
                                     matrix(b.rows, k) + gemm(b.rows, S, k));
    return 2 * 16 * points + Z + std::max(norms, rows);
}

MinibatchFootprint minibatch_footprint(const Params& p, int64_t n_, int64_t d_, int threads, bool weighted) {
    const double n = static_cast<double>(n_), d = static_cast<double>(d_), k = static_cast<double>(p.k),
                 b = static_cast<double>(p.batch_size), tau = static_cast<double>(p.tau);
    const double t = candidates(p);
    MinibatchFootprint f;
    f.diag = 4 * n + (weighted ? 8 * n : 0.0);
    // Seeding on a uniform sample: indices, weights, diagonal, the sample against the candidates.
    const double sample = std::min(n, std::max(b, kSeedSample));
    // Rows streamed through one kernel block: the sample or the batch; a batch that repeats
    // a quarter of its rows or more is computed over its distinct rows (at most 4/3 n).
    const Blocks blk = blocks(std::min(std::max(b, sample), 4.0 * n / 3.0), threads);
    const double distinct_rows = std::min(n, b);  // their kernel rows, before they are copied out
    f.seeding = sample * (8 + 4 + 4) + matrix(sample, t) + point_block(p, t, d, blk) + seeding(p, sample) + 16 * k;
    // One iteration: the batch (indices, labels, b×k products, Gram positions), each centre's
    // members, the centres' histories and coefficients (vectors grown by doubling: twice their
    // size), and the kernel blocks.
    const double step = 8 * b + 4 * b + 8 * b * k + 8 * b + 16 * b + 32 * k;
    double coefficients = 0;
    if (p.tau > 0) {
        const double per_centre = std::min(n, tau + b);       // distinct points of one centre
        const double cols = std::min(n, b + k * per_centre);  // distinct batch ∪ support points
        const double history = k * (tau + b) * 8 + k * (tau + 1) * kTermBytes;
        coefficients = 2 * k * per_centre * 16 + 2 * 16 * (tau + b) * 2;  // + one centre rebuilt
        const double gram = matrix(per_centre, per_centre) + 8 * per_centre;
        const double blocks = matrix(b, cols) + matrix(distinct_rows, cols) + gram +
                              std::max(point_block(p, cols, d, blk), point_block(p, per_centre, d, blk));
        f.iterations = step + history + coefficients + 2 * 8 * (b + k * per_centre) + 8 * k * per_centre + blocks +
                       16 * static_cast<double>(p.max_iter);
    } else {
        const double chunk = std::min(n, kRecursiveChunk);
        // a folded base (at most n points) and the terms since (at most n + b points)
        const double terms = std::min(n + b, static_cast<double>(p.max_iter));
        const double history = k * (16 * n * 2 + 8 * (n + b)) + k * terms * kTermBytes;
        coefficients = 2 * k * n * 16 + 2 * 16 * (n + b) * 2;
        const double blocks = matrix(chunk, std::max(k, b)) + matrix(b, b) + matrix(distinct_rows, b) +
                              point_block(p, std::max(k, b), d, blk);
        f.iterations = step + 8 * n * k + history + coefficients + blocks + 16 * static_cast<double>(p.max_iter);
    }
    const double largest = p.tau > 0 ? std::min(n, tau + b) : n;  // distinct points of one centre
    f.assign = minibatch_assign(p, n, d, threads, k * largest, largest);
    const double S = std::min(n, k * largest);
    f.best = p.n_init > 1 ? basis(S, d, kernel_traits(p.kernel).precomputed) + matrix(S, k) + 4 * n : 0.0;
    return f;
}

// ---------------------------------------------------------------- graph kernels

double GraphFootprint::peak() const {
    // The rows stay (the model keeps them); the search ends before the graph is decomposed;
    // the graph stays through the clustering (knn's Lloyd reads it).
    const double building = search + graph;
    const double later = graph + std::max(spectrum, features + clustering + model);
    return rows + std::max(building, later);
}

GraphFootprint graph_footprint(const Params& p, int64_t n_rows, int64_t d_cols, int64_t q_max, int64_t r_pairs,
                               int threads, GraphSearch search) {
    const auto n = static_cast<double>(n_rows), d = static_cast<double>(d_cols), q = static_cast<double>(q_max);
    const auto r = static_cast<double>(r_pairs), k = static_cast<double>(p.k);
    GraphFootprint f;
    const double entries = 2 * n * q;  // the symmetrised graph's entries, at most
    if (search != GraphSearch::none) {
        f.rows = matrix(n, d) + 4 * n + 16 * n;
        // lists (index, distance, NN-descent's flags and birth), samples and reverse lists
        // (four lists of up to q per row, offsets), the join's per-thread gathers, the locks;
        // the exact search's packed chunk and every thread's query block and tile.
        const double lists = n * q * (4 + 4 + 1 + 4) + 4 * (4 * n * q + 8 * n) + 8 * n;
        // NN-descent's join runs in tasks of 256 rows (a row block, near enough); each thread
        // gathers one row's candidates, at most 4q rows and at most n.
        const Blocks b = blocks(n, threads);
        const double join = b.workers * (matrix(std::min(4 * q, n), d) + 4 * 16 * q * q + 32 * q);
        const double exact =
            packed(std::min(n, 4096.0), d) + b.workers * (matrix(b.rows, d) + matrix(b.rows, 1024) + packed(b.rows, d));
        // NN-descent searches small sets exactly (n <= 8q + 64): either may run.
        f.search = lists + (search == GraphSearch::nndescent ? std::max(join + 64 * 4096, exact) : exact) + 8 * n;
    }
    // (column, weight) pairs and offsets while building, then the compressed graph and degrees
    f.graph = 8 * entries + 8 * n + 8 * n + 8 * entries + 8 * n + 4 * n + 8 * n;
    const double ncv = std::min(n, std::max(2 * r + 1, r + 20));
    const double lanczos = 8 * n * (2 * 2 * ncv + 2 * r + 6);  // the basis at up to twice ncv, restarts, pairs
    const double dense = 2 * 8.0 * 512 * 512;
    f.spectrum = lanczos + 12 * entries + 28 * n + dense + matrix(n, r);
    f.features = 2 * matrix(n, r);  // the eigenvectors (kept by heat models) and the features
    const double lloyd = feature_lloyd(p, n, r, threads, false) + lloyd_driver(p, n) + matrix(k, r);
    const double ncut = n * (4 + 4 + 4 + 4) + threads * 8 * k + 8 * k * (n / 1024 + 4);
    double mb = 0;
    if (p.method == Method::minibatch) {
        const MinibatchFootprint m = minibatch_footprint(p, n_rows, std::max<int64_t>(r_pairs, 1), threads, false);
        mb = std::max(m.seeding, m.iterations) + m.diag;
    }
    f.clustering = std::max(lloyd + ncut, mb + lloyd);
    const Blocks b = blocks(n, threads);
    f.model = matrix(k, r) + n * (8 + 4 + 8) + 8 * k + n * (4 + 4) + b.workers * 8 * b.rows * k;
    return f;
}

}  // namespace kkm::memory
