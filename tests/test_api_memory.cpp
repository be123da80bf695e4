// max_memory_mb is a bound on what a fit really holds. For every method, solver, sampling and
// sketch (and float64 input, a precomputed kernel, a mini-batch larger than the data, a
// stream's later batch, a given graph), in a
// fresh process each (tests/memory_probe.cpp, its path in KKM_MEMORY_PROBE):
//  - the least budget the fit accepts is found from its refusals (each names the estimate:
//    "needs an estimated N MiB", or for the float64 copy the running total);
//  - with that budget the fit succeeds, and its peak resident set above the resident set
//    before it (the input already allocated and touched) stays within 10 % of the budget
//    plus kRuntimeMiB for the runtime the fit brings up (OpenMP worker threads and their
//    stacks, the BLAS's thread pool and packing buffers, the C++ runtime's first exception):
//    measured at 0.7-3.5 MiB on the machines these tests ran on;
//  - one MiB less is refused with KKM_ERR_OUT_OF_MEMORY naming max_memory_mb, before the fit
//    allocates anything of its own (the peak stays within kRuntimeMiB).
// Each line of the table the test prints is one combination: budget, peak growth, ratio.
//
// Also: a fit over max_memory_mb is refused before any stage starts, with the estimate and the
// budget in the message, and leaves a fitted model as it was; an allocation that really fails
// inside a fit is KKM_ERR_OUT_OF_MEMORY, never an abort.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"
#include "sanitized.h"

using namespace kkm_test;

namespace {

// Under a sanitizer the statuses and messages are still checked, the resident sizes are not.
constexpr bool kMeasured = !kSanitized;

constexpr double kRuntimeMiB = 5.0;  // the runtime's own memory, see above
constexpr double kSlack = 0.10;      // the bound: budget · (1 + kSlack) + kRuntimeMiB

struct Probe {
    int status = -1;
    double grow_mib = 0;  // peak resident set above the resident set before the fit
    std::string message;
};

/// Runs memory_probe once: N rows of D columns (input f32, f64 or K) fitted with params.
Probe probe(int64_t n, int64_t d, const char* input, const std::string& params) {
    // meson test sets MALLOC_PERTURB_, which makes glibc write every block it hands out or
    // takes back: the BLAS's packing pool (blocks of its full cache-block size, about 35 MiB
    // on BLIS, kept for the life of the process and touched only as far as a product needs)
    // would then be resident in full, whatever the fit. The probe measures the fit, not that.
    setenv("MALLOC_PERTURB_", "0", 1);
    const char* path = std::getenv("KKM_MEMORY_PROBE");
    if (path == nullptr) {
        ADD_FAILURE() << "KKM_MEMORY_PROBE is not set (tests/meson.build sets it to memory_probe's path)";
        return {};
    }
    const std::string command = std::string("'") + path + "' " + std::to_string(n) + " " + std::to_string(d) + " " +
                                input + " '" + params + "'";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        ADD_FAILURE() << "cannot run " << command;
        return {};
    }
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
    const int rc = pclose(pipe);
    // status=<int> before_kib=<int> peak_kib=<int> maxrss_kib=<int> message=<rest of the line>
    int status = -1, consumed = 0;
    long before = 0, peak = 0, maxrss = 0;
    const int fields = std::sscanf(out.c_str(), "status=%d before_kib=%ld peak_kib=%ld maxrss_kib=%ld message=%n",
                                   &status, &before, &peak, &maxrss, &consumed);
    if (rc != 0 || fields != 4 || consumed == 0) {
        ADD_FAILURE() << command << " exited with " << rc << " and printed: " << out;
        return {};
    }
    Probe p;
    p.status = status;
    p.grow_mib = static_cast<double>(peak - before) / 1024.0;
    p.message = out.substr(static_cast<size_t>(consumed));
    if (!p.message.empty() && p.message.back() == '\n') p.message.pop_back();
    return p;
}

