// Larger-than-memory input (issue 28) through the C API: kkm_fit_file (a mapped raw float32
// file), the one pass over X before the kernel stage (its gamma and its errors), the budget
// checked before any pass, max_memory_mb=auto, and kkm_partial_fit (streams of batches).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"

namespace {

using kkm_test::blobs;
using kkm_test::Dataset;
using kkm_test::Fails;
using kkm_test::labels_of;
using kkm_test::make_model;
using kkm_test::objective_of;
using kkm_test::param_of;
using kkm_test::save;
using kkm_test::Ok;
using kkm_test::W;

double nmi(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    double out = 0;
    EXPECT_TRUE(Ok(kkm_normalized_mutual_info(a.data(), b.data(), static_cast<int64_t>(a.size()), &out)));
    return out;
}

// The rows of ds in a random order (a stream should not arrive class by class).
Dataset shuffled(const Dataset& ds, uint32_t seed) {
    std::vector<int64_t> order(static_cast<size_t>(ds.n));
    std::iota(order.begin(), order.end(), int64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    Dataset out;
    out.n = ds.n;
    out.d = ds.d;
    for (const int64_t i : order) {
        out.X.insert(out.X.end(), ds.X.begin() + i * ds.d, ds.X.begin() + (i + 1) * ds.d);
        out.truth.push_back(ds.truth[static_cast<size_t>(i)]);
    }
    return out;
}

class Files : public kkm_test::FileDir {
protected:
    Files() : FileDir("kkm_stream_") {}
};

TEST_F(Files, FitFileEqualsTheInMemoryFitBitForBit) {
    const Dataset ds = shuffled(blobs(300, 5, 4, 11), 1);
    const std::string path = write("x.f32", ds.X);
    for (const char* params : {"k=4 method=nystrom m=100", "k=4 method=rff m=64 n_init=3", "k=4 method=exact"}) {
        SCOPED_TRACE(params);
        auto memory = make_model(params);
        auto file = make_model(params);
        ASSERT_TRUE(Ok(kkm_fit(memory.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        ASSERT_TRUE(Ok(kkm_fit_file(file.get(), path.c_str(), ds.d, nullptr, 0)));
        EXPECT_EQ(labels_of(file.get(), ds.n), labels_of(memory.get(), ds.n));
        EXPECT_EQ(objective_of(file.get()), objective_of(memory.get()));  // bit for bit
        EXPECT_EQ(param_of(file.get(), "gamma"), param_of(memory.get(), "gamma"));
    }
    // With weights: n_weights must be the file's row count.
    std::vector<float> w(static_cast<size_t>(ds.n), 1.0f);
    w[0] = 3.0f;
    auto memory = make_model("k=4 method=nystrom m=100");
    auto file = make_model("k=4 method=nystrom m=100");
    ASSERT_TRUE(Ok(kkm_fit(memory.get(), ds.X.data(), ds.n, ds.d, w.data())));
    ASSERT_TRUE(Ok(kkm_fit_file(file.get(), path.c_str(), ds.d, w.data(), ds.n)));
    EXPECT_EQ(objective_of(file.get()), objective_of(memory.get()));
    EXPECT_TRUE(Fails(kkm_fit_file(file.get(), path.c_str(), ds.d, w.data(), ds.n - 1), KKM_ERR_INVALID_ARGUMENT,
                      {W("n_weights"), "1199"}));
}

// A mapped file is page-aligned, a caller's array anywhere: the fit must not depend on where
// the rows start (vectorised sums that split by alignment would change the last bits).
TEST(Alignment, TheFitDoesNotDependOnWhereTheRowsStart) {
    const Dataset ds = shuffled(blobs(200, 37, 3, 12), 5);
    std::vector<float> buffer(ds.X.size() + 64);
    std::string first_gamma;
    double first_objective = 0;
    std::vector<int32_t> first_labels;
    for (size_t shift = 0; shift < 16; ++shift) {
        std::copy(ds.X.begin(), ds.X.end(), buffer.begin() + static_cast<std::ptrdiff_t>(shift));
        auto m = make_model("k=3 method=nystrom m=80 n_init=2");
        ASSERT_TRUE(Ok(kkm_fit(m.get(), buffer.data() + shift, ds.n, ds.d, nullptr)));
        if (shift == 0) {
            first_gamma = param_of(m.get(), "gamma");
            first_objective = objective_of(m.get());
            first_labels = labels_of(m.get(), ds.n);
            continue;
        }
        EXPECT_EQ(param_of(m.get(), "gamma"), first_gamma) << "shift " << shift;
        EXPECT_EQ(objective_of(m.get()), first_objective) << "shift " << shift;
        EXPECT_EQ(labels_of(m.get(), ds.n), first_labels) << "shift " << shift;
    }
}

TEST_F(Files, FitFileRefusesWhatItCannotMap) {
    const std::string path = write("x.f32", std::vector<float>(30, 1.0f));
    auto m = make_model("k=2");
    EXPECT_TRUE(Fails(kkm_fit_file(nullptr, path.c_str(), 3, nullptr, 0), KKM_ERR_INVALID_ARGUMENT, {W("model")}));
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), nullptr, 3, nullptr, 0), KKM_ERR_INVALID_ARGUMENT, {W("path")}));
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), path.c_str(), 0, nullptr, 0), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), path.c_str(), 7, nullptr, 0), KKM_ERR_INVALID_ARGUMENT,
                      {"120 bytes", "28", "check d"}));
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), (dir_ + "/missing").c_str(), 3, nullptr, 0), KKM_ERR_IO, {"missing"}));
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), write("empty", {}).c_str(), 3, nullptr, 0), KKM_ERR_IO, {"empty"}));
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), dir_.c_str(), 3, nullptr, 0), KKM_ERR_IO, {"regular"}));
    const std::string fifo = dir_ + "/fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_TRUE(Fails(kkm_fit_file(m.get(), fifo.c_str(), 3, nullptr, 0), KKM_ERR_IO, {"regular"}));  // no hang
    int32_t k = 0;
    EXPECT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED);  // every refusal left the model unfitted
}

