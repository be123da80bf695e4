#include "cluster/exact.h"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <utility>

#include "cluster/reported_distance.h"
#include "core/blocking.h"
#include "core/hot.h"
#include "core/parallel.h"
#include "core/weights.h"

namespace kkm {
namespace {

// Sᵀ is updated in blocks of this many points (columns): k × 1024 doubles stay in L2.
constexpr int64_t kColumnBlock = 1024;
// Rebuild S from all kernel rows (n row updates, read in order) rather than update it per
// moved point (two row updates each, rows read out of order) when more than this fraction of
// the points moved. Measured on AMD EPYC Zen 5 (2 cores), Letter-sized rbf data, k=26, as the
// moved fraction where both cost the same: stored K (n=20000) 0.6-0.7, recomputed rows
// (n=8000) 0.85-0.9; below n≈1000 both take well under a millisecond.
constexpr double kRebuildStored = 0.6;
constexpr double kRebuildRecomputed = 0.8;

/// dst[0, count) += w · src[0, count) in float64 (w · src is exact: no drift from rounding
/// the products, and no dependence on whether the clone fuses the multiply-add).
KKM_HOT void add_scaled(double* dst, const float* src, double w, int64_t count) {
#pragma omp simd
    for (int64_t t = 0; t < count; ++t) dst[t] += w * static_cast<double>(src[t]);
}

/// Nearest centre of `count` points from their sums: sums[j·lds + i] = S[i, j], mass W_j,
/// cc C_j, self K_ii; distance K_ii − 2 S[i, j] / W_j + C_j over clusters with weight,
/// clamped at 0 (first cluster wins ties; no cluster with weight: label 0, distance inf).
void nearest_by_sums(const double* sums, int64_t lds, int64_t k, int64_t count, const std::vector<double>& mass,
                     const std::vector<double>& cc, const float* self, int32_t* labels, float* dist) {
    std::vector<double> best(static_cast<size_t>(count), std::numeric_limits<double>::infinity());
    std::fill(labels, labels + count, 0);
    for (int64_t j = 0; j < k; ++j) {
        const double m = mass[static_cast<size_t>(j)];
        if (!(m > 0)) continue;
        const double scale = -2.0 / m, c = cc[static_cast<size_t>(j)];
        const double* s = sums + j * lds;
        for (int64_t i = 0; i < count; ++i) {
            const double d = scale * s[i] + c;
            if (d < best[static_cast<size_t>(i)]) {
                best[static_cast<size_t>(i)] = d;
                labels[i] = static_cast<int32_t>(j);
            }
        }
    }
    for (int64_t i = 0; i < count; ++i) {
        const double full = best[static_cast<size_t>(i)] + self[i];
        dist[i] = static_cast<float>(full < 0 ? 0.0 : full);
    }
}

}  // namespace

KernelRows::KernelRows(const KernelBasis& basis, ConstMatrix train, int64_t block_rows, int)
    : basis_(&basis), train_(train), n_(train.rows), cols_(basis.size()), block_rows_(block_rows) {}

KernelRows::KernelRows(ConstMatrix matrix, int64_t block_rows, bool caller_owned)
    : stored_(matrix.data), n_(matrix.rows), cols_(matrix.cols), block_rows_(block_rows), caller_owned_(caller_owned) {}

const float* KernelRows::rows(int64_t begin, int64_t count, Matrix& scratch) const {
    if (stored_ != nullptr) {
        const ConstMatrix block{stored_ + begin * cols_, count, cols_};
        if (!caller_owned_ || begin + count < n_) return block.data;  // GEMM may read past it
        copy_into(block, scratch);                                    // the caller's last rows
        return scratch.data();
    }
    scratch.reshape(count, cols_);
    basis_->evaluate(train_.slice(begin, count), scratch.data(), cols_);
    return scratch.data();
}

void KernelRows::evaluate(const int64_t* idx, int64_t count, Matrix& out) const {
    const Matrix points = gather_rows(train_, std::vector<int64_t>(idx, idx + count));
    out.reshape(count, cols_);
    basis_->evaluate(points.view(), out.data(), cols_);
}

DualTerms dual_terms(const DualCentres& c) {
    const int64_t n = c.Z.rows, k = c.Z.cols;
    DualTerms t;
    t.start.assign(static_cast<size_t>(k + 1), 0);
    for (int64_t a = 0; a < n; ++a) {
        const float* z = c.Z.row(a);
        for (int64_t j = 0; j < k; ++j) t.start[static_cast<size_t>(j + 1)] += z[j] != 0.0f ? 1 : 0;  // NaN counts
    }
    for (int64_t j = 0; j < k; ++j) t.start[static_cast<size_t>(j + 1)] += t.start[static_cast<size_t>(j)];
    const auto entries = static_cast<size_t>(t.start.back());
    t.point.resize(entries);
    t.z.resize(entries);
    std::vector<int64_t> next(t.start.begin(), t.start.end() - 1);
    for (int64_t a = 0; a < n; ++a) {
        const float* z = c.Z.row(a);
        for (int64_t j = 0; j < k; ++j) {
            if (z[j] == 0.0f) continue;
            const auto e = static_cast<size_t>(next[static_cast<size_t>(j)]++);
            t.point[e] = a;
            t.z[e] = z[j];
        }
    }
    return t;
}

namespace {

/// g[r·k + j] = Σ_e z_e k_r(point_e) over centre j's terms, for R kernel rows at once (each
/// term's point and coefficient read once for the R rows), in float64.
template <int64_t R>
void sum_terms(const float* krows, int64_t n, const DualTerms& t, int64_t k, double* g) {
    for (int64_t j = 0; j < k; ++j) {
        double s[R] = {};
        const auto end = static_cast<size_t>(t.start[static_cast<size_t>(j + 1)]);
        for (auto e = static_cast<size_t>(t.start[static_cast<size_t>(j)]); e < end; ++e) {
            const double z = t.z[e];
            const float* at = krows + t.point[e];
            for (int64_t r = 0; r < R; ++r) s[r] += z * static_cast<double>(at[r * n]);
        }
        for (int64_t r = 0; r < R; ++r) g[r * k + j] = s[r];
    }
}

}  // namespace

void dual_nearest(const float* krows, int64_t count, const float* self, const DualCentres& c, const DualTerms& terms,
                  int32_t* labels, float* dist, float* each) {
    const int64_t n = c.Z.rows, k = c.Z.cols;
    constexpr int64_t kRows = 4;
    std::vector<double> sums(static_cast<size_t>(count * k));
    int64_t i0 = 0;
    for (; i0 + kRows <= count; i0 += kRows) sum_terms<kRows>(krows + i0 * n, n, terms, k, sums.data() + i0 * k);
    for (; i0 < count; ++i0) sum_terms<1>(krows + i0 * n, n, terms, k, sums.data() + i0 * k);
    for (int64_t i = 0; i < count; ++i) {
        // A centre's term −2 Σ_a z_aj k(x,a)/W_j + C_j as reported: plus k(x,x) when given,
        // clamped at 0 then (rounding can take a distance of about 0 below it).
        // Without k(x,x) (a precomputed kernel) the term itself, which may be below 0; with
        // it, clamped at 0 (rounding, or a kernel that is not positive semi-definite). Not
        // finite: NaN, an error at the C API.
        const auto reported = [&](double term, double) {
            const double full = term + (self != nullptr ? self[i] : 0.0);
            if (!std::isfinite(full)) return std::numeric_limits<float>::quiet_NaN();
            return static_cast<float>(self != nullptr && full < 0 ? 0.0 : full);
        };
        NearestCentre<double> nearest;
        for (int64_t j = 0; j < k; ++j) {
            const double m = c.mass[static_cast<size_t>(j)];
            if (!(m > 0)) {
                if (each != nullptr) each[i * k + j] = std::numeric_limits<float>::infinity();
                continue;
            }
            const double cross = sums[static_cast<size_t>(i * k + j)] / m, norm = c.self_dot[static_cast<size_t>(j)];
            const double d = -2.0 * cross + norm;
            const double size = 2.0 * std::abs(cross) + std::abs(norm);
            nearest.offer(j, d, size, reported(d, size), each != nullptr ? each + i * k + j : nullptr);
        }
        labels[i] = nearest.arg;
        dist[i] = nearest.distance(reported);
    }
}

ExactLloyd::ExactLloyd(const KernelRows& rows, std::vector<float> diag, const std::vector<float>& weights, int64_t k,
                       int threads, Update update)
    : rows_(rows),
      comm_(solo_comm()),
      part_(solo_partition(rows.size())),
      diag_(std::move(diag)),
      weights_(weights),
      k_(k),
      threads_(threads),
      update_(update),
      scratch_(static_cast<size_t>(threads)) {}

ExactLloyd::ExactLloyd(const KernelRows& rows, std::vector<float> diag, std::vector<float> diag_all,
                       const std::vector<float>& weights, int64_t k, int threads, const Comm& comm,
                       const RowPartition& part)
    : rows_(rows),
      comm_(comm),
      part_(part),
      diag_(std::move(diag)),
      diag_all_(std::move(diag_all)),
      weights_(weights),
      k_(k),
      threads_(threads),
      update_(Update::incremental),
      scratch_(static_cast<size_t>(threads)) {}

std::vector<double> ExactLloyd::global_mass(const std::vector<int32_t>& labels) const {
    std::vector<double> mass = cluster_weights(labels, weights_, k_);
    sum_over_ranks(comm_, mass.data(), mass.size());
    return mass;
}

std::vector<ExactLloyd::Move> ExactLloyd::everyone(const std::vector<Move>& mine) const {
    if (comm_.size() == 1) return mine;
    std::vector<char> all;
    std::vector<size_t> counts;
    comm_.allgatherv(mine.data(), mine.size() * sizeof(Move), all, counts);
    std::vector<Move> moves(all.size() / sizeof(Move));
    if (!moves.empty()) std::memcpy(moves.data(), all.data(), moves.size() * sizeof(Move));
    return moves;
}

Matrix& ExactLloyd::scratch() {
    return scratch_[thread_slot(scratch_.size())];
}

std::vector<ExactLloyd::Move> ExactLloyd::moves_to(const std::vector<int32_t>& labels) const {
    std::vector<Move> moves;
    for (int64_t a = 0; a < rows_.size(); ++a) {
        const int32_t from = sums_labels_[static_cast<size_t>(a)], to = labels[static_cast<size_t>(a)];
        const double w = weight_at(weights_, a);
        if (from != to && w != 0) moves.push_back({part_.offset + a, from, to, w});
    }
    return everyone(moves);
}

std::vector<ExactLloyd::Move> ExactLloyd::all_points(const std::vector<int32_t>& labels) const {
    std::vector<Move> moves;
    for (int64_t a = 0; a < rows_.size(); ++a) {
        const double w = weight_at(weights_, a);
        if (w != 0) moves.push_back({part_.offset + a, -1, labels[static_cast<size_t>(a)], w});
    }
    return everyone(moves);
}

void ExactLloyd::sync(const std::vector<int32_t>& labels) {
    const bool built = update_ == Update::incremental && built_;
    std::vector<Move> moves = built ? moves_to(labels) : std::vector<Move>{};
    if (built && moves.empty()) {
        sums_labels_ = labels;  // only points without weight moved, if any
        return;
    }
    built_ = false;  // S is inconsistent until apply returns (it may throw: cancelled)
    const auto n = static_cast<double>(rows_.total());
    const double rebuild_over = rows_.stored() ? kRebuildStored : kRebuildRecomputed;
    if (!built || static_cast<double>(moves.size()) > rebuild_over * n) {
        moves = all_points(labels);
        sums_.assign(static_cast<size_t>(k_ * rows_.size()), 0.0);
    }
    apply(moves);
    sums_labels_ = labels;
    built_ = true;
}

std::vector<const float*> ExactLloyd::move_rows(const std::vector<Move>& moves, size_t first, size_t count) {
    std::vector<const float*> out(count);
    if (rows_.stored()) {
        for (size_t t = 0; t < count; ++t) out[t] = rows_.row(moves[first + t].point);
        return out;
    }
    const int64_t step = rows_.block_rows();
    parallel_blocks(threads_, block_count(static_cast<int64_t>(count), step), [&](int64_t b) {
        const size_t begin = static_cast<size_t>(b * step);
        const size_t rows = std::min(static_cast<size_t>(step), count - begin);
        std::vector<int64_t> idx(rows);
        for (size_t t = 0; t < rows; ++t) idx[t] = moves[first + begin + t].point;
        Matrix& block = scratch_[static_cast<size_t>(b)];  // one per block of this group
        rows_.evaluate(idx.data(), static_cast<int64_t>(rows), block);
        for (size_t t = 0; t < rows; ++t) out[begin + t] = block.row(static_cast<int64_t>(t));
    });
    return out;
}

void ExactLloyd::apply(const std::vector<Move>& moves) {
    const int64_t n = rows_.size();
    const size_t group = rows_.stored() ? moves.size() : static_cast<size_t>(rows_.block_rows()) * scratch_.size();
    for (size_t first = 0; first < moves.size(); first += group) {
        const size_t count = std::min(group, moves.size() - first);
        const std::vector<const float*> K = move_rows(moves, first, count);
        // Every thread owns whole columns blocks of Sᵀ and applies the moves in their order.
        parallel_blocks(threads_, block_count(n, kColumnBlock), [&](int64_t b) {
            const int64_t begin = b * kColumnBlock, width = std::min(kColumnBlock, n - begin);
            for (size_t t = 0; t < count; ++t) {
                const Move& m = moves[first + t];
                const float* row = K[t] + begin;
                if (m.from >= 0) add_scaled(sums_.data() + m.from * n + begin, row, -m.weight, width);
                add_scaled(sums_.data() + m.to * n + begin, row, m.weight, width);
            }
        });
    }
    rows_applied_ += static_cast<int64_t>(moves.size());
}

std::vector<double> ExactLloyd::self_dots(const std::vector<double>& mass) const {
    const int64_t n = rows_.size();
    std::vector<double> c(static_cast<size_t>(k_), 0.0);
    for (int64_t a = 0; a < n; ++a) {
        const int32_t j = sums_labels_[static_cast<size_t>(a)];
        c[static_cast<size_t>(j)] += weight_at(weights_, a) * sums_[static_cast<size_t>(j * n + a)];
    }
    sum_over_ranks(comm_, c.data(), c.size());
    for (int64_t j = 0; j < k_; ++j) {
        const double m = mass[static_cast<size_t>(j)];
        c[static_cast<size_t>(j)] = m > 0 ? c[static_cast<size_t>(j)] / (m * m) : 0.0;
    }
    return c;
}

DualCentres ExactLloyd::centres(const std::vector<int32_t>& labels) {
    sync(labels);
    // Z over every point: each rank's labels and weights, in rank order.
    std::vector<Move> mine;
    for (size_t a = 0; a < labels.size(); ++a) {
        mine.push_back(
            {part_.offset + static_cast<int64_t>(a), 0, labels[a], weight_at(weights_, static_cast<int64_t>(a))});
    }
    const std::vector<Move> all = everyone(mine);
    DualCentres c;
    c.Z = Matrix(rows_.total(), k_);
    for (const Move& m : all) c.Z.row(m.point)[m.to] = static_cast<float>(m.weight);
    c.mass = global_mass(labels);
    c.self_dot = self_dots(c.mass);
    return c;
}

double ExactLloyd::reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) {
    sync(labels);
    const std::vector<double> mass = global_mass(labels);
    const std::vector<double> cc = self_dots(mass);
    const int64_t n = rows_.size();
    const int64_t nblocks = block_count(n, kColumnBlock);
    std::vector<double> partial(static_cast<size_t>(nblocks), 0.0);
    parallel_blocks(threads_, nblocks, [&](int64_t b) {
        const int64_t begin = b * kColumnBlock, count = std::min(kColumnBlock, n - begin);
        nearest_by_sums(sums_.data() + begin, n, k_, count, mass, cc, diag_.data() + begin, next.data() + begin,
                        dist.data() + begin);
        double s = 0;
        for (int64_t i = begin; i < begin + count; ++i) s += weight_at(weights_, i) * dist[static_cast<size_t>(i)];
        partial[static_cast<size_t>(b)] = s;
    });
    double total = 0;
    for (double v : partial) total += v;
    return sum_over_ranks(comm_, total);
}