/// The number after `prefix` in a message, or -1.
double number_after(const std::string& message, const std::string& prefix) {
    const size_t at = message.find(prefix);
    if (at == std::string::npos) return -1;
    return std::atof(message.c_str() + at + prefix.size());
}

struct Case {
    const char* name;
    int64_t n;
    int64_t d;
    const char* input;    // f32, f64 (kkm_fit_f64) or K (an n×n precomputed kernel)
    const char* params;   // besides max_memory_mb
    bool stored = false;  // exact: the budget that stores the n×n kernel, not the least one
    int threads = 2;
    bool wide = false;  // also: the estimate is not far above the peak (no false refusal)
};

const Case kCases[] = {
    {"exact_stored", 5000, 16, "f32", "k=4 method=exact max_iter=10", true},
    {"exact_recomputed", 6000, 8, "f32", "k=4 method=exact max_iter=3"},
    {"exact_precomputed", 3000, 0, "K", "k=3 method=exact kernel=precomputed max_iter=10"},
    {"nystrom_uniform", 20000, 8, "f32", "k=4 method=nystrom m=500 max_iter=20"},
    {"nystrom_kmeanspp", 20000, 8, "f32", "k=4 method=nystrom m=200 sampling=kmeanspp max_iter=20"},
    {"nystrom_rls", 10000, 8, "f32", "k=4 method=nystrom m=400 sampling=rls max_iter=20"},
    {"nystrom_rank", 20000, 8, "f32", "k=4 method=nystrom m=500 rank=10 max_iter=20"},
    {"nystrom_f32_rows", 20000, 8, "f32", "k=4 method=nystrom m=300 kernel_rows=f32 max_iter=20"},
    {"nystrom_precomputed", 3000, 0, "K", "k=3 method=nystrom m=300 kernel=precomputed max_iter=20"},
    {"nystrom_solver_minibatch", 20000, 8, "f32", "k=4 method=nystrom m=500 solver=minibatch max_iter=20"},
    {"nystrom_solver_minibatch_rank", 20000, 8, "f32", "k=4 method=nystrom m=500 rank=10 solver=minibatch max_iter=20"},
    {"sketch_subgaussian", 20000, 8, "f32", "k=4 method=sketch m=400 max_iter=20"},
    {"sketch_ros", 20000, 8, "f32", "k=4 method=sketch m=300 sketch=ros max_iter=20"},
    {"sketch_gaussian", 20000, 8, "f32", "k=4 method=sketch m=400 sketch=gaussian max_iter=20"},
    {"sketch_identity", 20000, 8, "f32", "k=4 method=sketch m=400 sketch=identity max_iter=20"},
    {"rff", 20000, 8, "f32", "k=4 method=rff m=500 max_iter=20"},
    {"rff_float64_input", 20000, 64, "f64", "k=4 method=rff m=200 max_iter=20"},
    {"minibatch", 20000, 8, "f32", "k=4 method=minibatch max_iter=20"},
    {"minibatch_untruncated", 5000, 8, "f32", "k=4 method=minibatch tau=0 batch_size=512 max_iter=10"},
    {"minibatch_large_batch", 500, 8, "f32", "k=4 method=minibatch batch_size=20000 max_iter=5"},
    // The anchor graph (issue 58): sample, lists, p x p eigenproblem, features (twice for knn).
    {"heat_anchor", 30000, 8, "f32", "k=4 kernel=heat graph=anchor anchors=400 max_iter=20"},
    {"knn_anchor", 30000, 8, "f32", "k=4 kernel=knn graph=anchor anchors=400 max_iter=20"},
    // Wide data (issue 26): every thread was charged a 252-row block of d columns even for
    // n = 2, so 2 x 1,000,000 with m=2 was refused at 5951 MiB (peak 289 MiB), and at 64
    // threads every fit with d >= ~30k was refused. A block holds min(n, 252) rows, and no
    // more threads hold one than there are blocks.
    {"wide_nystrom", 2, 1000000, "f32", "k=2 method=nystrom m=2", false, 2, true},
    {"wide_sketch", 2, 1000000, "f32", "k=2 method=sketch m=2", false, 2, true},
    {"wide_rff", 2, 1000000, "f32", "k=2 method=rff m=2", false, 2, true},
    {"wide_minibatch", 2, 1000000, "f32", "k=2 method=minibatch", false, 2, true},
    {"wide_exact", 2, 1000000, "f32", "k=2 method=exact", false, 2, true},
    {"wide_64_threads_nystrom", 100, 50000, "f32", "k=2 method=nystrom m=20", false, 64, true},
    {"wide_64_threads_exact", 100, 50000, "f32", "k=2 method=exact", false, 64, true},
    {"wide_64_threads_minibatch", 100, 50000, "f32", "k=2 method=minibatch max_iter=5", false, 64, true},
    {"wide_64_threads_heat", 100, 50000, "f32", "k=2 kernel=heat", false, 64, true},
    // A stream's later batch (issue 60): it held all its n x m features (a 400000-row batch
    // used 1.5 GiB with nystrom, 3.0 GiB with rff, under max_memory_mb=64) and never checked
    // the budget; now it transforms chunk by chunk, after its own up-front check.
    {"stream_nystrom_later_batch", 200000, 8, "S", "k=4 method=nystrom m=300"},
    {"stream_rff_later_batch", 200000, 8, "S", "k=4 method=rff m=500"},
    {"stream_minibatch_later_batch", 60000, 8, "S", "k=4 method=minibatch"},
    // A given graph (kkm_fit_graph, issue 60): the estimate counted 2 n 30 entries, not the
    // graph's (16 MiB accepted what used 122 MiB); a ring of 20000 nodes with 2 x 50 edges each.
    {"graph_given_heat", 20000, 50, "G", "k=2 kernel=heat"},
    {"graph_given_knn", 20000, 50, "G", "k=2 kernel=knn"},
    // A ring (2 entries per node): shift-invert's sparse factor instead of Lanczos.
    {"graph_given_ring_shift_invert", 100000, 1, "G", "k=2 kernel=heat"},
};