// The one pass over X names the first NaN wherever it is: the last row of a mapped file too.
// rbf reads X once for its centring shift; a kernel with neither centring nor gamma=auto
// (polynomial with its gamma, cosine) has no pass before the kernel pass, which checks it.
TEST_F(Files, NonFiniteValueInTheLastRowOfAMappedFileIsNamed) {
    for (const std::string kernel : {"kernel=rbf", "kernel=polynomial gamma=0.5", "kernel=cosine"}) {
        Dataset ds = blobs(500, 4, 2, 3);
        ds.X[static_cast<size_t>((ds.n - 1) * ds.d + 2)] = std::numeric_limits<float>::quiet_NaN();
        const std::string path = write("nan.f32", ds.X);
        auto m = make_model(("k=2 method=nystrom m=50 " + kernel).c_str());
        EXPECT_TRUE(Fails(kkm_fit_file(m.get(), path.c_str(), ds.d, nullptr, 0), KKM_ERR_INVALID_DATA,
                          {"row 999", "column 2", "nan"}))
            << kernel;
        // The first of several: the lowest row, then the lowest column, for any thread count.
        ds.X[static_cast<size_t>(700 * ds.d + 3)] = std::numeric_limits<float>::infinity();
        ds.X[static_cast<size_t>(700 * ds.d + 1)] = -std::numeric_limits<float>::infinity();
        for (const char* threads : {"threads=1", "threads=2"}) {
            auto t = make_model(("k=2 method=nystrom m=50 " + kernel + " " + threads).c_str());
            EXPECT_TRUE(Fails(kkm_fit(t.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA,
                              {"row 700", "column 1", "-inf"}))
                << kernel << " " << threads;
        }
        // A landmark holding the NaN is named before K_LL is formed: m = n takes every row.
        auto every = make_model(("k=2 method=nystrom m=1000 " + kernel).c_str());
        EXPECT_TRUE(Fails(kkm_fit(every.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA,
                          {"row 700", "column 1", "-inf"}))
            << kernel;
    }
}

// gamma=auto from the fused pass: the mean pairwise squared distance 2 sum w|x - mu|^2 / W,
// to 1e-12 of a float64 two-pass reference, also far from the origin (no cancellation).
TEST(FusedPass, GammaMatchesATwoPassReference) {
    Dataset ds = blobs(400, 6, 3, 5);
    for (float& v : ds.X) v += 1.0e4f;  // an offset that would cancel sum x^2 - (sum x)^2
    // Weights 1/3, 2/3, 1 as the fit holds them (divided by the largest, in float32).
    std::vector<float> w(static_cast<size_t>(ds.n));
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(1 + i % 3) / 3.0f;
    for (const bool weighted : {false, true}) {
        double total = 0;
        std::vector<double> mean(static_cast<size_t>(ds.d), 0.0);
        for (int64_t i = 0; i < ds.n; ++i) {
            const double wi = weighted ? w[static_cast<size_t>(i)] : 1.0;
            total += wi;
            for (int64_t j = 0; j < ds.d; ++j) mean[static_cast<size_t>(j)] += wi * ds.X[static_cast<size_t>(i * ds.d + j)];
        }
        for (double& v : mean) v /= total;
        double spread = 0;
        for (int64_t i = 0; i < ds.n; ++i) {
            for (int64_t j = 0; j < ds.d; ++j) {
                const double diff = ds.X[static_cast<size_t>(i * ds.d + j)] - mean[static_cast<size_t>(j)];
                spread += (weighted ? w[static_cast<size_t>(i)] : 1.0) * diff * diff;
            }
        }
        const double beta = 0.4, sigma2 = 2.0 * spread / total, want = 1.0 / (2.0 * beta * beta * sigma2);
        std::vector<std::string> seen;
        for (const char* threads : {"threads=1", "threads=2"}) {
            auto m = make_model((std::string("k=3 method=nystrom m=60 ") + threads).c_str());
            ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, weighted ? w.data() : nullptr)));
            const double gamma = std::stod(param_of(m.get(), "gamma"));
            EXPECT_NEAR(gamma, want, 1e-12 * want) << (weighted ? "weighted" : "unweighted");
            seen.push_back(param_of(m.get(), "gamma"));
        }
        EXPECT_EQ(seen[0], seen[1]);  // the same bits for any thread count
    }
}

