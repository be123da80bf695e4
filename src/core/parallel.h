// Threading helpers: a thread count passed per call (never global state), and a parallel
// loop over fixed blocks that captures the first exception thrown inside the OpenMP region
// and rethrows it after the region (no exception may leave an OpenMP region). In a forked
// child every region runs on one thread (usable_threads, core/parallel.cpp).
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "core/progress.h"

namespace kkm {

/// True in a process forked (at any depth) after the library was loaded: OpenMP's thread
/// pool does not survive fork, so a region with more threads than one hangs there (see
/// core/parallel.cpp).
bool in_forked_child();

/// The threads a parallel region or a BLAS call may use now: `requested`, or 1 in a forked
/// child. Results never depend on the thread count, so a child computes what its parent would.
inline int usable_threads(int requested) {
    return in_forked_child() ? 1 : requested;
}

/// Resolves the `threads` parameter: 0 means every core OpenMP reports.
inline int resolve_threads(int64_t requested) {
    if (requested > 0) return static_cast<int>(requested);
    return std::max(1, omp_get_num_procs());
}

/// Throws OUT_OF_MEMORY naming `threads` when a team of that many threads cannot start: more
/// threads than cores (an explicit threads=) are started once beforehand, so that a failure
/// is a status instead of libgomp ending the process. At most the cores: nothing is done.
void require_startable_threads(int threads);

/// Work (arithmetic, see fit_work in model/fit.cpp) that each thread of an automatic thread
/// count gets at least. Measured on AMD EPYC Zen 5 (2 cores, idle), median of 9 fits with
/// d = 9, k = 11: a second thread first saves more than 10 % at 2.5-4·10⁶ (exact n ≈ 600,
/// Nyström and RFF with auto m at n ≈ 1000, mini-batch n ≈ 400); below, fork/join and barriers
/// cost what it saves, and on a loaded machine several milliseconds per fit.
inline constexpr double kMinWorkPerThread = 1.5e6;

/// The thread count of a job of `work` units: an explicit request as given; 0 (auto): every
/// core, but no more threads than work / kMinWorkPerThread, so a small job runs on one
/// thread (no OpenMP region at all, see parallel_blocks). Results never depend on it.
inline int resolve_threads(int64_t requested, double work) {
    const int cores = resolve_threads(requested);
    if (requested > 0) return cores;
    const double useful = std::floor(work / kMinWorkPerThread);
    return static_cast<int>(std::clamp(useful, 1.0, static_cast<double>(cores)));
}

/// The calling thread's slot among `slots` per-thread buffers. Inside parallel_blocks it is the
/// thread's number in the loop's team; a loop run serially (one thread, no OpenMP region)
/// may run on a thread of the caller's own OpenMP team (a host calling kkm_fit from its
/// parallel region), whose number can exceed the slots: only one thread runs then, so the
/// last slot serves it.
inline size_t thread_slot(size_t slots) {
    return std::min(static_cast<size_t>(omp_get_thread_num()), slots - 1);
}

/// One T per thread of a parallel loop: scratch that each thread reuses across its blocks
/// (instead of allocating, and faulting in, a fresh buffer per block).
template <class T>
class PerThread {
public:
    explicit PerThread(int threads) : items_(static_cast<size_t>(std::max(threads, 1))) {}
    /// The calling thread's T.
    T& local() { return items_[thread_slot(items_.size())]; }

private:
    std::vector<T> items_;
};

/// Number of blocks of `block` items covering n items.
inline int64_t block_count(int64_t n, int64_t block) {
    return (n + block - 1) / block;
}

/// Runs fn(b) for b in [0, nblocks) in order on the calling thread, with parallel_blocks'
/// progress reports and cancellation.
template <class Fn>
void serial_blocks(Progress* progress, int64_t nblocks, Fn&& fn) {
    for (int64_t b = 0; b < nblocks; ++b) {
        fn(b);
        if (progress != nullptr) {
            progress->poll_loop(b + 1, nblocks);
            progress->throw_if_cancelled();
        }
    }
}

/// Runs fn(b) for every block index b in [0, nblocks) on `threads` threads. Blocks are
/// independent, so the results never depend on the thread count. The first exception
/// thrown by any block is rethrown here after all threads have finished.
/// During a fit with a progress callback (core/progress.h), the calling thread reports the
/// loop's progress between its blocks; once the callback cancels, the remaining blocks are
/// skipped and Error(KKM_ERR_CANCELLED) is thrown here.
template <class Fn>
void parallel_blocks(int threads, int64_t nblocks, Fn&& fn) {
    Progress* const progress = Progress::current();  // the calling thread's, or NULL
    if (progress != nullptr) progress->throw_if_cancelled();
    threads = usable_threads(threads);
    if (threads <= 1 || nblocks <= 1) {  // no OpenMP region at all (libomp leaks in if(false) ones)
        serial_blocks(progress, nblocks, fn);
        return;
    }
    std::exception_ptr error;
    std::mutex error_mutex;
    std::atomic<int64_t> done{0};
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
    for (int64_t b = 0; b < nblocks; ++b) {
        if (progress != nullptr && progress->cancelled()) continue;
        try {
            fn(b);
        } catch (...) {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
        }
        if (progress != nullptr) {
            const int64_t finished = done.fetch_add(1, std::memory_order_relaxed) + 1;
            if (omp_get_thread_num() == 0) progress->poll_loop(finished, nblocks);
        }
    }
    if (error) std::rethrow_exception(error);
    if (progress != nullptr) progress->throw_if_cancelled();
}

/// As parallel_blocks, while the first thread first runs `side` (e.g. a single-threaded
/// LAPACK call), so the other threads are not idle meanwhile. The blocks are still
/// independent, so results never depend on the thread count. On one thread: `side`, then the
/// blocks in order, without an OpenMP region.
template <class Side, class Fn>
void parallel_blocks_beside(int threads, Side&& side, int64_t nblocks, Fn&& fn) {
    Progress* const progress = Progress::current();
    if (progress != nullptr) progress->throw_if_cancelled();
    if (usable_threads(threads) <= 1) {
        side();
        serial_blocks(progress, nblocks, fn);
        return;
    }
    std::exception_ptr error;
    std::mutex error_mutex;
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> finished{0};  // what the side's polls report (Progress::share_loop)
    auto guarded = [&](auto&& work) {
        try {
            work();
        } catch (...) {
            std::lock_guard<std::mutex> lock(error_mutex);
            if (!error) error = std::current_exception();
        }
    };
    if (progress != nullptr) progress->share_loop(&finished, nblocks);
#pragma omp parallel num_threads(threads)
    {
        if (omp_get_thread_num() == 0) {
            guarded(side);
            if (progress != nullptr) progress->share_loop(nullptr, 0);
        }
        for (int64_t b = next++; b < nblocks; b = next++) {
            if (progress != nullptr && progress->cancelled()) continue;
            guarded([&] { fn(b); });
            finished.fetch_add(1, std::memory_order_relaxed);
            if (progress != nullptr && omp_get_thread_num() == 0) progress->poll_loop(b + 1, nblocks);
        }
    }
    if (error) std::rethrow_exception(error);
    if (progress != nullptr) progress->throw_if_cancelled();
}

}  // namespace kkm