class Budget : public ::testing::TestWithParam<Case> {};

TEST_P(Budget, AcceptedFitStaysWithinItAndOneMiBLessIsRefusedFirst) {
    const Case& c = GetParam();
    // One restart for the point kernels (the graph kernels keep their ten): restarts reuse
    // the same buffers, so they change the time of these fits, not their peak.
    const std::string params =
        kkm_test::one_restart_unless_given(c.params) + " threads=" + std::to_string(c.threads) + " ";
    // The least accepted budget, from the refusals: each names the estimate (or the running
    // total when the float64 copy alone is over), which the next try gives.
    // A stream's first batch may be refused first, then its later batch (a higher estimate).
    int64_t least = 1, stored = -1;
    Probe first;
    for (int attempt = 0; attempt < 4; ++attempt) {
        first = probe(c.n, c.d, c.input, params + "max_memory_mb=" + std::to_string(least));
        if (first.status != KKM_ERR_OUT_OF_MEMORY) break;
        if (stored < 0) stored = static_cast<int64_t>(number_after(first.message, "storing the n x n kernel needs "));
        const double estimate = number_after(first.message, "needs an estimated ");
        if (estimate > 0) {
            ASSERT_GT(static_cast<int64_t>(estimate), least) << first.message;
            least = static_cast<int64_t>(estimate);
            continue;
        }
        const double total = number_after(first.message, "running total ");
        ASSERT_GT(total, 0) << first.message;
        least = static_cast<int64_t>(std::ceil(total));
    }
    ASSERT_TRUE(first.status == KKM_OK || first.status == KKM_ERR_OUT_OF_MEMORY) << first.message;
    const int64_t budget = c.stored ? stored : least;
    ASSERT_GT(budget, 0) << first.message;

    const Probe fit = budget == least && first.status == KKM_OK
                          ? first
                          : probe(c.n, c.d, c.input, params + "max_memory_mb=" + std::to_string(budget));
    ASSERT_EQ(fit.status, KKM_OK) << "max_memory_mb=" << budget << ": " << fit.message;
    const double bound = static_cast<double>(budget) * (1 + kSlack) + kRuntimeMiB;
    std::printf("    %-30s max_memory_mb=%5lld  peak above input %7.1f MiB  ratio %.2f\n", c.name,
                static_cast<long long>(budget), fit.grow_mib, fit.grow_mib / static_cast<double>(budget));
    if (kMeasured) {
        EXPECT_LE(fit.grow_mib, bound) << "max_memory_mb=" << budget;
        if (c.wide) {
            EXPECT_LE(static_cast<double>(budget), 2 * fit.grow_mib + 16) << "the estimate is far above the peak";
        }
    }

    if (c.stored || budget <= 1) return;  // below the stored budget exact recomputes its rows
    const std::string below = "max_memory_mb=" + std::to_string(budget - 1);
    const Probe refused = probe(c.n, c.d, c.input, params + below);
    EXPECT_EQ(refused.status, KKM_ERR_OUT_OF_MEMORY) << below << ": " << refused.message;
    EXPECT_NE(refused.message.find(below), std::string::npos) << refused.message;
    if (kMeasured) {
        EXPECT_LE(refused.grow_mib, kRuntimeMiB) << "memory was allocated before the refusal: " << refused.message;
    }
}