// The budget is checked before X is read: a fit over budget is refused as OUT_OF_MEMORY even
// when X holds a NaN (the pass that would find it never ran).
TEST(Budget, RefusedBeforeAnyPassOverX) {
    Dataset ds = blobs(2000, 8, 2, 1);
    ds.X[5] = std::numeric_limits<float>::quiet_NaN();
    auto m = make_model("k=2 method=nystrom m=1000 max_memory_mb=1");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_OUT_OF_MEMORY,
                      {W("max_memory_mb"), "1"}));
}

TEST(Budget, AutoIsAShareOfThisMachinesMemory) {
    const Dataset ds = blobs(50, 3, 2, 1);
    auto m = make_model("k=2 method=nystrom m=20");
    EXPECT_EQ(param_of(m.get(), "max_memory_mb"), "auto");  // the default, as set
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::string shown = param_of(m.get(), "max_memory_mb");  // after a fit: the MiB it resolved to
    ASSERT_FALSE(shown.empty());
    ASSERT_EQ(shown.find_first_not_of("0123456789"), std::string::npos) << shown;
    const double mib = std::stod(shown);
    const double physical = static_cast<double>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE) / 1048576.0;
    EXPECT_GE(mib, 1.0);
    EXPECT_LE(mib, std::floor(0.75 * physical));  // 3/4 of the physical memory at most (a cgroup may lower it)
    ASSERT_TRUE(Ok(kkm_set_param(m.get(), "max_memory_mb", "100")));
    EXPECT_EQ(param_of(m.get(), "max_memory_mb"), "100");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    EXPECT_EQ(param_of(m.get(), "max_memory_mb"), "100");
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "max_memory_mb", "0"), KKM_ERR_INVALID_ARGUMENT, {W("max_memory_mb")}));
}

