// kkm_distances and kkm_distances_f64 through the public C API: the squared distance of new
// rows to every fitted centre. For every method (and the nystrom fit clustered on features),
// each row's first minimum is kkm_assign's label and its value kkm_assign's distance, exactly;
// with method=exact and a linear kernel the values are Euclidean distances to the cluster
// means; the float64 call widens the float32 one; every bad input gives its status and words.
// kkm_transform: its output length, and the methods without an explicit feature map.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

namespace {

constexpr int32_t kK = 3;

// Training rows: 3 blobs in 3-D (centres 10 and 20 apart, sd 2, so that they nearly touch).
Dataset training() {
    return blobs(40, 3, kK, 11, 2.0);
}

// New rows spread over and between the blobs: many lie near a boundary between two clusters.
Dataset fresh(int64_t n = 300) {
    Dataset ds;
    ds.n = n;
    ds.d = 3;
    std::mt19937 gen(5);
    std::uniform_real_distribution<double> U(-15.0, 25.0);
    for (int64_t i = 0; i < n * ds.d; ++i) ds.X.push_back(static_cast<float>(U(gen)));
    ds.truth.assign(static_cast<size_t>(n), 0);
    finish(ds);
    return ds;
}

struct Case {
    const char* name;
    const char* params;
};

// Every method, and nystrom clustered on its features (solver=minibatch: the feature model
// that adds the landmarks' residual K(x,x) − ‖f(x)‖²).
const Case kCases[] = {
    {"exact", "k=3 method=exact kernel=rbf gamma=0.02 n_init=2 seed=1"},
    {"minibatch", "k=3 method=minibatch kernel=rbf gamma=0.02 batch_size=32 seed=1"},
    {"nystrom", "k=3 method=nystrom kernel=rbf gamma=0.02 m=30 seed=1"},
    {"nystrom_features", "k=3 method=nystrom solver=minibatch kernel=rbf gamma=0.02 m=30 batch_size=32 seed=1"},
    {"sketch", "k=3 method=sketch kernel=rbf gamma=0.02 m=30 seed=1"},
    {"rff", "k=3 method=rff kernel=rbf gamma=0.02 m=300 seed=1"},
};

Model fitted(const char* params, const Dataset& ds) {
    Model m = make_model(params);
    EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    return m;
}

// Index of the first minimum of row i of an n × k table.
template <class T>
int32_t first_minimum(const std::vector<T>& table, int64_t i, int64_t k) {
    const T* row = table.data() + i * k;
    return static_cast<int32_t>(std::min_element(row, row + k) - row);
}

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.name;
}

class EveryMethod : public ::testing::TestWithParam<Case> {};

}  // namespace

// ================================================================== agreement with kkm_assign

TEST_P(EveryMethod, FirstMinimumIsAssignsLabelAndDistanceExactly) {
    const Dataset train = training();
    const Dataset rows = fresh();
    Model m = fitted(GetParam().params, train);
    std::vector<int32_t> labels(rows.n);
    std::vector<float> nearest(rows.n);
    ASSERT_TRUE(Ok(kkm_assign(m.get(), rows.X.data(), rows.n, rows.d, labels.data(), nearest.data())));
    std::vector<float> all(static_cast<size_t>(rows.n * kK), -1.0f);
    ASSERT_TRUE(Ok(kkm_distances(m.get(), rows.X.data(), rows.n, rows.d, all.data(), rows.n * kK)));
    int64_t near_ties = 0;
    for (int64_t i = 0; i < rows.n; ++i) {
        EXPECT_EQ(first_minimum(all, i, kK), labels[i]) << GetParam().name << " row " << i;
        EXPECT_EQ(all[i * kK + labels[i]], nearest[i]) << GetParam().name << " row " << i;
        for (int64_t j = 0; j < kK; ++j) {
            EXPECT_GE(all[i * kK + j], 0.0f) << GetParam().name << " row " << i << " centre " << j;
            EXPECT_TRUE(std::isfinite(all[i * kK + j])) << GetParam().name << " row " << i << " centre " << j;
            if (j != labels[i] && all[i * kK + j] < nearest[i] * 1.05f) ++near_ties;
        }
    }
    // The rows must test the choice: some lie within 5% of a boundary between two centres.
    EXPECT_GT(near_ties, 0) << GetParam().name;
}

