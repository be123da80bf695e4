// The model behind the C API's opaque handle, and the one way a fit's result gets into it.
// Private to src/api (c_api.cpp: kkm_fit and kkm_fit_f64; c_api_distributed.cpp: the fit
// behind kkm_fit_mpi).
#pragma once

#include <functional>
#include <memory>

#include "core/params.h"
#include "kkmeans.h"
#include "model/model.h"

struct kkm_model {
    kkm::ParamSet params;         ///< what the next fit uses
    kkm::ParamSet fitted_params;  ///< what the fitted model was fitted with
    std::shared_ptr<const kkm::FittedModel> fitted;
    kkm::Start start;  ///< kkm_set_init_labels / kkm_set_init_centres: where the next fits start
    kkm_progress_fn progress = nullptr;  ///< kkm_set_progress
    void* progress_user = nullptr;
};

namespace kkm {

/// The model's fitted state; throws INVALID_ARGUMENT for a NULL model, NOT_FITTED before a fit.
const FittedModel& fitted_of(const kkm_model* model);

/// A fit of the model's current parameters (throws kkm::Error).
using FitFn = std::function<std::unique_ptr<FittedModel>(const Params&)>;

/// Runs fit with the model's parameters, with a Progress over (callback, user_data) installed
/// for the calling thread (callback may be NULL), and on success makes the result the
/// model's fitted state, recorded with the parameters it was fitted with, then reports the
/// end of the fit. If fit throws, the exception propagates and the model is unchanged:
/// everything that can fail happens before the model is touched.
void fit_into(kkm_model& model, kkm_progress_fn callback, void* user_data, const FitFn& fit);

}  // namespace kkm
