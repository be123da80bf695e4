// Mini-batch kernel k-means (2024). Each iteration draws a batch, assigns its points to the
// nearest centre by ‖φ(y) − C_j‖² = K(y,y) − 2⟨φ(y), C_j⟩ + ⟨C_j, C_j⟩, moves every centre
// that got points towards their mean, C_j ← (1 − α_j) C_j + α_j cm(B_j), and stops when the
// batch objective improved by less than epsilon. ⟨φ(y), C_j⟩ comes from
//  - tau > 0 (Algorithm 2): one kernel block of the union of the centres' support points and
//    the batch against the batch, its rows summed per batch term (the centre is a weighted
//    sum of its terms' point means), each centre's term weights times those sums;
//  - tau = 0 (Algorithm 1): ⟨φ(x_i), C_j⟩ kept for all n points by the recursive update.
// ⟨C_j, C_j⟩ follows the recursion of Section 4, except after truncation dropped terms, when
// it comes from the kernel sums of the centre's pairs of terms (TermSums). options.normalise
// divides truncated centres by their coefficient sum (not in the paper; see
// minibatch_kernel.h).
// Where the paper is silent: batch i of restart r comes from restart_rng(seed,
// Stream::batches, r, i) alone; ties go to the lowest centre index; f_B clamps each distance
// at 0 against rounding; an untruncated centre folds its batch terms into one sparse vector
// once they hold more than n points.
#include "cluster/minibatch_kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>

#include "cluster/minibatch_centres.h"
#include "cluster/seeding.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/rng.h"
#include "engine/dots.h"

namespace kkm {
namespace {

constexpr int64_t kBatchBlock = 64;  // batch rows per parallel block
constexpr int64_t kProductColumns = 128;  // batch points per parallel block of the products
constexpr int64_t kChunk = kMinibatchRowChunk;

/// Points the initial centres are seeded on: min(n, max(b, kMinibatchSeedSample)).
int64_t seed_sample_size(int64_t n, int64_t batch_size) {
    return std::min(n, std::max(batch_size, kMinibatchSeedSample));
}

/// K(y_a, y_b) between batch positions: block->row(row[a])[column[b]], from a block whose
/// row row[a] holds y_a and whose column column[b] holds y_b.
struct BatchGram {
    const Matrix* block = nullptr;
    std::vector<int64_t> row, column;
};

/// One iteration's batch and what is known about it.
struct Step {
    std::vector<int64_t> points;  ///< y_1..y_b
    std::vector<int32_t> labels;  ///< nearest centre before the update
    std::vector<std::vector<int64_t>> members;  ///< each centre's batch positions, by labels
    std::vector<double> dot;      ///< b×k ⟨φ(y_t), C_j⟩: before, then after the update
    std::vector<int64_t> count;   ///< b_j
    std::vector<double> alpha;    ///< α_j (0 when b_j = 0)
    BatchGram gram;
};

/// The centres, their squared norms and the sklearn rate's counts.
struct Centres {
    std::vector<CentreHistory> history;
    std::vector<double> self_dot;  ///< ⟨C_j, C_j⟩
    std::vector<double> seen;      ///< 1 (the seed) + points assigned to j so far
};

/// Positions of `points` in the sorted, distinct `cols` (every point must be there).
std::vector<int64_t> positions_in(const std::vector<int64_t>& cols, const std::vector<int64_t>& points) {
    std::vector<int64_t> at(points.size());
    for (size_t s = 0; s < points.size(); ++s) {
        at[s] = std::lower_bound(cols.begin(), cols.end(), points[s]) - cols.begin();
    }
    return at;
}

/// Where ⟨φ(y), C_j⟩ of the batch points comes from.
class BatchProducts {
public:
    virtual ~BatchProducts() = default;
    /// Before the update: s.dot and s.gram for the batch s.points.
    virtual void before(Step& s) = 0;
    /// After the update: ⟨C, C⟩ of the centres in `dropped` and s.dot for the new centres.
    virtual void after(Step& s, Centres& c, const std::vector<int64_t>& dropped) = 0;
};

/// Algorithm 2: one kernel block K(every centre's support ∪ batch, batch) per iteration, and
/// from it, for every batch term of every centre (and each point of a kept C_1), its sum
/// over the batch: P_u(y) = Σ_{p∈B_u} K(p, y). A centre's products are its weights times
/// those sums; after the update its new term's sums come from the same block (its points
/// are batch points), and so do the term pairs of TermSums: Σ_{r∈B_new} P_u(y_r).
class TruncatedProducts final : public BatchProducts {
public:
    TruncatedProducts(const PointKernel& K, const Centres& c, bool normalise, engine::Isa isa, int threads)
        : K_(K),
          centres_(c),
          normalise_(normalise),
          isa_(isa),
          threads_(threads),
          sums_(c.history.size()),
          parts_(c.history.size()) {}

