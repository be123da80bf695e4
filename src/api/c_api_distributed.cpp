// The distributed fit behind kkm_fit_mpi (see api/fit_distributed.h for why it lives here):
// the input checks agreed over the ranks, then the fit over the ranks' rows.
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "api/api_guard.h"
#include "api/distributed_input.h"
#include "api/fit_distributed.h"
#include "api/model_handle.h"
#include "core/validate.h"

namespace {

void require_same_version(const char* caller) {
    if (caller != nullptr && std::strcmp(caller, KKM_VERSION_STRING) == 0) return;
    kkm::fail(KKM_ERR_INTERNAL, std::string("libkkmeans_mpi ") + (caller != nullptr ? caller : "(unknown)") +
                                    " runs with libkkmeans " + KKM_VERSION_STRING +
                                    ": install the two libraries of one version together");
}

std::unique_ptr<kkm::Comm> make_comm(kkm::CommFactory factory, void* context) {
    if (factory == nullptr) kkm::invalid_argument("make_comm is NULL");
    try {
        std::unique_ptr<kkm::Comm> comm = factory(context);
        kkm::require_pointer(comm.get(), "comm");
        return comm;
    } catch (const std::invalid_argument& e) {
        kkm::invalid_argument(e.what());
    }
}

/// The model's progress callback for a distributed fit: called with each rank's own progress,
/// its answer ignored. A rank that stopped alone would leave the others waiting in the next
/// collective step, so a distributed fit cannot be cancelled.
struct ProgressRelay {
    kkm_progress_fn callback;
    void* user_data;
    static int relay(const char* stage, double fraction, void* self) {
        const auto* r = static_cast<const ProgressRelay*>(self);
        r->callback(stage, fraction, r->user_data);
        return 0;
    }
};

}  // namespace

extern "C" kkm_status kkm_private_fit_distributed(const char* caller_version, kkm::CommFactory make, void* context,
                                                  kkm_model* model, const float* X, int64_t n_local, int64_t d,
                                                  const float* weights) {
    KKM_API_BEGIN
    require_same_version(caller_version);
    const std::unique_ptr<kkm::Comm> owned = make_comm(make, context);
    const kkm::Comm& comm = *owned;
    try {
        kkm::require_local_arguments(comm, model, X, n_local, d);
        const kkm::RowPartition part = kkm::agree_on_shape(comm, n_local, d);
        kkm::require_same_params(comm, model->params);
        const kkm::Params params = model->params.typed();
        const std::vector<float> w = kkm::check_local_data(comm, part, params, X, d, weights);
        kkm::agree_on_weights(comm, part, w, weights != nullptr);
        ProgressRelay relay{model->progress, model->progress_user};
        kkm::fit_into(*model, model->progress != nullptr ? &ProgressRelay::relay : nullptr, &relay,
                      [&](const kkm::Params& p) {
                          std::unique_ptr<kkm::FittedModel> fitted =
                              kkm::fit_model(p, kkm::ConstMatrix{X, n_local, d}, w, comm, nullptr, &model->start);
                          kkm::collectively(comm, [] {});  // every rank got here: none gave up after
                          return fitted;
                      });
    } catch (const kkm::CollectiveError&) {
        throw;  // every rank throws it
    } catch (const kkm::Error& e) {
        comm.abandon(e.status(), e.what());  // an error of this rank alone, between collective steps
    } catch (const std::bad_alloc&) {
        comm.abandon(KKM_ERR_OUT_OF_MEMORY, "out of memory (an allocation failed)");
    } catch (const std::exception& e) {
        comm.abandon(KKM_ERR_INTERNAL, std::string("internal error: ") + e.what());
    }
    KKM_API_END
}
