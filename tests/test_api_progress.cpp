// kkm_set_progress: the callback's stages and fractions, how often it runs, and cancellation
// (KKM_ERR_CANCELLED, model unchanged) at every stage of every method.
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "api_test_util.h"

using namespace kkm_test;

namespace {

using Clock = std::chrono::steady_clock;

struct Call {
    std::string stage;
    double fraction;
    double seconds;  // since the fit started
    double cpu;      // process CPU seconds (std::clock) at the call
    std::thread::id thread;
};

/// Records every call; cancels at the first call whose stage is cancel_stage (and whose
/// fraction is at least cancel_fraction).
struct Recorder {
    std::vector<Call> calls;
    Clock::time_point start = Clock::now();
    std::string cancel_stage;
    double cancel_fraction = 0;
    double cancelled_at = -1;

    static int callback(const char* stage, double fraction, void* user) {
        auto* r = static_cast<Recorder*>(user);
        const double t = std::chrono::duration<double>(Clock::now() - r->start).count();
        const double cpu = static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
        r->calls.push_back({stage, fraction, t, cpu, std::this_thread::get_id()});
        if (r->cancelled_at < 0 && r->cancel_stage == stage && fraction >= r->cancel_fraction) {
            r->cancelled_at = t;
            return 1;
        }
        return 0;
    }
};

const char* const kMethods[] = {
    "method=exact",
    "method=nystrom m=60",
    "method=nystrom m=60 rank=2 sampling=kmeanspp",
    "method=nystrom m=60 solver=minibatch batch_size=64",
    "method=sketch m=60 sketch=ros",
    "method=rff m=200",
    "method=minibatch batch_size=64 tau=50",
};

std::string params_for(const char* method) {
    return std::string("k=2 gamma=auto bandwidth_scale=0.4 n_init=2 seed=3 ") + method;
}

TEST(Progress, ReportsStagesOnTheCallingThreadWithFractionsInRange) {
    const Dataset ds = rings(150, 5);
    for (const char* method : kMethods) {
        SCOPED_TRACE(method);
        Model m = make_model(params_for(method).c_str());
        Recorder r;
        ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        ASSERT_FALSE(r.calls.empty());
        const std::set<std::string> known = {"gamma",   "landmarks", "kernel",    "kernel+eigen", "rank", "features",
                                             "seeding", "lloyd",     "minibatch", "assign",       "done"};
        for (size_t i = 0; i < r.calls.size(); ++i) {
            const Call& c = r.calls[i];
            EXPECT_TRUE(known.count(c.stage)) << c.stage;
            EXPECT_GE(c.fraction, 0.0);
            EXPECT_LE(c.fraction, 1.0);
            EXPECT_EQ(c.thread, std::this_thread::get_id()) << "callback on a worker thread";
            // Within a stage the fraction never goes back (a stage start reports 0).
            if (i > 0 && r.calls[i - 1].stage == c.stage && c.fraction > 0) {
                EXPECT_GE(c.fraction, r.calls[i - 1].fraction) << c.stage;
            }
        }
        EXPECT_EQ(r.calls.front().stage, "gamma");
        EXPECT_EQ(r.calls.back().stage, "done");
        EXPECT_EQ(r.calls.back().fraction, 1.0);
        std::set<std::string> seen;
        for (const Call& c : r.calls) seen.insert(c.stage);
        const bool minibatch = std::string(method).find("minibatch") != std::string::npos;
        EXPECT_TRUE(seen.count(minibatch ? "minibatch" : "lloyd"));
    }
}

/// Within a stage, each report's fraction is at least the one before.
void expect_fractions_never_go_back(const std::vector<Call>& calls) {
    for (size_t i = 1; i < calls.size(); ++i) {
        if (calls[i - 1].stage == calls[i].stage) {
            EXPECT_GE(calls[i].fraction, calls[i - 1].fraction) << calls[i].stage << " report " << i;
        }
    }
}

TEST(Progress, FractionsNeverGoBackOnFitsLongEnoughToReportWithinStages) {
    // Long enough for several time-gated reports inside seeding and the mini-batch stages,
    // whose inner parallel loops must report within their step's share, not 0 → 1 each.
    const Dataset ds = uniform(12000, 8, 3);
    for (const char* params :
         {"k=20 method=nystrom m=300 seed=1", "k=20 method=minibatch batch_size=2048 max_iter=30 seed=1",
          "k=20 method=rff m=300 solver=minibatch seed=1"}) {
        SCOPED_TRACE(params);
        Model m = make_model(params);
        Recorder r;
        ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        expect_fractions_never_go_back(r.calls);
    }
}

TEST(Progress, CancelAtEveryStageOfEveryMethodLeavesTheModelUnchanged) {
    const Dataset ds = rings(150, 6);
    for (const char* method : kMethods) {
        // The stages a full run reports.
        Model probe = make_model(params_for(method).c_str());
        Recorder all;
        ASSERT_TRUE(Ok(kkm_set_progress(probe.get(), &Recorder::callback, &all)));
        ASSERT_TRUE(Ok(kkm_fit(probe.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        std::set<std::string> stages;
        for (const Call& c : all.calls) stages.insert(c.stage);
        stages.erase("done");
        for (const std::string& stage : stages) {
            SCOPED_TRACE(std::string(method) + ", cancel at stage " + stage);
            // A model fitted before (exact, k=3): the cancelled fit must leave it as it was.
            Model m = make_model("k=3 method=exact gamma=0.5");
            ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
            std::vector<int32_t> before(static_cast<size_t>(ds.n)), after(static_cast<size_t>(ds.n));
            ASSERT_TRUE(Ok(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, before.data(), nullptr)));
            ASSERT_TRUE(Ok(kkm_set_params(m.get(), params_for(method).c_str())));
            Recorder r;
            r.cancel_stage = stage;
            ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
            EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_CANCELLED,
                              {"cancelled", W(stage), "unchanged"}));
            ASSERT_GE(r.cancelled_at, 0.0);
            // No call after the cancel request.
            EXPECT_EQ(r.calls.back().seconds, r.cancelled_at);
            int32_t k = 0;
            ASSERT_TRUE(Ok(kkm_get_k(m.get(), &k)));
            EXPECT_EQ(k, 3);
            ASSERT_TRUE(Ok(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, after.data(), nullptr)));
            EXPECT_EQ(before, after);
            // The same model fits normally once the callback lets it.
            ASSERT_TRUE(Ok(kkm_set_progress(m.get(), nullptr, nullptr)));
            ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
            ASSERT_TRUE(Ok(kkm_get_k(m.get(), &k)));
            EXPECT_EQ(k, 2);
        }
    }
}

