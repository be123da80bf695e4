#include "cluster/landmark_lloyd.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster/hamerly.h"
#include "cluster/lloyd.h"
#include "cluster/reported_distance.h"
#include "core/blocking.h"
#include "core/parallel.h"
#include "core/weights.h"
#include "engine/dots.h"

namespace kkm {
namespace {

constexpr int64_t kDecodeBlock = kSmallRowBlock;  // rows per step of a pass over G
constexpr int64_t kChunks = kReduceChunks;

/// Adds w_i g_i to the row of acc (k×m) of each row's label, for rows first..first+count-1
/// of G (read where they are stored).
void accumulate(const RowStore& G, int64_t first, int64_t count, const int32_t* labels, const std::vector<float>& w,
                float* acc) {
    const int64_t m = G.cols();
    for (int64_t i = first; i < first + count; ++i) G.add_row(i, weight_at_f32(w, i), acc + labels[i - first] * m);
}

/// engine::row_dots with the columns (rows of B) split into slices over the threads: each
/// value depends only on its two rows, so the slicing changes no bit.
void sliced_row_dots(int threads, engine::Isa isa, const float* A, int64_t rows, int64_t lda, const float* B,
                     int64_t cols, int64_t ldb, int64_t m, float* out, int64_t ldo) {
    constexpr int64_t kSlice = 64;
    parallel_blocks(threads, block_count(cols, kSlice), [&](int64_t s) {
        const int64_t first = s * kSlice, count = std::min(kSlice, cols - first);
        engine::row_dots(isa, A, rows, lda, B + first * ldb, count, ldb, m, out + first, ldo);
    });
}

std::vector<double> combine(const std::vector<float>& partial, int64_t size) {
    std::vector<double> sums(static_cast<size_t>(size), 0.0);
    for (int64_t c = 0; c < kChunks; ++c) {
        const float* acc = partial.data() + c * size;
        for (int64_t t = 0; t < size; ++t) sums[static_cast<size_t>(t)] += acc[t];
    }
    return sums;
}

/// landmark_nearest's choice from the rows' dot products with the centres (rows × k).
void nearest_of_dots(const Matrix& dots, const float* self, const LandmarkCentres& c, int32_t* labels, float* dist,
                     float* second, float* each) {
    const int64_t k = c.H.rows;
    for (int64_t i = 0; i < dots.rows; ++i) {
        const float s = self != nullptr ? self[i] : 0.0f;
        // A centre's term ‖c‖² − 2 g·H as reported: plus K(x,x) when given, clamped at 0 then.
        // Without k(x,x) (a precomputed kernel) the term itself, which may be below 0; with
        // it, clamped at 0 (rounding, or a kernel that is not positive semi-definite). Not
        // finite: NaN, an error at the C API.
        const auto reported = [&](float term, double) {
            const float full = term + s;
            if (!std::isfinite(full)) return std::numeric_limits<float>::quiet_NaN();
            return self != nullptr && full < 0.0f ? 0.0f : full;
        };
        NearestCentre<float> nearest;
        for (int64_t j = 0; j < k; ++j) {
            if (!c.alive[static_cast<size_t>(j)]) {
                if (each != nullptr) each[i * k + j] = std::numeric_limits<float>::infinity();
                continue;
            }
            const float norm = c.self_dot[static_cast<size_t>(j)], dot = dots.row(i)[j];
            const float d = norm - 2.0f * dot;
            const double size = std::abs(norm) + 2.0 * std::abs(dot);
            nearest.offer(j, d, size, reported(d, size), each != nullptr ? each + i * k + j : nullptr);
        }
        labels[i] = nearest.arg;
        dist[i] = nearest.distance(reported);
        if (second != nullptr) second[i] = nearest.next + s;
    }
}

}  // namespace

void landmark_nearest(ConstMatrix G, const float* self, const LandmarkCentres& c, int32_t* labels, float* dist,
                      engine::Isa isa, float* second, float* each) {
    const int64_t k = c.H.rows;
    Matrix dots(G.rows, k);
    engine::row_dots(isa, G.data, G.rows, G.cols, c.H.data(), k, c.H.cols, G.cols, dots.data(), k);
    nearest_of_dots(dots, self, c, labels, dist, second, each);
}

void landmark_nearest(const RowStore& G, const int64_t* idx, int64_t first, int64_t count, const float* self,
                      const LandmarkCentres& c, int32_t* labels, float* dist, float* second, float* each) {
    const int64_t k = c.H.rows;
    Matrix dots(count, k);
    G.dots(idx, first, count, c.H.view(), dots.data(), k);
    nearest_of_dots(dots, self, c, labels, dist, second, each);
}

int64_t LandmarkLloyd::column_slice(int64_t columns) const {
    const int64_t share = block_count(columns, std::max(1, threads_));
    return std::max<int64_t>(16, (share + 15) / 16 * 16);
}

double LandmarkLloyd::footprint(const Params& p, double n, double m, double r, int threads, bool weighted) {
    const RowBlocks b = row_blocks(n, threads);
    const double k = static_cast<double>(p.k), t = static_cast<double>(seeding_candidates(p.init, p.k));
    const double lower = static_cast<double>(lower_bounds_per_row(p.k)), chunks = static_cast<double>(kChunks);
    // label caches, upper bound, lower bounds (Elkan's k or Hamerly's one)
    const double points = (weighted ? 4 * n : 0.0) + n * (4 + 4 + 4 + 4 * lower);
    // (k x r: the centres' C, the measured copy, the runs' results: best and current)
    const double sums = 4 * chunks * k * m + 8 * k * m * 5 + 2 * Matrix::footprint(k, m) + 6 * Matrix::footprint(k, r);
    const double per_thread =
        b.small_workers * (Matrix::footprint(b.small, m) + Matrix::footprint(b.small, k)) +
        b.workers * (Matrix::footprint(b.rows, m) + 32 * b.rows + 4 * b.rows * k);  // + Elkan's open rows
    const double oracle = 8 * t * m + 8 * t * r + Matrix::footprint(t, m) +
                          b.small_workers * (Matrix::footprint(b.small, t) + Matrix::footprint(b.small, m));
    return Matrix::footprint(r, m) + points + sums + per_thread + oracle;
}

LandmarkLloyd::LandmarkLloyd(const RowStore& G, const Matrix& P, std::vector<float> diag, std::vector<float> weights,
                             int64_t k, int threads, engine::Isa isa, Bounds bounds, const Comm& comm,
                             const RowPartition* part)
    : BoundedLloyd(G.rows(), std::move(weights), k, threads, isa, bounds != Bounds::none, comm, part),
      G_(G),
      P_(P),
      diag_(std::move(diag)),
      lower_per_row_(bounds == Bounds::elkan ? lower_bounds_per_row(k) : 1) {
    transpose_into(P.view(), Pt_);
}

std::vector<float>& LandmarkLloyd::zeroed_partial() {
    partial_.assign(static_cast<size_t>(kChunks * k_ * G_.cols()), 0.0f);
    return partial_;
}

std::vector<double> LandmarkLloyd::sums_for(const std::vector<int32_t>& labels) {
    if (sums_cached_for(labels)) return cached_sums_;
    const int64_t n = G_.rows(), m = G_.cols(), per_chunk = block_count(n, kChunks);
    std::vector<float>& partial = zeroed_partial();
    parallel_blocks(threads_, kChunks, [&](int64_t c) {
        const int64_t begin = c * per_chunk, end = std::min(n, (c + 1) * per_chunk);
        if (begin < end)
            accumulate(G_, begin, end - begin, labels.data() + begin, weights_, partial.data() + c * k_ * m);
    });
    return combine(partial, k_ * m);
}

std::vector<double> LandmarkLloyd::project(const std::vector<double>& rows, int64_t t) const {
    // Output columns in slices over the threads, each summed over a in order: the same bits
    // for any slicing.
    const int64_t m = P_.rows, r = P_.cols, step = column_slice(r);
    std::vector<double> out(static_cast<size_t>(t * r), 0.0);
    parallel_blocks(threads_, block_count(r, step), [&](int64_t b) {
        const int64_t lo = b * step, hi = std::min(r, lo + step);
        for (int64_t a = 0; a < m; ++a) {  // each row of P read once for all t rows
            const float* p = P_.row(a);
            for (int64_t c = 0; c < t; ++c) {
                engine::axpy_widen(isa_, rows[static_cast<size_t>(c * m + a)], p + lo, out.data() + c * r + lo,
                                   hi - lo);
            }
        }
    });
    return out;
}

Matrix LandmarkLloyd::lift(const std::vector<double>& features, int64_t t) const {
    const int64_t m = P_.rows, r = P_.cols, step = column_slice(m);
    Matrix H(t, m);
    parallel_blocks(threads_, block_count(m, step), [&](int64_t b) {
        const int64_t lo = b * step, hi = std::min(m, lo + step);
        for (int64_t c = 0; c < t; ++c) {
            const double* f = features.data() + c * r;
            for (int64_t a = lo; a < hi; ++a) {
                const float* p = P_.row(a);
                double s = 0;
#pragma omp simd reduction(+ : s)
                for (int64_t q = 0; q < r; ++q) s += f[q] * p[q];
                H.row(c)[a] = static_cast<float>(s);
            }
        }
    });
    return H;
}

LandmarkCentres LandmarkLloyd::centres_from_sums(const std::vector<double>& sums, const std::vector<double>& mass,
                                                 Matrix* means_out) const {
    const int64_t m = G_.cols(), r = P_.cols;
    std::vector<double> means(sums.size());
    std::vector<char> alive;
    for (int64_t j = 0; j < k_; ++j) {
        const double w = mass[static_cast<size_t>(j)];
        alive.push_back(w > 0 ? 1 : 0);
        for (int64_t t = 0; t < m; ++t) {
            means[static_cast<size_t>(j * m + t)] = w > 0 ? sums[static_cast<size_t>(j * m + t)] / w : 0.0;
        }
    }
    // Per iteration the products run in float32 on the engine's row_dots (fixed rounding,
    // column slices over the threads): C = ḡ P (k×r, rows of ḡ against rows of Pᵀ), H = C Pᵀ
    // (k×m, rows of C against rows of P).
    Matrix meansf(k_, m), C(k_, r);
    for (size_t t = 0; t < means.size(); ++t) meansf.values[t] = static_cast<float>(means[t]);
    sliced_row_dots(threads_, isa_, meansf.data(), k_, m, Pt_.data(), r, m, m, C.data(), r);
    if (means_out != nullptr) *means_out = std::move(meansf);
    return centres_at(std::move(C), std::move(alive));
}

LandmarkCentres LandmarkLloyd::centres_at(Matrix C, std::vector<char> alive) const {
    const int64_t m = G_.cols(), r = P_.cols;
    LandmarkCentres c;
    c.alive = std::move(alive);
    for (int64_t j = 0; j < k_; ++j) {
        double s = 0;
        for (int64_t q = 0; q < r; ++q) s += static_cast<double>(C.row(j)[q]) * C.row(j)[q];
        c.self_dot.push_back(static_cast<float>(s));
    }
    c.H = Matrix(k_, m);
    sliced_row_dots(threads_, isa_, C.data(), k_, r, P_.data(), m, r, r, c.H.data(), m);
    c.C = std::move(C);
    return c;
}

LandmarkCentres LandmarkLloyd::centres_of(const LloydResult& result) {
    if (result.centres.rows == 0) return centres(result.centre_members());
    std::vector<double> mass = cluster_weights(result.centre_members(), weights_, k_);
    sum_over_ranks(comm_, mass.data(), mass.size());
    std::vector<char> alive;
    for (const double w : mass) alive.push_back(w > 0 ? 1 : 0);
    return centres_at(result.centres, std::move(alive));
}

LandmarkCentres LandmarkLloyd::centres(const std::vector<int32_t>& labels, Matrix* means) {
    const auto [sums, mass] = global_sums_and_mass(sums_for(labels), labels);
    return centres_from_sums(sums, mass, means);
}

double LandmarkLloyd::reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                               std::vector<float>& dist) {
    const LandmarkCentres c = centres(labels);
    measured_ = c.C;
    return bounded_reassign(
        bounds_, comm_, k_, labels, next, c.C, [&] { return full_pass(c, next, dist); },
        [&] { return bounded_pass(c, labels, next, dist); });
}