    void before(Step& s) override {
        cols_ = s.points;
        for (const CentreHistory& h : centres_.history) {
            for (const BatchTerm& t : h.terms()) cols_.insert(cols_.end(), t.points.begin(), t.points.end());
            cols_.insert(cols_.end(), h.base().points.begin(), h.base().points.end());
        }
        std::sort(cols_.begin(), cols_.end());
        cols_.erase(std::unique(cols_.begin(), cols_.end()), cols_.end());
        // The batch's distinct points as columns: a batch drawn from few points repeats them.
        std::vector<int64_t> distinct = s.points;
        std::sort(distinct.begin(), distinct.end());
        distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
        K_.block(cols_, distinct, block_, threads_);
        s.gram = {&block_, positions_in(cols_, s.points), positions_in(distinct, s.points)};
        const auto b = static_cast<int64_t>(distinct.size());
        RowSums sums;
        for (size_t j = 0; j < parts_.size(); ++j) {
            const CentreHistory& h = centres_.history[j];
            Parts& parts = parts_[j];
            parts.iteration.clear();
            parts.term.assign(h.terms().size(), {});
            parts.base.assign(h.base().points.size(), {});
            for (size_t t = 0; t < h.terms().size(); ++t) {
                parts.iteration.push_back(h.terms()[t].iteration);
                sums.add(positions_in(cols_, h.terms()[t].points), parts.term[t], b);
            }
            for (size_t q = 0; q < h.base().points.size(); ++q)
                sums.add(positions_in(cols_, {h.base().points[q]}), parts.base[q], b);
        }
        run(sums, b);
        products(s);
    }

    void after(Step& s, Centres& c, const std::vector<int64_t>& dropped) override {
        const int64_t b = block_.cols;
        std::vector<TermSum> fresh(parts_.size());  // each new term's sums
        RowSums sums;
        for (size_t j = 0; j < parts_.size(); ++j) {
            if (s.count[j] == 0) continue;
            std::vector<int64_t> rows;
            for (int64_t r : s.members[j]) rows.push_back(s.gram.row[static_cast<size_t>(r)]);
            std::sort(rows.begin(), rows.end());
            sums.add(rows, fresh[j], b);
        }
        run(sums, b);
        parallel_blocks(threads_, static_cast<int64_t>(parts_.size()), [&](int64_t jj) {
            const auto j = static_cast<size_t>(jj);
            if (s.count[j] == 0) return;
            follow(j, c.history[j], s.members[j], s.gram.column, std::move(fresh[j]));
        });
        for (int64_t j : dropped) c.self_dot[static_cast<size_t>(j)] = self_dot(static_cast<size_t>(j), c.history);
        products(s);
    }

private:
    /// A term's (or a seed point's) sums over the batch's distinct points: its own values,
    /// or, for a single point counted `mult` times, that point's row of block_ read where it
    /// is (the same values: so the sums never take more memory than half the block's rows in
    /// float64, however many terms of one point the centres hold).
    struct TermSum {
        std::vector<double> values;
        int64_t row = -1;
        double mult = 0;
    };

    double sum_at(const TermSum& u, int64_t col) const {
        return u.row >= 0 ? u.mult * static_cast<double>(block_.row(u.row)[col]) : u.values[static_cast<size_t>(col)];
    }

    /// One centre's sums: its terms' (newest first, with their iterations) and each point's
    /// of a kept C_1.
    struct Parts {
        std::vector<int64_t> iteration;
        std::vector<TermSum> term, base;
    };

    /// Rows of block_ to add up: to[e] += mult[e] · row at[e], ordered by row.
    struct RowSums {
        struct Entry {
            int64_t at;
            double mult;
            double* to;
        };
        std::vector<Entry> entries;
        /// u = the sum of the rows `at` (ascending, repeats counted) over b columns.
        void add(const std::vector<int64_t>& at, TermSum& u, int64_t b) {
            if (at.front() == at.back()) {
                u = {{}, at.front(), static_cast<double>(at.size())};
                return;
            }
            u.values.assign(static_cast<size_t>(b), 0.0);
            for (size_t q = 0; q < at.size(); ++q) {
                if (q > 0 && at[q] == at[q - 1]) {
                    entries.back().mult += 1;
                } else {
                    entries.push_back({at[q], 1.0, u.values.data()});
                }
            }
        }
    };

