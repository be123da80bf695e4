#include "api/model_handle.h"

#include <utility>

#include "core/error.h"
#include "core/parallel.h"
#include "core/progress.h"
#include "core/validate.h"

namespace kkm {

WriterTurns::Turn::Turn(WriterTurns& turns) : turns_(turns) {
    std::unique_lock<std::mutex> lock(turns_.lock_);
    const std::thread::id self = std::this_thread::get_id();
    turns_.ended_.wait(lock, [&] { return !turns_.taken_ || turns_.holder_ == self; });
    turns_.taken_ = true;
    turns_.holder_ = self;
}

WriterTurns::Turn::~Turn() {
    {
        const std::lock_guard<std::mutex> lock(turns_.lock_);
        turns_.taken_ = false;
    }
    turns_.ended_.notify_all();
}

std::shared_ptr<const FittedState> fitted_state(const kkm_model* model) {
    require_pointer(model, "model");
    const std::lock_guard<std::mutex> lock(model->state_lock);
    return model->fitted;
}

std::shared_ptr<const FittedModel> fitted_of(const kkm_model* model) {
    const std::shared_ptr<const FittedState> state = fitted_state(model);
    if (!state) fail(KKM_ERR_NOT_FITTED, "the model is not fitted: call kkm_fit first");
    return state->model;
}

void replace_state(kkm_model& model, std::shared_ptr<const FittedState> state) noexcept {
    std::shared_ptr<const FittedState> old;  // freed after the lock is released
    const std::lock_guard<std::mutex> lock(model.state_lock);
    old = std::exchange(model.fitted, std::move(state));
}

void fit_into(kkm_model& model, kkm_progress_fn callback, void* user_data, const FitFn& fit) {
    const WriterTurns::Turn turn(model.writers);
    auto state = std::make_shared<FittedState>();
    state->params = model.params;  // copied first: installing the result cannot fail
    const Params params = model.params.typed();
    require_startable_threads(resolve_threads(params.threads));
    Progress progress(callback, user_data);
    {
        const ProgressScope scope(progress);
        state->model = fit(params);
    }
    replace_state(model, std::move(state));
    progress.finish();
}

}  // namespace kkm