// ------------------------------------------------------------------ kkm_partial_fit

TEST(PartialFit, StreamOfBatchesReachesTheOneShotFit) {
    const Dataset ds = shuffled(blobs(1000, 6, 5, 21, 2.0), 2);
    for (const char* params : {"k=5 method=nystrom m=100", "k=5 method=sketch m=100", "k=5 method=rff m=128",
                               "k=5 method=nystrom m=100 rank=10"}) {
        SCOPED_TRACE(params);
        auto once = make_model(params);
        ASSERT_TRUE(Ok(kkm_fit(once.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        auto stream = make_model(params);
        const int64_t batch = 500;
        for (int64_t begin = 0; begin < ds.n; begin += batch) {
            const int64_t rows = std::min(batch, ds.n - begin);
            ASSERT_TRUE(Ok(kkm_partial_fit(stream.get(), ds.X.data() + begin * ds.d, rows, ds.d, nullptr)));
            EXPECT_EQ(labels_of(stream.get(), rows).size(), static_cast<size_t>(rows));  // the batch's labels
        }
        std::vector<int32_t> streamed(static_cast<size_t>(ds.n)), one(static_cast<size_t>(ds.n));
        ASSERT_TRUE(Ok(kkm_assign(stream.get(), ds.X.data(), ds.n, ds.d, streamed.data(), nullptr)));
        ASSERT_TRUE(Ok(kkm_assign(once.get(), ds.X.data(), ds.n, ds.d, one.data(), nullptr)));
        EXPECT_GT(nmi(one, ds.truth), 0.95);
        EXPECT_GE(nmi(streamed, ds.truth), nmi(one, ds.truth) - 0.01);
        std::vector<double> sizes(5);
        ASSERT_TRUE(Ok(kkm_get_cluster_sizes(stream.get(), sizes.data(), 5)));
        EXPECT_DOUBLE_EQ(std::accumulate(sizes.begin(), sizes.end(), 0.0), static_cast<double>(ds.n));
    }
}

TEST(PartialFit, LaterBatchesMoveTheCentresToTheRunningMean) {
    // One cluster: after the stream its centre is the mean of every row (Sculley's update
    // with counts is the running mean), so the objective of a batch is its rows' spread about
    // the overall mean, and the first batch's own mean is forgotten.
    const float a[] = {0, 0, 2, 0};  // first batch: mean (1, 0)
    const float b[] = {4, 0, 6, 0};  // second batch: overall mean (3, 0)
    auto m = make_model("k=1 method=nystrom m=2 kernel=linear");  // m = n: the linear map is exact on the span
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), a, 2, 2, nullptr)));
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), b, 2, 2, nullptr)));
    // Linear kernel, exact map on the span: distances of (4,0) and (6,0) to (3,0) are 1 and 9.
    EXPECT_NEAR(objective_of(m.get()), 10.0, 1e-3);
    double size = 0;
    ASSERT_TRUE(Ok(kkm_get_cluster_sizes(m.get(), &size, 1)));
    EXPECT_DOUBLE_EQ(size, 4.0);
    int32_t iterations = 0;
    ASSERT_TRUE(Ok(kkm_get_iterations(m.get(), &iterations)));
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), b, 2, 2, nullptr)));
    int32_t after = 0;
    ASSERT_TRUE(Ok(kkm_get_iterations(m.get(), &after)));
    EXPECT_EQ(after, iterations + 1);
}

// ------------------------------------------------------------------ kkm_partial_fit, method=minibatch

// A progress callback that cancels at the stage `stage` and counts its reports there.
struct CancelAt {
    const char* stage;
    int seen = 0;
};

int cancel_at(const char* stage, double, void* user) {
    auto* at = static_cast<CancelAt*>(user);
    const bool hit = std::string(stage) == at->stage;
    at->seen += hit ? 1 : 0;
    return hit ? 1 : 0;
}