INSTANTIATE_TEST_SUITE_P(EveryMethod, Budget, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// The examples: a mini-batch of 20 million points on 60 rows under 64 MiB (it once
// reached 1.26 GB) is refused up front (or would have to stay within the budget), with the
// kernel's mini-batch method and with Sculley's on features.
TEST(Budget, HugeBatchOnFewRowsIsRefusedOrStaysWithinTheBudget) {
    for (const char* method : {"method=minibatch", "method=minibatch tau=0", "method=nystrom solver=minibatch",
                               "method=rff solver=minibatch"}) {
        SCOPED_TRACE(method);
        const Probe p = probe(60, 2, "f32", std::string("k=3 batch_size=20000000 max_memory_mb=64 ") + method);
        if (p.status == KKM_OK) {
            if (kMeasured) {
                EXPECT_LE(p.grow_mib, 64.0 * (1 + kSlack) + kRuntimeMiB);
            }
        } else {
            EXPECT_EQ(p.status, KKM_ERR_OUT_OF_MEMORY) << p.message;
            for (const char* word : {"estimated", "max_memory_mb=64", "batch_size"}) {
                EXPECT_NE(p.message.find(word), std::string::npos) << word << " missing from: " << p.message;
            }
            if (kMeasured) {
                EXPECT_LE(p.grow_mib, kRuntimeMiB);
            }
        }
    }
}

// kkm_fit_f64's float32 copy counts against the budget: over it, the fit is refused before
// the copy is made (naming the stage, float64, the running total and max_memory_mb); with
// room for the copy but not for the fit, the fit's estimate refuses it, still before the copy.
TEST(Budget, Float64CopyOverTheBudgetIsRefusedBeforeItIsMade) {
    const Probe copy = probe(20000, 64, "f64", "k=4 method=rff m=200 max_memory_mb=4");  // 4.9 MiB copy
    EXPECT_EQ(copy.status, KKM_ERR_OUT_OF_MEMORY) << copy.message;
    for (const char* word : {"'input'", "float64", "running total", "max_memory_mb=4"}) {
        EXPECT_NE(copy.message.find(word), std::string::npos) << word << " missing from: " << copy.message;
    }
    if (kMeasured) {
        EXPECT_LE(copy.grow_mib, kRuntimeMiB) << "the copy was made before the refusal";
    }
    const Probe fit = probe(20000, 64, "f64", "k=4 method=rff m=200 max_memory_mb=8");
    EXPECT_EQ(fit.status, KKM_ERR_OUT_OF_MEMORY) << fit.message;
    for (const char* word : {"needs an estimated", "already in use", "max_memory_mb=8"}) {
        EXPECT_NE(fit.message.find(word), std::string::npos) << word << " missing from: " << fit.message;
    }
    if (kMeasured) {
        EXPECT_LE(fit.grow_mib, kRuntimeMiB) << "the copy was made before the refusal";
    }
}

}  // namespace

