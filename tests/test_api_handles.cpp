// The model handle through the public C API: a NULL model and NULL pointers at every entry point,
// calls that need a fitted model on an unfitted one (KKM_ERR_NOT_FITTED), getters' output buffers
// (too short, or a size query), kkm_last_error (one per thread, replaced by the next failure,
// never NULL), and one fitted handle shared by 8 threads (kkm_assign from all of them at once,
// every assign path). Each error asserts the exact status and the words of kkm_last_error().
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <latch>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

namespace {

const Word kFit = I("fit");

}  // namespace

// ================================================================== NULL model handle

TEST(NullModel, Create) {
    EXPECT_TRUE(Fails(kkm_create(nullptr), KKM_ERR_INVALID_ARGUMENT, {W("out"), kNull}));
}
TEST(NullModel, Destroy) {
    kkm_destroy(nullptr);
}
TEST(NullModel, SetParam) {
    EXPECT_TRUE(Fails(kkm_set_param(nullptr, "k", "2"), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, SetParams) {
    EXPECT_TRUE(Fails(kkm_set_params(nullptr, "k=2"), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetParam) {
    char buf[64];
    size_t len = 0;
    EXPECT_TRUE(
        Fails(kkm_get_param(nullptr, "k", buf, sizeof buf, &len), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, Fit) {
    const Dataset ds = small_blobs();
    EXPECT_TRUE(
        Fails(kkm_fit(nullptr, ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, FitF64) {
    const Dataset ds = small_blobs();
    EXPECT_TRUE(
        Fails(kkm_fit_f64(nullptr, ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, Assign) {
    const Dataset ds = small_blobs();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(Fails(kkm_assign(nullptr, ds.X.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("model"), kNull}));
}
TEST(NullModel, AssignF64) {
    const Dataset ds = small_blobs();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(nullptr, ds.X64.data(), ds.n, ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, Transform) {
    const Dataset ds = small_blobs();
    std::vector<float> out(ds.n * 8);
    EXPECT_TRUE(Fails(kkm_transform(nullptr, ds.X.data(), ds.n, ds.d, out.data(), ds.n * 8), KKM_ERR_INVALID_ARGUMENT,
                      {W("model"), kNull}));
}
TEST(NullModel, GetNTrain) {
    int64_t v = 0;
    EXPECT_TRUE(Fails(kkm_get_n_train(nullptr, &v), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetNFeatures) {
    int64_t v = 0;
    EXPECT_TRUE(Fails(kkm_get_n_features(nullptr, &v), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetK) {
    int32_t v = 0;
    EXPECT_TRUE(Fails(kkm_get_k(nullptr, &v), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetLabels) {
    int32_t v[4];
    EXPECT_TRUE(Fails(kkm_get_labels(nullptr, v, 4), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetObjective) {
    double v = 0;
    EXPECT_TRUE(Fails(kkm_get_objective(nullptr, &v), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetIterations) {
    int32_t v = 0;
    EXPECT_TRUE(Fails(kkm_get_iterations(nullptr, &v), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetFeatureDim) {
    int64_t v = 0;
    EXPECT_TRUE(Fails(kkm_get_feature_dim(nullptr, &v), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetClusterSizes) {
    double v[4];
    EXPECT_TRUE(Fails(kkm_get_cluster_sizes(nullptr, v, 4), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, GetTimings) {
    char buf[64];
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_timings(nullptr, buf, sizeof buf, &len), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}

// ================================================================== NULL data / output pointers

TEST(NullPointer, FitX) {
    Model m = make_model("k=2");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), nullptr, 10, 2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("X"), kNull}));
}
TEST(NullPointer, FitF64X) {
    Model m = make_model("k=2");
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), nullptr, 10, 2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("X"), kNull}));
}
TEST(NullPointer, AssignX) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), nullptr, f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("X"), kNull}));
}
TEST(NullPointer, AssignLabels) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, nullptr, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("labels"), kNull}));
}
TEST(NullPointer, AssignF64X) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), nullptr, f.ds.n, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("X"), kNull}));
}
TEST(NullPointer, AssignF64Labels) {
    SmallFit f;
    std::vector<double> dist(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), f.ds.X64.data(), f.ds.n, f.ds.d, nullptr, dist.data()),
                      KKM_ERR_INVALID_ARGUMENT, {W("labels"), kNull}));
}
TEST(NullPointer, TransformX) {
    SmallFit f(kSmallNystrom);
    std::vector<float> out(f.ds.n * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), nullptr, f.ds.n, f.ds.d, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("X"), kNull}));
}
TEST(NullPointer, TransformOut) {
    SmallFit f(kSmallNystrom);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, nullptr, f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("out"), kNull}));
}
TEST(NullPointer, GetLabels) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_labels(f.m.get(), nullptr, f.ds.n), KKM_ERR_INVALID_ARGUMENT, {W("labels"), kNull}));
}
TEST(NullPointer, GetObjective) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_objective(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("objective"), kNull}));
}
TEST(NullPointer, GetNTrain) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_n_train(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n"), kNull}));
}
TEST(NullPointer, GetNFeatures) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_n_features(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d"), kNull}));
}
TEST(NullPointer, GetK) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_k(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("k"), kNull}));
}
TEST(NullPointer, GetIterations) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_iterations(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("iterations"), kNull}));
}
TEST(NullPointer, GetFeatureDim) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_feature_dim(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("dim"), kNull}));
}
TEST(NullPointer, GetClusterSizes) {
    SmallFit f;
    EXPECT_TRUE(Fails(kkm_get_cluster_sizes(f.m.get(), nullptr, 2), KKM_ERR_INVALID_ARGUMENT, {W("sizes"), kNull}));
}
TEST(NullPointer, GetTimingsBuf) {
    SmallFit f;
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_timings(f.m.get(), nullptr, 64, &len), KKM_ERR_INVALID_ARGUMENT, {W("buf"), kNull}));
}
TEST(NullPointer, SetParamKey) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), nullptr, "2"), KKM_ERR_INVALID_ARGUMENT, {W("key"), kNull}));
}
TEST(NullPointer, SetParamValue) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", nullptr), KKM_ERR_INVALID_ARGUMENT, {W("value"), kNull}));
}
TEST(NullPointer, SetParams) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("params"), kNull}));
}
TEST(NullPointer, GetParamKey) {
    Model m = make_model();
    char buf[64];
    EXPECT_TRUE(
        Fails(kkm_get_param(m.get(), nullptr, buf, sizeof buf, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("key"), kNull}));
}
TEST(NullPointer, GetParamBuf) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_get_param(m.get(), "k", nullptr, 64, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("buf"), kNull}));
}