double LandmarkLloyd::full_pass(const LandmarkCentres& c, std::vector<int32_t>& next, std::vector<float>& dist) {
    // One pass over G: each chunk assigns its rows and, while they are in cache, adds them
    // to its partial sums for the new labels (the next centres).
    const int64_t n = G_.rows(), m = G_.cols(), per_chunk = block_count(n, kChunks);
    const bool elkan = bounds_.enabled && lower_per_row_ > 1;
    std::vector<float>& partial = zeroed_partial();
    std::vector<double> objective(static_cast<size_t>(kChunks), 0.0);
    if (bounds_.enabled) {
        bounds_.upper.resize(static_cast<size_t>(n));
        bounds_.lower.resize(static_cast<size_t>(n * lower_per_row_));
    }
    // Hamerly's one lower bound per row: the second-nearest squared distance, written where
    // the bound goes (its square root taken below); Elkan's come from each row's k distances.
    float* second = bounds_.enabled && !elkan ? bounds_.lower.data() : nullptr;
    PerThread<std::vector<float>> each(threads_);
    parallel_blocks(threads_, kChunks, [&](int64_t chunk) {
        const int64_t end = std::min(n, (chunk + 1) * per_chunk);
        for (int64_t begin = chunk * per_chunk; begin < end; begin += kDecodeBlock) {
            const int64_t count = std::min(kDecodeBlock, end - begin);
            if (elkan) each.local().resize(static_cast<size_t>(count * k_));
            landmark_nearest(G_, nullptr, begin, count, diag_.data() + begin, c, next.data() + begin,
                             dist.data() + begin, second != nullptr ? second + begin : nullptr,
                             elkan ? each.local().data() : nullptr);
            if (elkan) set_lower_bounds(begin, count, each.local().data(), nullptr);
            accumulate(G_, begin, count, next.data() + begin, weights_, partial.data() + chunk * k_ * m);
            double s = 0;
            for (int64_t i = begin; i < begin + count; ++i)
                s += weight_at_f32(weights_, i) * static_cast<double>(dist[static_cast<size_t>(i)]);
            objective[static_cast<size_t>(chunk)] += s;
        }
    });
    cached_sums_ = combine(partial, k_ * m);
    cached_labels_ = next;
    if (bounds_.enabled) {
        for (int64_t i = 0; i < n; ++i) {
            bounds_.upper[static_cast<size_t>(i)] = std::sqrt(std::max(dist[static_cast<size_t>(i)], 0.0f));
            if (second != nullptr) second[i] = std::sqrt(std::max(second[i], 0.0f));
        }
    }
    bounds_.computed = n;
    double total = 0;
    for (double v : objective) total += v;
    return total;
}