TEST_P(EveryMethod, TrainingRowsGiveTheObjective) {
    const Dataset train = training();
    Model m = fitted(GetParam().params, train);
    std::vector<float> all(static_cast<size_t>(train.n * kK));
    ASSERT_TRUE(Ok(kkm_distances(m.get(), train.X.data(), train.n, train.d, all.data(), train.n * kK)));
    std::vector<int32_t> labels(train.n);
    ASSERT_TRUE(Ok(kkm_get_labels(m.get(), labels.data(), train.n)));
    double objective = 0, own = 0;
    ASSERT_TRUE(Ok(kkm_get_objective(m.get(), &objective)));
    for (int64_t i = 0; i < train.n; ++i) own += all[i * kK + labels[i]];
    EXPECT_NEAR(own, objective, 1e-3 * std::max(1.0, objective)) << GetParam().name;
}

TEST_P(EveryMethod, Float64WidensFloat32AndThreadsChangeNothing) {
    const Dataset train = training();
    const Dataset rows = fresh(130);  // three blocks of rows, the last one short
    Model m = fitted(GetParam().params, train);
    std::vector<float> all(static_cast<size_t>(rows.n * kK));
    ASSERT_TRUE(Ok(kkm_distances(m.get(), rows.X.data(), rows.n, rows.d, all.data(), rows.n * kK)));
    std::vector<double> all64(all.size(), -1.0);
    ASSERT_TRUE(Ok(kkm_distances_f64(m.get(), rows.X64.data(), rows.n, rows.d, all64.data(), rows.n * kK)));
    for (size_t t = 0; t < all.size(); ++t) EXPECT_EQ(all64[t], static_cast<double>(all[t])) << "value " << t;
    // One row at a time: the same values as in blocks (each row's distances are its own).
    for (int64_t i = 0; i < rows.n; i += 17) {
        float one[kK];
        ASSERT_TRUE(Ok(kkm_distances(m.get(), rows.X.data() + i * rows.d, 1, rows.d, one, kK)));
        for (int64_t j = 0; j < kK; ++j) EXPECT_EQ(one[j], all[i * kK + j]) << "row " << i << " centre " << j;
    }
    // Fitted and measured on one thread and on three: the same values (results do not depend
    // on the thread count).
    std::vector<float> by_threads[2];
    const char* counts[2] = {" threads=1", " threads=3"};
    for (int t = 0; t < 2; ++t) {
        Model mt = fitted((std::string(GetParam().params) + counts[t]).c_str(), train);
        by_threads[t].resize(all.size());
        ASSERT_TRUE(Ok(kkm_distances(mt.get(), rows.X.data(), rows.n, rows.d, by_threads[t].data(), rows.n * kK)));
    }
    EXPECT_EQ(by_threads[0], by_threads[1]) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(Distances, EveryMethod, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// ================================================================== values

TEST(Distances, ExactLinearIsEuclideanToTheClusterMeans) {
    const Dataset train = training();
    const Dataset rows = fresh();
    Model m = fitted("k=3 method=exact kernel=linear n_init=2 seed=1", train);
    std::vector<int32_t> labels(train.n);
    ASSERT_TRUE(Ok(kkm_get_labels(m.get(), labels.data(), train.n)));
    std::vector<double> mean(static_cast<size_t>(kK * train.d), 0.0), count(kK, 0.0);
    for (int64_t i = 0; i < train.n; ++i) {
        count[static_cast<size_t>(labels[i])] += 1;
        for (int64_t c = 0; c < train.d; ++c)
            mean[static_cast<size_t>(labels[i] * train.d + c)] += train.X64[i * train.d + c];
    }
    for (int64_t j = 0; j < kK; ++j) {
        ASSERT_GT(count[static_cast<size_t>(j)], 0) << "centre " << j;
        for (int64_t c = 0; c < train.d; ++c)
            mean[static_cast<size_t>(j * train.d + c)] /= count[static_cast<size_t>(j)];
    }
    std::vector<double> all(static_cast<size_t>(rows.n * kK));
    ASSERT_TRUE(Ok(kkm_distances_f64(m.get(), rows.X64.data(), rows.n, rows.d, all.data(), rows.n * kK)));
    for (int64_t i = 0; i < rows.n; ++i) {
        double norm = 0;
        for (int64_t c = 0; c < rows.d; ++c) norm += rows.X64[i * rows.d + c] * rows.X64[i * rows.d + c];
        for (int64_t j = 0; j < kK; ++j) {
            double want = 0, scale = norm;
            for (int64_t c = 0; c < rows.d; ++c) {
                const double mc = mean[static_cast<size_t>(j * rows.d + c)];
                want += (rows.X64[i * rows.d + c] - mc) * (rows.X64[i * rows.d + c] - mc);
                scale += mc * mc;
            }
            // float32 kernel values: the rounding of x·x, x·μ and μ·μ.
            EXPECT_NEAR(all[i * kK + j], want, 1e-5 * scale + 1e-4) << "row " << i << " centre " << j;
        }
    }
}

TEST(Distances, ATieThatRoundingMakesKeepsTheFirstMinimumAtAssignsLabel) {
    // Ten rows at -1 and ten at +1 (linear kernel): the centres are -1 and +1, and a row at
    // ±1e-12 is nearer to one of them by 4e-12, which float32 cannot tell from a tie (both
    // distances round to 1). assign chooses the nearer centre; distances must keep its first
    // minimum there even when that centre has the higher index.
    std::vector<float> X(20);
    for (size_t i = 0; i < X.size(); ++i) X[i] = i < 10 ? -1.0f : 1.0f;
    Model m = make_model("k=2 method=exact kernel=linear seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), X.data(), 20, 1, nullptr)));
    std::vector<int32_t> train(20);
    ASSERT_TRUE(Ok(kkm_get_labels(m.get(), train.data(), 20)));
    ASSERT_NE(train[0], train[19]);
    const float row = train[19] == 1 ? 1e-12f : -1e-12f;  // nearer to centre 1
    int32_t label = -1;
    float nearest = -1;
    ASSERT_TRUE(Ok(kkm_assign(m.get(), &row, 1, 1, &label, &nearest)));
    ASSERT_EQ(label, 1);
    float all[2] = {-1, -1};
    ASSERT_TRUE(Ok(kkm_distances(m.get(), &row, 1, 1, all, 2)));
    EXPECT_EQ(all[1], nearest);
    EXPECT_NEAR(all[1], 1.0f, 1e-6f);
    // Centre 0 is reported one float step above: a tie in float32, broken as assign broke it.
    EXPECT_EQ(all[0], std::nextafter(all[1], std::numeric_limits<float>::infinity()));
    double all64[2] = {-1, -1};
    const double row64 = row;
    ASSERT_TRUE(Ok(kkm_distances_f64(m.get(), &row64, 1, 1, all64, 2)));
    EXPECT_EQ(all64[0], static_cast<double>(all[0]));
    EXPECT_EQ(all64[1], static_cast<double>(all[1]));
}

TEST(Distances, PrecomputedSketchHasThemFromTheKernelRows) {
    // sketch measures in its feature space: no k(x, x) is needed, so kernel=precomputed works.
    const Dataset train = training();
    const std::vector<float> K = rbf_gram(train, 0.02);
    Model m = make_model("k=3 method=sketch kernel=precomputed m=30 seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), train.n, train.n, nullptr)));
    std::vector<int32_t> labels(train.n);
    std::vector<float> nearest(train.n), all(static_cast<size_t>(train.n * kK));
    ASSERT_TRUE(Ok(kkm_assign(m.get(), K.data(), train.n, train.n, labels.data(), nearest.data())));
    ASSERT_TRUE(Ok(kkm_distances(m.get(), K.data(), train.n, train.n, all.data(), train.n * kK)));
    for (int64_t i = 0; i < train.n; ++i) {
        EXPECT_EQ(first_minimum(all, i, kK), labels[i]) << "row " << i;
        EXPECT_EQ(all[i * kK + labels[i]], nearest[i]) << "row " << i;
    }
}

// ================================================================== bad input

namespace {

// A fitted exact model (d = 3, k = 3) and rows for it.
struct ExactFit {
    Dataset train = training();
    Dataset rows = fresh(8);
    Model m = fitted("k=3 method=exact kernel=rbf gamma=0.02 seed=1", train);
    std::vector<float> out = std::vector<float>(static_cast<size_t>(8 * kK));
    std::vector<double> out64 = std::vector<double>(static_cast<size_t>(8 * kK));
};

}  // namespace

TEST(DistancesBadInput, NullModel) {
    const Dataset rows = fresh(8);
    std::vector<float> out(8 * kK);
    std::vector<double> out64(8 * kK);
    EXPECT_TRUE(Fails(kkm_distances(nullptr, rows.X.data(), rows.n, rows.d, out.data(), 8 * kK),
                      KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
    EXPECT_TRUE(Fails(kkm_distances_f64(nullptr, rows.X64.data(), rows.n, rows.d, out64.data(), 8 * kK),
                      KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}

TEST(DistancesBadInput, NullXAndOut) {
    ExactFit s;
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), nullptr, 8, 3, s.out.data(), 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {W("X"), kNull}));
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), nullptr, 8, 3, s.out64.data(), 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {W("X"), kNull}));
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 8, 3, nullptr, 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {W("out"), kNull}));
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), 8, 3, nullptr, 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {W("out"), kNull}));
}

