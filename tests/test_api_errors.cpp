// Bad inputs through the public C API: each test asserts the exact status and that
// kkm_last_error() names the problem (the parameter, the key, the row and column, the range).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kNaN64 = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf64 = std::numeric_limits<double>::infinity();

// Small data: 2 blobs of 10 rows in 2-D.
Dataset small() {
    return blobs(10, 2, 2, 42);
}

// A model fitted with method=exact (or nystrom) on small().
struct Fitted {
    Dataset ds = small();
    Model m;
    explicit Fitted(const char* params = "k=2 method=exact kernel=rbf gamma=0.1 seed=1") {
        m = make_model(params);
        EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    }
};
const char* kNystrom = "k=2 method=nystrom kernel=rbf gamma=0.1 m=8 seed=1";

const Word kNull = I("null");
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
    const Dataset ds = small();
    EXPECT_TRUE(
        Fails(kkm_fit(nullptr, ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, FitF64) {
    const Dataset ds = small();
    EXPECT_TRUE(
        Fails(kkm_fit_f64(nullptr, ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, Assign) {
    const Dataset ds = small();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(Fails(kkm_assign(nullptr, ds.X.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("model"), kNull}));
}
TEST(NullModel, AssignF64) {
    const Dataset ds = small();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(nullptr, ds.X64.data(), ds.n, ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("model"), kNull}));
}
TEST(NullModel, Transform) {
    const Dataset ds = small();
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
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), nullptr, f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("X"), kNull}));
}
TEST(NullPointer, AssignLabels) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, nullptr, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("labels"), kNull}));
}
TEST(NullPointer, AssignF64X) {
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), nullptr, f.ds.n, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("X"), kNull}));
}
TEST(NullPointer, AssignF64Labels) {
    Fitted f;
    std::vector<double> dist(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), f.ds.X64.data(), f.ds.n, f.ds.d, nullptr, dist.data()),
                      KKM_ERR_INVALID_ARGUMENT, {W("labels"), kNull}));
}
TEST(NullPointer, TransformX) {
    Fitted f(kNystrom);
    std::vector<float> out(f.ds.n * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), nullptr, f.ds.n, f.ds.d, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("X"), kNull}));
}
TEST(NullPointer, TransformOut) {
    Fitted f(kNystrom);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, nullptr, f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("out"), kNull}));
}
TEST(NullPointer, GetLabels) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_labels(f.m.get(), nullptr, f.ds.n), KKM_ERR_INVALID_ARGUMENT, {W("labels"), kNull}));
}
TEST(NullPointer, GetObjective) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_objective(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("objective"), kNull}));
}
TEST(NullPointer, GetNTrain) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_n_train(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n"), kNull}));
}
TEST(NullPointer, GetNFeatures) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_n_features(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d"), kNull}));
}
TEST(NullPointer, GetK) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_k(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("k"), kNull}));
}
TEST(NullPointer, GetIterations) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_iterations(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("iterations"), kNull}));
}
TEST(NullPointer, GetFeatureDim) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_feature_dim(f.m.get(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("dim"), kNull}));
}
TEST(NullPointer, GetClusterSizes) {
    Fitted f;
    EXPECT_TRUE(Fails(kkm_get_cluster_sizes(f.m.get(), nullptr, 2), KKM_ERR_INVALID_ARGUMENT, {W("sizes"), kNull}));
}
TEST(NullPointer, GetTimingsBuf) {
    Fitted f;
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
TEST(NullPointer, AdjustedRandIndex) {
    const int32_t a[3] = {0, 0, 1};
    double out = 0;
    EXPECT_TRUE(Fails(kkm_adjusted_rand_index(nullptr, a, 3, &out), KKM_ERR_INVALID_ARGUMENT, {W("a"), kNull}));
    EXPECT_TRUE(Fails(kkm_adjusted_rand_index(a, nullptr, 3, &out), KKM_ERR_INVALID_ARGUMENT, {W("b"), kNull}));
    EXPECT_TRUE(Fails(kkm_adjusted_rand_index(a, a, 3, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("out"), kNull}));
}
TEST(NullPointer, NormalizedMutualInfo) {
    const int32_t a[3] = {0, 0, 1};
    double out = 0;
    EXPECT_TRUE(Fails(kkm_normalized_mutual_info(nullptr, a, 3, &out), KKM_ERR_INVALID_ARGUMENT, {W("a"), kNull}));
    EXPECT_TRUE(Fails(kkm_normalized_mutual_info(a, nullptr, 3, &out), KKM_ERR_INVALID_ARGUMENT, {W("b"), kNull}));
    EXPECT_TRUE(Fails(kkm_normalized_mutual_info(a, a, 3, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("out"), kNull}));
}

// ================================================================== sizes

TEST(Sizes, FitNZero) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), 0, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, FitNNegative) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), -1, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, FitDZero) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, 0, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
}
TEST(Sizes, FitDNegative) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, -2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
}
TEST(Sizes, FitF64NZero) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), ds.X64.data(), 0, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, AssignNZero) {
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), 0, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("n")}));
}
TEST(Sizes, AssignNNegative) {
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), -5, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, AssignWrongD) {
    Fitted f;  // fitted on d = 2
    std::vector<float> X(static_cast<size_t>(f.ds.n) * 3, 0.5f);
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), X.data(), f.ds.n, 3, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), W("2"), W("3")}));
}
TEST(Sizes, AssignF64WrongD) {
    Fitted f;  // fitted on d = 2
    std::vector<double> X(static_cast<size_t>(f.ds.n), 0.5);
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, 1, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), W("2"), W("1")}));
}
TEST(Sizes, TransformWrongD) {
    Fitted f(kNystrom);
    std::vector<float> X(static_cast<size_t>(f.ds.n) * 3, 0.5f);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), X.data(), f.ds.n, 3, out.data(), f.ds.n * 8), KKM_ERR_INVALID_ARGUMENT,
                      {W("d")}));
}
TEST(Sizes, TransformOutTooSmall) {
    Fitted f(kNystrom);
    int64_t dim = 0;
    ASSERT_TRUE(Ok(kkm_get_feature_dim(f.m.get(), &dim)));
    ASSERT_GT(dim, 0);
    std::vector<float> out(static_cast<size_t>(f.ds.n * dim));
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, out.data(), f.ds.n * dim - 1),
                      KKM_ERR_INVALID_ARGUMENT, {W(std::to_string(f.ds.n * dim - 1)), "feature_dim"}));
}
TEST(Sizes, TransformOnExact) {
    Fitted f;
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("exact")}));
}
TEST(Sizes, GetLabelsLenTooSmall) {
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_get_labels(f.m.get(), labels.data(), f.ds.n - 1), KKM_ERR_INVALID_ARGUMENT,
                      {W("labels"), W("19"), W("20")}));
}
TEST(Sizes, GetClusterSizesLenTooSmall) {
    Fitted f;
    double sizes[1];
    EXPECT_TRUE(
        Fails(kkm_get_cluster_sizes(f.m.get(), sizes, 1), KKM_ERR_INVALID_ARGUMENT, {W("sizes"), W("1"), W("2")}));
}
TEST(Sizes, GetParamBufferTooSmall) {
    Model m = make_model("method=nystrom");
    char buf[4];
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_param(m.get(), "method", buf, sizeof buf, &len), KKM_ERR_INVALID_ARGUMENT,
                      {W("4"), W("8")}));  // the capacity and the bytes needed (with the NUL)
    EXPECT_EQ(len, std::strlen("nystrom"));
    EXPECT_STREQ(buf, "nys");
}
TEST(Sizes, ParamInfoIndexOutOfRange) {
    const char* name = nullptr;
    EXPECT_TRUE(Fails(kkm_param_info(kkm_param_count(), &name, nullptr, nullptr, nullptr, nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("index")}));
    EXPECT_TRUE(
        Fails(kkm_param_info(-1, &name, nullptr, nullptr, nullptr, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("index")}));
}
TEST(Sizes, MetricsNegativeN) {
    const int32_t a[3] = {0, 0, 1};
    double out = 0;
    EXPECT_TRUE(Fails(kkm_adjusted_rand_index(a, a, -1, &out), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
    EXPECT_TRUE(Fails(kkm_normalized_mutual_info(a, a, -1, &out), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}

// ================================================================== k

TEST(ParamK, ZeroIsOutOfRange) {
    Model m = make_model();
    const std::string before = get_param(m.get(), "k");
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "0"), KKM_ERR_INVALID_ARGUMENT, {W("k"), param_range("k").c_str()}));
    EXPECT_EQ(get_param(m.get(), "k"), before) << "a rejected value must leave the parameter unchanged";
}
TEST(ParamK, NotAnInteger) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "2.5"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "2.5"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "abc"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "abc"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", ""), KKM_ERR_INVALID_ARGUMENT, {W("k")}));
}
TEST(ParamK, LargerThanN) {
    Model m = make_model("k=5 method=exact gamma=1");
    const std::vector<float> X = {0, 0, 1, 1, 2, 2};  // n = 3, d = 2
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), X.data(), 3, 2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("k"), W("n"), W("5"), W("3")}));
    int32_t k = 0;
    EXPECT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED) << "a failed fit must not fit the model";
}
TEST(ParamK, LargerThanNNystrom) {
    Model m = make_model("k=5 method=nystrom gamma=1");
    const std::vector<float> X = {0, 0, 1, 1, 2, 2};  // n = 3, d = 2
    EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), 3, 2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("k"), W("n")}));
}

