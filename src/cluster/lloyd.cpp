#include "cluster/lloyd.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster/hamerly.h"
#include "cluster/reported_distance.h"
#include "core/blocking.h"
#include "core/parallel.h"
#include "core/weights.h"
#include "engine/dots.h"

namespace kkm {
namespace {

constexpr int64_t kChunks = kReduceChunks;

float offset_at(const std::vector<float>& offset, int64_t i) {
    return offset.empty() ? 0.0f : offset[static_cast<size_t>(i)];
}

}  // namespace

std::vector<float> row_squared_norms(ConstMatrix M) {
    std::vector<float> out(static_cast<size_t>(M.rows));
    for (int64_t i = 0; i < M.rows; ++i) {
        const float* r = M.row(i);
        float s = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int64_t j = 0; j < M.cols; ++j) s += r[j] * r[j];
        out[static_cast<size_t>(i)] = s;
    }
    return out;
}

void nearest_centroid(ConstMatrix F, const float* fnorms, const Matrix& C, const std::vector<float>& cnorms,
                      const std::vector<char>& alive, int32_t* labels, float* dist, engine::Isa isa, float* second,
                      float* each) {
    const int64_t k = C.rows;
    Matrix dots(F.rows, k);
    engine::row_dots(isa, F.data, F.rows, F.cols, C.data(), k, C.cols, F.cols, dots.data(), k);
    for (int64_t i = 0; i < F.rows; ++i) {
        NearestCentre<float> nearest;
        for (int64_t j = 0; j < k; ++j) {
            if (!alive[static_cast<size_t>(j)]) {
                if (each != nullptr) each[i * k + j] = std::numeric_limits<float>::infinity();
                continue;
            }
            const float dot = dots.row(i)[j];
            const float d = fnorms[i] + cnorms[static_cast<size_t>(j)] - 2.0f * dot;
            const double size = std::abs(fnorms[i]) + std::abs(cnorms[static_cast<size_t>(j)]) + 2.0 * std::abs(dot);
            nearest.offer(j, d, size, reported_distance(d, size), each != nullptr ? each + i * k + j : nullptr);
        }
        labels[i] = nearest.arg;
        dist[i] = nearest.distance([](float best, double size) { return reported_distance(best, size); });
        if (second != nullptr) second[i] = nearest.next;
    }
}

double FeatureLloyd::footprint(const Params& p, double n, double r, int threads, bool weighted) {
    const double k = static_cast<double>(p.k), t = static_cast<double>(seeding_candidates(p.init, p.k));
    const double chunks = static_cast<double>(kReduceChunks);
    const double points = (weighted ? 4 * n : 0.0) + n * (4 + 8 + 8 + 4);  // norms, bounds, label caches, second
    // (centres: the reassignment's, the measured copy, and the runs' results: best and current)
    const double sums = 8 * chunks * k * r + 8 * k * r * 3 + 6 * Matrix::footprint(k, r);
    const RowBlocks b = row_blocks(n, threads);
    const double per_thread = b.workers * (Matrix::footprint(b.rows, k) + Matrix::footprint(b.rows, r) + 16 * b.rows) +
                              b.small_workers * Matrix::footprint(b.small, t);
    return points + sums + per_thread + Matrix::footprint(t, r);
}

FeatureLloyd::FeatureLloyd(ConstMatrix F, std::vector<float> weights, int64_t k, int threads, engine::Isa isa,
                           std::vector<float> offset, bool bounds, const Comm& comm, const RowPartition* part)
    : BoundedLloyd(F.rows, std::move(weights), k, threads, isa, bounds, comm, part),
      F_(F),
      norms_(row_squared_norms(F)),
      offset_(std::move(offset)) {
    for (int64_t i = 0; i < F_.rows; ++i) {
        weighted_terms_ +=
            weight_at(weights_, i) * (static_cast<double>(norms_[static_cast<size_t>(i)]) + offset_at(offset_, i));
    }
}

