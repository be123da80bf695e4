// method=minibatch: truncated mini-batch kernel k-means. The fit keeps only the centres'
// support points (at most k(τ+b)), so the model stays small and assigning a new row costs
// O(k(τ+b)d); after the mini-batches every training row is assigned in parallel blocks.
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <optional>
#include <span>

#include "cluster/exact.h"
#include "cluster/minibatch_kernel.h"
#include "core/blocking.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "engine/engine.h"
#include "kernels/kernel.h"
#include "kernels/kernel_basis.h"
#include "kernels/kernel_traits.h"
#include "model/fit_common.h"
#include "model/fit_memory.h"

namespace kkm {
namespace {

/// Kernel values between training rows by (global) index: gathered rows through kernel GEMM
/// blocks, or entries of a precomputed matrix. Distributed, the rows come from the ranks
/// holding them, so every rank must ask for the same blocks (the mini-batch iterations run
/// alike on every rank), and diag is every row's.
class TrainingKernel final : public PointKernel {
public:
    TrainingKernel(FitSession& c, const std::vector<float>& diag) : c_(c), diag_(diag) {}
    int64_t size() const override { return c_.n_global(); }
    /// Frees the storage block() keeps between calls (the iterations' batch ∪ support rows):
    /// the assign stage's footprint does not count it.
    void release_scratch() const {
        right_ = RightRows{};
        left_.clear();
        distinct_out_ = Matrix{};
        kept_ = KeptRows{};
    }
    float diag(int64_t i) const override { return diag_[static_cast<size_t>(i)]; }

    /// The rows' packs (8-bit for images, else float32) kept from one call to the next while
    /// they stay the same: the seeding's sample, packed once instead of at every k-means++ step.
    void repeated_rows_block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                             int threads) const override {
        if (!kept_block(rows, cols, out, threads)) block(rows, cols, out, threads);
    }

