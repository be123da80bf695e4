// kkm_partial_fit: clustering data that arrive in batches (or do not fit in memory at all),
// for the methods whose fitted state does not need every row: the feature methods (nystrom,
// sketch, rff). The first batch is fitted as kkm_fit fits it (its landmarks, sketch or random
// features, gamma=auto and the centring shift come from it and stay); every later batch
// moves the centres by Sculley's mini-batch update in the fixed feature space,
// c_j <- (v_j c_j + sum of the batch's w_i f_i nearest to c_j) / (v_j + their weight),
// v_j the weight c_j has received so far (the first fit's cluster masses to start), so that
// each centre is the running mean of every point assigned to it.
#pragma once

#include <memory>
#include <vector>

#include "core/matrix.h"
#include "core/params.h"
#include "model/model.h"

namespace kkm {

/// Whether `previous` can go on taking batches under params: a model of the feature methods
/// (FeatureModel, or NystromModel clustered on its kernel rows) fitted with them.
bool continues_stream(const FittedModel& previous);

/// One batch of a stream. previous: NULL (the first batch: fit_model on it) or the model the
/// stream has built so far (continues_stream, fitted with the same parameters). Returns the
/// next model: the same feature map, the updated centres; its report holds the batch's
/// labels and objective (after the update, as scikit-learn's partial_fit), the weight every
/// centre has received (mass) and, in iterations, the first fit's Lloyd iterations plus one
/// per later batch.
/// Throws INVALID_ARGUMENT for the methods that need every row (exact, minibatch, the graph
/// kernels, kernel=precomputed), a batch of another width, INVALID_DATA for NaN/Inf.
std::unique_ptr<FittedModel> partial_fit(const Params& params, const FittedModel* previous, ConstMatrix X,
                                         const std::vector<float>& weights);

}  // namespace kkm