std::vector<double> FeatureLloyd::centroid_sums(const std::vector<int32_t>& labels) const {
    const int64_t r = F_.cols;
    const int64_t per_chunk = block_count(F_.rows, kChunks);
    std::vector<double> partial(static_cast<size_t>(kChunks * k_ * r), 0.0);
    parallel_blocks(threads_, kChunks, [&](int64_t c) {
        double* acc = partial.data() + c * k_ * r;
        const int64_t end = std::min(F_.rows, (c + 1) * per_chunk);
        for (int64_t i = c * per_chunk; i < end; ++i) {
            const double w = weight_at(weights_, i);
            double* dst = acc + labels[static_cast<size_t>(i)] * r;
            const float* src = F_.row(i);
#pragma omp simd
            for (int64_t j = 0; j < r; ++j) dst[j] += w * src[j];
        }
    });
    std::vector<double> sums(static_cast<size_t>(k_ * r), 0.0);
    for (int64_t c = 0; c < kChunks; ++c) {
        const double* acc = partial.data() + c * k_ * r;
        for (int64_t t = 0; t < k_ * r; ++t) sums[static_cast<size_t>(t)] += acc[t];
    }
    return sums;
}

Matrix FeatureLloyd::means(const std::vector<double>& sums, const std::vector<double>& mass) const {
    Matrix C(k_, F_.cols);
    for (int64_t j = 0; j < k_; ++j) {
        const double m = mass[static_cast<size_t>(j)];
        for (int64_t t = 0; t < F_.cols; ++t) {
            C.row(j)[t] = m > 0 ? static_cast<float>(sums[static_cast<size_t>(j * F_.cols + t)] / m) : 0.0f;
        }
    }
    return C;
}

Matrix FeatureLloyd::centroids(const std::vector<int32_t>& labels) const {
    const auto [sums, mass] = global_sums_and_mass(centroid_sums(labels), labels);
    return means(sums, mass);
}

Matrix FeatureLloyd::centroids_of(const LloydResult& result) const {
    return result.centres.rows == 0 ? centroids(result.centre_members()) : result.centres;
}

std::vector<double> FeatureLloyd::sums_for(const std::vector<int32_t>& labels) const {
    if (sums_cached_for(labels)) return cached_sums_;
    return centroid_sums(labels);
}

FeatureLloyd::Centres FeatureLloyd::centres_for(const std::vector<int32_t>& labels) const {
    const auto [sums, mass] = global_sums_and_mass(sums_for(labels), labels);
    Centres c{means(sums, mass), {}, {}};
    c.norms = row_squared_norms(c.C.view());
    for (double m : mass) c.alive.push_back(m > 0 ? 1 : 0);
    return c;
}

double FeatureLloyd::reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                              std::vector<float>& dist) {
    const Centres c = centres_for(labels);
    measured_ = c.C;
    return bounded_reassign(
        bounds_, comm_, k_, labels, next, c.C, [&] { return full_pass(c, next, dist); },
        [&] { return bounded_pass(c, labels, next, dist); });
}