    /// Every sum of `sums` over the b columns of block_, in parallel blocks of columns: each
    /// value adds its rows in ascending order (engine::axpy_widen: the same bits on every path).
    void run(RowSums& sums, int64_t b) const {
        std::stable_sort(sums.entries.begin(), sums.entries.end(),
                         [](const RowSums::Entry& x, const RowSums::Entry& y) { return x.at < y.at; });
        parallel_blocks(threads_, block_count(b, kProductColumns), [&](int64_t blk) {
            const int64_t t0 = blk * kProductColumns, count = std::min(kProductColumns, b - t0);
            for (const RowSums::Entry& e : sums.entries)
                engine::axpy_widen(isa_, e.mult, block_.row(e.at) + t0, e.to + t0, count);
        });
    }

    /// Centre j after its update: its term pairs (TermSums), and its sums for the terms it
    /// keeps (the newest: `fresh`, over the batch positions `members`, whose columns of
    /// block_ are `column`).
    void follow(size_t j, const CentreHistory& h, const std::vector<int64_t>& members,
                const std::vector<int64_t>& column, TermSum fresh) {
        Parts& parts = parts_[j];
        const auto sum_over_members = [&](const TermSum& u) {
            double sum = 0;
            for (int64_t r : members) sum += sum_at(u, column[static_cast<size_t>(r)]);
            return sum;
        };
        const auto old = [&](int64_t iteration) -> TermSum& {
            const auto at = std::find(parts.iteration.begin(), parts.iteration.end(), iteration);
            return parts.term[static_cast<size_t>(at - parts.iteration.begin())];
        };
        const int64_t newest = h.terms().front().iteration;
        sums_[j].follow(h, [&](const BatchTerm& term) {
            return sum_over_members(term.iteration == newest ? fresh : old(term.iteration));
        });
        Parts kept;
        for (const BatchTerm& term : h.terms()) {
            kept.iteration.push_back(term.iteration);
            kept.term.push_back(term.iteration == newest ? std::move(fresh) : std::move(old(term.iteration)));
        }
        if (!h.base().points.empty()) kept.base = std::move(parts.base);
        parts = std::move(kept);
    }

    /// s.dot[t][j] = ⟨φ(y_t), C_j⟩ = scale (Σ_u term_u P_u(y_t) + rest Σ_q coef_q P_q(y_t)).
    void products(Step& s) const {
        const auto b = static_cast<int64_t>(s.points.size()), k = static_cast<int64_t>(parts_.size());
        const std::vector<int64_t>& column = s.gram.column;
        s.dot.assign(static_cast<size_t>(b * k), 0.0);
        parallel_blocks(threads_, k, [&](int64_t j) {
            const CentreHistory& h = centres_.history[static_cast<size_t>(j)];
            const Parts& parts = parts_[static_cast<size_t>(j)];
            const CentreHistory::Weights w = h.weights(normalise_);
            std::vector<double> dot(static_cast<size_t>(b), 0.0);  // each batch point's sum, term by term
            const auto add = [&](double weight, const TermSum& u) {
                for (int64_t t = 0; t < b; ++t)
                    dot[static_cast<size_t>(t)] += weight * sum_at(u, column[static_cast<size_t>(t)]);
            };
            for (size_t u = 0; u < w.term.size(); ++u) add(w.term[u], parts.term[u]);
            for (size_t q = 0; q < parts.base.size(); ++q) add(w.rest * h.base().coef[q], parts.base[q]);
            for (int64_t t = 0; t < b; ++t)
                s.dot[static_cast<size_t>(t * k + j)] = w.scale * dot[static_cast<size_t>(t)];
        });
    }

    /// ⟨C_j, C_j⟩ after a truncation: from the term sums, or, where a pair of terms was never
    /// in a block (a resumed run's older terms), from K(support, support), which then gives
    /// the term sums every pair.
    double self_dot(size_t j, const std::vector<CentreHistory>& history) {
        const double v = sums_[j].squared_norm(history[j], normalise_);
        if (!std::isnan(v)) return v;
        const SparseCentre c = history[j].coefficients(normalise_);
        const double norm = squared_norm(c);
        sums_[j].rebuild(history[j], [&](int64_t p, int64_t q) {
            const auto at = [&](int64_t x) {
                return std::lower_bound(c.points.begin(), c.points.end(), x) - c.points.begin();
            };
            return static_cast<double>(gram_.row(at(p))[at(q)]);
        });
        return norm;
    }