// ================================================================== NaN / Inf in X

TEST(BadData, NaNInXAtFit) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small();
    ds.X[3 * ds.d + 1] = kNaN;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 3", "column 1"}));
}
TEST(BadData, InfInXAtFit) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small();
    ds.X[5 * ds.d + 0] = kInf;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 5", "column 0"}));
}
TEST(BadData, NegativeInfInXAtFitNystrom) {
    Model m = make_model(kNystrom);
    Dataset ds = small();
    ds.X[17 * ds.d + 1] = -kInf;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 17", "column 1"}));
}
TEST(BadData, NaNInXAtFitGammaAuto) {
    // gamma=auto reads the data before anything else: the NaN must still be reported as such.
    Model m = make_model("k=2 method=nystrom gamma=auto");
    Dataset ds = small();
    ds.X[0] = kNaN;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 0", "column 0"}));
}
TEST(BadData, NaNInXAtFitF64) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small();
    ds.X64[7 * ds.d + 1] = kNaN64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 7", "column 1"}));
}
TEST(BadData, InfInXAtFitF64) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small();
    ds.X64[12 * ds.d + 0] = kInf64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 12", "column 0"}));
}
TEST(BadData, NaNInXAtAssign) {
    Fitted f;
    std::vector<float> X = f.ds.X;
    X[2 * f.ds.d + 1] = kNaN;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 2", "column 1"}));
}
TEST(BadData, NaNInXAtAssignNystrom) {
    Fitted f(kNystrom);
    std::vector<float> X = f.ds.X;
    X[4 * f.ds.d + 0] = kNaN;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 4", "column 0"}));
}
TEST(BadData, InfInXAtAssignF64) {
    Fitted f;
    std::vector<double> X = f.ds.X64;
    X[6 * f.ds.d + 1] = -kInf64;
    std::vector<int32_t> labels(f.ds.n);
    std::vector<double> dist(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), dist.data()),
                      KKM_ERR_INVALID_DATA, {"row 6", "column 1"}));
}

