// The model behind the C API's opaque handle, and the one way a fit's result gets into it.
// Private to src/api (c_api.cpp: kkm_fit and kkm_fit_f64; c_api_distributed.cpp: the fit
// behind kkm_fit_mpi).
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "core/params.h"
#include "kkmeans.h"
#include "model/model.h"

namespace kkm {

/// The turns the writers of one model (fits, partial fits, loads) take: one at a time, the
/// others wait. A turn is held by a thread; a writer on the thread that holds it takes it
/// over: that thread's earlier writer can no longer be running (its progress callback left
/// the fit by longjmp, which kkmeans.h forbids but a C host may still do), and waiting for it
/// would hang the thread forever. Other threads then wait until that thread's next writer
/// ends.
class WriterTurns {
public:
    class Turn {
    public:
        explicit Turn(WriterTurns& turns);
        ~Turn();
        Turn(const Turn&) = delete;
        Turn& operator=(const Turn&) = delete;

    private:
        WriterTurns& turns_;
    };

private:
    std::mutex lock_;
    std::condition_variable ended_;
    bool taken_ = false;
    std::thread::id holder_;
};

/// What a fit left: the model and the parameters it was fitted with. Immutable: a fit,
/// kkm_partial_fit or a load replaces the whole of it (copy on write), so a reader holding
/// one (fitted_state) keeps it alive and consistent whatever replaces it meanwhile.
struct FittedState {
    ParamSet params;
    std::shared_ptr<const FittedModel> model;
};

}  // namespace kkm

struct kkm_model {
    kkm::ParamSet params;                ///< what the next fit uses
    kkm::Start start;                    ///< kkm_set_init_labels / kkm_set_init_centres: where the next fits start
    kkm_progress_fn progress = nullptr;  ///< kkm_set_progress
    void* progress_user = nullptr;

    /// The fitted state (NULL before a fit): read through kkm::fitted_state, replaced through
    /// kkm::replace_state, both under `state_lock` (held only to copy or swap the pointer).
    std::shared_ptr<const kkm::FittedState> fitted;
    mutable std::mutex state_lock;
    /// Held through a fit, kkm_partial_fit or load from its start to the swap: writers take
    /// turns, and each partial_fit goes on from the state the one before it left.
    kkm::WriterTurns writers;
};

namespace kkm {

/// The model's fitted state as it is now (NULL before a fit); throws INVALID_ARGUMENT for a
/// NULL model. The caller holds it: a fit replacing it meanwhile frees nothing it reads.
std::shared_ptr<const FittedState> fitted_state(const kkm_model* model);

/// The model's fitted model, held; throws INVALID_ARGUMENT for a NULL model, NOT_FITTED before
/// a fit.
std::shared_ptr<const FittedModel> fitted_of(const kkm_model* model);

/// Makes `state` the model's fitted state (cannot fail).
void replace_state(kkm_model& model, std::shared_ptr<const FittedState> state) noexcept;

/// A fit of the model's current parameters (throws kkm::Error).
using FitFn = std::function<std::unique_ptr<FittedModel>(const Params&)>;

/// Runs fit with the model's parameters (in a turn of its writers: fits, partial fits and
/// loads of one model take turns; fit may read fitted_state, the state it replaces), with a
/// Progress over (callback, user_data) installed
/// for the calling thread (callback may be NULL), and on success makes the result the
/// model's fitted state, recorded with the parameters it was fitted with, then reports the
/// end of the fit. If fit throws, the exception propagates and the model is unchanged:
/// everything that can fail happens before the model is touched.
void fit_into(kkm_model& model, kkm_progress_fn callback, void* user_data, const FitFn& fit);

}  // namespace kkm