    void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
               int threads) const override {
        kept_ = KeptRows{};  // repeated_rows_block's rows are done with
        const auto nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
        const bool precomputed = kernel_traits(c_.p.kernel).precomputed;
        if (!precomputed && repeats_much(rows)) return distinct_block(rows, cols, out, threads);
        reshape_growing(out, nr, nc);
        if (precomputed) {
            for (int64_t a = 0; a < nr; ++a) {
                for (int64_t b = 0; b < nc; ++b)
                    out.row(a)[b] = c_.X.row(rows[static_cast<size_t>(a)])[cols[static_cast<size_t>(b)]];
            }
            return;
        }
        const Kernel kernel = fit_kernel(c_);
        if (c_.distributed()) return shared_block(kernel, rows, cols, out, threads);
        // 8-bit rows (images): the right rows' 8-bit copy alone, packed from X where the rows
        // are, and the float32 panels only for left blocks that turn out not to be 8-bit
        // (none when all of X is): the same values.
        const bool q8 = pack_q8_right(kernel, cols, threads);
        if (!q8) pack_floats(kernel, cols, threads);
        left_.resize(static_cast<size_t>(std::max(threads, 1)));
        const BalancedBlocks tasks = balanced_blocks(nr, threads);
        const int64_t step = tasks.rows, nblocks = block_count(nr, step);
        std::vector<char> missed(static_cast<size_t>(nblocks), 1);  // blocks still to compute
        // fn(left, rows of the block, where its values go): false when it must be computed again.
        const auto left_blocks = [&](const std::function<bool(LeftRows&, std::span<const int64_t>, float*)>& fn) {
            parallel_blocks(tasks.threads, nblocks, [&](int64_t b) {
                if (missed[static_cast<size_t>(b)] == 0) return;
                const int64_t begin = b * step, count = std::min(step, nr - begin);
                LeftRows& left = left_[thread_slot(left_.size())];  // a team of at most `threads`
                const std::span<const int64_t> part(rows.data() + begin, static_cast<size_t>(count));
                missed[static_cast<size_t>(b)] = fn(left, part, out.row(begin)) ? 0 : 1;
            });
        };
        if (q8) {  // the 8-bit rows read where they are
            left_blocks([&](LeftRows& left, std::span<const int64_t> part, float* dst) {
                return kernel.block_q8(c_.X, right_.packed, dst, nc, &left.kernel, part);
            });
            if (std::find(missed.begin(), missed.end(), 1) == missed.end()) return;
            pack_floats(kernel, cols, threads);
        }
        left_blocks([&](LeftRows& left, std::span<const int64_t> part, float* dst) {
            left.gather(c_.X, part);
            kernel.block(left.rows.view(), right_.packed, dst, nc, &left.kernel);
            return true;
        });
    }

private:
    /// repeated_rows_block from kept_'s packs of the rows, packed first when the rows or the
    /// right rows' 8-bit scale changed: each block as block() computes it, by the 8-bit tiles
    /// where its rows are 8-bit at that scale, else by the float32 tiles. False (out
    /// untouched) for a precomputed kernel or a distributed fit, for block() to compute.
    bool kept_block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                    int threads) const {
        if (kernel_traits(c_.p.kernel).precomputed || c_.distributed()) return false;
        const Kernel kernel = fit_kernel(c_);
        const float scale = pack_q8_right(kernel, cols, threads) ? right_.packed.q8_scale() : 0.0f;
        const auto nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
        const BalancedBlocks tasks = balanced_blocks(nr, threads);
        const int64_t step = tasks.rows, nblocks = block_count(nr, step);
        if (kept_.rows != rows || kept_.scale != scale) {
            kept_ = KeptRows{};
            kept_.blocks.resize(static_cast<size_t>(nblocks));
            left_.resize(static_cast<size_t>(std::max(threads, 1)));
            parallel_blocks(tasks.threads, nblocks, [&](int64_t b) {
                const int64_t begin = b * step, count = std::min(step, nr - begin);
                const std::span<const int64_t> part(rows.data() + begin, static_cast<size_t>(count));
                KeptBlock& kept = kept_.blocks[static_cast<size_t>(b)];
                kept.eight_bit = scale != 0.0f && kept.q8.pack(right_.packed.isa(), c_.X, part, scale);
                if (kept.eight_bit) return;
                LeftRows& left = left_[thread_slot(left_.size())];  // a team of at most `threads`
                left.gather(c_.X, part);
                kernel.pack_left(left.rows.view(), kept.floats, &left.kernel);
            });
            kept_.rows = rows;
            kept_.scale = scale;
        }
        const bool floats = std::any_of(kept_.blocks.begin(), kept_.blocks.end(),
                                        [](const KeptBlock& kept) { return !kept.eight_bit; });
        if (floats) pack_floats(kernel, cols, threads);  // and the 8-bit copy again, where there is one
        reshape_growing(out, nr, nc);
        parallel_blocks(tasks.threads, nblocks, [&](int64_t b) {
            const KeptBlock& kept = kept_.blocks[static_cast<size_t>(b)];
            float* dst = out.row(b * step);
            if (!kept.eight_bit) return kernel.block(kept.floats, right_.packed, dst, nc);
            if (!kernel.block_q8(kept.q8, right_.packed, dst, nc))
                fail(KKM_ERR_INTERNAL, "mini-batch seeding: kept 8-bit rows against rows of another scale");
        });
        return true;
    }

    /// The right rows' 8-bit copy packed from X where the rows are (images); false where they
    /// are not 8-bit.
    bool pack_q8_right(const Kernel& kernel, const std::vector<int64_t>& cols, int threads) const {
        const auto pieces = [threads](int64_t count, const std::function<void(int64_t)>& piece) {
            parallel_blocks(threads, count, piece);
        };
        return kernel.pack_q8_into(c_.X, cols, right_.packed, pieces);
    }

    /// A batch drawn with replacement from fewer rows than its size repeats rows: when a
    /// quarter or more are repeats, their kernel rows are computed once (so no more than
    /// 4/3 n rows are ever gathered: two rows of a million columns are two, not 1024).
    bool repeats_much(const std::vector<int64_t>& rows) const {
        distinct_ = rows;
        std::sort(distinct_.begin(), distinct_.end());
        distinct_.erase(std::unique(distinct_.begin(), distinct_.end()), distinct_.end());
        return 4 * distinct_.size() <= 3 * rows.size();
    }

    /// right_.rows = the rows `cols` of X, copied in blocks over the threads.
    void gather_right(const std::vector<int64_t>& cols, int threads) const {
        const auto nc = static_cast<int64_t>(cols.size());
        reshape_growing(right_.rows, nc, c_.X.cols);
        parallel_blocks(threads, block_count(nc, kRowBlock), [&](int64_t b) {
            copy_rows(c_.X, cols, b * kRowBlock, std::min(nc, (b + 1) * kRowBlock), right_.rows);
        });
    }

    /// The right rows gathered and packed with their float32 panels (and 8-bit copy, if any).
    void pack_floats(const Kernel& kernel, const std::vector<int64_t>& cols, int threads) const {
        gather_right(cols, threads);
        if (!kernel.shift().empty()) reshape_growing(right_.centred, right_.rows.rows, right_.rows.cols);
        kernel.pack_into(right_.rows.view(), right_.packed, right_.centred);
    }

    /// block() over the distinct rows (repeats_much's), then each row copied to its places.
    void distinct_block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
                        int threads) const {
        const std::vector<int64_t> distinct = std::move(distinct_);
        block(distinct, cols, distinct_out_, threads);
        const auto nc = static_cast<int64_t>(cols.size());
        reshape_growing(out, static_cast<int64_t>(rows.size()), nc);
        for (size_t a = 0; a < rows.size(); ++a) {
            const auto at = std::lower_bound(distinct.begin(), distinct.end(), rows[a]) - distinct.begin();
            std::memcpy(out.row(static_cast<int64_t>(a)), distinct_out_.row(at), static_cast<size_t>(nc) * sizeof(float));
        }
    }

    void shared_block(const Kernel& kernel, const std::vector<int64_t>& rows, const std::vector<int64_t>& cols,
                      Matrix& out, int threads) const {
        const Matrix right = training_rows(c_, cols), left = training_rows(c_, rows);
        const engine::PackedRows packed = kernel.pack(right.view());
        const int64_t nr = left.rows, nc = right.rows;
        parallel_blocks(threads, block_count(nr, kRowBlock), [&](int64_t b) {
            const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, nr - begin);
            Matrix part;
            copy_into(left.view().slice(begin, count), part);
            kernel.block(part.view(), packed, out.row(begin), nc);
        });
    }

    FitSession& c_;
    const std::vector<float>& diag_;
    /// The right-hand rows of the last block: gathered, centred and packed into storage kept
    /// from one call to the next. Every iteration packs ~10⁴ rows (the batch and the centres'
    /// support); fresh buffers of that size are mapped and faulted in page by page each time,
    /// which cost more than the kernel block itself. block() is not reentrant (PointKernel).
    struct RightRows {
        Matrix rows, centred;
        engine::PackedRows packed;
    };
    mutable RightRows right_;
    /// Each thread's left rows and kernel block storage, kept likewise: blocks of 252 rows
    /// allocated afresh churned malloc between its heap and fresh mappings, which cost a
    /// process's first mini-batch fit seconds of page faults.
    struct LeftRows {
        std::vector<int64_t> part;
        Matrix rows;
        Kernel::Scratch kernel;
        /// rows = the rows `which` of X (one thread's left block).
        void gather(ConstMatrix X, std::span<const int64_t> which) {
            part.assign(which.begin(), which.end());
            gather_rows_into(X, part, rows);
        }
    };
    mutable std::vector<LeftRows> left_;
    mutable std::vector<int64_t> distinct_;  ///< repeats_much's distinct rows
    mutable Matrix distinct_out_;            ///< the kernel rows of those, kept like right_
    /// repeated_rows_block's rows, the right rows' 8-bit scale they were packed for (0: none),
    /// and their packs in balanced_blocks' blocks: 8-bit where the block's rows are, else float32.
    struct KeptBlock {
        bool eight_bit = false;
        engine::Q8LeftRows q8;
        engine::LeftRows floats;
    };
    struct KeptRows {
        std::vector<int64_t> rows;
        float scale = 0.0f;
        std::vector<KeptBlock> blocks;
    };
    mutable KeptRows kept_;
};