TEST(Progress, TheSearchReportsItsStageAndCancelsThere) {
    const Dataset ds = rings(150, 8);
    for (const char* params : {"method=nystrom gamma=search k=auto seed=1", "method=exact gamma=search k=2 seed=1",
                               "method=exact gamma=0.3 k=auto search_criterion=stability seed=1"}) {
        SCOPED_TRACE(params);
        Model m = make_model(params);
        Recorder r;
        ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        ASSERT_FALSE(r.calls.empty());
        EXPECT_EQ(r.calls.front().stage, "search");
        expect_fractions_never_go_back(r.calls);
        // Cancelled in the search: CANCELLED naming it, the (unfitted) model unchanged.
        Model c = make_model(params);
        Recorder cancel;
        cancel.cancel_stage = "search";
        ASSERT_TRUE(Ok(kkm_set_progress(c.get(), &Recorder::callback, &cancel)));
        EXPECT_TRUE(
            Fails(kkm_fit(c.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_CANCELLED, {"cancelled", W("search")}));
        int64_t n = 0;
        EXPECT_TRUE(Fails(kkm_get_n_train(c.get(), &n), KKM_ERR_NOT_FITTED));
    }
}

TEST(Progress, CancelOnAnUnfittedModelLeavesItUnfitted) {
    const Dataset ds = blobs(50, 3, 2, 1);
    Model m = make_model("k=2 method=nystrom m=20");
    Recorder r;
    r.cancel_stage = "lloyd";
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_CANCELLED, {"lloyd"}));
    int32_t k = 0;
    EXPECT_TRUE(Fails(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED));
}

