// Fork safety of the threading helpers (core/parallel.h).
#include "core/parallel.h"

#include <pthread.h>

#include <atomic>

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

}  // namespace

bool in_forked_child() {
    return forked_child.load(std::memory_order_relaxed);
}

}  // namespace kkm