/// Every rank's values of a per-row vector, in rank order (the vector itself in one process).
std::vector<float> all_ranks(const FitSession& c, const std::vector<float>& mine) {
    if (!c.distributed()) return mine;
    std::vector<char> bytes;
    std::vector<size_t> counts;
    c.comm->allgatherv(mine.data(), mine.size() * sizeof(float), bytes, counts);
    std::vector<float> all(bytes.size() / sizeof(float));
    if (!all.empty()) std::memcpy(all.data(), bytes.data(), all.size() * sizeof(float));
    return all;
}

}  // namespace

DualCentres support_centres(const std::vector<SparseCentre>& centres, const PointKernel& K,
                            std::vector<int64_t>& support, int threads) {
    for (const SparseCentre& c : centres) support.insert(support.end(), c.points.begin(), c.points.end());
    std::sort(support.begin(), support.end());
    support.erase(std::unique(support.begin(), support.end()), support.end());
    const auto k = static_cast<int64_t>(centres.size()), s = static_cast<int64_t>(support.size());
    DualCentres d;
    d.Z = Matrix(s, k);
    d.mass.assign(static_cast<size_t>(k), 1.0);  // coefficients already sum to one
    for (int64_t j = 0; j < k; ++j) {
        const SparseCentre& c = centres[static_cast<size_t>(j)];
        for (size_t t = 0; t < c.points.size(); ++t) {
            const auto at = std::lower_bound(support.begin(), support.end(), c.points[t]) - support.begin();
            d.Z.row(at)[j] = static_cast<float>(c.coef[t]);
        }
    }
    Matrix kjj;  // K over centre j's support, in float64 sums with the float32 coefficients of Z
    for (int64_t j = 0; j < k; ++j) {
        const std::vector<int64_t>& points = centres[static_cast<size_t>(j)].points;  // ascending, distinct
        const auto sj = static_cast<int64_t>(points.size());
        std::vector<float> z(static_cast<size_t>(sj));
        for (int64_t a = 0; a < sj; ++a) {
            const int64_t point = points[static_cast<size_t>(a)];
            const auto at = std::lower_bound(support.begin(), support.end(), point) - support.begin();
            z[static_cast<size_t>(a)] = d.Z.row(at)[j];
        }
        K.block(points, points, kjj, threads);
        double cc = 0;
        for (int64_t a = 0; a < sj; ++a) {
            double row = 0;
            for (int64_t b = 0; b < sj; ++b) row += static_cast<double>(kjj.row(a)[b]) * z[static_cast<size_t>(b)];
            cc += static_cast<double>(z[static_cast<size_t>(a)]) * row;
        }
        d.self_dot.push_back(cc);
    }
    return d;
}