void LandmarkLloyd::set_lower_bounds(int64_t first, int64_t count, const float* each, const int64_t* idx) {
    for (int64_t t = 0; t < count; ++t) {
        float* low = bounds_.lower.data() + (idx != nullptr ? idx[t] : first + t) * k_;
        for (int64_t j = 0; j < k_; ++j) low[j] = std::sqrt(std::max(each[t * k_ + j], 0.0f));
    }
}

float largest_centre_term(const LandmarkCentres& c) {
    float top = 0.0f;
    for (const float v : c.self_dot) top = std::max(top, std::fabs(v));
    return top;
}

double LandmarkLloyd::bounded_pass(const LandmarkCentres& c, const std::vector<int32_t>& labels,
                                   std::vector<int32_t>& next, std::vector<float>& dist) {
    const int64_t n = G_.rows(), m = G_.cols();
    const bool elkan = lower_per_row_ > 1;
    const Drift drift = centre_drift(c.C, bounds_.centres);
    const std::vector<double> pairs = elkan ? half_distances(c.C, c.alive) : std::vector<double>();
    const std::vector<double> half = elkan ? nearest_half(pairs, k_) : half_separation(c.C, c.alive);
    const BoundedStep step{drift, half, c.alive, largest_centre_term(c)};
    const int64_t nblocks = block_count(n, kRowBlock);
    std::vector<int64_t> computed(static_cast<size_t>(nblocks), 0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kRowBlock, end = std::min(n, begin + kRowBlock);
        const auto point_term = [&](int64_t i) { return diag_[static_cast<size_t>(i)]; };
        const auto distance = [](int64_t, double up) { return static_cast<float>(up * up); };
        const std::vector<int64_t> open = elkan ? elkan_screen(begin, end, step, pairs, labels, bounds_.upper,
                                                               bounds_.lower, next, dist, point_term, distance)
                                                : hamerly_screen(begin, end, step, labels, bounds_.upper, bounds_.lower,
                                                                 next, dist, point_term, distance);
        // The open rows, read where they are stored, against every centre in register tiles
        // of several rows.
        const auto count = static_cast<int64_t>(open.size());
        std::vector<float> self(static_cast<size_t>(count)), best(self.size()), second(self.size());
        std::vector<float> each(static_cast<size_t>(elkan ? count * k_ : 0));
        std::vector<int32_t> label(self.size());
        for (int64_t t = 0; t < count; ++t)
            self[static_cast<size_t>(t)] = diag_[static_cast<size_t>(open[static_cast<size_t>(t)])];
        landmark_nearest(G_, open.data(), 0, count, self.data(), c, label.data(), best.data(), second.data(),
                         elkan ? each.data() : nullptr);
        for (int64_t t = 0; t < count; ++t) {
            const auto at = static_cast<size_t>(open[static_cast<size_t>(t)]);
            next[at] = label[static_cast<size_t>(t)];
            dist[at] = best[static_cast<size_t>(t)];
            bounds_.upper[at] = std::sqrt(std::max(best[static_cast<size_t>(t)], 0.0f));
            if (!elkan) bounds_.lower[at] = std::sqrt(std::max(second[static_cast<size_t>(t)], 0.0f));
        }
        if (elkan) set_lower_bounds(0, count, each.data(), open.data());
        computed[static_cast<size_t>(b)] = count;
    });
    bounds_.computed = 0;
    for (int64_t v : computed) bounds_.computed += v;
    move_sums(labels, next);
    // Σ_i w_i dist(i, next_i) against these centres from the sums of the new labels:
    // Σ w_i K_ii + Σ_j (W_j ‖c_j‖² − 2 H_j · S_j), this rank's share (its rows' W_j and S_j).
    const std::vector<double> mass = cluster_weights(next, weights_, k_);
    double total = 0;
    for (int64_t i = 0; i < n; ++i)
        total += static_cast<double>(weight_at_f32(weights_, i)) * diag_[static_cast<size_t>(i)];
    for (int64_t j = 0; j < k_; ++j) {
        if (!(mass[static_cast<size_t>(j)] > 0)) continue;
        double hs = 0;
        for (int64_t t = 0; t < m; ++t)
            hs += static_cast<double>(c.H.row(j)[t]) * cached_sums_[static_cast<size_t>(j * m + t)];
        total += mass[static_cast<size_t>(j)] * c.self_dot[static_cast<size_t>(j)] - 2.0 * hs;
    }
    return total;
}

