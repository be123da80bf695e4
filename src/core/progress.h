// Progress reports and cancellation of one fit (kkm_set_progress).
//
// The C API creates one Progress per kkm_fit and installs it for the calling thread with a
// ProgressScope. Long loops poll it: the callback runs only on the fitting thread, at most
// every kPollSeconds (and at each stage start); a non-zero return marks the fit cancelled.
// Worker threads only read the cancelled flag, skip the rest of their blocks, and
// parallel_blocks then throws Error(KKM_ERR_CANCELLED) on the fitting thread. The current
// Progress is a thread_local pointer installed and removed by ProgressScope (RAII), so
// nothing outlives the fit and distinct fits on distinct threads never see each other.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "kkmeans.h"

namespace kkm {

class Progress {
public:
    /// callback may be NULL: then polls only check the (never set) cancelled flag.
    Progress(kkm_progress_fn callback, void* user_data) : callback_(callback), user_(user_data) {}

    /// The Progress installed for the calling thread, or NULL.
    static Progress* current();

    /// A new stage starts: reports (name, 0) at once. Fitting thread only.
    void begin(const char* name);
    /// Loop fractions reported by poll_loop map to [lo, hi] of the current stage.
    void range(double lo, double hi);
    /// Reports `fraction` of the current stage if kPollSeconds have passed since the last
    /// report (or force). Throws Error(KKM_ERR_CANCELLED) if the callback asks to stop.
    /// Fitting thread only.
    void poll(double fraction, bool force = false);
    /// As poll with the stage's fraction as it stands: for long steps that cannot tell how
    /// much of their stage they have done (the eigen-decomposition, beside the kernel rows).
    /// While other threads run a loop beside the step (share_loop), the fraction is theirs.
    /// Fitting thread only.
    void check() { poll(shared_fraction()); }
    /// Blocks other threads have finished (`done`, of `total`) while the fitting thread runs
    /// a long step beside them (parallel_blocks_beside): check() reports lo + (hi − lo) ·
    /// done / total meanwhile. NULL stops it. Fitting thread only.
    void share_loop(const std::atomic<int64_t>* done, int64_t total) noexcept {
        shared_done_ = done;
        shared_total_ = total;
    }
    /// As poll(lo + (hi − lo) · done / total) with [lo, hi] from range(), but never throws:
    /// a cancel is recorded for cancelled() (for use inside parallel regions).
    void poll_loop(int64_t done, int64_t total) noexcept;
    /// Reports (stage, 1) at the end of a successful fit; the return value is ignored.
    void finish() noexcept;

    /// Whether the callback asked to stop. Any thread.
    bool cancelled() const noexcept { return cancelled_.load(std::memory_order_relaxed); }
    /// Throws Error(KKM_ERR_CANCELLED) naming the stage if cancelled(). Fitting thread only.
    void throw_if_cancelled() const;

    static constexpr double kPollSeconds = 0.1;

private:
    bool call(double fraction) noexcept;  ///< true when the callback asked to stop

    using Clock = std::chrono::steady_clock;
    kkm_progress_fn callback_;
    void* user_;
    const char* stage_ = "start";
    double shared_fraction() const noexcept {
        if (shared_done_ == nullptr || shared_total_ <= 0) return fraction_;
        const auto done = static_cast<double>(shared_done_->load(std::memory_order_relaxed));
        return lo_ + (hi_ - lo_) * done / static_cast<double>(shared_total_);
    }
    double lo_ = 0, hi_ = 1, fraction_ = 0;
    const std::atomic<int64_t>* shared_done_ = nullptr;
    int64_t shared_total_ = 0;
    Clock::time_point last_ = Clock::now();
    std::atomic<bool> cancelled_{false};
    std::atomic<bool> threw_{false};  ///< the callback threw (caught in call(); cancels the fit)
};

/// Installs a Progress for the calling thread for the scope's lifetime.
class ProgressScope {
public:
    explicit ProgressScope(Progress& progress);
    ~ProgressScope();
    ProgressScope(const ProgressScope&) = delete;
    ProgressScope& operator=(const ProgressScope&) = delete;

private:
    Progress* previous_;
};

/// Shorthands for code that may run with or without a Progress installed.
inline void progress_begin(const char* stage) {
    if (Progress* p = Progress::current()) p->begin(stage);
}
inline void progress_poll(double fraction) {
    if (Progress* p = Progress::current()) p->poll(fraction);
}
/// Progress::check() if a Progress is installed for the calling thread: throws
/// Error(KKM_ERR_CANCELLED) once the callback has cancelled. Cheap (a clock read): call it
/// between pieces of work of a few milliseconds.
inline void progress_check() {
    if (Progress* p = Progress::current()) p->check();
}
inline void progress_range(double lo, double hi) {
    if (Progress* p = Progress::current()) p->range(lo, hi);
}

}  // namespace kkm