// Streams ds in batches of `batch` rows into m (kkm_partial_fit each).
void stream_into(kkm_model* m, const Dataset& ds, int64_t batch, int64_t begin = 0, int64_t end = -1) {
    end = end < 0 ? ds.n : end;
    for (; begin < end; begin += batch) {
        const int64_t rows = std::min(batch, end - begin);
        ASSERT_TRUE(Ok(kkm_partial_fit(m, ds.X.data() + begin * ds.d, rows, ds.d, nullptr)));
    }
}

std::vector<int32_t> assigned(const kkm_model* m, const Dataset& ds, std::vector<float>* dist = nullptr) {
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    if (dist != nullptr) dist->resize(static_cast<size_t>(ds.n));
    EXPECT_TRUE(Ok(kkm_assign(m, ds.X.data(), ds.n, ds.d, labels.data(), dist != nullptr ? dist->data() : nullptr)));
    return labels;
}

int32_t iterations_of(const kkm_model* m) {
    int32_t out = -1;
    EXPECT_TRUE(Ok(kkm_get_iterations(m, &out)));
    return out;
}

TEST(PartialFit, MinibatchStreamReachesTheOneShotFit) {
    // Blobs and two rings (rbf separates them): the stream's assignment of all rows is as good
    // as one kkm_fit of them; each later batch runs ceil(500 / 128) = 4 iterations.
    const Dataset sets[] = {shuffled(blobs(400, 6, 5, 21, 2.0), 2), shuffled(kkm_test::rings(1000, 5), 3)};
    const char* params[] = {"k=5 method=minibatch batch_size=128 tau=100 seed=3",
                            "k=2 method=minibatch batch_size=128 tau=100 gamma=auto bandwidth_scale=0.4 n_init=5 "
                            "seed=1"};
    for (int c = 0; c < 2; ++c) {
        SCOPED_TRACE(params[c]);
        const Dataset& ds = sets[c];
        auto once = make_model(params[c]);
        ASSERT_TRUE(Ok(kkm_fit(once.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        auto stream = make_model(params[c]);
        stream_into(stream.get(), ds, 500, 0, 500);
        const int32_t first = iterations_of(stream.get());
        stream_into(stream.get(), ds, 500, 500);
        EXPECT_EQ(iterations_of(stream.get()), first + 4 * ((ds.n - 500 + 499) / 500));
        EXPECT_EQ(labels_of(stream.get(), 500).size(), 500U);  // the last batch's labels
        const double one = nmi(assigned(once.get(), ds), ds.truth);
        EXPECT_GT(one, 0.95);
        EXPECT_GE(nmi(assigned(stream.get(), ds), ds.truth), one - 0.01);
        std::vector<double> sizes(static_cast<size_t>(c == 0 ? 5 : 2));
        ASSERT_TRUE(Ok(kkm_get_cluster_sizes(stream.get(), sizes.data(), static_cast<int64_t>(sizes.size()))));
        EXPECT_DOUBLE_EQ(std::accumulate(sizes.begin(), sizes.end(), 0.0), static_cast<double>(ds.n));
    }
}

TEST(PartialFit, MinibatchStreamGoesOnIdenticallyAfterSaveAndLoad) {
    const Dataset ds = shuffled(blobs(300, 4, 3, 9, 1.5), 5);
    for (const char* params : {"k=3 method=minibatch batch_size=64 tau=40", "k=3 method=minibatch batch_size=64 "
                                                                             "tau=40 learning_rate=sklearn"}) {
        SCOPED_TRACE(params);
        auto live = make_model(params);
        stream_into(live.get(), ds, 300, 0, 600);
        const std::vector<unsigned char> bytes = save(live.get());
        auto loaded = make_model();
        ASSERT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));
        stream_into(live.get(), ds, 150, 600);
        stream_into(loaded.get(), ds, 150, 600);
        EXPECT_EQ(labels_of(live.get(), 150), labels_of(loaded.get(), 150));
        EXPECT_EQ(objective_of(live.get()), objective_of(loaded.get()));
        EXPECT_EQ(iterations_of(live.get()), iterations_of(loaded.get()));
        std::vector<float> a, b;
        EXPECT_EQ(assigned(live.get(), ds, &a), assigned(loaded.get(), ds, &b));
        EXPECT_EQ(a, b);
    }
}

TEST(PartialFit, MinibatchModelStaysBoundedAndOwnsItsRows) {
    // 40 batches: the saved model does not grow with the stream (at most k(tau + b) support
    // rows), and it holds copies of them: the batches' memory is overwritten after each call.
    const Dataset ds = shuffled(blobs(400, 8, 4, 13, 1.5), 6);
    auto m = make_model("k=4 method=minibatch batch_size=64 tau=32");
    std::vector<float> batch(static_cast<size_t>(40 * ds.d));
    size_t after_two = 0, largest = 0;
    for (int64_t b = 0; b < 40; ++b) {
        std::copy_n(ds.X.begin() + b * 40 * ds.d, 40 * ds.d, batch.begin());
        ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), batch.data(), 40, ds.d, nullptr)));
        std::fill(batch.begin(), batch.end(), std::numeric_limits<float>::quiet_NaN());
        const size_t size = save(m.get()).size();
        if (b == 1) after_two = size;
        largest = std::max(largest, size);
    }
    // Support rows: 8 floats; history: an int64 point per term point, a base point and
    // coefficient each: at most k(tau + b) of each, plus the labels of 40 rows.
    const size_t bound = 4 * (32 + 64) * (8 * sizeof(float) + 3 * sizeof(int64_t) + sizeof(float));
    EXPECT_LE(largest, after_two + bound);  // keeping the rows would add 38 x 40 x 32 bytes of rows alone
    EXPECT_GT(nmi(assigned(m.get(), ds), ds.truth), 0.9);
}

