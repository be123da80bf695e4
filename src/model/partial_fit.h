// kkm_partial_fit: clustering data that arrive in batches (or do not fit in memory at all),
// for the methods whose fitted state does not need every row. The first batch is fitted as
// kkm_fit fits it; every later batch goes on from the model the stream has built so far:
//  - the feature methods (nystrom, sketch, rff): their landmarks, sketch or random features,
//    gamma=auto and the centring shift come from the first batch and stay; a later batch moves
//    the centres by Sculley's mini-batch update in the fixed feature space,
//    c_j <- (v_j c_j + sum of the batch's w_i f_i nearest to c_j) / (v_j + their weight),
//    v_j the weight c_j has received so far (the first fit's cluster masses to start), so that
//    each centre is the running mean of every point assigned to it;
//  - method=minibatch (truncated, tau > 0; partial_fit_minibatch.cpp): a later batch runs
//    min(max_iter, ceil(n / batch_size)) more iterations of the truncated mini-batch kernel
//    k-means (one pass over the batch in expectation, no early stopping) from the model's
//    centre histories and rate counts, drawing its mini-batches from the batch's rows alone.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"
#include "model/model.h"

namespace kkm {

/// Whether `previous` can go on taking batches under params: a model of the feature methods
/// (FeatureModel, or NystromModel clustered on its kernel rows) or of method=minibatch
/// (DualModel) fitted with them.
bool continues_stream(const FittedModel& previous);

/// One batch of a stream. previous: NULL (the first batch: fit_model on it) or the model the
/// stream has built so far (continues_stream, fitted with the same parameters). Returns the
/// next model: the same feature map (or kernel), the updated centres; its report holds the
/// batch's labels and objective (after the update, as scikit-learn's partial_fit), the weight
/// every centre has received (mass) and, in iterations, the first fit's iterations plus one
/// per later batch (feature methods) or plus the mini-batch iterations each ran (minibatch).
/// Throws INVALID_ARGUMENT for what needs every row (exact, minibatch with tau=0, the graph
/// kernels, kernel=precomputed, refine=hartigan), a batch of another width, a minibatch model
/// without its centre histories (a file before format 6), INVALID_DATA for NaN/Inf.
std::unique_ptr<FittedModel> partial_fit(const Params& params, const FittedModel* previous, ConstMatrix X,
                                         const std::vector<float>& weights);

// ---- shared by the later batches of partial_fit.cpp and partial_fit_minibatch.cpp

/// A later batch's rows against the stream: INVALID_ARGUMENT naming both widths when X.cols is
/// not the stream's d; OUT_OF_MEMORY naming max_memory_mb when the batch needs an estimated
/// `need` bytes (what: detail) beyond the stream's max_memory_mb, before X is read; then
/// INVALID_DATA naming the first row and column that is not finite.
void check_batch(const FittedModel& previous, ConstMatrix X, int threads, double need, const std::string& detail);

/// previous's report for the model a later batch builds: no labels, search or timings yet,
/// `iterations` more iterations.
FitReport later_report(const FittedModel& previous, int64_t iterations);

/// Labels the batch X with `model` (built by a later batch, after its update) and records the
/// labels, their weighted objective, `mass` (per centre) and the seconds since start in its
/// report. add_batch: each row's weight is first added to the mass of its centre.
void record_batch(FittedModel& model, ConstMatrix X, const std::vector<float>& w, std::vector<double> mass,
                  bool add_batch, std::chrono::steady_clock::time_point start, int threads);

/// A later batch of a method=minibatch stream (partial_fit_minibatch.cpp).
std::unique_ptr<FittedModel> next_minibatch(const DualModel& previous, ConstMatrix X, const std::vector<float>& w);

}  // namespace kkm