double FeatureLloyd::full_pass(const Centres& c, std::vector<int32_t>& next, std::vector<float>& dist) {
    // One pass over F per iteration: each chunk assigns its rows and, while they are in cache,
    // adds them to its partial sums for the new labels (the next iteration's centroids).
    const int64_t n = F_.rows, r = F_.cols, per_chunk = block_count(n, kChunks);
    std::vector<float> partial(static_cast<size_t>(kChunks * k_ * r), 0.0f);
    std::vector<double> objective(static_cast<size_t>(kChunks), 0.0);
    std::vector<float> second(bounds_.enabled ? static_cast<size_t>(n) : 0);
    if (bounds_.enabled) {
        bounds_.upper.resize(static_cast<size_t>(n));
        bounds_.lower.resize(static_cast<size_t>(n));
    }
    parallel_blocks(threads_, kChunks, [&](int64_t chunk) {
        const int64_t end = std::min(n, (chunk + 1) * per_chunk);
        float* acc = partial.data() + chunk * k_ * r;
        for (int64_t begin = chunk * per_chunk; begin < end; begin += kRowBlock) {
            const int64_t count = std::min(kRowBlock, end - begin);
            nearest_centroid(F_.slice(begin, count), norms_.data() + begin, c.C, c.norms, c.alive, next.data() + begin,
                             dist.data() + begin, isa_, bounds_.enabled ? second.data() + begin : nullptr);
            for (int64_t i = begin; i < begin + count; ++i) {
                const auto at = static_cast<size_t>(i);
                if (bounds_.enabled) {  // the feature distances, before the offset joins them
                    bounds_.upper[at] = std::sqrt(dist[at]);
                    bounds_.lower[at] = std::sqrt(std::max(second[at], 0.0f));
                }
                // The offset joins in float64: rounded into a float32 distance it would bury
                // the small changes of the objective that the tol stop compares (and that the
                // bounded pass's closed form keeps).
                // A kernel distance is ≥ 0; the signed offset (a residual rounded below 0) can
                // take the sum under, so it is clamped as one.
                const float w = static_cast<float>(weight_at(weights_, i));
                objective[static_cast<size_t>(chunk)] +=
                    w * std::max(static_cast<double>(dist[at]) + offset_at(offset_, i), 0.0);
                dist[at] = std::max(dist[at] + offset_at(offset_, i), 0.0f);
                float* dst = acc + next[at] * r;
                const float* src = F_.row(i);
#pragma omp simd
                for (int64_t j = 0; j < r; ++j) dst[j] += w * src[j];
            }
        }
    });
    cached_sums_.assign(static_cast<size_t>(k_ * r), 0.0);
    double total = 0;
    for (int64_t chunk = 0; chunk < kChunks; ++chunk) {
        const float* acc = partial.data() + chunk * k_ * r;
        for (int64_t t = 0; t < k_ * r; ++t) cached_sums_[static_cast<size_t>(t)] += acc[t];
        total += objective[static_cast<size_t>(chunk)];
    }
    cached_labels_ = next;
    bounds_.computed = n;
    return total;
}

double FeatureLloyd::bounded_pass(const Centres& c, const std::vector<int32_t>& labels, std::vector<int32_t>& next,
                                  std::vector<float>& dist) {
    const int64_t n = F_.rows;
    const Drift drift = centre_drift(c.C, bounds_.centres);
    const std::vector<double> half = half_separation(c.C, c.alive);
    float top = 0.0f;  // the largest centre term: scales the rounding of a float32 distance
    for (int64_t j = 0; j < k_; ++j) {
        if (c.alive[static_cast<size_t>(j)]) top = std::max(top, c.norms[static_cast<size_t>(j)]);
    }
    const BoundedStep step{drift, half, c.alive, top};
    const int64_t nblocks = block_count(n, kRowBlock);
    std::vector<int64_t> computed(static_cast<size_t>(nblocks), 0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kRowBlock, end = std::min(n, begin + kRowBlock);
        const std::vector<int64_t> open = hamerly_screen(
            begin, end, step, labels, bounds_.upper, bounds_.lower, next, dist,
            [&](int64_t i) { return norms_[static_cast<size_t>(i)]; },
            [&](int64_t i, double up) { return std::max(static_cast<float>(up * up) + offset_at(offset_, i), 0.0f); });
        const auto count = static_cast<int64_t>(open.size());
        computed[static_cast<size_t>(b)] = count;
        if (count == 0) return;
        // The open rows, gathered, against every centre in the engine's register tiles.
        const Matrix rows = gather_rows(F_, open);
        std::vector<float> fnorms(static_cast<size_t>(count)), best(fnorms.size()), second(fnorms.size());
        std::vector<int32_t> label(fnorms.size());
        for (int64_t t = 0; t < count; ++t)
            fnorms[static_cast<size_t>(t)] = norms_[static_cast<size_t>(open[static_cast<size_t>(t)])];
        nearest_centroid(rows.view(), fnorms.data(), c.C, c.norms, c.alive, label.data(), best.data(), isa_,
                         second.data());
        for (int64_t t = 0; t < count; ++t) {
            const auto at = static_cast<size_t>(open[static_cast<size_t>(t)]);
            const auto o = static_cast<size_t>(t);
            next[at] = label[o];
            dist[at] = std::max(best[o] + offset_at(offset_, open[o]), 0.0f);
            bounds_.upper[at] = std::sqrt(best[o]);
            bounds_.lower[at] = std::sqrt(std::max(second[o], 0.0f));
        }
    });
    bounds_.computed = 0;
    for (int64_t v : computed) bounds_.computed += v;
    move_sums(labels, next);
    return closed_objective(c, next);
}