TEST(DistancesBadInput, NotFitted) {
    Model m = make_model("k=3");
    const Dataset rows = fresh(8);
    std::vector<float> out(8 * kK);
    std::vector<double> out64(8 * kK);
    EXPECT_TRUE(Fails(kkm_distances(m.get(), rows.X.data(), 8, 3, out.data(), 8 * kK), KKM_ERR_NOT_FITTED,
                      {"not fitted", "kkm_fit"}));
    EXPECT_TRUE(Fails(kkm_distances_f64(m.get(), rows.X64.data(), 8, 3, out64.data(), 8 * kK), KKM_ERR_NOT_FITTED,
                      {"not fitted", "kkm_fit"}));
}

TEST(DistancesBadInput, NZeroOrNegative) {
    ExactFit s;
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 0, 3, s.out.data(), 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {W("n"), "must be > 0", W("0")}));
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), -4, 3, s.out64.data(), 8 * kK),
                      KKM_ERR_INVALID_ARGUMENT, {W("n"), "must be > 0", "-4"}));
}

TEST(DistancesBadInput, WrongD) {
    ExactFit s;
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 4, 6, s.out.data(), 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {"d=6", "d=3"}));
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), 4, 6, s.out64.data(), 8 * kK),
                      KKM_ERR_INVALID_ARGUMENT, {"d=6", "d=3"}));
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 8, 0, s.out.data(), 8 * kK), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), "must be > 0"}));
}