// ================================================================== weights

TEST(BadWeights, Negative) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small();
    std::vector<float> w(ds.n, 1.0f);
    w[4] = -1.0f;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("4")}));
}
TEST(BadWeights, NegativeF64) {
    Model m = make_model("k=2 method=nystrom gamma=1 m=8");
    const Dataset ds = small();
    std::vector<double> w(ds.n, 1.0);
    w[9] = -0.5;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("9")}));
}
TEST(BadWeights, NaN) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small();
    std::vector<float> w(ds.n, 1.0f);
    w[2] = kNaN;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("2")}));
}
TEST(BadWeights, Inf) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small();
    std::vector<float> w(ds.n, 1.0f);
    w[11] = kInf;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("11")}));
}
TEST(BadWeights, AllZero) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small();
    std::vector<float> w(ds.n, 0.0f);
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight")}));
}
TEST(BadWeights, AllZeroF64Nystrom) {
    Model m = make_model("k=2 method=nystrom gamma=1 m=8");
    const Dataset ds = small();
    std::vector<double> w(ds.n, 0.0);
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight")}));
}

// ================================================================== parameters

TEST(Params, UnknownKeySetParam) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "bogus_key", "1"), KKM_ERR_INVALID_ARGUMENT, {"bogus_key"}));
}
TEST(Params, UnknownKeySetParams) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=3 bogus_key=1"), KKM_ERR_INVALID_ARGUMENT, {"bogus_key"}));
}
TEST(Params, UnknownKeyGetParam) {
    Model m = make_model();
    char buf[64];
    EXPECT_TRUE(
        Fails(kkm_get_param(m.get(), "bogus_key", buf, sizeof buf, nullptr), KKM_ERR_INVALID_ARGUMENT, {"bogus_key"}));
}
TEST(Params, KeysAreCaseSensitive) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "K", "3"), KKM_ERR_INVALID_ARGUMENT, {W("K")}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "method", "Exact"), KKM_ERR_INVALID_ARGUMENT, {"Exact"}));
}
TEST(Params, MalformedPair) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k10"), KKM_ERR_INVALID_ARGUMENT, {"k10"}));
}
TEST(Params, MalformedPairEmptyKey) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=3 =5"), KKM_ERR_INVALID_ARGUMENT, {"=5"}));
    EXPECT_EQ(get_param(m.get(), "k"), param_default("k"));
}
TEST(Params, EmptyValueInPairs) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k="), KKM_ERR_INVALID_ARGUMENT, {W("k")}));
}
TEST(Params, GammaNegative) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "-1"), KKM_ERR_INVALID_ARGUMENT,
                      {W("gamma"), param_range("gamma").c_str()}));
    EXPECT_EQ(get_param(m.get(), "gamma"), param_default("gamma"));
}
TEST(Params, GammaZeroIsExcluded) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "0"), KKM_ERR_INVALID_ARGUMENT,
                      {W("gamma"), param_range("gamma").c_str()}));
}
TEST(Params, GammaNaN) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "nan"), KKM_ERR_INVALID_ARGUMENT, {W("gamma")}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "inf"), KKM_ERR_INVALID_ARGUMENT, {W("gamma")}));
}
TEST(Params, DegreeZero) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "degree", "0"), KKM_ERR_INVALID_ARGUMENT,
                      {W("degree"), param_range("degree").c_str()}));
}
TEST(Params, TolTwo) {
    Model m = make_model();
    EXPECT_TRUE(
        Fails(kkm_set_param(m.get(), "tol", "2"), KKM_ERR_INVALID_ARGUMENT, {W("tol"), param_range("tol").c_str()}));
}
TEST(Params, MethodFoo) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "method", "foo"), KKM_ERR_INVALID_ARGUMENT,
                      {W("method"), W("foo"), W("exact"), W("nystrom")}));
    EXPECT_EQ(get_param(m.get(), "method"), param_default("method"));
}
TEST(Params, KernelFoo) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "kernel=foo"), KKM_ERR_INVALID_ARGUMENT,
                      {W("kernel"), W("rbf"), W("linear"), W("precomputed")}));
}
TEST(Params, SetParamsAllOrNothing) {
    Model m = make_model();
    const std::string k0 = get_param(m.get(), "k");
    const std::string n_init0 = get_param(m.get(), "n_init");
    const std::string method0 = get_param(m.get(), "method");
    ASSERT_NE(k0, "3");
    ASSERT_NE(n_init0, "2");
    EXPECT_TRUE(
        Fails(kkm_set_params(m.get(), "k=3 n_init=2 method=exact gamma=-1"), KKM_ERR_INVALID_ARGUMENT, {W("gamma")}));
    EXPECT_EQ(get_param(m.get(), "k"), k0);
    EXPECT_EQ(get_param(m.get(), "n_init"), n_init0);
    EXPECT_EQ(get_param(m.get(), "method"), method0);
}
TEST(Params, SetParamsAllOrNothingMalformedLast) {
    Model m = make_model();
    const std::string k0 = get_param(m.get(), "k");
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=3,tol=0.5,oops"), KKM_ERR_INVALID_ARGUMENT, {"oops"}));
    EXPECT_EQ(get_param(m.get(), "k"), k0);
    EXPECT_EQ(get_param(m.get(), "tol"), param_default("tol"));
}

