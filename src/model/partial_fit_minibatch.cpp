// A later kkm_partial_fit batch of a method=minibatch stream (mini-batch kernel k-means, 2024,
// Algorithm 2): the truncated iterations go on from the model's centre histories over its
// support rows, with mini-batches drawn from the new batch's rows (∝ weight when weighted),
// batches numbered on from the iterations the stream has run and the sklearn rate's counts
// carried over. The new centres' support rows (at most τ + b per centre) are copied into the
// model; nothing points into the caller's batch.
#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <utility>

#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "model/fit_common.h"
#include "model/fit_memory.h"
#include "model/partial_fit.h"

namespace kkm {
namespace {

/// K over the model's support rows (points 0 .. s−1) followed by the batch's rows (points
/// s .. s + n − 1), under the stream's kernel; blocks are computed from gathered rows.
class StreamKernel final : public PointKernel {
public:
    StreamKernel(const Kernel& kernel, ConstMatrix support, ConstMatrix batch, int threads)
        : kernel_(kernel), support_(support), batch_(batch), diag_(static_cast<size_t>(size())), left_(threads) {
        parallel_blocks(threads, block_count(size(), kRowBlock), [&](int64_t b) {
            const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, size() - begin);
            std::vector<int64_t> idx(static_cast<size_t>(count));
            for (int64_t i = 0; i < count; ++i) idx[static_cast<size_t>(i)] = begin + i;
            kernel_.diagonal(rows(idx).view(), diag_.data() + begin);
        });
    }
    int64_t size() const override { return support_.rows + batch_.rows; }
    float diag(int64_t i) const override { return diag_[static_cast<size_t>(i)]; }

    void block(const std::vector<int64_t>& rows_at, const std::vector<int64_t>& cols, Matrix& out,
               int threads) const override {
        const auto nr = static_cast<int64_t>(rows_at.size()), nc = static_cast<int64_t>(cols.size());
        reshape_growing(out, nr, nc);
        gather(cols, right_);
        kernel_.pack_into(right_.view(), packed_, centred_);
        parallel_blocks(threads, block_count(nr, kRowBlock), [&](int64_t b) {
            const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, nr - begin);
            LeftRows& left = left_.local();
            left.part.assign(rows_at.begin() + begin, rows_at.begin() + begin + count);
            gather(left.part, left.rows);
            kernel_.block(left.rows.view(), packed_, out.row(begin), nc, &left.kernel);
        });
    }

    /// Points idx (support first, then the batch), copied.
    Matrix rows(const std::vector<int64_t>& idx) const {
        Matrix out;
        gather(idx, out);
        return out;
    }

private:
    void gather(const std::vector<int64_t>& idx, Matrix& out) const {
        reshape_growing(out, static_cast<int64_t>(idx.size()), batch_.cols);
        for (size_t a = 0; a < idx.size(); ++a) {
            const int64_t i = idx[a];
            const float* src = i < support_.rows ? support_.row(i) : batch_.row(i - support_.rows);
            std::copy(src, src + batch_.cols, out.row(static_cast<int64_t>(a)));
        }
    }

    const Kernel& kernel_;
    ConstMatrix support_, batch_;
    std::vector<float> diag_;
    // The right-hand rows of the last block and each thread's left rows, kept between calls
    // (block() is not reentrant): fresh buffers per block would be faulted in page by page.
    mutable Matrix right_, centred_;
    mutable engine::PackedRows packed_;
    struct LeftRows {
        std::vector<int64_t> part;
        Matrix rows;
        Kernel::Scratch kernel;
    };
    mutable PerThread<LeftRows> left_;
};

/// The stream's kernel: the first batch's gamma and centring shift.
Kernel stream_kernel(const DualModel& m) {
    const Params& p = m.params();
    return Kernel(p.kernel, m.report().gamma, p.degree, p.coef0, m.report().isa, m.report().shift);
}

/// One pass over the batch in expectation (b points drawn per iteration), at most max_iter.
int64_t pass_iterations(const Params& p, int64_t n) {
    return std::min<int64_t>(p.max_iter, (n + p.batch_size - 1) / p.batch_size);
}

}  // namespace

std::unique_ptr<FittedModel> next_minibatch(const DualModel& previous, ConstMatrix X, const std::vector<float>& w) {
    const auto start = std::chrono::steady_clock::now();
    const Params& p = previous.params();
    const int threads = resolve_threads(p.threads);
    // The batch as a fit of its rows would hold it (its kernel rows, centres and assignment),
    // beside the stream's support points.
    const double need = memory::minibatch_footprint(p, X.rows, X.cols, threads, !w.empty()).peak() +
                        Matrix::footprint(static_cast<double>(previous.basis().size()), static_cast<double>(X.cols));
    check_batch(previous, X, threads, need, "the batch's kernel rows, the centres and their support points");
    if (previous.stream_state().centres.empty()) {
        invalid_argument(
            "kkm_partial_fit cannot go on from this method=minibatch model: it holds no centre "
            "histories (a model file saved before format 6); fit it again to start a stream");
    }
    const Kernel kernel = stream_kernel(previous);
    const StreamKernel K(kernel, previous.basis().points().view(), X, threads);
    MinibatchOptions options = minibatch_options(p, threads, kernel.isa());
    options.max_iter = pass_iterations(p, X.rows);
    options.epsilon = -std::numeric_limits<double>::infinity();  // the pass runs to its end
    progress_begin("minibatch");
    const int64_t support_rows = previous.basis().size();
    MinibatchResult result = resume_minibatch(
        K, w, options, p.seed,
        {previous.stream_state(), previous.centres().self_dot, support_rows, previous.report().iterations});
    std::vector<int64_t> support;
    DualCentres centres = support_centres(result.centres, K, support, threads);
    for (CentreHistory& h : result.state.centres) h.renumber(support);
    auto model =
        std::make_unique<DualModel>(p, X.rows, X.cols, later_report(previous, result.iterations),
                                    KernelBasis(kernel, K.rows(support)), std::move(centres), std::move(result.state));
    record_batch(*model, X, w, previous.report().mass, true, start, threads);
    return model;
}

}  // namespace kkm