// ================================================================== getters' output buffers

TEST(Sizes, GetLabelsLenTooSmall) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_get_labels(f.m.get(), labels.data(), f.ds.n - 1), KKM_ERR_INVALID_ARGUMENT,
                      {W("labels"), W("19"), W("20")}));
}
TEST(Sizes, GetClusterSizesLenTooSmall) {
    SmallFit f;
    double sizes[1];
    EXPECT_TRUE(
        Fails(kkm_get_cluster_sizes(f.m.get(), sizes, 1), KKM_ERR_INVALID_ARGUMENT, {W("sizes"), W("1"), W("2")}));
}

TEST(BadInputSizes, GetTimingsBufferTooSmall) {
    SmallFit f;
    size_t need = 0;
    ASSERT_TRUE(Ok(kkm_get_timings(f.m.get(), nullptr, 0, &need)));
    std::vector<char> buf(4, 'x');
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_timings(f.m.get(), buf.data(), buf.size(), &len), KKM_ERR_INVALID_ARGUMENT,
                      {"len=4", W(std::to_string(need + 1))}));
    EXPECT_EQ(len, need);
    EXPECT_EQ(buf[3], '\0') << "a truncated, NUL-terminated prefix";
}

TEST(BadInputNull, TimingsSizeQueryIsNotAnError) {
    // buf = NULL with len = 0 is a size query (as for kkm_get_param); buf = NULL with len > 0
    // is INVALID_ARGUMENT (NullPointer.GetTimingsBuf).
    SmallFit f;
    size_t need = 0;
    ASSERT_TRUE(Ok(kkm_get_timings(f.m.get(), nullptr, 0, &need)));
    EXPECT_GT(need, 0u);
    ASSERT_TRUE(Ok(kkm_get_param(f.m.get(), "method", nullptr, 0, &need)));
    EXPECT_EQ(need, std::string("exact").size());
}