// ================================================================== not fitted

TEST(NotFitted, Assign) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(
        Fails(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, AssignF64) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    std::vector<int32_t> labels(ds.n);
    EXPECT_TRUE(
        Fails(kkm_assign_f64(m.get(), ds.X64.data(), ds.n, ds.d, labels.data(), nullptr), KKM_ERR_NOT_FITTED, {kFit}));
}
TEST(NotFitted, Transform) {
    Model m = make_model("k=2");
    const Dataset ds = small();
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

// ================================================================== memory budget

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
    Fitted f;
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

// ================================================================== conflicting parameters

TEST(Conflicts, PrecomputedNeedsSquareMatrix) {
    Model m = make_model("k=2 method=exact kernel=precomputed");
    const Dataset ds = small();  // n = 20, d = 2
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {"precomputed"}));
}

namespace {
// RBF kernel matrix of rows a (na × d) against rows b (nb × d), row-major na × nb.
std::vector<float> rbf_matrix(const std::vector<float>& a, int64_t na, const std::vector<float>& b, int64_t nb,
                              int64_t d, double gamma) {
    std::vector<float> K(static_cast<size_t>(na * nb));
    for (int64_t i = 0; i < na; ++i) {
        for (int64_t j = 0; j < nb; ++j) {
            double s = 0;
            for (int64_t c = 0; c < d; ++c) {
                const double t = static_cast<double>(a[i * d + c]) - b[j * d + c];
                s += t * t;
            }
            K[i * nb + j] = static_cast<float>(std::exp(-gamma * s));
        }
    }
    return K;
}
}  // namespace