void LandmarkLloyd::move_sums(const std::vector<int32_t>& labels, const std::vector<int32_t>& next) {
    cached_sums_ = sums_for(labels);
    const std::vector<int64_t> movers = moved_points(labels, next);
    // Columns in independent slices, movers in index order within each: the same sums for
    // any thread count and any slicing. One slice per thread (whole cache lines), so that each
    // thread streams long runs of every mover's row.
    const int64_t m = G_.cols(), step = column_slice(m);
    PerThread<std::vector<float>> buffers(threads_);
    parallel_blocks(threads_, block_count(m, step), [&](int64_t b) {
        const int64_t lo = b * step, hi = std::min(m, lo + step);
        std::vector<float>& buffer = buffers.local();
        buffer.resize(static_cast<size_t>(step));
        float* buf = buffer.data();
        for (int64_t i : movers) {
            const double w = weight_at_f32(weights_, i);
            const float* g = G_.segment(i, lo, hi, buf);
            double* from = cached_sums_.data() + labels[static_cast<size_t>(i)] * m + lo;
            double* to = cached_sums_.data() + next[static_cast<size_t>(i)] * m + lo;
            engine::axpy_widen(isa_, -w, g, from, hi - lo);  // from − w·g: the same bits
            engine::axpy_widen(isa_, w, g, to, hi - lo);
        }
    });
    cached_labels_ = next;
}