    /// ⟨C, C⟩ = Σ_ab c_a c_b K(p_a, p_b) from the block K(support, support) (left in gram_).
    double squared_norm(const SparseCentre& c) {
        const auto m = static_cast<int64_t>(c.points.size());
        K_.block(c.points, c.points, gram_, threads_);
        std::vector<double> rows(static_cast<size_t>(m));
        parallel_blocks(threads_, block_count(m, kBatchBlock), [&](int64_t blk) {
            for (int64_t a = blk * kBatchBlock; a < std::min(m, (blk + 1) * kBatchBlock); ++a) {
                double sum = 0;
                for (int64_t q = 0; q < m; ++q) sum += c.coef[static_cast<size_t>(q)] * gram_.row(a)[q];
                rows[static_cast<size_t>(a)] = c.coef[static_cast<size_t>(a)] * sum;
            }
        });
        return std::accumulate(rows.begin(), rows.end(), 0.0);
    }

    const PointKernel& K_;
    const Centres& centres_;
    bool normalise_;
    engine::Isa isa_;
    int threads_;
    std::vector<int64_t> cols_;  ///< sorted union of the support points and the batch
    Matrix block_;               ///< K(cols_, batch)
    Matrix gram_;
    std::vector<TermSums> sums_;  ///< each centre's term sums
    std::vector<Parts> parts_;    ///< each centre's sums over the batch
};

/// Algorithm 1 (tau = 0): IP[i][j] = ⟨φ(x_i), C_j⟩ for all n points, kept up to date by
/// IP' = (1 − α_j) IP + α_j ⟨φ(x_i), cm(B_j)⟩ from the n×b block K(X, B), computed in chunks
/// of rows: O(n(b + k)) per iteration.
class RecursiveProducts final : public BatchProducts {
public:
    RecursiveProducts(const PointKernel& K, const std::vector<int64_t>& seeds, int threads)
        : K_(K),
          n_(K.size()),
          k_(static_cast<int64_t>(seeds.size())),
          threads_(threads),
          ip_(static_cast<size_t>(n_ * k_)) {
        for_chunks(seeds, [&](int64_t begin, int64_t count) {
            for (int64_t i = 0; i < count; ++i) {
                for (int64_t j = 0; j < k_; ++j) ip_[static_cast<size_t>((begin + i) * k_ + j)] = chunk_.row(i)[j];
            }
        });
    }

    void before(Step& s) override {
        K_.block(s.points, s.points, gram_, threads_);
        s.gram.block = &gram_;
        s.gram.row.resize(s.points.size());
        std::iota(s.gram.row.begin(), s.gram.row.end(), 0);
        s.gram.column = s.gram.row;
        copy_rows(s);
    }

    void after(Step& s, Centres&, const std::vector<int64_t>&) override {
        for_chunks(s.points, [&](int64_t begin, int64_t count) {
            parallel_blocks(threads_, block_count(count, kBatchBlock), [&](int64_t blk) {
                update_rows(s, begin, blk * kBatchBlock, std::min(kBatchBlock, count - blk * kBatchBlock));
            });
        });
        copy_rows(s);
    }

private:
    /// fn(begin, count) after chunk_ = K(x_begin..x_{begin+count−1}, cols), for all rows.
    template <class Fn>
    void for_chunks(const std::vector<int64_t>& cols, Fn&& fn) {
        std::vector<int64_t> rows;
        for (int64_t begin = 0; begin < n_; begin += kChunk) {
            rows.resize(static_cast<size_t>(std::min(kChunk, n_ - begin)));
            std::iota(rows.begin(), rows.end(), begin);
            K_.block(rows, cols, chunk_, threads_);
            fn(begin, static_cast<int64_t>(rows.size()));
        }
    }

    /// The recursive update of rows first..first+count−1 of the chunk starting at `begin`.
    void update_rows(const Step& s, int64_t begin, int64_t first, int64_t count) {
        const auto b = static_cast<int64_t>(s.points.size());
        std::vector<double> sum(static_cast<size_t>(k_));
        for (int64_t r = first; r < first + count; ++r) {
            std::fill(sum.begin(), sum.end(), 0.0);
            const float* row = chunk_.row(r);
            for (int64_t t = 0; t < b; ++t) sum[static_cast<size_t>(s.labels[static_cast<size_t>(t)])] += row[t];
            double* ip = ip_.data() + (begin + r) * k_;
            for (int64_t j = 0; j < k_; ++j) {
                const auto bj = s.count[static_cast<size_t>(j)];
                if (bj == 0) continue;
                const double a = s.alpha[static_cast<size_t>(j)];
                ip[j] = (1.0 - a) * ip[j] + a * sum[static_cast<size_t>(j)] / static_cast<double>(bj);
            }
        }
    }