TEST(PartialFit, MinibatchHonoursWeightsAndRefusesWhatItCannotStream) {
    const Dataset ds = shuffled(blobs(200, 3, 2, 4), 7);
    std::vector<float> w(static_cast<size_t>(ds.n), 1.0f);
    auto m = make_model("k=2 method=minibatch batch_size=32 tau=16");
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), 1, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("k"), "n=1"}));  // the first batch is a fit: at least k rows
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 100, ds.d, w.data())));
    const int32_t first = iterations_of(m.get());
    // Batches are drawn in proportion to weight: a weight-0 row never moves a centre.
    std::vector<float> half(100, 1.0f);
    std::fill(half.begin(), half.begin() + 50, 0.0f);
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data() + 100 * ds.d, 100, ds.d, half.data())));
    EXPECT_EQ(iterations_of(m.get()), first + 4);  // ceil(100 / 32)
    double sizes[2] = {};
    ASSERT_TRUE(Ok(kkm_get_cluster_sizes(m.get(), sizes, 2)));
    EXPECT_DOUBLE_EQ(sizes[0] + sizes[1], 150.0);
    std::vector<float> zero(50, 0.0f);  // as for every method and kkm_fit
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), 50, ds.d, zero.data()), KKM_ERR_INVALID_DATA,
                      {"weights", "zero"}));
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), 10, 6, nullptr), KKM_ERR_INVALID_ARGUMENT, {"d=6", "d=3"}));
    std::vector<float> bad(ds.X.begin(), ds.X.begin() + 30);
    bad[16] = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), bad.data(), 10, 3, nullptr), KKM_ERR_INVALID_DATA, {"row 5", "column 1"}));
    w[3] = -1.0f;
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), 10, 3, w.data()), KKM_ERR_INVALID_DATA, {"weights[3]"}));
    EXPECT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 20, ds.d, nullptr)));  // the stream goes on
    auto untruncated = make_model("k=2 method=minibatch tau=0");
    EXPECT_TRUE(Fails(kkm_partial_fit(untruncated.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"tau=0", "kkm_fit"}));
}