TEST(DistancesBadInput, OutLenTooSmall) {
    ExactFit s;
    // Nothing is written when out is too small.
    std::fill(s.out.begin(), s.out.end(), -7.0f);
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 8, 3, s.out.data(), 8 * kK - 1),
                      KKM_ERR_INVALID_ARGUMENT, {"out_len=23", "n x k = 8 x 3 = 24"}));
    EXPECT_TRUE(std::all_of(s.out.begin(), s.out.end(), [](float v) { return v == -7.0f; }));
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), 8, 3, s.out64.data(), 8),
                      KKM_ERR_INVALID_ARGUMENT, {"out_len=8", "n x k = 8 x 3 = 24"}));
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 8, 3, s.out.data(), -1), KKM_ERR_INVALID_ARGUMENT,
                      {"out_len=-1", "24"}));
    // Exactly n x k is enough.
    EXPECT_TRUE(Ok(kkm_distances(s.m.get(), s.rows.X.data(), 8, 3, s.out.data(), 8 * kK)));
}

TEST(DistancesBadInput, ShapeOverflows64Bits) {
    ExactFit s;
    // n·d overflows (before X is read).
    const int64_t huge = (int64_t{1} << 62) + 1;
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), huge, 3, s.out.data(), INT64_MAX),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(huge)), "d=3", "overflows"}));
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), huge, 3, s.out64.data(), INT64_MAX),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(huge)), "d=3", "overflows"}));
    // n·d fits, n·k does not (k = 3 > d = 2): the output's size overflows.
    Dataset flat = blobs(10, 2, kK, 3);
    Model narrow = fitted("k=3 method=exact kernel=rbf gamma=0.05 seed=1", flat);
    const int64_t n32 = (int64_t{1} << 60) - 1;  // n·2·4 bytes fit in 2^63 - 1, n·3·4 do not
    EXPECT_TRUE(Fails(kkm_distances(narrow.get(), flat.X.data(), n32, 2, s.out.data(), INT64_MAX),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(n32)), "k=3", "overflows"}));
    const int64_t n64 = (int64_t{1} << 59) - 1;  // the same with 8-byte values
    EXPECT_TRUE(Fails(kkm_distances_f64(narrow.get(), flat.X64.data(), n64, 2, s.out64.data(), INT64_MAX),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(n64)), "k=3", "overflows"}));
}