// ================================================================== refused before the fit starts

TEST(Memory, ExactOverBudget) {
    // 300000 × 2 floats: the training copy alone (2.4 MB) exceeds max_memory_mb=1, and the
    // kernel matrix (360 GB) far more. The estimate must fail before any work is done.
    Model m = make_model("k=2 method=exact kernel=rbf gamma=1 max_memory_mb=1");
    const int64_t n = 300000;
    const int64_t d = 2;
    std::vector<float> X(static_cast<size_t>(n * d));
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> U(0.0f, 1.0f);
    for (auto& x : X) x = U(gen);
    EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), n, d, nullptr), KKM_ERR_OUT_OF_MEMORY, {"max_memory_mb"}));
    int64_t n_train = 0;
    EXPECT_EQ(kkm_get_n_train(m.get(), &n_train), KKM_ERR_NOT_FITTED);
}
// Every method estimates its peak before it starts: over max_memory_mb it fails with the
// estimate and the budget in the message, and no stage has begun (the progress callback,
// which reports every stage start, is never called).
TEST(Memory, EveryMethodRefusesBeforeStartingWithEstimateAndBudget) {
    const int64_t n = 200000, d = 4;
    std::vector<float> X(static_cast<size_t>(n * d));
    for (size_t i = 0; i < X.size(); ++i) X[i] = static_cast<float>((i * 7919) % 1000) * 0.001f;
    struct Counter {
        static int call(const char*, double, void* user) {
            ++*static_cast<int*>(user);
            return 0;
        }
    };
    for (const char* method : {"method=exact", "method=nystrom m=2000", "method=nystrom m=2000 rank=5",
                               "method=sketch m=2000", "method=sketch m=2000 sketch=ros", "method=rff m=2000",
                               "method=minibatch tau=0", "method=minibatch tau=200"}) {
        SCOPED_TRACE(method);
        Model m = make_model((std::string("k=3 gamma=0.5 max_memory_mb=2 ") + method).c_str());
        int calls = 0;
        ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Counter::call, &calls)));
        EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), n, d, nullptr), KKM_ERR_OUT_OF_MEMORY,
                          {"estimated", "MiB", "max_memory_mb=2"}));
        EXPECT_EQ(calls, 0) << "work started before the budget check";
    }
}

TEST(Memory, OverBudgetLeavesFittedModelIntact) {
    SmallFit f;
    double obj0 = 0;
    ASSERT_TRUE(Ok(kkm_get_objective(f.m.get(), &obj0)));
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "k=3 max_memory_mb=1")));
    const int64_t n = 300000;
    std::vector<float> X(static_cast<size_t>(n * 2));
    for (size_t i = 0; i < X.size(); ++i) X[i] = static_cast<float>(i % 97) * 0.01f;
    EXPECT_TRUE(Fails(kkm_fit(f.m.get(), X.data(), n, 2, nullptr), KKM_ERR_OUT_OF_MEMORY, {"max_memory_mb"}));
    int64_t n_train = 0;
    int32_t k = 0;
    double obj = 0;
    ASSERT_TRUE(Ok(kkm_get_n_train(f.m.get(), &n_train)));
    EXPECT_EQ(n_train, f.ds.n);
    ASSERT_TRUE(Ok(kkm_get_k(f.m.get(), &k)));
    EXPECT_EQ(k, 2);
    ASSERT_TRUE(Ok(kkm_get_objective(f.m.get(), &obj)));
    EXPECT_EQ(obj, obj0);
}