    void copy_rows(Step& s) const {
        s.dot.resize(s.points.size() * static_cast<size_t>(k_));
        for (size_t t = 0; t < s.points.size(); ++t) {
            std::copy_n(ip_.data() + s.points[t] * k_, k_, s.dot.data() + static_cast<int64_t>(t) * k_);
        }
    }

    const PointKernel& K_;
    int64_t n_, k_;
    int threads_;
    std::vector<double> ip_;  ///< n×k
    Matrix chunk_;            ///< K(rows of a chunk, seeds or batch)
    Matrix gram_;             ///< K(B, B)
};

/// `size` distinct indices of [0, n), uniformly, ascending (selection sampling, Knuth's
/// Algorithm S).
std::vector<int64_t> uniform_sample(int64_t n, int64_t size, Rng& rng) {
    std::vector<int64_t> out;
    out.reserve(static_cast<size_t>(size));
    for (int64_t i = 0; i < n && static_cast<int64_t>(out.size()) < size; ++i) {
        const auto need = static_cast<uint64_t>(size - static_cast<int64_t>(out.size()));
        if (rng.below(static_cast<uint64_t>(n - i)) < need) out.push_back(i);
    }
    return out;
}

/// The k seed points: options.init (kernel k-means++, weighted, or random) on a uniform
/// sample of min(n, max(b, 20000)) points, with distances K_ii + K_cc − 2K_ic. 20000 points
/// make the seeding cost O(20000 k log k) kernel values, less than one iteration's
/// O(kb(τ + b)) for the default b and τ, while every cluster holding more than a few
/// hundredths of a percent of the data is still represented in the sample.
std::vector<int64_t> initial_centres(const PointKernel& K, const std::vector<float>& weights, const MinibatchOptions& o,
                                     uint64_t seed, uint64_t restart, int threads) {
    const int64_t n = K.size();
    Rng sample_rng = restart_rng(seed, Stream::seeding, restart, 1);
    const std::vector<int64_t> sample = uniform_sample(n, seed_sample_size(n, o.batch_size), sample_rng);
    const auto s = static_cast<int64_t>(sample.size());
    std::vector<float> w, diag;
    for (int64_t i : sample) {
        if (!weights.empty()) w.push_back(weights[static_cast<size_t>(i)]);
        diag.push_back(K.diag(i));
    }
    Matrix block;
    const SquaredDistanceToPoint distance_to = [&](const std::vector<int64_t>& centres, float* out) {
        std::vector<int64_t> cols;
        for (int64_t c : centres) cols.push_back(sample[static_cast<size_t>(c)]);
        K.repeated_rows_block(sample, cols, block, threads);
        for (size_t t = 0; t < cols.size(); ++t) {
            const float kcc = diag[static_cast<size_t>(centres[t])];
            for (int64_t i = 0; i < s; ++i) {
                const float d = diag[static_cast<size_t>(i)] + kcc - 2.0f * block.row(i)[t];
                out[static_cast<int64_t>(t) * s + i] = d > 0.0f ? d : 0.0f;
            }
        }
    };
    Rng rng = restart_rng(seed, Stream::seeding, restart);
    const Seeding seeding = seed_centres(o.init, s, o.k, w, distance_to, rng);
    std::vector<int64_t> seeds;
    for (int64_t c : seeding.centres) seeds.push_back(sample[static_cast<size_t>(c)]);
    return seeds;
}

/// f_B: the mean over the batch of min_j ‖φ(y) − C_j‖² (clamped at 0 against rounding).
/// Writes the argmin (ties to the lowest j) to labels when given.
double batch_objective(const PointKernel& K, const Step& s, const std::vector<double>& self_dot,
                       std::vector<int32_t>* labels) {
    const auto b = static_cast<int64_t>(s.points.size()), k = static_cast<int64_t>(self_dot.size());
    if (labels != nullptr) labels->resize(static_cast<size_t>(b));
    double total = 0;
    for (int64_t t = 0; t < b; ++t) {
        const double* dot = s.dot.data() + t * k;
        int32_t best = 0;
        double best_d = std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < k; ++j) {
            const double d = self_dot[static_cast<size_t>(j)] - 2.0 * dot[j];
            if (d < best_d) {
                best_d = d;
                best = static_cast<int32_t>(j);
            }
        }
        total += std::max(0.0, K.diag(s.points[static_cast<size_t>(t)]) + best_d);
        if (labels != nullptr) (*labels)[static_cast<size_t>(t)] = best;
    }
    return total / static_cast<double>(b);
}

/// ⟨cm(B_j), cm(B_j)⟩ from the batch's own kernel block.
double mean_self_dot(const std::vector<int64_t>& members, const BatchGram& gram) {
    // O(|members|²): the members' columns once, then each member's row read straight.
    std::vector<int64_t> columns(members.size());
    for (size_t t = 0; t < members.size(); ++t) columns[t] = gram.column[static_cast<size_t>(members[t])];
    double sum = 0;
    for (int64_t a : members) {
        const float* row = gram.block->row(gram.row[static_cast<size_t>(a)]);
        double part = 0;
        for (const int64_t c : columns) part += row[c];
        sum += part;
    }
    const auto m = static_cast<double>(members.size());
    return sum / (m * m);
}

/// C_j ← (1 − α_j) C_j + α_j cm(B_j) for one centre with members (batch positions):
/// learning rate, ⟨C', C'⟩ = (1−a)²⟨C,C⟩ + 2a(1−a)⟨C, cm⟩ + a²⟨cm, cm⟩ with ⟨C, cm⟩ the
/// members' mean ⟨φ(y), C⟩, and the new batch term. a = α, except for a normalised centre of
/// mass m < 1, which moves by a = α / ((1 − α) m + α) (its new mass). Returns whether
/// truncation dropped terms.
bool update_centre(Centres& c, Step& s, int64_t j, const std::vector<int64_t>& members, const MinibatchOptions& o,
                   int64_t iteration, int64_t n) {
    const auto ju = static_cast<size_t>(j);
    const auto bj = static_cast<int64_t>(members.size());
    c.seen[ju] += static_cast<double>(bj);
    const double a = o.rate == LearningRate::beta
                         ? std::sqrt(static_cast<double>(bj) / static_cast<double>(o.batch_size))
                         : static_cast<double>(bj) / c.seen[ju];
    double c_cm = 0;
    std::vector<int64_t> points;
    for (int64_t t : members) {
        c_cm += s.dot[static_cast<size_t>(t * o.k + j)];
        points.push_back(s.points[static_cast<size_t>(t)]);
    }
    c_cm /= static_cast<double>(bj);
    CentreHistory& h = c.history[ju];
    const double m = o.normalise ? h.mass() : 1.0;
    const double step = a / ((1 - a) * m + a);
    c.self_dot[ju] = (1 - step) * (1 - step) * c.self_dot[ju] + 2 * step * (1 - step) * c_cm +
                     step * step * mean_self_dot(members, s.gram);
    s.count[ju] = bj;
    s.alpha[ju] = a;
    h.add(iteration, std::move(points), a);
    if (o.tau > 0) return h.truncate(o.tau);
    if (h.term_points() > n) h.fold();  // untruncated: keep O(n) points per centre
    return false;
}

/// The update of every centre that got batch points (others stay as they are). Returns the
/// centres whose truncation dropped terms: their ⟨C, C⟩ must be recomputed.
std::vector<int64_t> update_centres(Centres& c, Step& s, const MinibatchOptions& o, int64_t iteration, int64_t n) {
    std::vector<std::vector<int64_t>>& members = s.members;
    members.assign(static_cast<size_t>(o.k), {});
    for (size_t t = 0; t < s.labels.size(); ++t)
        members[static_cast<size_t>(s.labels[t])].push_back(static_cast<int64_t>(t));
    s.count.assign(static_cast<size_t>(o.k), 0);
    s.alpha.assign(static_cast<size_t>(o.k), 0.0);
    std::vector<int64_t> dropped;
    for (int64_t j = 0; j < o.k; ++j) {
        if (members[static_cast<size_t>(j)].empty()) continue;
        if (update_centre(c, s, j, members[static_cast<size_t>(j)], o, iteration, n)) dropped.push_back(j);
    }
    return dropped;
}

void check_options(const PointKernel& K, const MinibatchOptions& o) {
    const int64_t n = K.size();
    if (o.k < 1 || o.k > n) invalid_argument("minibatch: k must be in [1, n]");
    if (o.batch_size < 1) invalid_argument("minibatch: batch_size must be at least 1");
    if (o.tau < 0) invalid_argument("minibatch: tau must be at least 0");
    if (o.max_iter < 0 || o.max_iter > std::numeric_limits<int32_t>::max()) {
        invalid_argument("minibatch: max_iter must be in [0, 2^31 - 1]");
    }
    if (std::isnan(o.epsilon)) invalid_argument("minibatch: epsilon must not be NaN");
    if (!o.initial.empty() && static_cast<int64_t>(o.initial.size()) != o.k) {
        invalid_argument("minibatch: initial must name k points");
    }
    for (int64_t p : o.initial) {
        if (p < 0 || p >= n) invalid_argument("minibatch: an initial point is outside [0, n)");
    }
}

/// How a run's batches are numbered and where they are drawn from.
struct Numbering {
    int64_t drawn_from = 0;  ///< drawn indices are offset by this
    int64_t done = 0;        ///< iterations before the run: its batch i is batch done + i
};

/// The run's options.max_iter iterations (or fewer, when the epsilon rule fires) on c.
MinibatchResult iterate(const PointKernel& K, const BatchSampler& sampler, const MinibatchOptions& options, Centres& c,
                        BatchProducts& products, Numbering at) {
    MinibatchResult r;
    Step s;
    const auto max_iter = static_cast<double>(std::max<int64_t>(options.max_iter, 1));
    for (int64_t it = 1; it <= options.max_iter && !r.stopped_early; ++it) {
        // The iteration's share of the stage: its parallel loops report within it.
        progress_range(static_cast<double>(it - 1) / max_iter, static_cast<double>(it) / max_iter);
        sampler.draw(at.done + it, options.batch_size, s.points);
        for (int64_t& p : s.points) p += at.drawn_from;
        products.before(s);
        const double before = batch_objective(K, s, c.self_dot, &s.labels);
        const std::vector<int64_t> dropped = update_centres(c, s, options, at.done + it, K.size());
        products.after(s, c, dropped);
        const double after = batch_objective(K, s, c.self_dot, nullptr);
        r.iterations = static_cast<int32_t>(it);
        r.stopped_early = before - after < options.epsilon;
        r.history.push_back({before, after});
        progress_poll(static_cast<double>(it) / max_iter);
    }
    for (const CentreHistory& h : c.history) r.centres.push_back(h.coefficients(options.normalise));
    r.state.centres = std::move(c.history);
    r.state.seen = std::move(c.seen);
    return r;
}

/// A resume's state against its options and K.
void check_resume(const PointKernel& K, const MinibatchOptions& o, const MinibatchResume& r) {
    const auto k = static_cast<size_t>(o.k);
    if (o.tau < 1) invalid_argument("minibatch: a run goes on from truncated centres only (tau >= 1)");
    if (o.batch_size < 1) invalid_argument("minibatch: batch_size must be at least 1");
    if (r.state.centres.size() != k || r.state.seen.size() != k || r.self_dot.size() != k) {
        invalid_argument("minibatch: a resumed run needs k centres, counts and norms");
    }
    if (r.drawn_from < 0 || r.drawn_from >= K.size() || r.done < 0) {
        invalid_argument("minibatch: a resumed run needs points to draw from");
    }
}

}  // namespace