TEST(Progress, ReturningNonZeroAtDoneIsIgnored) {
    const Dataset ds = blobs(50, 3, 2, 1);
    Model m = make_model("k=2 method=exact gamma=0.5");
    Recorder r;
    r.cancel_stage = "done";
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
    EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    EXPECT_GE(r.cancelled_at, 0.0);
}

// Progress travels through a scope on the fitting thread (core/progress.h): two fits on two
// host threads each see only their own callback, and cancelling one leaves the other to finish.
TEST(Progress, FitsOnTwoHostThreadsSeeOnlyTheirOwnCallback) {
    const Dataset ds = blobs(400, 3, 4, 1);
    Model cancelled = make_model("k=3 method=exact gamma=0.5 n_init=3 threads=2");
    Model finished = make_model("k=3 method=nystrom m=80 gamma=0.5 n_init=3 threads=2");
    Recorder a, b;
    a.cancel_stage = "lloyd";
    ASSERT_TRUE(Ok(kkm_set_progress(cancelled.get(), &Recorder::callback, &a)));
    ASSERT_TRUE(Ok(kkm_set_progress(finished.get(), &Recorder::callback, &b)));
    kkm_status status_a = KKM_OK, status_b = KKM_ERR_CANCELLED;
    std::thread::id thread_a, thread_b;
    std::thread ta([&] {
        thread_a = std::this_thread::get_id();
        status_a = kkm_fit(cancelled.get(), ds.X.data(), ds.n, ds.d, nullptr);
    });
    std::thread tb([&] {
        thread_b = std::this_thread::get_id();
        status_b = kkm_fit(finished.get(), ds.X.data(), ds.n, ds.d, nullptr);
    });
    ta.join();
    tb.join();
    EXPECT_EQ(status_a, KKM_ERR_CANCELLED);
    EXPECT_EQ(status_b, KKM_OK);
    ASSERT_FALSE(a.calls.empty());
    ASSERT_FALSE(b.calls.empty());
    for (const Call& c : a.calls) EXPECT_EQ(c.thread, thread_a) << c.stage;
    for (const Call& c : b.calls) EXPECT_EQ(c.thread, thread_b) << c.stage;
    EXPECT_EQ(b.calls.back().stage, "done");
    int32_t k = 0;
    EXPECT_TRUE(Fails(kkm_get_k(cancelled.get(), &k), KKM_ERR_NOT_FITTED));
    EXPECT_TRUE(Ok(kkm_get_k(finished.get(), &k)));
}

// Issue 27: the m x m eigen-decomposition of the landmark kernel (LAPACK dsyevd, 1.3 s at
// m = 2000) could not be interrupted; now it polls between its pieces (core/linalg_lapack.cpp).
// The callback sleeps past the poll interval at the stage's start, so the next poll calls it
// at once: with threads=1 that is the decomposition's first poll (it runs before the kernel
// rows; its polls report the stage's fraction as it stands, 0), with threads=2 it runs on the
// calling thread beside the rows. The cancel there returns CANCELLED naming the stage, with no
// call after it and the model as it was. (How long a cancel takes is measured in
// bench/cancel_latency.py, not asserted here.)
struct CancelInTheEigenDecomposition {
    std::vector<Call> calls;
    Clock::time_point start = Clock::now();
    int stage_calls = 0;
    static int callback(const char* stage, double fraction, void* user) {
        auto* r = static_cast<CancelInTheEigenDecomposition*>(user);
        const double t = std::chrono::duration<double>(Clock::now() - r->start).count();
        r->calls.push_back({stage, fraction, t, 0.0, std::this_thread::get_id()});
        if (std::string(stage) != "kernel+eigen") return 0;
        if (++r->stage_calls == 1) {
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            return 0;
        }
        return 1;
    }
};

