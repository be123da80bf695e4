// method=exact: the kernel matrix stored in float32 when it fits in max_memory_mb, else its
// rows recomputed in blocks every iteration.
#include <cmath>
#include <numeric>
#include <string>

#include "cluster/exact.h"
#include "core/blocking.h"
#include "core/parallel.h"
#include "kernels/kernel_traits.h"
#include "model/fit_common.h"
#include "model/fit_memory.h"

namespace kkm {
namespace {

/// Exact's reference set, the model's too: every training row (from the ranks holding them),
/// or all columns of a precomputed K.
KernelBasis every_row_basis(const FitSession& c) {
    std::vector<int64_t> everyone(static_cast<size_t>(c.n_global()));
    std::iota(everyone.begin(), everyone.end(), int64_t{0});
    return basis_over(c, everyone);
}

/// The footprint with the kernel stored when it fits beside what the ledger holds, else
/// recomputed in blocks of as many rows as fit.
memory::ExactFootprint footprint(const FitShape& s, const MemoryLedger& ledger) {
    return memory::exact_footprint(s.p, s.n_global, s.cols, s.threads, s.weighted, ledger.remaining(),
                                   s.distributed ? s.rows : -1);
}

/// K(train rows, column points) stored in float32: train.rows × columns.size(), in row blocks.
Matrix stored_kernel(const FitSession& c, const KernelBasis& columns, ConstMatrix train) {
    const int64_t rows = train.rows, cols = columns.size();
    Matrix K(rows, cols);
    PerThread<Kernel::Scratch> scratch(c.threads);  // each thread's centred copy and packs
    parallel_blocks(c.threads, block_count(rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, rows - begin);
        columns.evaluate(train.slice(begin, count), K.row(begin), cols, &scratch.local());
    });
    return K;
}

/// Lloyd from the restarts, then the model: the centres over every training row of `basis`
/// (moved into the model only at the end: the problem's kernel rows read it until then).
std::unique_ptr<FittedModel> cluster_exact(FitSession& c, ExactLloyd& problem, KernelBasis&& basis) {
    LloydResult best = best_of_restarts(problem, c);
    DualCentres centres = problem.centres(best.centre_members());
    c.end_stage("lloyd");
    return std::make_unique<DualModel>(c.p, c.X.rows, c.X.cols, c.report({}, std::move(best)), std::move(basis),
                                       std::move(centres));
}

/// Exact over rows spread across ranks. The model is every training row (its centres are
/// weighted sums of them), so every rank receives all n rows; each keeps the kernel of all
/// rows against its own (n × n_local, stored or recomputed) and the sums S of its own rows,
/// and the moved points are exchanged every iteration.
std::unique_ptr<FittedModel> fit_exact_distributed(FitSession& c) {
    const memory::ExactFootprint f = footprint(c.shape(), c.ledger());
    const bool store = every_rank(*c.comm, f.store);  // the rebuild threshold must agree
    const int64_t block_rows = store || f.store ? kRowBlock : f.block_rows;
    c.begin_stage("kernel");
    MemoryLedger::Charge building = c.charge("kernel", "packing the training rows", f.basis_build);
    const MemoryLedger::Charge training =
        c.charge("kernel", "every rank's training rows, this rank's, and their packed panels", f.basis);
    KernelBasis basis = every_row_basis(c);
    Matrix mine;
    copy_into(c.X, mine);
    const KernelBasis columns(fit_kernel(c), std::move(mine));
    building.release();
    const ConstMatrix train = basis.points().view();
    const MemoryLedger::Charge kernel = c.charge(
        "kernel", store ? "the n x n_local kernel block" : "every thread's block of recomputed kernel rows", f.kernel);
    const Matrix K = store ? stored_kernel(c, columns, train) : Matrix();
    const KernelRows rows =
        store ? KernelRows(K.view(), kRowBlock, false) : KernelRows(columns, train, block_rows, c.threads);
    c.end_stage("kernel");
    const MemoryLedger::Charge points = c.charge(
        "lloyd", "the diagonals, the n_local x k sums S, label caches, moves, seeding and the centres Z", f.points);
    ExactLloyd problem(rows, training_diagonal(c), kernel_diagonal(c, train), c.w, c.p.k, c.threads, *c.comm, c.part);
    return cluster_exact(c, problem, std::move(basis));
}

}  // namespace

double check_exact_budget(const FitShape& s, const MemoryLedger& ledger) {
    const memory::ExactFootprint f = footprint(s, ledger);
    const bool fits = f.store || f.block_rows >= 1;
    const auto stored_mib = static_cast<long long>(std::ceil((ledger.total() + f.stored_peak) / 1048576.0));
    return require_budget(s, ledger, "exact", fits ? f.peak() : std::min(f.one_row_peak, f.stored_peak),
                          "training copy, labels, n x k sums and moves, recomputed kernel rows; "
                          "storing the n x n kernel needs " +
                              std::to_string(stored_mib) + " MiB");
}

std::unique_ptr<FittedModel> fit_exact(FitSession& c) {
    if (c.distributed()) return fit_exact_distributed(c);
    const bool precomputed = kernel_traits(c.p.kernel).precomputed;
    const memory::ExactFootprint f = footprint(c.shape(), c.ledger());  // as check_exact_budget found it
    const bool store = f.store;
    const int64_t block_rows = store ? kRowBlock : f.block_rows;
    c.begin_stage("kernel");
    MemoryLedger::Charge building = c.charge("kernel", "packing the training copy", f.basis_build);
    const MemoryLedger::Charge training = c.charge("kernel", "the training copy and its packed panels", f.basis);
    KernelBasis basis = every_row_basis(c);
    building.release();
    const ConstMatrix train = precomputed ? c.X : basis.points().view();
    const MemoryLedger::Charge kernel = c.charge(
        "kernel", store ? "the n x n kernel matrix" : "every thread's block of recomputed kernel rows", f.kernel);
    const Matrix K = store && !precomputed ? stored_kernel(c, basis, train) : Matrix();
    const KernelRows rows = store ? KernelRows(precomputed ? c.X : K.view(), kRowBlock, precomputed)
                                  : KernelRows(basis, train, block_rows, c.threads);
    c.end_stage("kernel");
    const MemoryLedger::Charge points =
        c.charge("lloyd", "the diagonal, the n x k sums S, label caches, moves, seeding and the centres Z", f.points);
    ExactLloyd problem(rows, training_diagonal(c), c.w, c.p.k, c.threads);
    return cluster_exact(c, problem, std::move(basis));
}

}  // namespace kkm