BatchSampler::BatchSampler(int64_t n, const std::vector<float>& weights, uint64_t seed, uint64_t restart)
    : n_(n), seed_(seed), restart_(restart) {
    if (weights.empty()) return;
    if (static_cast<int64_t>(weights.size()) != n) invalid_argument("minibatch: weights must have n values");
    double total = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float w = weights[static_cast<size_t>(i)];
        if (!(w >= 0.0f) || !std::isfinite(w)) invalid_argument("minibatch: weights must be finite and >= 0");
        total += w;
        cumulative_.push_back(total);
        if (w > 0.0f) last_positive_ = i;
    }
    if (!(total > 0)) invalid_argument("minibatch: weights must have a positive sum");
}

void BatchSampler::draw(int64_t iteration, int64_t b, std::vector<int64_t>& out) const {
    Rng rng = restart_rng(seed_, Stream::batches, restart_, static_cast<uint64_t>(iteration));
    out.resize(static_cast<size_t>(b));
    for (int64_t& i : out) {
        if (cumulative_.empty()) {
            i = static_cast<int64_t>(rng.below(static_cast<uint64_t>(n_)));
            continue;
        }
        // The first point whose cumulative weight exceeds r: never a weight-0 point; r
        // rounded up to the total falls back to the last point with weight.
        const double r = rng.uniform() * cumulative_.back();
        const auto at = std::upper_bound(cumulative_.begin(), cumulative_.end(), r) - cumulative_.begin();
        i = std::min<int64_t>(at, last_positive_);
    }
}

