#include "api/model_handle.h"

#include <utility>

#include "core/progress.h"

namespace kkm {

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
