#include "api/model_handle.h"

#include <utility>

#include "core/error.h"
#include "core/progress.h"
#include "core/validate.h"

namespace kkm {

const FittedModel& fitted_of(const kkm_model* model) {
    require_pointer(model, "model");
    if (!model->fitted) fail(KKM_ERR_NOT_FITTED, "the model is not fitted: call kkm_fit first");
    return *model->fitted;
}

void fit_into(kkm_model& model, kkm_progress_fn callback, void* user_data, const FitFn& fit) {
    ParamSet fitted_params = model.params;  // copied first: installing the result cannot fail
    const Params params = model.params.typed();
    Progress progress(callback, user_data);
    std::shared_ptr<const FittedModel> result;
    {
        const ProgressScope scope(progress);
        result = fit(params);
    }
    model.fitted_params = std::move(fitted_params);
    model.fitted = std::move(result);
    progress.finish();
}

}  // namespace kkm