TEST(PartialFit, ALaterMinibatchBatchCanBeCancelledAndTheStreamStaysAsItWas) {
    const Dataset ds = shuffled(blobs(300, 4, 3, 6), 8);
    auto m = make_model("k=3 method=minibatch batch_size=64 tau=32");
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 300, ds.d, nullptr)));
    const int32_t iterations = iterations_of(m.get());
    const std::vector<unsigned char> before = save(m.get());
    CancelAt at{"minibatch"};
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), cancel_at, &at)));
    EXPECT_EQ(kkm_partial_fit(m.get(), ds.X.data() + 300 * ds.d, 300, ds.d, nullptr), KKM_ERR_CANCELLED);
    EXPECT_GE(at.seen, 1);
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), nullptr, nullptr)));
    EXPECT_EQ(iterations_of(m.get()), iterations);
    EXPECT_EQ(save(m.get()), before);  // the stream as it was
}

TEST(PartialFit, RefusesWhatCannotStream) {
    const Dataset ds = blobs(100, 3, 2, 4);
    for (const char* params : {"k=2 method=exact", "k=2 method=minibatch tau=0", "k=2 kernel=knn",
                               "k=2 refine=hartigan"}) {
        auto m = make_model(params);
        EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"kkm_partial_fit", "kkm_fit"}))
            << params;
    }
    auto m = make_model("k=2 method=nystrom m=150");
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), 100, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"first", "m=150", "n=100"}));
    ASSERT_TRUE(Ok(kkm_set_param(m.get(), "m", "50")));
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 100, ds.d, nullptr)));
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), ds.X.data(), 50, 6, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"d=6", "d=3"}));
    std::vector<float> bad(ds.X.begin(), ds.X.begin() + 30);
    bad[29] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), bad.data(), 10, 3, nullptr), KKM_ERR_INVALID_DATA, {"row 9", "column 2"}));
    EXPECT_TRUE(Fails(kkm_partial_fit(nullptr, ds.X.data(), 10, 3, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("model")}));
    EXPECT_TRUE(Fails(kkm_partial_fit(m.get(), nullptr, 10, 3, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("X")}));
    // Every refusal left the stream as it was: a batch of the right shape still goes on.
    EXPECT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 20, ds.d, nullptr)));
}


TEST(PartialFit, ALaterBatchCanBeCancelledAndTheStreamStaysAsItWas) {
    const Dataset ds = shuffled(blobs(300, 4, 3, 6), 4);
    auto m = make_model("k=3 method=rff m=64 n_init=1");
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 300, ds.d, nullptr)));
    CancelAt at{"features"};
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), cancel_at, &at)));
    EXPECT_EQ(kkm_partial_fit(m.get(), ds.X.data() + 300 * ds.d, 300, ds.d, nullptr), KKM_ERR_CANCELLED);
    EXPECT_EQ(at.seen, 1);
    ASSERT_TRUE(Ok(kkm_set_progress(m.get(), nullptr, nullptr)));
    double sizes[3] = {};
    ASSERT_TRUE(Ok(kkm_get_cluster_sizes(m.get(), sizes, 3)));
    EXPECT_DOUBLE_EQ(sizes[0] + sizes[1] + sizes[2], 300.0);  // the first batch only
    EXPECT_EQ(labels_of(m.get(), 300).size(), 300U);
}

TEST(PartialFit, GoesOnFromKkmFitAndRestartsWhenAParameterChanges) {
    const Dataset ds = shuffled(blobs(200, 4, 3, 8), 3);
    auto m = make_model("k=3 method=nystrom m=60 n_init=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    double sizes[3] = {};
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 100, ds.d, nullptr)));
    ASSERT_TRUE(Ok(kkm_get_cluster_sizes(m.get(), sizes, 3)));
    EXPECT_DOUBLE_EQ(sizes[0] + sizes[1] + sizes[2], 700.0);  // the fit's 600 rows, then 100 more
    ASSERT_TRUE(Ok(kkm_set_param(m.get(), "seed", "1")));
    ASSERT_TRUE(Ok(kkm_partial_fit(m.get(), ds.X.data(), 100, ds.d, nullptr)));
    ASSERT_TRUE(Ok(kkm_get_cluster_sizes(m.get(), sizes, 3)));
    EXPECT_DOUBLE_EQ(sizes[0] + sizes[1] + sizes[2], 100.0);  // a new stream
}

}  // namespace