MinibatchResult minibatch_kernel_kmeans(const PointKernel& K, const std::vector<float>& weights,
                                        const MinibatchOptions& options, uint64_t seed, uint64_t restart) {
    check_options(K, options);
    const int threads = std::max(1, options.threads);
    const BatchSampler sampler(K.size(), weights, seed, restart);
    const std::vector<int64_t> seeds =
        options.initial.empty() ? initial_centres(K, weights, options, seed, restart, threads) : options.initial;
    Centres c;
    for (int64_t p : seeds) {
        c.history.emplace_back(p);
        c.self_dot.push_back(K.diag(p));
        c.seen.push_back(1.0);
    }
    std::unique_ptr<BatchProducts> products;
    if (options.tau > 0) {
        products = std::make_unique<TruncatedProducts>(K, c, options.normalise, options.isa, threads);
    } else {
        products = std::make_unique<RecursiveProducts>(K, seeds, threads);
    }
    return iterate(K, sampler, options, c, *products, {});
}

MinibatchResult resume_minibatch(const PointKernel& K, const std::vector<float>& weights,
                                 const MinibatchOptions& options, uint64_t seed, MinibatchResume resume) {
    check_resume(K, options, resume);
    Centres c;
    c.history = std::move(resume.state.centres);
    c.seen = std::move(resume.state.seen);
    c.self_dot = std::move(resume.self_dot);
    const BatchSampler sampler(K.size() - resume.drawn_from, weights, seed);
    TruncatedProducts products(K, c, options.normalise, options.isa, std::max(1, options.threads));
    return iterate(K, sampler, options, c, products, {resume.drawn_from, resume.done});
}