// ================================================================== a real allocation failure
//
// max_memory_mb is an estimate; an allocation can still fail (other processes, ulimit -v,
// cgroups). It must come back as KKM_ERR_OUT_OF_MEMORY with a message, leave the model as it
// was, and leave the process working. A child process (gtest's "threadsafe" death-test style
// re-executes this binary, so the child has no OpenMP pool inherited across fork) first fits
// a small problem with the same thread count, so the OpenMP threads' stacks and BLIS's packing
// buffers exist, then caps its address space (setrlimit(RLIMIT_AS)) at its current size plus
// 256 MiB, and fits a problem whose largest array (1.6 GB) is within max_memory_mb but not
// within the cap. Sanitizers reserve terabytes of shadow address space: skipped there.
// within the cap. Sanitizers reserve terabytes of shadow address space: skipped there
// (KKM_TEST_SANITIZED, sanitized.h).

namespace {

#ifndef KKM_TEST_SANITIZED
// Virtual memory size of this process in bytes (VmSize of /proc/self/status), 0 if unknown.
long long vm_size_bytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmSize:") {
            long long kb = 0;
            status >> kb;
            return kb * 1024;
        }
        status.ignore(1 << 20, '\n');
    }
    return 0;
}

// The child's whole life: exits 0 when the big fit failed as it should, else a code naming
// the step that went wrong (the message goes to stderr, which the parent matches).
[[noreturn]] void fit_under_address_limit(const char* warmup_params, const char* big_params, int64_t n) {
    const Dataset small = blobs(50, 2, 2, 1);
    std::vector<float> X(static_cast<size_t>(n * 2));
    for (size_t i = 0; i < X.size(); ++i) X[i] = static_cast<float>((i * 7919) % 1000) * 0.001f;
    kkm_model* m = nullptr;
    if (kkm_create(&m) != KKM_OK || kkm_set_params(m, warmup_params) != KKM_OK ||
        kkm_fit(m, small.X.data(), small.n, small.d, nullptr) != KKM_OK) {
        std::fprintf(stderr, "warm-up failed: %s\n", kkm_last_error());
        std::_Exit(2);
    }
    if (kkm_set_params(m, big_params) != KKM_OK) {
        std::fprintf(stderr, "set_params failed: %s\n", kkm_last_error());
        std::_Exit(2);
    }
    const long long vm = vm_size_bytes();
    rlimit cap{};
    getrlimit(RLIMIT_AS, &cap);  // lower the soft limit only (always allowed), below any hard one
    const auto wanted = static_cast<rlim_t>(vm + (256LL << 20));
    cap.rlim_cur = cap.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, cap.rlim_max);
    if (vm <= 0 || setrlimit(RLIMIT_AS, &cap) != 0) {
        std::fprintf(stderr, "cannot cap the address space (VmSize %lld)\n", vm);
        std::_Exit(2);
    }
    const kkm_status s = kkm_fit(m, X.data(), n, 2, nullptr);
    const std::string msg = kkm_last_error();
    std::fprintf(stderr, "status=%d (%s) message: %s\n", static_cast<int>(s), kkm_status_string(s), msg.c_str());
    if (s != KKM_ERR_OUT_OF_MEMORY) std::_Exit(3);
    if (msg.empty()) std::_Exit(4);
    int64_t n_train = 0;  // a failed fit leaves the model as it was
    if (kkm_get_n_train(m, &n_train) != KKM_OK || n_train != small.n) std::_Exit(5);
    std::vector<int32_t> labels(static_cast<size_t>(small.n));
    if (kkm_assign(m, small.X.data(), small.n, small.d, labels.data(), nullptr) != KKM_OK) std::_Exit(6);
    kkm_model* again = nullptr;  // and the library still works
    if (kkm_create(&again) != KKM_OK || kkm_set_params(again, warmup_params) != KKM_OK ||
        kkm_fit(again, small.X.data(), small.n, small.d, nullptr) != KKM_OK) {
        std::fprintf(stderr, "fit after the failure: %s\n", kkm_last_error());
        std::_Exit(7);
    }
    kkm_destroy(again);
    kkm_destroy(m);
    std::_Exit(0);
}
#endif

struct AllocationCase {
    const char* name;
    const char* warmup;  // small fit before the cap, same method and threads
    const char* big;     // parameters of the fit that must run out of memory
};

