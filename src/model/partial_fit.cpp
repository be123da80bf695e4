#include "model/partial_fit.h"

#include <algorithm>
#include <chrono>
#include <string>

#include "cluster/lloyd.h"
#include "core/blocking.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/memory_ledger.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/validate.h"
#include "core/weights.h"
#include "features/feature_map.h"
#include "kernels/kernel_traits.h"
#include "kernels/row_scan.h"
#include "model/methods.h"

namespace kkm {
namespace {

/// What a stream goes on with: the feature map, the centres in its space, the weight each
/// centre has received, and whether distances are kernel distances (Nystrom maps).
struct StreamState {
    std::shared_ptr<const FeatureMap> map;
    Matrix centres;
    bool kernel_distances = false;
};

StreamState state_of(const FittedModel& model) {
    if (model.kind() == ModelKind::feature) {
        const auto& f = static_cast<const FeatureModel&>(model);
        return {f.shared_map(), copy_of(f.centroids().view()), f.kernel_distances()};
    }
    if (model.kind() != ModelKind::nystrom) fail(KKM_ERR_INTERNAL, "partial_fit: a model without features");
    const auto& nystrom = static_cast<const NystromModel&>(model);
    return {nystrom.shared_map(), nystrom.feature_centres(), true};
}

void require_streamable(const Params& p) {
    const KernelTraits& traits = kernel_traits(p.kernel);
    const auto refuse = [](const std::string& what) {
        invalid_argument(
            "kkm_partial_fit streams the feature methods (method=nystrom, sketch or rff) and the "
            "truncated method=minibatch, whose fitted state needs no past rows; " +
            what + " needs every row at once: use kkm_fit");
    };
    if (traits.graph) refuse(std::string("kernel=") + to_text(p.kernel) + " (its neighbour graph)");
    if (traits.precomputed) refuse("kernel=precomputed (its n x n kernel matrix)");
    if (p.method == Method::exact) refuse("method=exact (its centres are sums over training rows)");
    if (p.method == Method::minibatch && p.tau == 0) {
        refuse("method=minibatch with tau=0 (untruncated centres are sums over every row drawn; set tau > 0)");
    }
    if (p.refine == Refine::hartigan) refuse("refine=hartigan (its transfers run over all rows)");
}

/// Nearest centre of each feature row (lloyd.h's nearest_centroid, in parallel row blocks):
/// every centre may take rows, those that no row reached so far too.
std::vector<int32_t> nearest(const Matrix& F, const Matrix& C, engine::Isa isa, int threads) {
    std::vector<int32_t> labels(static_cast<size_t>(F.rows));
    const std::vector<float> cnorms = row_squared_norms(C.view());
    const std::vector<char> every(static_cast<size_t>(C.rows), 1);
    parallel_blocks(threads, block_count(F.rows, kRowBlock), [&](int64_t b) {
        const int64_t begin = b * kRowBlock, count = std::min(kRowBlock, F.rows - begin);
        const ConstMatrix rows = F.view().slice(begin, count);
        const std::vector<float> fnorms = row_squared_norms(rows);
        std::vector<float> dist(static_cast<size_t>(count));
        nearest_centroid(rows, fnorms.data(), C, cnorms, every, labels.data() + begin, dist.data(), isa);
    });
    return labels;
}

/// What Sculley's update reads from a batch: each centre's weighted sum of the features of
/// the rows nearest to it (k × r) and their weight, summed in row order.
struct BatchSums {
    BatchSums(int64_t k, int64_t r) : sums(static_cast<size_t>(k * r), 0.0), got(static_cast<size_t>(k), 0.0) {}
    std::vector<double> sums;
    std::vector<double> got;
};

/// Adds the features F of the batch's rows [begin, begin + F.rows) to their centres' sums.
void add_rows(const Matrix& F, const std::vector<float>& w, int64_t begin, const std::vector<int32_t>& labels,
              BatchSums& b) {
    const int64_t r = F.cols;
    for (int64_t i = 0; i < F.rows; ++i) {
        const double wi = w.empty() ? 1.0 : w[static_cast<size_t>(begin + i)];
        const auto j = static_cast<size_t>(labels[static_cast<size_t>(i)]);
        b.got[j] += wi;
        for (int64_t t = 0; t < r; ++t) b.sums[j * static_cast<size_t>(r) + static_cast<size_t>(t)] += wi * F.row(i)[t];
    }
}

/// Sculley's update of every centre with the batch's rows nearest to it: the running mean.
void move_centres(const BatchSums& b, Matrix& C, std::vector<double>& mass) {
    const int64_t k = C.rows, r = C.cols;
    for (int64_t j = 0; j < k; ++j) {
        const double v = mass[static_cast<size_t>(j)], got = b.got[static_cast<size_t>(j)];
        if (!(got > 0)) continue;
        for (int64_t t = 0; t < r; ++t) {
            const double sum = b.sums[static_cast<size_t>(j * r + t)];
            C.row(j)[t] = static_cast<float>((v * C.row(j)[t] + sum) / (v + got));
        }
        mass[static_cast<size_t>(j)] = v + got;
    }
}

/// The batch's rows transformed at once: whole row blocks, about kChunkFeatureBytes of
/// features, at least a block per thread.
constexpr double kChunkFeatureBytes = 8.0 * 1048576.0;
int64_t chunk_rows(int64_t n, int64_t r, int threads) {
    const auto by_size =
        static_cast<int64_t>(kChunkFeatureBytes / (4.0 * static_cast<double>(std::max<int64_t>(r, 1))));
    const int64_t blocks = std::max<int64_t>(threads, by_size / kRowBlock);
    return std::min(n, blocks * kRowBlock);
}

/// Bytes a later batch of n rows holds (beside the models): a chunk's features and labels
/// with each worker's transform and nearest-centre blocks, the sums and the new centres; then
/// the batch's labels and distances (record_batch) with the assignment's blocks.
double batch_footprint(const FeatureMap& map, int64_t n, int64_t k, int threads) {
    const auto r = static_cast<double>(map.dim()), kd = static_cast<double>(k);
    const RowBlocks b = row_blocks(static_cast<double>(n), threads);
    const double block = b.workers * (map.block_footprint(b.rows) + Matrix::footprint(b.rows, kd) + 8 * b.rows);
    const auto chunk = static_cast<double>(chunk_rows(n, map.dim(), threads));
    const double update = Matrix::footprint(chunk, r) + 4 * chunk + block + 8 * kd * (r + 1) + Matrix::footprint(kd, r);
    const double record = 8 * static_cast<double>(n) + block + Matrix::footprint(kd, r);
    return std::max(update, record);
}

std::unique_ptr<FittedModel> next_batch(const FittedModel& previous, ConstMatrix X, const std::vector<float>& w) {
    const auto start = std::chrono::steady_clock::now();
    const Params& p = previous.params();
    const int threads = resolve_threads(p.threads);
    StreamState s = state_of(previous);
    check_batch(previous, X, threads, batch_footprint(*s.map, X.rows, p.k, threads),
                "the batch's features chunk by chunk, the centres' sums, the batch's labels and distances");
    progress_begin("features");  // the batch's transform polls: a cancel stops it there
    // Chunk by chunk: every row's nearest centre is the one before the update (Sculley).
    BatchSums sums(s.centres.rows, s.centres.cols);
    const int64_t chunk = chunk_rows(X.rows, s.map->dim(), threads);
    for (int64_t begin = 0; begin < X.rows; begin += chunk) {
        const Matrix F = transform_all(*s.map, X.slice(begin, std::min(chunk, X.rows - begin)), threads);
        add_rows(F, w, begin, nearest(F, s.centres, previous.report().isa, threads), sums);
    }
    std::vector<double> mass = previous.report().mass;
    move_centres(sums, s.centres, mass);
    std::vector<char> alive(mass.size());
    for (size_t j = 0; j < mass.size(); ++j) alive[j] = mass[j] > 0 ? 1 : 0;
    auto model = std::make_unique<FeatureModel>(p, X.rows, X.cols, later_report(previous, 1), s.map,
                                                std::move(s.centres), s.kernel_distances, std::move(alive));
    record_batch(*model, X, w, std::move(mass), false, start, threads);
    return model;
}

}  // namespace

void check_batch(const FittedModel& previous, ConstMatrix X, int threads, double need, const std::string& detail) {
    if (X.cols != previous.input_dim()) {
        invalid_argument("X has d=" + std::to_string(X.cols) +
                         " columns but the stream's earlier batches had d=" + std::to_string(previous.input_dim()));
    }
    const Params& p = previous.params();
    const MemoryLedger ledger(p.max_memory_mb);
    ledger.require("kkm_partial_fit (method=" + std::string(to_text(p.method)) + ")", need, detail,
                   "give it smaller batches");
    scan_rows(X, {}, Moments::none, 0, threads);
}

FitReport later_report(const FittedModel& previous, int64_t iterations) {
    FitReport report = previous.report();
    report.labels.clear();
    report.search.clear();
    report.timings.clear();
    report.iterations = static_cast<int32_t>(std::min<int64_t>(report.iterations + iterations, INT32_MAX));
    return report;
}

void record_batch(FittedModel& model, ConstMatrix X, const std::vector<float>& w, std::vector<double> mass,
                  bool add_batch, std::chrono::steady_clock::time_point start, int threads) {
    std::vector<int32_t> labels(static_cast<size_t>(X.rows));
    std::vector<float> dist(static_cast<size_t>(X.rows));
    model.assign(X, labels.data(), dist.data(), threads);
    double objective = 0;
    for (int64_t i = 0; i < X.rows; ++i) {
        const double wi = weight_at(w, i);
        objective += wi * dist[static_cast<size_t>(i)];
        if (add_batch) mass[static_cast<size_t>(labels[static_cast<size_t>(i)])] += wi;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    model.record_assignment(std::move(labels), objective, std::move(mass), seconds);
}

bool continues_stream(const FittedModel& previous) {
    return previous.kind() != ModelKind::graph;
}

std::unique_ptr<FittedModel> partial_fit(const Params& params, const FittedModel* previous, ConstMatrix X,
                                         const std::vector<float>& weights) {
    Params p = params;
    apply_kernel_defaults(p, X.rows);
    require_streamable(p);
    if (previous != nullptr && continues_stream(*previous)) {
        if (previous->kind() == ModelKind::dual)
            return next_minibatch(static_cast<const DualModel&>(*previous), X, weights);
        return next_batch(*previous, X, weights);
    }
    if (method_traits(p.method).landmarks && p.m > X.rows) {
        invalid_argument("the first kkm_partial_fit batch has n=" + std::to_string(X.rows) +
                         " rows but the m=" + std::to_string(p.m) +
                         " landmarks are drawn from it; give a first batch of at least m rows, "
                         "or lower m");
    }
    std::unique_ptr<FittedModel> first = fit_model(params, X, weights);
    if (!continues_stream(*first)) fail(KKM_ERR_INTERNAL, "a streamed method's fit gave no model to go on from");
    return first;
}

}  // namespace kkm