double FeatureLloyd::closed_objective(const Centres& c, const std::vector<int32_t>& next) const {
    // This rank's share of Σ_i w_i ‖f_i − c_j‖² = Σ_i w_i ‖f_i‖² + Σ_j (W_j ‖c_j‖² − 2 c_j · S_j),
    // in float64 with the float32 centres the rows were assigned to (W_j and S_j of this
    // rank's rows: the shares add up to the whole).
    const std::vector<double> mass = cluster_weights(next, weights_, k_);
    const int64_t r = F_.cols;
    double total = weighted_terms_;
    for (int64_t j = 0; j < k_; ++j) {
        if (!(mass[static_cast<size_t>(j)] > 0)) continue;
        const float* cj = c.C.row(j);
        const double* sj = cached_sums_.data() + j * r;
        double norm = 0, dot = 0;
        for (int64_t t = 0; t < r; ++t) {
            norm += static_cast<double>(cj[t]) * cj[t];
            dot += cj[t] * sj[t];
        }
        total += mass[static_cast<size_t>(j)] * norm - 2.0 * dot;
    }
    return total;
}

void FeatureLloyd::move_sums(const std::vector<int32_t>& labels, const std::vector<int32_t>& next) {
    cached_sums_ = sums_for(labels);
    const std::vector<int64_t> movers = moved_points(labels, next);
    // Columns in independent slices, movers in index order within each: the same sums for
    // any thread count.
    const int64_t r = F_.cols, step = 64;
    parallel_blocks(threads_, block_count(r, step), [&](int64_t b) {
        const int64_t lo = b * step, hi = std::min(r, lo + step);
        for (int64_t i : movers) {
            const double w = weight_at(weights_, i);
            const float* f = F_.row(i);
            double* from = cached_sums_.data() + labels[static_cast<size_t>(i)] * r;
            double* to = cached_sums_.data() + next[static_cast<size_t>(i)] * r;
            for (int64_t t = lo; t < hi; ++t) {
                from[t] -= w * f[t];
                to[t] += w * f[t];
            }
        }
    });
    cached_labels_ = next;
}

LloydResult FeatureLloyd::assign_to(const Matrix& C) const {
    const std::vector<float> cnorms = row_squared_norms(C.view());
    const std::vector<char> alive(static_cast<size_t>(k_), 1);
    LloydResult out;
    out.labels.resize(static_cast<size_t>(F_.rows));
    std::vector<float> dist(static_cast<size_t>(F_.rows));
    const int64_t nblocks = block_count(F_.rows, kRowBlock);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, F_.rows - begin);
        nearest_centroid(F_.slice(begin, count), norms_.data() + begin, C, cnorms, alive, out.labels.data() + begin,
                         dist.data() + begin, isa_);
        double s = 0;
        for (int64_t i = begin; i < begin + count; ++i) {
            const double extra = offset_.empty() ? 0.0 : offset_[static_cast<size_t>(i)];
            s += weight_at(weights_, i) * std::max(dist[static_cast<size_t>(i)] + extra, 0.0);
        }
        partial[static_cast<size_t>(b)] = s;
    });
    for (double v : partial) out.objective += v;
    out.objective = sum_over_ranks(comm_, out.objective);
    return out;
}

double FeatureLloyd::objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) {
    const auto [sums, mass] = global_sums_and_mass(centroid_sums(members), members);
    const int64_t r = F_.cols;
    std::vector<double> means(sums.size());
    for (int64_t j = 0; j < k_; ++j) {
        for (int64_t t = 0; t < r; ++t) {
            const double m = mass[static_cast<size_t>(j)];
            means[static_cast<size_t>(j * r + t)] = m > 0 ? sums[static_cast<size_t>(j * r + t)] / m : 0.0;
        }
    }
    const int64_t nblocks = block_count(F_.rows, kRowBlock);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kRowBlock, end = std::min(F_.rows, begin + kRowBlock);
        double s = 0;
        for (int64_t i = begin; i < end; ++i) {
            const double* c = means.data() + labels[static_cast<size_t>(i)] * r;
            const float* f = F_.row(i);
            double d = 0;
            for (int64_t t = 0; t < r; ++t) {
                const double diff = f[t] - c[t];
                d += diff * diff;
            }
            if (!offset_.empty()) d = std::max(d + offset_[static_cast<size_t>(i)], 0.0);  // see full_pass
            s += weight_at(weights_, i) * d;
        }
        partial[static_cast<size_t>(b)] = s;
    });
    double total = 0;
    for (double v : partial) total += v;
    return sum_over_ranks(comm_, total);
}