TEST(BadInputNull, SaveNullModel) {
    EXPECT_TRUE(Fails(kkm_save(nullptr, "x.kkm"), KKM_ERR_INVALID_ARGUMENT, {W("model"), I("null")}));
}

// ================================================================== not fitted

TEST(NotFitted, Assign) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(
        Fails(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, AssignF64) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(
        Fails(kkm_assign_f64(m.get(), ds.X64.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, Transform) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    std::vector<float> out(static_cast<size_t>(ds.n) * 64);
    EXPECT_TRUE(
        Fails(kkm_transform(m.get(), ds.X.data(), ds.n, ds.d, out.data(), ds.n * 64), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, GetLabels) {
    Model m = make_model("k=2");
    int32_t labels[4];
    EXPECT_TRUE(Fails(kkm_get_labels(m.get(), labels, 4), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, GetObjective) {
    Model m = make_model("k=2");
    double v = 0;
    EXPECT_TRUE(Fails(kkm_get_objective(m.get(), &v), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, OtherGetters) {
    Model m = make_model("k=2");
    int64_t i64 = 0;
    int32_t i32 = 0;
    double sizes[8];
    char buf[128];
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_n_train(m.get(), &i64), KKM_ERR_NOT_FITTED, {kFit}));
    EXPECT_TRUE(Fails(kkm_get_n_features(m.get(), &i64), KKM_ERR_NOT_FITTED, {kFit}));
    EXPECT_TRUE(Fails(kkm_get_k(m.get(), &i32), KKM_ERR_NOT_FITTED, {kFit}));
    EXPECT_TRUE(Fails(kkm_get_iterations(m.get(), &i32), KKM_ERR_NOT_FITTED, {kFit}));
    EXPECT_TRUE(Fails(kkm_get_feature_dim(m.get(), &i64), KKM_ERR_NOT_FITTED, {kFit}));
    EXPECT_TRUE(Fails(kkm_get_cluster_sizes(m.get(), sizes, 8), KKM_ERR_NOT_FITTED, {kFit}));
    EXPECT_TRUE(Fails(kkm_get_timings(m.get(), buf, sizeof buf, &len), KKM_ERR_NOT_FITTED, {kFit}));
}

// ================================================================== kkm_last_error

TEST(LastError, IsThreadLocal) {
    Model m = make_model();
    ASSERT_EQ(kkm_set_param(m.get(), "main_thread_key", "1"), KKM_ERR_INVALID_ARGUMENT);
    const std::string main_msg = kkm_last_error();
    ASSERT_NE(main_msg.find("main_thread_key"), std::string::npos) << main_msg;

    std::string other_before = "<unset>";
    std::string other_after;
    kkm_status other_status = KKM_OK;
    std::thread t([&] {
        other_before = kkm_last_error();
        kkm_model* raw = nullptr;
        if (kkm_create(&raw) != KKM_OK) return;
        other_status = kkm_set_param(raw, "other_thread_key", "1");
        other_after = kkm_last_error();
        kkm_destroy(raw);
    });
    t.join();
    EXPECT_EQ(other_before, "") << "a new thread must not see another thread's error";
    EXPECT_EQ(other_status, KKM_ERR_INVALID_ARGUMENT);
    EXPECT_NE(other_after.find("other_thread_key"), std::string::npos) << other_after;
    EXPECT_EQ(other_after.find("main_thread_key"), std::string::npos) << other_after;
    // The main thread made no kkm_* call since its failure: its message is unchanged.
    EXPECT_EQ(std::string(kkm_last_error()), main_msg);
}
TEST(LastError, ConcurrentThreadsKeepTheirOwnMessage) {
    constexpr int kThreads = 4;
    std::vector<int> ok(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([t, &ok] {
            kkm_model* raw = nullptr;
            if (kkm_create(&raw) != KKM_OK) return;
            const std::string key = "key_of_thread_" + std::to_string(t);
            int good = 1;
            for (int rep = 0; rep < 200; ++rep) {
                if (kkm_set_param(raw, key.c_str(), "1") != KKM_ERR_INVALID_ARGUMENT) good = 0;
                const std::string msg = kkm_last_error();
                if (msg.find(key) == std::string::npos) good = 0;
            }
            kkm_destroy(raw);
            ok[t] = good;
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(ok[t], 1) << "thread " << t;
}
TEST(LastError, ReplacedByTheNextFailure) {
    Model m = make_model();
    ASSERT_EQ(kkm_set_param(m.get(), "first_bad_key", "1"), KKM_ERR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(kkm_last_error()).find("first_bad_key"), std::string::npos);
    ASSERT_EQ(kkm_set_param(m.get(), "degree", "0"), KKM_ERR_INVALID_ARGUMENT);
    const std::string msg = kkm_last_error();
    EXPECT_EQ(msg.find("first_bad_key"), std::string::npos) << msg;
    EXPECT_NE(msg.find("degree"), std::string::npos) << msg;
    // A failure of another kind replaces it again.
    int32_t k = 0;
    ASSERT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED);
    const std::string msg2 = kkm_last_error();
    EXPECT_EQ(msg2.find("degree"), std::string::npos) << msg2;
    EXPECT_TRUE(contains(msg2, I("fit"))) << msg2;
}
TEST(LastError, NeverNull) {
    ASSERT_NE(kkm_last_error(), nullptr);
    Model m = make_model();
    ASSERT_TRUE(Ok(kkm_set_param(m.get(), "k", "3")));
    ASSERT_NE(kkm_last_error(), nullptr);
}

// ================================================================== concurrent assign

// kkm_assign and kkm_assign_f64 from 8 threads at once on one fitted model, each result
// equal to the serial call's: labels exactly and distances bit for bit. One case per assign
// path (dual: exact, minibatch; landmark: nystrom; features: nystrom rank=, sketch, rff; the
// graph models: knn, heat),
// each with the model's own threads=1 (the 8 callers are plain threads and the library
// enters no OpenMP team: scripts/sanitize.sh runs these under ThreadSanitizer) and
// threads=0 (all cores: an OpenMP team inside every caller's thread).
// ds with its rows (and truth) in a random order drawn from seed.
Dataset shuffled_rows(const Dataset& ds, uint32_t seed) {
    std::vector<int64_t> order(static_cast<size_t>(ds.n));
    for (int64_t i = 0; i < ds.n; ++i) order[static_cast<size_t>(i)] = i;
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    Dataset out = ds;
    for (int64_t i = 0; i < ds.n; ++i) {
        const int64_t from = order[static_cast<size_t>(i)];
        std::copy_n(ds.X.begin() + from * ds.d, ds.d, out.X.begin() + i * ds.d);
        std::copy_n(ds.X64.begin() + from * ds.d, ds.d, out.X64.begin() + i * ds.d);
        out.truth[static_cast<size_t>(i)] = ds.truth[static_cast<size_t>(from)];
    }
    return out;
}

struct AssignCase {
    const char* name;
    const char* params;
};
void PrintTo(const AssignCase& c, std::ostream* os) {
    *os << c.name << " (" << c.params << ")";
}
const AssignCase kAssignCases[] = {
    {"exact", "method=exact"},
    {"minibatch", "method=minibatch batch_size=256"},
    {"nystrom", "method=nystrom m=200"},
    {"nystrom_rank", "method=nystrom m=200 rank=20"},
    {"sketch_ros", "method=sketch m=200 sketch=ros"},
    {"sketch_gaussian", "method=sketch m=200 sketch=gaussian"},
    {"rff", "method=rff m=500"},
    {"knn", "kernel=knn"},  // the graph models: new rows placed by their nearest training rows
    {"heat", "kernel=heat"},
};

class ConcurrentAssign : public ::testing::TestWithParam<std::tuple<AssignCase, int>> {};
INSTANTIATE_TEST_SUITE_P(Paths, ConcurrentAssign,
                         ::testing::Combine(::testing::ValuesIn(kAssignCases), ::testing::Values(1, 0)),
                         [](const ::testing::TestParamInfo<std::tuple<AssignCase, int>>& info) {
                             return std::string(std::get<0>(info.param).name) + "_threads" +
                                    std::to_string(std::get<1>(info.param));
                         });

TEST_P(ConcurrentAssign, EightThreadsMatchTheSerialCall) {
    const auto& [c, model_threads] = GetParam();
    const Dataset& ds = ring_data();
    const bool graph = std::string(c.params).find("kernel=") != std::string::npos;
    const std::string kernel = graph ? "" : "kernel=rbf gamma=" + fmt(ring_gamma(ds)) + " ";
    const std::string params = "k=2 " + kernel + c.params + " seed=1 threads=" + std::to_string(model_threads);
    FitResult r = fit_and_read(ds, params);
    ASSERT_TRUE(r.m != nullptr && r.objective >= 0) << params;
    const kkm_model* model = r.m.get();

    // Every thread assigns its own new points (800 rows, 13 row blocks of the assign loop, in
    // its own random order: rings() lists the inner ring first), so state wrongly shared
    // between calls would mix different data and show in the labels or distances.
    constexpr int kThreads = 8;
    constexpr int kRepeats = 4;
    struct Reference {
        Dataset pts;
        std::vector<int32_t> labels, labels64;
        std::vector<float> dist;
        std::vector<double> dist64;
    };
    std::vector<Reference> ref(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        Reference& e = ref[static_cast<size_t>(t)];
        e.pts = shuffled_rows(rings(400, 4242 + static_cast<uint32_t>(t)), static_cast<uint32_t>(t));
        const size_t n = static_cast<size_t>(e.pts.n);
        e.labels.assign(n, -1);
        e.labels64.assign(n, -1);
        e.dist.assign(n, -1.0f);
        e.dist64.assign(n, -1.0);
        ASSERT_TRUE(Ok(kkm_assign(model, e.pts.X.data(), e.pts.n, e.pts.d, e.labels.data(), e.dist.data())));
        ASSERT_TRUE(Ok(kkm_assign_f64(model, e.pts.X64.data(), e.pts.n, e.pts.d, e.labels64.data(), e.dist64.data())));
        // A real partition, not a degenerate one the threads could match by luck.
        EXPECT_GE(ari(e.labels, e.pts.truth), 0.9) << params;
    }

    std::vector<std::string> why(kThreads, "did not finish");
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            const Reference& e = ref[static_cast<size_t>(t)];
            const size_t n = static_cast<size_t>(e.pts.n);
            std::vector<int32_t> labels(n);
            std::vector<float> dist(n);
            std::vector<double> dist64(n);
            start.arrive_and_wait();  // all 8 calls overlap
            for (int rep = 0; rep < kRepeats; ++rep) {
                // Every thread runs all three variants, in a different order from its neighbours.
                const int variant = (t + rep) % 3;
                std::fill(labels.begin(), labels.end(), -1);
                std::fill(dist.begin(), dist.end(), -1.0f);
                std::fill(dist64.begin(), dist64.end(), -1.0);
                const Dataset& p = e.pts;
                kkm_status s = KKM_OK;
                if (variant == 0) s = kkm_assign(model, p.X.data(), p.n, p.d, labels.data(), dist.data());
                if (variant == 1) s = kkm_assign(model, p.X.data(), p.n, p.d, labels.data(), nullptr);
                if (variant == 2) s = kkm_assign_f64(model, p.X64.data(), p.n, p.d, labels.data(), dist64.data());
                const std::string what =
                    "repeat " + std::to_string(rep) + ", variant " + std::to_string(variant) + ": ";
                if (s != KKM_OK) {
                    why[t] = what + "assign failed: " + kkm_last_error();
                    return;
                }
                if (labels != (variant == 2 ? e.labels64 : e.labels)) {
                    why[t] = what + "labels differ from the serial call";
                    return;
                }
                if (variant == 0 && std::memcmp(dist.data(), e.dist.data(), n * sizeof(float)) != 0) {
                    why[t] = what + "float distances differ from the serial call";
                    return;
                }
                if (variant == 2 && std::memcmp(dist64.data(), e.dist64.data(), n * sizeof(double)) != 0) {
                    why[t] = what + "double distances differ from the serial call";
                    return;
                }
            }
            why[t].clear();
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(why[t], "") << "thread " << t << " with " << params;
}

// ================================================================== learning while serving

// kkm_partial_fit beside kkm_assign, the getters and kkm_save_buffer on one model (issue 60:
// the readers used a fitted state the stream had freed), and two streams of batches at once:
// they take turns, so every batch counts (a feature method's iterations: the first fit's plus
// one per later batch).
class ConcurrentStream : public ::testing::TestWithParam<std::tuple<const char*, int>> {};
INSTANTIATE_TEST_SUITE_P(
    Methods, ConcurrentStream,
    ::testing::Combine(::testing::Values("nystrom m=40", "rff m=64"), ::testing::Values(1, 0)),
    [](const ::testing::TestParamInfo<std::tuple<const char*, int>>& info) {
        return std::string(std::get<0>(info.param)).substr(0, std::string(std::get<0>(info.param)).find(' ')) +
               "_threads" + std::to_string(std::get<1>(info.param));
    });

TEST_P(ConcurrentStream, PartialFitBesideReadersLosesNoBatchAndFreesNothingInUse) {
    const auto& [method, model_threads] = GetParam();
    const std::string params =
        std::string("k=2 kernel=rbf gamma=1 seed=1 method=") + method + " threads=" + std::to_string(model_threads);
    Model m = make_model(params.c_str());
    constexpr int kWriters = 2, kReaders = 3, kBatches = 5;
    constexpr int64_t kRows = 400;
    std::vector<Dataset> batches;
    for (int b = 0; b <= kWriters * kBatches; ++b) batches.push_back(rings(kRows / 2, 77 + static_cast<uint32_t>(b)));
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), batches[0].X.data(), kRows, 2, nullptr)));
    int32_t first_iterations = 0;
    ASSERT_TRUE(Ok(kkm_get_iterations(m.get(), &first_iterations)));
    std::atomic<int> writing{kWriters};
    std::vector<std::string> why(kWriters + kReaders);
    std::latch start(kWriters + kReaders);
    std::vector<std::thread> threads;
    for (int w = 0; w < kWriters; ++w) {
        threads.emplace_back([&, w] {
            start.arrive_and_wait();
            for (int b = 0; b < kBatches && why[w].empty(); ++b) {
                const Dataset& ds = batches[static_cast<size_t>(1 + w * kBatches + b)];
                if (kkm_partial_fit(m.get(), ds.X.data(), kRows, 2, nullptr) != KKM_OK) why[w] = kkm_last_error();
            }
            --writing;
        });
    }
    for (int r = 0; r < kReaders; ++r) {
        threads.emplace_back([&, r] {
            std::string& fail = why[static_cast<size_t>(kWriters + r)];
            const Dataset& ds = batches[static_cast<size_t>(r)];
            std::vector<int32_t> labels(static_cast<size_t>(kRows));
            std::vector<float> dist(static_cast<size_t>(kRows));
            start.arrive_and_wait();
            do {
                int64_t n = 0, size = 0;
                int32_t k = 0;
                char gamma[64];
                if (kkm_assign(m.get(), ds.X.data(), kRows, 2, labels.data(), dist.data()) != KKM_OK ||
                    kkm_get_labels(m.get(), labels.data(), kRows) != KKM_OK || kkm_get_n_train(m.get(), &n) != KKM_OK ||
                    kkm_get_k(m.get(), &k) != KKM_OK || kkm_save_buffer(m.get(), nullptr, 0, &size) != KKM_OK ||
                    kkm_get_param(m.get(), "gamma", gamma, sizeof gamma, nullptr) != KKM_OK) {
                    fail = kkm_last_error();
                    return;
                }
                std::vector<unsigned char> bytes(static_cast<size_t>(2 * size));
                if (kkm_save_buffer(m.get(), bytes.data(), 2 * size, &size) != KKM_OK) fail = kkm_last_error();
                if (n != kRows || k != 2) fail = "n_train " + std::to_string(n) + ", k " + std::to_string(k);
                for (const int32_t l : labels) {
                    if (l < 0 || l >= 2) fail = "label " + std::to_string(l);
                }
            } while (writing.load() > 0 && fail.empty());
        });
    }
    for (auto& th : threads) th.join();
    for (size_t t = 0; t < why.size(); ++t) EXPECT_EQ(why[t], "") << "thread " << t << " with " << params;
    int32_t iterations = 0;
    ASSERT_TRUE(Ok(kkm_get_iterations(m.get(), &iterations)));
    EXPECT_EQ(iterations, first_iterations + kWriters * kBatches) << "a batch was lost";
}