TEST(Progress, ACancelDuringTheEigenDecompositionAtLargeMReturnsCancelledAndLeavesTheModelUnchanged) {
    const Dataset ds = uniform(2400, 10, 4);
    for (const char* threads : {"threads=1", "threads=2"}) {
        SCOPED_TRACE(threads);
        Model m = make_model("k=3 method=exact gamma=0.5");
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        std::vector<int32_t> before(static_cast<size_t>(ds.n)), after(static_cast<size_t>(ds.n));
        ASSERT_TRUE(Ok(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, before.data(), nullptr)));
        const std::string params = std::string("k=4 method=nystrom m=2000 gamma=2 seed=1 ") + threads;
        ASSERT_TRUE(Ok(kkm_set_params(m.get(), params.c_str())));
        CancelInTheEigenDecomposition r;
        ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &CancelInTheEigenDecomposition::callback, &r)));
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_CANCELLED,
                          {"cancelled", W("kernel+eigen"), "unchanged"}));
        ASSERT_EQ(r.stage_calls, 2);
        EXPECT_EQ(r.calls.back().stage, "kernel+eigen");  // no call after the cancel
        if (std::string(threads) == "threads=1") {
            EXPECT_EQ(r.calls.back().fraction, 0.0);  // the decomposition's poll, before any kernel row
        }
        int32_t k = 0;
        ASSERT_TRUE(Ok(kkm_get_k(m.get(), &k)));
        EXPECT_EQ(k, 3);
        ASSERT_TRUE(Ok(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, after.data(), nullptr)));
        EXPECT_EQ(before, after);
    }
}

// A C++ host's callback that throws (issue 26): the exception crossed a noexcept frame and
// called std::terminate. Now it is caught where the callback is called, on the fitting
// thread (at a stage start or inside a parallel loop), and the fit ends CANCELLED, naming it.
std::vector<int32_t> labels_of(const kkm_model* m, const Dataset& ds) {
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    EXPECT_TRUE(Ok(kkm_assign(m, ds.X.data(), ds.n, ds.d, labels.data(), nullptr)));
    return labels;
}

struct Thrower {
    std::string stage;
    double fraction = 0;
    int calls = 0;
    static int callback(const char* stage, double fraction, void* user) {
        auto* t = static_cast<Thrower*>(user);
        ++t->calls;
        if (t->stage == stage && fraction >= t->fraction) throw std::runtime_error("host error");
        return 0;
    }
};

TEST(Progress, ACallbackThatThrowsCancelsTheFitAndTheModelIsUnchanged) {
    const Dataset ds = blobs(3000, 8, 4, 1);
    size_t threw = 0;
    for (const char* method : kMethods) {
        for (const double fraction : {0.0, 1e-9}) {  // at the stage start; inside the stage's loops
            SCOPED_TRACE(std::string(method) + " fraction " + std::to_string(fraction));
            Model m = make_model((params_for(method) + " threads=2").c_str());
            ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
            const std::vector<int32_t> before = labels_of(m.get(), ds);
            Thrower t{"lloyd", fraction};
            if (std::string(method).find("minibatch") != std::string::npos) t.stage = "minibatch";
            ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Thrower::callback, &t)));
            const kkm_status status = kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr);
            if (t.calls == 0 || status == KKM_OK) continue;  // the stage ended before a report
            EXPECT_TRUE(Fails(status, KKM_ERR_CANCELLED, {"threw an exception", "must not throw"}));
            EXPECT_EQ(labels_of(m.get(), ds), before);
            ++threw;
        }
    }
    EXPECT_GE(threw, std::size(kMethods));  // at least every stage start threw
}