MinibatchRunFootprint minibatch_run_footprint(const Params& p, double n, int threads,
                                              const PointBlockFootprint& point_block) {
    const double k = static_cast<double>(p.k), b = static_cast<double>(p.batch_size), tau = static_cast<double>(p.tau);
    const auto t = static_cast<double>(seeding_candidates(p.init, p.k));
    MinibatchRunFootprint f;
    // Seeding on a uniform sample: indices, weights, diagonal, the sample against the candidates.
    const auto sample = static_cast<double>(seed_sample_size(static_cast<int64_t>(n), p.batch_size));
    f.seed_sample = sample;
    // Rows streamed through one kernel block: the sample or the batch; a batch that repeats
    // a quarter of its rows or more is computed over its distinct rows (at most 4/3 n).
    const RowBlocks blk = row_blocks(std::min(std::max(b, sample), 4.0 * n / 3.0), threads);
    const double distinct_rows = std::min(n, b);  // their kernel rows, before they are copied out
    f.seeding = sample * (8 + 4 + 4) + Matrix::footprint(sample, t) + point_block(t, blk) +
                seeding_footprint(p, sample) + 16 * k;
    // One iteration: the batch (indices, labels, b×k products, Gram positions), each centre's
    // members, the centres' histories and coefficients (vectors grown by doubling: twice their
    // size), and the kernel blocks.
    const double step = 8 * b + 4 * b + 8 * b * k + 8 * b + 16 * b + 32 * k;
    if (p.tau > 0) {
        const double per_centre = std::min(n, tau + b);       // distinct points of one centre
        const double cols = std::min(n, b + k * per_centre);  // distinct batch ∪ support points
        const double history = k * (tau + b) * 8 + k * (tau + 1) * kBatchTermBytes;
        const double coefficients = 2 * k * per_centre * 16 + 2 * 16 * (tau + b) * 2;  // + one centre rebuilt
        const double gram = Matrix::footprint(per_centre, per_centre) + 8 * per_centre;
        const double blocks = Matrix::footprint(b, cols) + Matrix::footprint(distinct_rows, cols) + gram +
                              std::max(point_block(cols, blk), point_block(per_centre, blk));
        // Each term's sums over the batch's distinct points, float64, for the terms of two or
        // more points (at most half a centre's τ + b points) and each centre's new term.
        const double sums = 8 * std::min(n, b) * k * ((tau + b) / 2 + 1);
        f.iterations = step + history + coefficients + 2 * 8 * (b + k * per_centre) + 8 * k * per_centre + blocks +
                       sums + 16 * static_cast<double>(p.max_iter);
    } else {
        const double chunk = std::min(n, static_cast<double>(kChunk));
        // a folded base (at most n points) and the terms since (at most n + b points)
        const double terms = std::min(n + b, static_cast<double>(p.max_iter));
        const double history = k * (16 * n * 2 + 8 * (n + b)) + k * terms * kBatchTermBytes;
        const double coefficients = 2 * k * n * 16 + 2 * 16 * (n + b) * 2;
        const double blocks = Matrix::footprint(chunk, std::max(k, b)) + Matrix::footprint(b, b) +
                              Matrix::footprint(distinct_rows, b) + point_block(std::max(k, b), blk);
        f.iterations = step + 8 * n * k + history + coefficients + blocks + 16 * static_cast<double>(p.max_iter);
    }
    return f;
}

}  // namespace kkm
