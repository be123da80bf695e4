// Files read directly (O_DIRECT, RowStream) and fits of more than kSampledMomentsAbove rows
// (gamma=auto and the centring shift from a sample, finiteness checked in the kernel pass):
// bit for bit what the same rows in memory give, and every bad value still named.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
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
using kkm_test::Ok;
using kkm_test::param_of;
using kkm_test::W;

constexpr int64_t kSampledAbove = int64_t{1} << 21;  // kernels/row_scan.h: kSampledMomentsAbove

/// Whether row i of n is in the moments' sample (kernels/row_scan.h, one process): every
/// `every`-th block of 256 rows of each of 32 chunks, 64 blocks per chunk wanted.
bool sampled(int64_t i, int64_t n) {
    const int64_t per_chunk = (n + 31) / 32, blocks = (per_chunk + 255) / 256, every = (blocks + 63) / 64;
    return ((i % per_chunk) / 256) % every == 0;
}

/// KKMEANS_DIRECT_READS for the life of the object (the test process's own environment).
class DirectReads {
public:
    explicit DirectReads(const char* value) { ::setenv("KKMEANS_DIRECT_READS", value, 1); }
    ~DirectReads() { ::unsetenv("KKMEANS_DIRECT_READS"); }
};

// Files in a private directory of the test directory's file system.
class Direct : public kkm_test::FileDir {
protected:
    Direct() : FileDir("kkm_direct_") {}
    bool direct_possible(const std::string& path) const {
        const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECT);
        if (fd >= 0) ::close(fd);
        return fd >= 0;
    }
    /// kkm_fit on ds.X against kkm_fit_file on its file: labels, objective and gamma the same bits.
    void expect_same_fit(const char* params, const Dataset& ds, const std::string& path) const {
        SCOPED_TRACE(params);
        auto memory = make_model(params);
        auto file = make_model(params);
        ASSERT_TRUE(Ok(kkm_fit(memory.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        ASSERT_TRUE(Ok(kkm_fit_file(file.get(), path.c_str(), ds.d, nullptr, 0)));
        EXPECT_EQ(labels_of(file.get(), ds.n), labels_of(memory.get(), ds.n));
        EXPECT_EQ(objective_of(file.get()), objective_of(memory.get()));
        EXPECT_EQ(param_of(file.get(), "gamma"), param_of(memory.get(), "gamma"));
    }
};

// 600000 rows of 4 floats: two 8 MiB segments per stream, two streamed chunks of rows.
TEST_F(Direct, ReadingTheFileDirectlyGivesTheInMemoryFitBitForBit) {
    const Dataset ds = blobs(150000, 4, 4, 21);
    const std::string path = write("x.f32", ds.X);
    if (!direct_possible(path)) GTEST_SKIP() << ::testing::TempDir() << " refuses O_DIRECT";
    const DirectReads always("always");
    for (const char* params :
         {"k=4 method=nystrom m=60 rank=4 threads=2", "k=4 method=nystrom m=60 threads=1", "k=4 method=rff m=32"}) {
        expect_same_fit(params, ds, path);
    }
}

// The anchor graph reads X once in its graph pass (and its sample of anchors' rows): mapped, or
// read directly, the in-memory fit bit for bit, on one and two threads, heat and knn.
TEST_F(Direct, TheAnchorGraphFromAFileIsTheInMemoryFit) {
    const Dataset ds = blobs(150000, 4, 4, 22);
    const std::string path = write("a.f32", ds.X);
    for (const char* params : {"k=4 kernel=heat graph=anchor anchors=200 n_init=2 threads=2",
                               "k=4 kernel=heat graph=anchor anchors=200 n_init=2 threads=1",
                               "k=4 kernel=knn graph=anchor anchors=200 n_init=2 threads=2"}) {
        expect_same_fit(params, ds, path);
        if (!direct_possible(path)) continue;
        const DirectReads always("always");
        expect_same_fit(params, ds, path);
    }
}

// The rank restriction runs inside the kernel pass (R = G P_l kept instead of G, R'R summed in
// fixed chunks): the same bits for any thread count, read from memory or directly from a file,
// and the clustering of the two-pass restriction (solver=lloyd on G when features are dearer).
TEST_F(Direct, RankRestrictionInTheKernelPassIsTheSameForAnyThreadCount) {
    const Dataset ds = blobs(30000, 6, 5, 31, 1.5);
    const std::string path = write("rank.f32", ds.X);
    std::vector<std::vector<int32_t>> labels;
    std::vector<double> objectives;
    for (const char* params :
         {"k=5 method=nystrom m=80 rank=5 threads=1", "k=5 method=nystrom m=80 rank=5 threads=2"}) {
        auto m = make_model(params);
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        labels.push_back(labels_of(m.get(), ds.n));
        objectives.push_back(objective_of(m.get()));
    }
    EXPECT_EQ(labels[0], labels[1]);
    EXPECT_EQ(objectives[0], objectives[1]);
    {
        const DirectReads always("always");
        expect_same_fit("k=5 method=nystrom m=80 rank=5", ds, path);
    }
    // rank=40 with max_iter=3: features are dearer than Lloyd on G with P, the two-pass path.
    auto wide = make_model("k=5 method=nystrom m=80 rank=40 reg_rank=40 max_iter=3");
    ASSERT_TRUE(Ok(kkm_fit(wide.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    double score = 0;
    const std::vector<int32_t> got = labels_of(wide.get(), ds.n);
    ASSERT_TRUE(Ok(kkm_normalized_mutual_info(got.data(), ds.truth.data(), ds.n, &score)));
    double fused = 0;
    ASSERT_TRUE(Ok(kkm_normalized_mutual_info(labels[0].data(), ds.truth.data(), ds.n, &fused)));
    EXPECT_GT(fused, 0.9);
    EXPECT_GT(score, 0.9);
}

// Above kSampledMomentsAbove rows gamma=auto comes from 32 evenly spaced runs: close to every
// row's, the same bits from a file read directly as from memory.
TEST_F(Direct, ManyRowsTakeGammaFromASampleCloseToEveryRows) {
    const Dataset ds = blobs(kSampledAbove / 3 + 1000, 2, 3, 8);
    ASSERT_GT(ds.n, kSampledAbove);
    double mean[2] = {0, 0}, spread = 0;
    for (int64_t i = 0; i < ds.n; ++i) {
        for (int j = 0; j < 2; ++j) mean[j] += ds.X[static_cast<size_t>(i * 2 + j)];
    }
    for (double& v : mean) v /= static_cast<double>(ds.n);
    for (int64_t i = 0; i < ds.n; ++i) {
        for (int j = 0; j < 2; ++j) spread += std::pow(ds.X[static_cast<size_t>(i * 2 + j)] - mean[j], 2);
    }
    const double beta = 0.4, every_row = 1.0 / (2.0 * beta * beta * 2.0 * spread / static_cast<double>(ds.n));
    auto m = make_model("k=3 method=nystrom m=20");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const double gamma = std::stod(param_of(m.get(), "gamma"));
    EXPECT_NEAR(gamma, every_row, 1e-3 * every_row);
    EXPECT_NE(gamma, every_row);  // a sample's, not every row's (blobs sorted by class: runs of each)
    const std::string path = write("many.f32", ds.X);
    const DirectReads always("always");
    expect_same_fit("k=3 method=nystrom m=20", ds, path);
}

// The sample is checked by the pass that reads it; the rest by the Nystrom kernel pass (or a
// pass of its own for methods that read X otherwise): the first bad row is named either way.
TEST_F(Direct, ManyRowsStillNameTheFirstBadRow) {
    Dataset ds = blobs(kSampledAbove / 2 + 7, 2, 2, 4);
    const int64_t n = ds.n, per_chunk = (n + 31) / 32;
    const auto poison = [&](int64_t row, float v) { ds.X[static_cast<size_t>(row * 2 + 1)] = v; };
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    poison(n - 1, nan);  // the last row: outside every run of the sample
    for (const char* params : {"k=2 method=nystrom m=20", "k=2 method=rff m=16", "k=2 method=nystrom m=20 threads=1"}) {
        auto m = make_model(params);
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), n, 2, nullptr), KKM_ERR_INVALID_DATA,
                          {W("row " + std::to_string(n - 1)), "column 1", "nan"}))
            << params;
    }
    // An earlier row outside the sample, then one inside it: the earlier is named.
    const int64_t outside = 256 + 5, inside = 17 * per_chunk + 3;
    ASSERT_FALSE(sampled(outside, n));
    ASSERT_TRUE(sampled(inside, n));
    poison(outside, inf);
    poison(inside, nan);
    for (const char* params : {"k=2 method=nystrom m=20", "k=2 method=sketch m=20"}) {
        auto m = make_model(params);
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), n, 2, nullptr), KKM_ERR_INVALID_DATA,
                          {W("row " + std::to_string(outside)), "inf"}))
            << params;
    }
    // Every row outside the sample in the second half of each chunk bad: landmarks land on bad
    // rows before the kernel pass; the first bad row is still the one named.
    ds = blobs(kSampledAbove / 2 + 7, 2, 2, 4);
    int64_t first = -1;
    for (int64_t i = 0; i < n; ++i) {
        if (i % per_chunk < per_chunk / 2 || sampled(i, n)) continue;
        poison(i, nan);
        if (first < 0) first = i;
    }
    auto m = make_model("k=2 method=nystrom m=200");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), n, 2, nullptr), KKM_ERR_INVALID_DATA,
                      {W("row " + std::to_string(first)), "nan"}));
}

}  // namespace