// The callback may call the library: a nested call does not see the running fit's progress
// (it ran the callback again from inside itself before: the fit's scope was still installed).
TEST(Progress, CallsFromInsideTheCallbackDoNotReenterIt) {
    const Dataset ds = blobs(400, 3, 3, 1);
    Model other = make_model("k=3 method=exact gamma=0.5");
    ASSERT_TRUE(Ok(kkm_fit(other.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    struct Nested {
        kkm_model* other;
        const Dataset* ds;
        int depth = 0, max_depth = 0, calls = 0;
        bool ok = true;
        static int callback(const char*, double, void* user) {
            auto* n = static_cast<Nested*>(user);
            ++n->calls;
            n->max_depth = std::max(n->max_depth, ++n->depth);
            std::vector<int32_t> labels(static_cast<size_t>(n->ds->n));
            std::vector<double> sizes(3);
            n->ok = n->ok && kkm_assign(n->other, n->ds->X.data(), n->ds->n, n->ds->d, labels.data(), nullptr) == KKM_OK;
            n->ok = n->ok && kkm_get_cluster_sizes(n->other, sizes.data(), 3) == KKM_OK;
            --n->depth;
            return 0;
        }
    } nested{other.get(), &ds};
    Model m = make_model("k=3 method=exact gamma=0.5 n_init=3");
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Nested::callback, &nested)));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    EXPECT_TRUE(nested.ok) << kkm_last_error();
    EXPECT_GT(nested.calls, 3);
    EXPECT_EQ(nested.max_depth, 1);
}

TEST(Progress, NullModelIsAnError) {
    EXPECT_TRUE(Fails(kkm_set_progress(nullptr, &Recorder::callback, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("model")}));
}

// A fit of a few seconds (exact on structureless data, n = 4000, the kernel recomputed in
// blocks every iteration because max_memory_mb is small): the callback runs at least about
// once a second, and a cancel request during Lloyd returns within a second.
TEST(Progress, CalledAtLeastOnceASecondAndCancelReturnsWithinASecond) {
    // Large enough that the first Lloyd iteration (S = K·Z built from recomputed kernel rows:
    // 2.6e8 kernel values) outlasts the 0.1 s poll interval on any machine, so the cancel
    // below lands inside the stage, between blocks of work.
    const Dataset ds = uniform(16000, 20, 9);
    const char* params = "k=8 method=exact gamma=0.5 max_memory_mb=16 max_iter=10 tol=0 threads=2";
    Model m = make_model(params);
    Recorder r;
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), &Recorder::callback, &r)));
    r.start = Clock::now();
    const double cpu_start = static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const double total = std::chrono::duration<double>(Clock::now() - r.start).count();
    const double cpu_total = static_cast<double>(std::clock()) / CLOCKS_PER_SEC - cpu_start;
    double max_gap = r.calls.front().seconds, max_cpu_gap = r.calls.front().cpu - cpu_start;
    for (size_t i = 1; i < r.calls.size(); ++i) {
        max_gap = std::max(max_gap, r.calls[i].seconds - r.calls[i - 1].seconds);
        max_cpu_gap = std::max(max_cpu_gap, r.calls[i].cpu - r.calls[i - 1].cpu);
    }
    max_gap = std::max(max_gap, total - r.calls.back().seconds);
    max_cpu_gap = std::max(max_cpu_gap, cpu_start + cpu_total - r.calls.back().cpu);
    if (verbose()) std::printf("    fit %.2f s, %zu calls, largest gap %.3f s\n", total, r.calls.size(), max_gap);
    // At most about a second between calls; on a machine so loaded that the fit's threads
    // wait for a core, the work between calls (at most 2 CPU seconds on its 2 threads) is
    // what the library controls.
    EXPECT_TRUE(max_gap < 1.0 || max_cpu_gap < 2.0)
        << "largest gap " << max_gap << " s (" << max_cpu_gap << " CPU s); fit took " << total << " s with "
        << r.calls.size() << " calls";

    Model c = make_model(params);
    Recorder cancel;
    cancel.cancel_stage = "lloyd";
    cancel.cancel_fraction = 1e-9;  // the first report after the stage's start (fraction 0)
    ASSERT_TRUE(Ok(kkm_set_progress(c.get(), &Recorder::callback, &cancel)));
    cancel.start = Clock::now();
    EXPECT_TRUE(Fails(kkm_fit(c.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_CANCELLED));
    const double returned = std::chrono::duration<double>(Clock::now() - cancel.start).count();
    ASSERT_GE(cancel.cancelled_at, 0.0);
    EXPECT_LT(returned - cancel.cancelled_at, 1.0) << "cancel took " << returned - cancel.cancelled_at << " s";
}

}  // namespace