double ExactLloyd::objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) {
    // Σ_a w_a (K_aa − 2 S[a, j] / W_j + C_j) with j = l_a (S, W, C: the sums, weights and
    // self terms of the clusters of `members`), each point's distance clamped at 0 before it
    // is added: a sum of non-negative terms, never negative however the kernel rows were
    // rounded.
    sync(members);
    const int64_t n = rows_.size();
    const std::vector<double> mass = global_mass(members);
    const std::vector<double> cc = self_dots(mass);
    double total = 0;
    for (int64_t a = 0; a < n; ++a) {
        const double wa = weight_at(weights_, a);
        if (!(wa > 0)) continue;
        const auto j = static_cast<size_t>(labels[static_cast<size_t>(a)]);
        const double d = diag_[static_cast<size_t>(a)] -
                         2.0 * sums_[j * static_cast<size_t>(n) + static_cast<size_t>(a)] / mass[j] + cc[j];
        total += wa * std::max(d, 0.0);
    }
    return sum_over_ranks(comm_, total);
}

int64_t ExactLloyd::hartigan(std::vector<int32_t>& labels, int64_t max_sweeps) {
    sync(labels);
    const int64_t n = rows_.size();
    std::vector<double> cc;
    int64_t i = 0;
    const auto S = [&](int64_t j) { return sums_[static_cast<size_t>(j * n + i)]; };
    return hartigan_sweeps(
        labels, weights_, k_, max_sweeps,
        [&](const std::vector<double>& mass) { cc = self_dots(mass); },  // exact again at every sweep: no drift
        [&](int64_t point) { i = point; },
        [&](int64_t j, const std::vector<double>& mass) {
            return diag_[static_cast<size_t>(i)] - 2.0 * S(j) / mass[static_cast<size_t>(j)] +
                   cc[static_cast<size_t>(j)];
        },
        [&](int64_t, int32_t a, int32_t b, double w, const std::vector<double>& mass) {
            const double kii = diag_[static_cast<size_t>(i)];
            const double wa = mass[static_cast<size_t>(a)], wb = mass[static_cast<size_t>(b)];
            cc[static_cast<size_t>(a)] =
                (wa * wa * cc[static_cast<size_t>(a)] - 2.0 * w * S(a) + w * w * kii) / ((wa - w) * (wa - w));
            cc[static_cast<size_t>(b)] =
                (wb * wb * cc[static_cast<size_t>(b)] + 2.0 * w * S(b) + w * w * kii) / ((wb + w) * (wb + w));
            apply({Move{part_.offset + i, a, b, w}});
            sums_labels_[static_cast<size_t>(i)] = b;
        });
}

SquaredDistanceToPoint ExactLloyd::distance_oracle() {
    return [this](const std::vector<int64_t>& centres, float* out) {
        const int64_t n = rows_.size();
        for (size_t t = 0; t < centres.size(); ++t) {
            const int64_t c = centres[t];
            const float* K = rows_.rows(c, 1, scratch());
            const float kcc = (diag_all_.empty() ? diag_ : diag_all_)[static_cast<size_t>(c)];
            float* o = out + static_cast<int64_t>(t) * n;
            for (int64_t i = 0; i < n; ++i) {
                const float d = diag_[static_cast<size_t>(i)] + kcc - 2.0f * K[i];
                o[i] = d > 0.0f ? d : 0.0f;
            }
        }
    };
}

double ExactLloyd::footprint(const Params& p, double n, double c, int threads, bool weighted) {
    const double k = static_cast<double>(p.k);
    const RowBlocks b = row_blocks(n, threads);
    return 4 * n + (weighted ? 4 * c : 0.0) + 8 * k * c + 4 * c + 48 * n + lloyd_driver_footprint(p, c) +
           Matrix::footprint(n, k) + b.workers * 8 * static_cast<double>(kColumnBlock);
}

}  // namespace kkm
