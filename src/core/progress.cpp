#include "core/progress.h"

#include <algorithm>

#include "core/error.h"

namespace kkm {
namespace {

thread_local Progress* tl_current = nullptr;

}  // namespace

Progress* Progress::current() {
    return tl_current;
}

ProgressScope::ProgressScope(Progress& progress) : previous_(tl_current) {
    tl_current = &progress;
}

ProgressScope::~ProgressScope() {
    tl_current = previous_;
}

bool Progress::call(double fraction) noexcept {
    last_ = Clock::now();
    // Within a stage the reported fraction never goes back: nested loops (seeding inside the
    // mini-batch stage, several parallel loops per iteration) each estimate their own share,
    // and a caller's progress bar must not jump backwards.
    fraction_ = std::max(std::clamp(fraction, 0.0, 1.0), fraction_);
    if (callback_ == nullptr) return false;
    // The callback runs with no Progress installed for this thread: the library calls it
    // makes are not part of the fit, and should it leave by longjmp (which kkmeans.h forbids)
    // no thread-local pointer is left at this frame. A C++ exception from it is caught here
    // (it must not cross a parallel region) and cancels the fit.
    Progress* const installed = tl_current;
    tl_current = nullptr;
    bool stop = false;
    try {
        stop = callback_(stage_, fraction_, user_) != 0;
    } catch (...) {
        threw_.store(true, std::memory_order_relaxed);
        stop = true;
    }
    tl_current = installed;
    return stop;
}

void Progress::begin(const char* name) {
    stage_ = name;
    lo_ = 0;
    hi_ = 1;
    fraction_ = 0;
    throw_if_cancelled();
    if (call(0.0)) cancelled_ = true;
    throw_if_cancelled();
}

void Progress::range(double lo, double hi) {
    lo_ = lo;
    hi_ = hi;
}

void Progress::poll(double fraction, bool force) {
    throw_if_cancelled();
    if (force || Clock::now() - last_ >= std::chrono::duration<double>(kPollSeconds)) {
        if (call(fraction)) cancelled_ = true;
    }
    throw_if_cancelled();
}

void Progress::poll_loop(int64_t done, int64_t total) noexcept {
    if (cancelled() || Clock::now() - last_ < std::chrono::duration<double>(kPollSeconds)) return;
    const double f = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    if (call(lo_ + (hi_ - lo_) * f)) cancelled_ = true;
}

void Progress::finish() noexcept {
    stage_ = "done";
    call(1.0);
}

void Progress::throw_if_cancelled() const {
    if (threw_.load(std::memory_order_relaxed)) {
        fail(KKM_ERR_CANCELLED, std::string("the progress callback threw an exception (stage '") + stage_ +
                                    "'): the fit was cancelled and the model is unchanged; a callback must not throw");
    }
    if (cancelled()) {
        fail(KKM_ERR_CANCELLED, std::string("the fit was cancelled by the progress callback (stage '") + stage_ +
                                    "'); the model is unchanged");
    }
}

}  // namespace kkm