namespace {

/// One run's model pieces and its assignment of every training row.
struct Restart {
    std::optional<KernelBasis> basis;
    DualCentres centres;
    MinibatchState state;  ///< over the support (empty untruncated: a stream needs tau > 0)
    LloydResult assigned;
};

/// The centres over their support points, and every training row to its nearest centre in
/// parallel blocks, with the training diagonal as K(x,x) (known even for a precomputed kernel).
Restart assign_all(FitSession& c, const TrainingKernel& K, const std::vector<float>& diag, MinibatchResult&& result) {
    const int64_t n = c.X.rows;
    Restart run;
    std::vector<int64_t> support;
    run.centres = support_centres(result.centres, K, support, c.threads);
    if (c.p.tau > 0) {
        run.state = std::move(result.state);
        for (CentreHistory& h : run.state.centres) h.renumber(support);
    }
    K.release_scratch();  // the centres' norms are done: the support basis and row blocks come next
    run.basis.emplace(basis_over(c, support));
    const KernelBasis& basis = *run.basis;
    run.assigned.labels.resize(static_cast<size_t>(n));
    std::vector<float> dist(static_cast<size_t>(n));
    const DualTerms terms = dual_terms(run.centres);
    struct Scratch {
        Matrix Kx;  // the kernel rows
        Kernel::Scratch kernel;
    };
    PerThread<Scratch> scratch(c.threads);  // each thread's, kept from block to block
    parallel_blocks(c.threads, block_count(n, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, n - begin);
        auto& [Kx, kernel] = scratch.local();
        reshape_growing(Kx, count, basis.size());
        basis.evaluate(c.X.slice(begin, count), Kx.data(), basis.size(), &kernel);
        dual_nearest(Kx.data(), count, diag.data() + begin, run.centres, terms, run.assigned.labels.data() + begin,
                     dist.data() + begin);
    });
    for (int64_t i = 0; i < n; ++i) {
        const double wi = c.w.empty() ? 1.0 : c.w[static_cast<size_t>(i)];
        run.assigned.objective += wi * dist[static_cast<size_t>(i)];
    }
    run.assigned.objective = sum_over_ranks(*c.comm, run.assigned.objective);
    run.assigned.iterations = result.iterations;
    return run;
}

}  // namespace

MinibatchOptions minibatch_options(const Params& p, int threads, engine::Isa isa) {
    MinibatchOptions options;
    options.isa = isa;
    options.k = p.k;
    options.batch_size = p.batch_size;
    options.tau = p.tau;
    // epsilon = 0 turns early stopping off (a batch objective can rise by chance, and
    // "improved by less than 0" would then stop the run).
    options.epsilon = p.epsilon > 0 ? p.epsilon : -std::numeric_limits<double>::infinity();
    options.max_iter = p.max_iter;
    options.rate = p.learning_rate;
    options.init = p.init;
    options.threads = threads;
    // Truncation drops a centre's older contributions and renormalises the rest to a convex
    // combination (the reading of equation (1); as printed, the dropped mass would
    // shrink the centres towards the origin).
    options.normalise = true;
    return options;
}