double LandmarkLloyd::objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) {
    // Σ_i w_i ‖φ_i − c_{l_i}‖² (c_j: the centres of the clusters of `members`), each point's
    // K_ii − 2 g_i·(P c_j) + ‖c_j‖² in float64 and clamped at 0 before it is added: a sum of
    // non-negative terms, never negative however the BLAS rounded G (the closed form
    // Σ w_i K_ii − Σ_j W_j ‖c_j‖² cancels to below 0).
    const int64_t n = G_.rows(), m = G_.cols(), r = P_.cols;
    // The members of a stop before a fixed point are the labels before the last reassignment,
    // whose sums the cache held then: moved back by the rows that moved, not a pass over G.
    if (!sums_cached_for(members) && !cached_sums_.empty()) move_sums(std::vector<int32_t>(cached_labels_), members);
    const auto [sums, mass] = global_sums_and_mass(sums_for(members), members);
    std::vector<double> means(sums.size(), 0.0);
    for (int64_t j = 0; j < k_; ++j) {
        const double w = mass[static_cast<size_t>(j)];
        for (int64_t t = 0; t < m && w > 0; ++t)
            means[static_cast<size_t>(j * m + t)] = sums[static_cast<size_t>(j * m + t)] / w;
    }
    const std::vector<double> C = project(means, k_);
    std::vector<double> H(static_cast<size_t>(k_ * m), 0.0), self(static_cast<size_t>(k_), 0.0);
    for (int64_t j = 0; j < k_; ++j) {
        const double* c = C.data() + j * r;
        for (int64_t q = 0; q < r; ++q) self[static_cast<size_t>(j)] += c[q] * c[q];
    }
    // H_j,a = Σ_q c_j,q P_a,q, each summed over q in order, many a at once along the rows of
    // Pᵀ (vector lanes over a, column slices over the threads): the bits of the plain loop.
    const int64_t step = column_slice(m);
    parallel_blocks(threads_, block_count(m, step), [&](int64_t b) {
        const int64_t lo = b * step, hi = std::min(m, lo + step);
        for (int64_t j = 0; j < k_; ++j) {
            const double* c = C.data() + j * r;
            double* h = H.data() + j * m;
            for (int64_t q = 0; q < r; ++q) engine::axpy_widen(isa_, c[q], Pt_.row(q) + lo, h + lo, hi - lo);
        }
    });
    const int64_t nblocks = block_count(n, kDecodeBlock);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    PerThread<Matrix> scratch(threads_);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kDecodeBlock, end = std::min(n, begin + kDecodeBlock);
        const ConstMatrix rows = G_.block(begin, end - begin, scratch.local());
        double s = 0;
        for (int64_t i = begin; i < end; ++i) {
            const int32_t j = labels[static_cast<size_t>(i)];
            const double* h = H.data() + j * m;
            const float* g = rows.row(i - begin);
            double dot = 0;
#pragma omp simd reduction(+ : dot)
            for (int64_t a = 0; a < m; ++a) dot += g[a] * h[a];
            const double d = diag_[static_cast<size_t>(i)] - 2.0 * dot + self[static_cast<size_t>(j)];
            s += static_cast<double>(weight_at_f32(weights_, i)) * std::max(d, 0.0);
        }
        partial[static_cast<size_t>(b)] = s;
    });
    double total = 0;
    for (double v : partial) total += v;
    return sum_over_ranks(comm_, total);
}