int64_t FeatureLloyd::hartigan(std::vector<int32_t>& labels, int64_t max_sweeps) {
    const int64_t r = F_.cols;
    std::vector<double> fi(static_cast<size_t>(r)), sums;
    const int64_t transfers = hartigan_sweeps(
        labels, weights_, k_, max_sweeps,
        [&](const std::vector<double>&) { sums = centroid_sums(labels); },  // exact again at every sweep
        [&](int64_t i) {
            for (int64_t t = 0; t < r; ++t) fi[static_cast<size_t>(t)] = F_.row(i)[t];
        },
        [&](int64_t j, const std::vector<double>& mass) {  // ‖f_i − S_j / W_j‖²
            const double* sj = sums.data() + j * r;
            const double inv = 1.0 / mass[static_cast<size_t>(j)];
            double d = 0;
            for (int64_t t = 0; t < r; ++t) {
                const double diff = fi[static_cast<size_t>(t)] - sj[t] * inv;
                d += diff * diff;
            }
            return d;
        },
        [&](int64_t, int32_t a, int32_t b, double w, const std::vector<double>&) {
            double* sa = sums.data() + a * r;
            double* sb = sums.data() + b * r;
            for (int64_t t = 0; t < r; ++t) {
                sa[t] -= w * fi[static_cast<size_t>(t)];
                sb[t] += w * fi[static_cast<size_t>(t)];
            }
        });
    cached_labels_.clear();  // the cached sums and bounds describe the labels before the moves
    cached_sums_.clear();
    bounds_.labels.clear();
    return transfers;
}

void candidate_distances(const RowStore& A, const Matrix& B, const float* row_terms, const float* col_terms,
                         const float* extra, float* out, int threads) {
    const int64_t n = A.rows(), t = B.rows;
    constexpr int64_t step = kSmallRowBlock;
    PerThread<Matrix> dots(threads);
    parallel_blocks(threads, block_count(n, step), [&](int64_t b) {
        const int64_t begin = b * step, count = std::min(step, n - begin);
        Matrix& d = dots.local();
        d.reshape(count, t);
        A.dots(nullptr, begin, count, B.view(), d.data(), t);
        for (int64_t c = 0; c < t; ++c) {
            float* o = out + c * n + begin;
            for (int64_t i = 0; i < count; ++i) {
                const float v = row_terms[begin + i] + col_terms[c] - 2.0f * d.row(i)[c];
                // With a signed extra (a residual below 0 by rounding), the whole distance is
                // clamped, as the kernel distance it stands for.
                o[i] = extra != nullptr ? std::max(std::max(v, 0.0f) + extra[begin + i], 0.0f) : (v > 0.0f ? v : 0.0f);
            }
        }
    });
}

SquaredDistanceToPoint FeatureLloyd::distance_oracle() const {
    return [this](const std::vector<int64_t>& centres, float* out) {
        // The chosen rows (global indices) with their norms, from the ranks holding them.
        const int64_t r = F_.cols;
        Matrix both(static_cast<int64_t>(centres.size()), r + 1);
        share_rows(
            comm_, part_, centres, r + 1,
            [this, r](int64_t i, float* row) {
                std::copy(F_.row(i), F_.row(i) + r, row);
                row[r] = norms_[static_cast<size_t>(i)];
            },
            both.data());
        Matrix chosen(both.rows, r);
        std::vector<float> cn;
        for (int64_t t = 0; t < both.rows; ++t) {
            std::copy(both.row(t), both.row(t) + r, chosen.row(t));
            cn.push_back(both.row(t)[r]);
        }
        candidate_distances(RowStore::view(F_, isa_), chosen, norms_.data(), cn.data(),
                            offset_.empty() ? nullptr : offset_.data(), out, threads_);
    };
}

}  // namespace kkm
