// Fork safety of the threading helpers (core/parallel.h), and the check that a team of the
// requested size can start.
#include "core/parallel.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <latch>
#include <string>
#include <system_error>
#include <thread>

#include "core/error.h"
#include "core/system_memory.h"

namespace kkm {
namespace {

// The one deliberate piece of process-wide state in the library (everything else is per
// model or per call). fork() copies only the calling thread: libgomp's worker threads stay
// behind in the parent, but the child's copy of libgomp still believes its pool is there, so
// the first region with more than one thread waits forever for them (R's
// parallel::mclapply, Python's multiprocessing). Nothing in the child can tell a dead pool
// from a live one, so the fork itself has to leave a mark: the atfork child handler sets this
// flag, and from then on every region and BLAS call of the library runs on one thread. It is
// never cleared: the child's pool stays broken for the child's whole life.
std::atomic<bool> forked_child{false};

// Runs in the child right after every fork() of the process, also the host's fork+exec
// (system(), popen): so it takes no lock and calls nothing, only a store. What else the child
// needs (one BLAS thread under LAPACK) happens when the library is next used (linalg).
void mark_forked_child() {
    forked_child.store(true, std::memory_order_relaxed);
}

// Registered when the library is loaded rather than at its first parallel region: the pool a
// child inherits may be the host's own (every OpenMP user on a thread shares libgomp's pool
// there), started before the library ran anything. A library that is loaded stays loaded
// (-z nodelete), so the handler never outlives its code.
struct ForkWatch {
    ForkWatch() { pthread_atfork(nullptr, nullptr, mark_forked_child); }
};
const ForkWatch fork_watch;

/// Threads the process runs now (Linux /proc/self/status), or 1 when it cannot be read.
int process_threads() {
    return static_cast<int>(std::clamp<uint64_t>(process_status_field("Threads:"), 1, INT32_MAX));
}

}  // namespace

void require_startable_threads(int threads) {
    if (usable_threads(threads) <= std::max(1, omp_get_num_procs())) return;
    // A team of `threads` needs threads - 1 workers; libgomp keeps the workers of earlier
    // teams, which the process's thread count includes: only the shortfall is new.
    const int needed = threads - process_threads();
    if (needed <= 0) return;
    std::latch release(1);
    std::vector<std::thread> started;
    std::string why;
    try {
        started.reserve(static_cast<size_t>(needed));
        for (int t = 0; t < needed; ++t) started.emplace_back([&release] { release.wait(); });
    } catch (const std::system_error& e) {
        why = e.what();
    } catch (const std::bad_alloc&) {
        why = "out of memory";
    }
    release.count_down();
    for (std::thread& t : started) t.join();
    if (why.empty()) return;
    fail(KKM_ERR_OUT_OF_MEMORY,
         "threads=" + std::to_string(threads) + ": the system started only " + std::to_string(started.size()) +
             " of the " + std::to_string(needed) + " more threads such a team needs (" + why +
             "): an address-space limit (ulimit -v), a process limit (ulimit -u) or the memory stops it; "
             "lower threads, or leave threads=0 (every core)");
}

bool in_forked_child() {
    return forked_child.load(std::memory_order_relaxed);
}

}  // namespace kkm