// n = 20000 rows: exact's kernel matrix, nystrom's n x m kernel rows and rff's n x m features
// are each 1.6 GB with m = 20000; the estimates stay under max_memory_mb.
const AllocationCase kAllocationCases[] = {
    {"exact", "k=2 method=exact kernel=rbf gamma=1 threads=2", "max_memory_mb=8192"},
    {"nystrom", "k=2 method=nystrom kernel=rbf gamma=1 threads=2", "m=20000 max_memory_mb=16384"},
    {"rff", "k=2 method=rff kernel=rbf gamma=1 threads=2", "m=20000 max_memory_mb=8192"},
};

class AllocationFailure : public ::testing::TestWithParam<AllocationCase> {};

}  // namespace

TEST_P(AllocationFailure, IsOutOfMemoryNotAnAbort) {
#ifdef KKM_TEST_SANITIZED
    GTEST_SKIP() << "RLIMIT_AS cannot be used under a sanitizer";
#else
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(fit_under_address_limit(GetParam().warmup, GetParam().big, 20000), ::testing::ExitedWithCode(0),
                "status=4 \\(out of memory\\) message: .*memory");
#endif
}

INSTANTIATE_TEST_SUITE_P(Methods, AllocationFailure, ::testing::ValuesIn(kAllocationCases),
                         [](const ::testing::TestParamInfo<AllocationCase>& info) {
                             return std::string(info.param.name);
                         });

#ifndef KKM_TEST_SANITIZED
namespace {

// threads=1000 under an address-space limit that holds about 100 thread stacks: libgomp could
// not create the team and ended the process with status 1 (issue 60). The child exits 0 when
// the fit failed with OUT_OF_MEMORY naming threads and the model and library still work.
[[noreturn]] void thousand_threads_under_address_limit() {
    const Dataset ds = blobs(400, 2, 2, 1);
    kkm_model* m = nullptr;
    if (kkm_create(&m) != KKM_OK || kkm_set_params(m, "k=2 threads=2 method=nystrom m=20") != KKM_OK ||
        kkm_fit(m, ds.X.data(), ds.n, ds.d, nullptr) != KKM_OK) {
        std::fprintf(stderr, "warm-up failed: %s\n", kkm_last_error());
        std::_Exit(2);
    }
    rlimit cap{};
    getrlimit(RLIMIT_AS, &cap);
    const auto wanted = static_cast<rlim_t>(vm_size_bytes() + (1LL << 30));
    cap.rlim_cur = cap.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, cap.rlim_max);
    if (setrlimit(RLIMIT_AS, &cap) != 0) std::_Exit(2);
    if (kkm_set_params(m, "threads=1000") != KKM_OK) std::_Exit(2);
    const kkm_status s = kkm_fit(m, ds.X.data(), ds.n, ds.d, nullptr);
    std::fprintf(stderr, "status=%d message: %s\n", static_cast<int>(s), kkm_last_error());
    if (s != KKM_ERR_OUT_OF_MEMORY) std::_Exit(3);
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    if (kkm_set_params(m, "threads=2") != KKM_OK ||
        kkm_assign(m, ds.X.data(), ds.n, ds.d, labels.data(), nullptr) != KKM_OK ||
        kkm_fit(m, ds.X.data(), ds.n, ds.d, nullptr) != KKM_OK) {
        std::fprintf(stderr, "after the refusal: %s\n", kkm_last_error());
        std::_Exit(4);
    }
    kkm_destroy(m);
    std::_Exit(0);
}

}  // namespace
#endif

TEST(ThreadStart, MoreThreadsThanTheSystemCanStartAreAStatusNotAnExit) {
#ifdef KKM_TEST_SANITIZED
    GTEST_SKIP() << "RLIMIT_AS cannot be used under a sanitizer";
#else
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(thousand_threads_under_address_limit(), ::testing::ExitedWithCode(0),
                "status=4 message: threads=1000: the system started only [0-9]+ of the [0-9]+ more threads.*ulimit -v");
#endif
}