SquaredDistanceToPoint LandmarkLloyd::distance_oracle() const {
    return [this](const std::vector<int64_t>& centres, float* out) {
        const int64_t t = static_cast<int64_t>(centres.size()), m = G_.cols();
        std::vector<double> chosen(static_cast<size_t>(t * m));
        Matrix rows(t, m);  // the chosen points' kernel rows (global indices), from the ranks holding them
        std::vector<float> buf(static_cast<size_t>(m));
        share_rows(
            comm_, part_, centres, m,
            [&](int64_t i, float* out) {
                const float* g = G_.segment(i, 0, m, buf.data());
                std::copy(g, g + m, out);
            },
            rows.data());
        for (int64_t c = 0; c < t; ++c) std::copy(rows.row(c), rows.row(c) + m, chosen.begin() + c * m);
        const std::vector<double> F = project(chosen, t);
        const Matrix V = lift(F, t);
        std::vector<float> gg(static_cast<size_t>(t));
        for (int64_t c = 0; c < t; ++c) {
            double s = 0;
            for (int64_t q = 0; q < P_.cols; ++q)
                s += F[static_cast<size_t>(c * P_.cols + q)] * F[static_cast<size_t>(c * P_.cols + q)];
            gg[static_cast<size_t>(c)] = static_cast<float>(s);
        }
        candidate_distances(G_, V, diag_.data(), gg.data(), nullptr, out, threads_);
    };
}

}  // namespace kkm