TEST(Conflicts, PrecomputedAssignRejectsDistances) {
    const Dataset ds = small();
    const std::vector<float> K = rbf_matrix(ds.X, ds.n, ds.X, ds.n, ds.d, 0.1);
    Model m = make_model("k=2 method=exact kernel=precomputed seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
    std::vector<int32_t> labels(ds.n);
    std::vector<float> dist(ds.n);
    std::vector<double> dist64(ds.n);
    const std::vector<double> K64(K.begin(), K.end());
    EXPECT_TRUE(Fails(kkm_assign(m.get(), K.data(), ds.n, ds.n, labels.data(), dist.data()), KKM_ERR_INVALID_ARGUMENT,
                      {"distances", "precomputed"}));
    EXPECT_TRUE(Fails(kkm_assign_f64(m.get(), K64.data(), ds.n, ds.n, labels.data(), dist64.data()),
                      KKM_ERR_INVALID_ARGUMENT, {"distances", "precomputed"}));
    // Without distances it works, and returns the training labels.
    ASSERT_TRUE(Ok(kkm_assign(m.get(), K.data(), ds.n, ds.n, labels.data(), nullptr)));
    std::vector<int32_t> train(ds.n);
    ASSERT_TRUE(Ok(kkm_get_labels(m.get(), train.data(), ds.n)));
    EXPECT_EQ(labels, train);
}
TEST(Conflicts, PrecomputedAssignWrongWidth) {
    const Dataset ds = small();
    const std::vector<float> K = rbf_matrix(ds.X, ds.n, ds.X, ds.n, ds.d, 0.1);
    Model m = make_model("k=2 method=exact kernel=precomputed seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
    std::vector<int32_t> labels(ds.n);
    // Rows against the training points must have n_train columns.
    EXPECT_TRUE(
        Fails(kkm_assign(m.get(), K.data(), 1, ds.n - 1, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
}
TEST(Conflicts, LandmarksMoreThanN) {
    Model m = make_model("k=2 method=nystrom m=50 gamma=1");
    const Dataset ds = small();  // n = 20
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("m"), W("50"), W("20")}));
}

// ================================================================== failed fit keeps the model

namespace {
void expect_failed_fit_keeps_model(const char* params) {
    Fitted f(params);
    std::vector<int32_t> labels0(f.ds.n);
    double obj0 = 0;
    int32_t iter0 = 0;
    int64_t dim0 = -1;
    ASSERT_TRUE(Ok(kkm_get_labels(f.m.get(), labels0.data(), f.ds.n)));
    ASSERT_TRUE(Ok(kkm_get_objective(f.m.get(), &obj0)));
    ASSERT_TRUE(Ok(kkm_get_iterations(f.m.get(), &iter0)));
    ASSERT_TRUE(Ok(kkm_get_feature_dim(f.m.get(), &dim0)));
    const std::string gamma0 = get_param(f.m.get(), "gamma");
    std::vector<int32_t> assigned0(f.ds.n);
    ASSERT_TRUE(Ok(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, assigned0.data(), nullptr)));

    // A different data set (n = 30, d = 3) with a NaN in its last row: the fit fails late.
    Dataset bad = blobs(15, 3, 2, 7);
    bad.X[29 * 3 + 2] = kNaN;
    EXPECT_TRUE(
        Fails(kkm_fit(f.m.get(), bad.X.data(), bad.n, bad.d, nullptr), KKM_ERR_INVALID_DATA, {"row 29", "column 2"}));

    std::vector<int32_t> labels1(f.ds.n);
    double obj1 = 0;
    int32_t iter1 = 0, k1 = 0;
    int64_t n1 = 0, d1 = 0, dim1 = -1;
    ASSERT_TRUE(Ok(kkm_get_labels(f.m.get(), labels1.data(), f.ds.n)));
    ASSERT_TRUE(Ok(kkm_get_objective(f.m.get(), &obj1)));
    ASSERT_TRUE(Ok(kkm_get_iterations(f.m.get(), &iter1)));
    ASSERT_TRUE(Ok(kkm_get_n_train(f.m.get(), &n1)));
    ASSERT_TRUE(Ok(kkm_get_n_features(f.m.get(), &d1)));
    ASSERT_TRUE(Ok(kkm_get_k(f.m.get(), &k1)));
    ASSERT_TRUE(Ok(kkm_get_feature_dim(f.m.get(), &dim1)));
    EXPECT_EQ(labels1, labels0);
    EXPECT_EQ(obj1, obj0);
    EXPECT_EQ(iter1, iter0);
    EXPECT_EQ(n1, f.ds.n);
    EXPECT_EQ(d1, f.ds.d);
    EXPECT_EQ(k1, 2);
    EXPECT_EQ(dim1, dim0);
    EXPECT_EQ(get_param(f.m.get(), "gamma"), gamma0);

    std::vector<int32_t> assigned1(f.ds.n);
    ASSERT_TRUE(Ok(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, assigned1.data(), nullptr)));
    EXPECT_EQ(assigned1, assigned0);
}
}  // namespace

TEST(FailedFit, KeepsExactModel) {
    expect_failed_fit_keeps_model("k=2 method=exact kernel=rbf gamma=0.1 seed=1");
}
TEST(FailedFit, KeepsNystromModel) {
    expect_failed_fit_keeps_model(kNystrom);
}
TEST(FailedFit, KeepsAutoGammaModel) {
    expect_failed_fit_keeps_model("k=2 method=nystrom kernel=rbf gamma=auto m=auto seed=1");
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