double training_block_footprint(const Params& p, double cols, double d, const RowBlocks& b) {
    if (kernel_traits(p.kernel).precomputed) return 0;
    // right_: the gathered points, their centred copy while packing, the packed rows; left_:
    // every thread's gathered rows and Kernel::block's scratch, and its row indices
    return Matrix::footprint(cols, d) + engine::PackedRows::footprint(cols, d) +
           KernelBasis::build_footprint(cols, d, false) +
           b.workers * (Matrix::footprint(b.rows, d) + Kernel::block_footprint(b.rows, d) + 8 * b.rows);
}

double minibatch_assign_footprint(const Params& p, double n, double d, int threads, double points, double largest) {
    // The run's centres (coefficient vectors grown by doubling), the support S (at most the
    // points, at most n), Z (S×k) and its terms by centre (at most one per point); then K over
    // one centre's support at a time for ⟨C_j, C_j⟩, or the support basis with every thread's
    // kernel rows against S and their float64 sums by centre, and every row's label.
    const bool pre = kernel_traits(p.kernel).precomputed;
    const double k = static_cast<double>(p.k), S = std::min(n, points);
    const double Z = Matrix::footprint(S, k);
    const RowBlocks b = row_blocks(n, threads);
    const double norms =
        2 * 8 * points + Matrix::footprint(largest, largest) + 4 * largest + training_block_footprint(p, largest, d, b);
    const double rows = KernelBasis::footprint(S, d, pre) + KernelBasis::build_footprint(S, d, pre) + 8 * n +
                        b.workers * (Matrix::footprint(b.rows, d) + Matrix::footprint(b.rows, S) +
                                     (pre ? 0 : Kernel::block_footprint(b.rows, d)) + 8 * b.rows * k);
    const double terms = 12 * points + 8 * (k + 1);
    return 2 * 16 * points + Z + terms + std::max(norms, rows);
}

double check_minibatch_budget(const FitShape& s, const MemoryLedger& ledger) {
    const memory::MinibatchFootprint f = memory::minibatch_footprint(s.p, s.rows, s.cols, s.threads, s.weighted);
    return require_budget(s, ledger, "minibatch", f.peak(),
                          "batch kernel blocks, b x k products, support points (at most k(tau + b)) and their kernel");
}

std::unique_ptr<FittedModel> fit_minibatch(FitSession& c) {
    const int64_t n = c.X.rows;
    const memory::MinibatchFootprint f = memory::minibatch_footprint(c.p, n, c.X.cols, c.threads, !c.w.empty());
    const MemoryLedger::Charge held =
        c.charge("minibatch", "the kernel diagonal and the batch sampler's cumulative weights", f.diag);
    const std::vector<float> diag = training_diagonal(c);
    // Distributed, the mini-batch iterations run alike on every rank over the global rows:
    // they see every row's diagonal and weight (n floats each).
    const std::vector<float> diag_all = all_ranks(c, diag), w_all = all_ranks(c, c.w);
    const TrainingKernel K(c, diag_all);
    const MinibatchOptions options = minibatch_options(c.p, c.threads, c.isa);
    MemoryLedger::Charge best_charge;
    // Restarts: the lowest objective on all rows wins.
    Restart best = best_restart(
        c.p.n_init,
        [&](int64_t r) {
            c.begin_stage("minibatch");
            MinibatchResult result;
            {
                const MemoryLedger::Charge iterations = c.charge(
                    "minibatch",
                    "the seeding sample and the iterations' batch, b x k products, kernel blocks and centre histories",
                    std::max(f.seeding, f.iterations));
                result = minibatch_kernel_kmeans(K, w_all, options, c.p.seed, static_cast<uint64_t>(r));
                K.release_scratch();
            }
            c.end_stage("minibatch");
            c.begin_stage("assign");
            Restart run;
            {
                double points = 0, largest = 0;  // the run's support, bounded in the footprint
                for (const SparseCentre& centre : result.centres) {
                    points += static_cast<double>(centre.points.size());
                    largest = std::max(largest, static_cast<double>(centre.points.size()));
                }
                const MemoryLedger::Charge assign =
                    c.charge("assign",
                             "the centres over their support points, K over each centre's support, the support basis "
                             "and every row's label",
                             minibatch_assign_footprint(c.p, static_cast<double>(n), static_cast<double>(c.X.cols),
                                                        c.threads, points, largest));
                run = assign_all(c, K, diag, std::move(result));
            }
            c.end_stage("assign");
            if (r == 0 && c.p.n_init > 1) {
                best_charge = c.charge("assign", "the best restart's support basis, centres and labels", f.best);
            }
            return run;
        },
        [](const Restart& r) { return r.assigned.objective; });
    return std::make_unique<DualModel>(c.p, n, c.X.cols, c.report({}, std::move(best.assigned)), std::move(*best.basis),
                                       std::move(best.centres), std::move(best.state));
}

}  // namespace kkm