TEST(DistancesBadInput, NaNAndInfNameRowAndColumn) {
    ExactFit s;
    s.rows.X[5 * 3 + 2] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(Fails(kkm_distances(s.m.get(), s.rows.X.data(), 8, 3, s.out.data(), 8 * kK), KKM_ERR_INVALID_DATA,
                      {"row 5", "column 2"}));
    s.rows.X64[6 * 3 + 1] = -std::numeric_limits<double>::infinity();
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), 8, 3, s.out64.data(), 8 * kK),
                      KKM_ERR_INVALID_DATA, {"row 6", "column 1"}));
    s.rows.X64[6 * 3 + 1] = 1e300;  // beyond float32
    EXPECT_TRUE(Fails(kkm_distances_f64(s.m.get(), s.rows.X64.data(), 8, 3, s.out64.data(), 8 * kK),
                      KKM_ERR_INVALID_DATA, {"row 6", "column 1", "float32"}));
}

TEST(DistancesBadInput, PrecomputedKernelNeedsKxx) {
    // exact, minibatch and nystrom measure in kernel space: k(x, x) of a new row is needed,
    // and kernel=precomputed gives only its kernel values against the training points.
    const Dataset train = training();
    const std::vector<float> K = rbf_gram(train, 0.02);
    const std::vector<double> K64(K.begin(), K.end());
    const char* methods[] = {"exact", "minibatch", "nystrom"};
    for (const char* method : methods) {
        const std::string params = std::string("k=3 kernel=precomputed m=30 batch_size=32 seed=1 method=") + method;
        Model m = make_model(params.c_str());
        ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), train.n, train.n, nullptr))) << method;
        std::vector<float> out(static_cast<size_t>(4 * kK));
        std::vector<double> out64(out.size());
        EXPECT_TRUE(Fails(kkm_distances(m.get(), K.data(), 4, train.n, out.data(), 4 * kK), KKM_ERR_INVALID_ARGUMENT,
                          {"kernel=precomputed", "k(x, x)", S(std::string("method=") + method), "distances=NULL"}))
            << method;
        EXPECT_TRUE(Fails(kkm_distances_f64(m.get(), K64.data(), 4, train.n, out64.data(), 4 * kK),
                          KKM_ERR_INVALID_ARGUMENT,
                          {"kernel=precomputed", "k(x, x)", S(std::string("method=") + method)}))
            << method;
        // The labels alone still work.
        std::vector<int32_t> labels(4);
        EXPECT_TRUE(Ok(kkm_assign(m.get(), K.data(), 4, train.n, labels.data(), nullptr))) << method;
    }
}

// ================================================================== transform: its output and the methods that have one

TEST(Sizes, TransformOutTooSmall) {
    SmallFit f(kSmallNystrom);
    int64_t dim = 0;
    ASSERT_TRUE(Ok(kkm_get_feature_dim(f.m.get(), &dim)));
    ASSERT_GT(dim, 0);
    std::vector<float> out(static_cast<size_t>(f.ds.n * dim));
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, out.data(), f.ds.n * dim - 1),
                      KKM_ERR_INVALID_ARGUMENT, {W(std::to_string(f.ds.n * dim - 1)), "feature_dim"}));
}
TEST(Sizes, TransformOnExact) {
    SmallFit f;
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("exact")}));
}
TEST(BadInputSizes, TransformNegativeOutLen) {
    SmallFit f(kSmallNystrom);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, out.data(), -1), KKM_ERR_INVALID_ARGUMENT,
                      {"out_len=-1", "feature_dim"}));
}
