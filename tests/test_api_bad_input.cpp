// Bad inputs not already covered by test_api_errors.cpp, test_api_persistence.cpp and
// test_api_methods.cpp: each row of tests/BAD_INPUT.md names the test that checks it. Every
// test asserts the exact status and the words of kkm_last_error() that name the problem.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr double kNaN64 = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf64 = std::numeric_limits<double>::infinity();

Dataset small() {
    return blobs(10, 2, 2, 42);
}  // n = 20, d = 2

// A model fitted on small().
struct Fitted {
    Dataset ds = small();
    Model m;
    explicit Fitted(const char* params = "k=2 method=exact kernel=rbf gamma=0.1 seed=1") {
        m = make_model(params);
        EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    }
};
const char* const kNystrom = "k=2 method=nystrom kernel=rbf gamma=0.1 m=8 seed=1";

// A substring to find in the message, from a std::string.
Word S(const std::string& text) {
    return Word(text, Word::substring);
}

// The model is still unfitted (a failed fit must not fit it).
void expect_unfitted(const kkm_model* m) {
    int32_t k = 0;
    EXPECT_EQ(kkm_get_k(m, &k), KKM_ERR_NOT_FITTED);
}

}  // namespace

// ================================================================== NULL pointers

TEST(BadInputNull, SaveNullModel) {
    EXPECT_TRUE(Fails(kkm_save(nullptr, "x.kkm"), KKM_ERR_INVALID_ARGUMENT, {W("model"), I("null")}));
}

TEST(BadInputNull, TimingsSizeQueryIsNotAnError) {
    // buf = NULL with len = 0 is a size query (as for kkm_get_param); buf = NULL with len > 0
    // is INVALID_ARGUMENT (test_api_errors.cpp NullPointer.GetTimingsBuf).
    Fitted f;
    size_t need = 0;
    ASSERT_TRUE(Ok(kkm_get_timings(f.m.get(), nullptr, 0, &need)));
    EXPECT_GT(need, 0u);
    ASSERT_TRUE(Ok(kkm_get_param(f.m.get(), "method", nullptr, 0, &need)));
    EXPECT_EQ(need, std::string("exact").size());
}

// ================================================================== sizes

TEST(BadInputSizes, FitF64DZero) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, 0, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d"), W("0")}));
    expect_unfitted(m.get());
}
TEST(BadInputSizes, FitF64NNegative) {
    Model m = make_model("k=2");
    const Dataset ds = small();
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), -3, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n"), W("-3")}));
}
TEST(BadInputSizes, AssignDZero) {
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, 0, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), W("0")}));
}
TEST(BadInputSizes, AssignF64NZero) {
    Fitted f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), f.ds.X64.data(), 0, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("n"), W("0")}));
}
TEST(BadInputSizes, TransformNZero) {
    Fitted f(kNystrom);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), 0, f.ds.d, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("n"), W("0")}));
}
TEST(BadInputSizes, TransformDZero) {
    Fitted f(kNystrom);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, 0, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("d"), W("0")}));
}
TEST(BadInputSizes, TransformNegativeOutLen) {
    Fitted f(kNystrom);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, out.data(), -1), KKM_ERR_INVALID_ARGUMENT,
                      {"out_len=-1", "feature_dim"}));
}
TEST(BadInputSizes, MetricsNZero) {
    const int32_t a[3] = {0, 0, 1};
    double out = 0;
    EXPECT_TRUE(Fails(kkm_adjusted_rand_index(a, a, 0, &out), KKM_ERR_INVALID_ARGUMENT, {W("n"), W("0")}));
    EXPECT_TRUE(Fails(kkm_normalized_mutual_info(a, a, 0, &out), KKM_ERR_INVALID_ARGUMENT, {W("n"), W("0")}));
}
TEST(BadInputSizes, GetTimingsBufferTooSmall) {
    Fitted f;
    size_t need = 0;
    ASSERT_TRUE(Ok(kkm_get_timings(f.m.get(), nullptr, 0, &need)));
    std::vector<char> buf(4, 'x');
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_timings(f.m.get(), buf.data(), buf.size(), &len), KKM_ERR_INVALID_ARGUMENT,
                      {"len=4", W(std::to_string(need + 1))}));
    EXPECT_EQ(len, need);
    EXPECT_EQ(buf[3], '\0') << "a truncated, NUL-terminated prefix";
}

// ------------------------------------------------------------------ sizes whose products overflow
//
// Each call passes a small buffer with sizes whose product (n·d, n·k, n·m, n·feature_dim) cannot
// be addressed: the library must refuse them before it reads a byte of the buffer (reading
// n·d values from it would fault), naming both sizes.

constexpr int64_t kTwo33 = int64_t{1} << 33;
constexpr int64_t kTwo62Plus1 = (int64_t{1} << 62) + 1;

TEST(BadInputSizes, FitShapeOverflows64Bits) {
    Model m = make_model("k=2 method=exact gamma=1");
    std::vector<float> X(64, 1.0f);
    std::vector<double> X64(64, 1.0);
    EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), kTwo33, kTwo33, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"n=8589934592", "d=8589934592", "overflows"}));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), INT64_MAX, 1, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {S("n=" + std::to_string(INT64_MAX)), "d=1", "overflows"}));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), 1, INT64_MAX, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"n=1", S("d=" + std::to_string(INT64_MAX)), "overflows"}));
    // float64: n·d·8 bytes; the float32 copy was allocated from a wrapped size before.
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), X64.data(), kTwo62Plus1, 4, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {S("n=" + std::to_string(kTwo62Plus1)), "d=4", "overflows"}));
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), X64.data(), int64_t{1} << 60, 1, X64.data()), KKM_ERR_INVALID_ARGUMENT,
                      {"d=1", "8 bytes", "overflows"}))
        << "2^60 doubles are 2^63 bytes";
    expect_unfitted(m.get());
}

TEST(BadInputSizes, AssignShapeOverflows64Bits) {
    Fitted f(kNystrom);  // d = 2
    std::vector<int32_t> labels(64);
    std::vector<double> dist(64);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), kTwo62Plus1, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(kTwo62Plus1)), "d=2", "overflows"}));
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), f.ds.X64.data(), kTwo62Plus1, f.ds.d, labels.data(), dist.data()),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(kTwo62Plus1)), "d=2", "overflows"}));
    Fitted wide("k=2 method=exact gamma=0.1");
    EXPECT_TRUE(Fails(kkm_assign(wide.m.get(), wide.ds.X.data(), INT64_MAX / 2, 2, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {"d=2", "overflows"}));
}

TEST(BadInputSizes, TransformShapeOverflows64Bits) {
    Fitted f(kNystrom);  // d = 2, feature_dim >= 3
    int64_t dim = 0;
    ASSERT_TRUE(Ok(kkm_get_feature_dim(f.m.get(), &dim)));
    ASSERT_GE(dim, 3);
    std::vector<float> out(64);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), kTwo62Plus1, f.ds.d, out.data(), INT64_MAX),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(kTwo62Plus1)), "d=2", "overflows"}));
    // n·d·4 bytes fit (2^63 - 8), n·feature_dim·4 do not: out_len = INT64_MAX passed the old
    // division test (out_len / feature_dim >= n) and the rows were read.
    const int64_t n = (int64_t{1} << 60) - 1;
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), n, f.ds.d, out.data(), INT64_MAX),
                      KKM_ERR_INVALID_ARGUMENT,
                      {S("n=" + std::to_string(n)), S("feature_dim=" + std::to_string(dim)), "overflows"}));
}

TEST(BadInputSizes, ClusterSumsAndLandmarkRowsOverflow64Bits) {
    // n·d fits (2^58 floats of one column), but n·k (the n x k cluster sums) or n·m (the n x m
    // kernel rows or random features) does not: refused before X or the weights are read.
    const int64_t n = int64_t{1} << 58;
    std::vector<float> X(64, 1.0f);
    std::vector<float> w(64, 1.0f);
    Model exact = make_model("k=64 method=exact gamma=1");
    EXPECT_TRUE(Fails(kkm_fit(exact.get(), X.data(), n, 1, w.data()), KKM_ERR_INVALID_ARGUMENT,
                      {S("n=" + std::to_string(n)), "k=64", "cluster sums", "overflows"}));
    expect_unfitted(exact.get());
    Model nystrom = make_model("k=2 method=nystrom gamma=1");  // m = auto = 4 sqrt(n) = 2^31
    EXPECT_TRUE(Fails(kkm_fit(nystrom.get(), X.data(), n, 1, w.data()), KKM_ERR_INVALID_ARGUMENT,
                      {S("n=" + std::to_string(n)), "m=2147483648", "kernel rows", "m=auto", "overflows"}));
    Model sketch = make_model("k=2 method=sketch gamma=1 m=1073741824");
    EXPECT_TRUE(
        Fails(kkm_fit(sketch.get(), X.data(), n, 1, nullptr), KKM_ERR_INVALID_ARGUMENT, {"m=1073741824", "overflows"}));
    Model rff = make_model("k=2 method=rff gamma=1 m=2147483648");
    EXPECT_TRUE(Fails(kkm_fit(rff.get(), X.data(), int64_t{1} << 40, 1, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"n=1099511627776", "m=2147483648", "random features", "overflows"}));
    std::vector<double> X64(64, 1.0);
    EXPECT_TRUE(
        Fails(kkm_fit_f64(exact.get(), X64.data(), n, 1, nullptr), KKM_ERR_INVALID_ARGUMENT, {"k=64", "overflows"}));
}

// ================================================================== k

TEST(BadInputK, ZeroNegativeAndOverflowInSetParams) {
    Model m = make_model();
    const std::string before = get_param(m.get(), "k");
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=0"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "out of range", "[1,"}));
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=-3"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "-3", "out of range"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "2147483648"), KKM_ERR_INVALID_ARGUMENT,
                      {W("k"), "2147483648", "out of range"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "n_clusters", "0"), KKM_ERR_INVALID_ARGUMENT, {W("k")}))
        << "an alias is reported under the parameter's name";
    EXPECT_EQ(get_param(m.get(), "k"), before);
}

TEST(BadInputK, LargerThanNEveryOtherMethod) {
    // exact and nystrom: test_api_errors.cpp ParamK.LargerThanN / LargerThanNNystrom.
    const std::vector<float> X = {0, 0, 1, 1, 2, 2, 3, 3};  // n = 4, d = 2
    const std::vector<double> X64(X.begin(), X.end());
    for (const char* method : {"method=sketch", "method=rff", "method=minibatch", "method=nystrom solver=minibatch"}) {
        Model m = make_model((std::string("k=5 gamma=1 ") + method).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), 4, 2, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {W("k"), W("n"), W("5"), W("4")}))
            << method;
        EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), X64.data(), 4, 2, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {W("k"), W("n"), W("5"), W("4")}))
            << method;
        expect_unfitted(m.get());
    }
}

// ================================================================== NaN / Inf / out of float32 range

TEST(BadInputData, NaNInXAtTransform) {
    Fitted f(kNystrom);
    std::vector<float> X = f.ds.X;
    X[3 * f.ds.d + 1] = kNaN;
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), X.data(), f.ds.n, f.ds.d, out.data(), f.ds.n * 8), KKM_ERR_INVALID_DATA,
                      {"row 3", "column 1"}));
}
TEST(BadInputData, NaNInXAtAssignF64) {
    Fitted f(kNystrom);
    std::vector<double> X = f.ds.X64;
    X[8 * f.ds.d + 0] = kNaN64;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 8", "column 0"}));
}
TEST(BadInputData, NaNInPrecomputedKernel) {
    const Dataset ds = small();
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n), 0.0f);
    for (int64_t i = 0; i < ds.n; ++i) K[i * ds.n + i] = 1.0f;
    K[4 * ds.n + 9] = kNaN;
    Model m = make_model("k=2 method=exact kernel=precomputed");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA, {"row 4", "column 9"}));
}
/// The rbf kernel matrix of the small data set (symmetric, positive semi-definite).
std::vector<float> rbf_kernel_of(const Dataset& ds) {
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n));
    for (int64_t i = 0; i < ds.n; ++i) {
        for (int64_t j = 0; j < ds.n; ++j) {
            double sq = 0;
            for (int64_t t = 0; t < ds.d; ++t) {
                const double diff = static_cast<double>(ds.X[static_cast<size_t>(i * ds.d + t)]) -
                                    ds.X[static_cast<size_t>(j * ds.d + t)];
                sq += diff * diff;
            }
            K[static_cast<size_t>(i * ds.n + j)] = static_cast<float>(std::exp(-0.5 * sq));
        }
    }
    return K;
}

TEST(BadInputData, PrecomputedKernelNotSymmetric) {
    const Dataset ds = small();
    std::vector<float> K = rbf_kernel_of(ds);
    K[static_cast<size_t>(3 * ds.n + 11)] += 0.25f;  // K[3][11] no longer equals K[11][3]
    for (const char* method : {"exact", "nystrom m=10", "minibatch"}) {
        Model m = make_model((std::string("k=2 kernel=precomputed method=") + method).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA,
                          {"not symmetric", "K[3][11]", "K[11][3]", "row 3", "column 11"}))
            << method;
        expect_unfitted(m.get());
    }
}

TEST(BadInputData, PrecomputedKernelClearlyIndefinite) {
    const Dataset ds = small();
    // −I − 0.5: a negative diagonal.
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n), -0.5f);
    for (int64_t i = 0; i < ds.n; ++i) K[static_cast<size_t>(i * ds.n + i)] = -1.5f;
    Model m = make_model("k=2 kernel=precomputed method=exact");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA,
                      {"K[0][0]", "< 0", "non-negative diagonal"}));
    // A symmetric off-diagonal entry beyond sqrt(K_ii K_jj) (Cauchy-Schwarz).
    K = rbf_kernel_of(ds);
    K[static_cast<size_t>(2 * ds.n + 7)] = K[static_cast<size_t>(7 * ds.n + 2)] = 1.5f;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA,
                      {"not positive semi-definite", "K[2][7]", "Cauchy-Schwarz"}));
    expect_unfitted(m.get());
    // The same kernel untouched, and rounded the way a kernel computed elsewhere might be,
    // fits.
    K = rbf_kernel_of(ds);
    for (size_t t = 0; t < K.size(); t += 3) K[t] = std::nextafter(K[t], 2.0f);
    EXPECT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
}

TEST(BadInputData, BeyondFloat32AtFitF64) {
    // The computation runs in float32: a finite double beyond FLT_MAX cannot be converted.
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small();
    ds.X64[6 * ds.d + 1] = 1e300;
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA,
                      {"row 6", "column 1", "float32"}));
    expect_unfitted(m.get());
}
TEST(BadInputData, BeyondFloat32AtAssignF64) {
    Fitted f;
    std::vector<double> X = f.ds.X64;
    X[2 * f.ds.d + 0] = -1e39;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 2", "column 0", "float32"}));
}

// ================================================================== weights

TEST(BadInputWeights, NaNF64) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small();
    std::vector<double> w(ds.n, 1.0);
    w[13] = kNaN64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("13")}));
}
TEST(BadInputWeights, InfAndBeyondFloat32F64) {
    Model m = make_model("k=2 method=rff gamma=1");
    const Dataset ds = small();
    std::vector<double> w(ds.n, 1.0);
    w[5] = kInf64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("5")}));
    w[5] = 1.0;
    w[17] = 1e300;  // finite, but not a float32
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("17")}));
    expect_unfitted(m.get());
}
TEST(BadInputWeights, NegativeZeroIsZero) {
    // -0.0 is not negative: a weight of -0.0 is a zero weight, and all of them is the all-zero error.
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small();
    std::vector<float> w(ds.n, -0.0f);
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), "zero"}));
    w[0] = 1.0f;
    w[19] = 1.0f;
    EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data())));
}

// ================================================================== parameters

namespace {
struct BadValue {
    const char* key;
    const char* value;
    const char* why;  // the words of the message after the value
};
}  // namespace

// Every parameter rejects a value outside its range, names itself, the value and its range,
// and keeps its previous value.
TEST(BadInputParams, EveryParameterRejectsOutOfRange) {
    const BadValue cases[] = {
        {"k", "0", "out of range"},
        {"gamma", "0", "out of range"},
        {"bandwidth_scale", "0", "out of range"},
        {"bandwidth_scale", "-1", "out of range"},
        {"degree", "21", "out of range"},
        {"m", "0", "out of range"},
        {"nystrom_rcond", "1", "out of range"},
        {"nystrom_rcond", "-0.1", "out of range"},
        {"rank", "0", "out of range"},
        {"reg_rank", "0", "out of range"},
        {"rls_lambda", "0", "out of range"},
        {"batch_size", "0", "out of range"},
        {"tau", "-1", "out of range"},
        {"epsilon", "-0.5", "out of range"},
        {"n_init", "0", "out of range"},
        {"n_init", "1001", "out of range"},
        {"max_iter", "0", "out of range"},
        {"max_iter", "1000001", "out of range"},
        {"tol", "1", "out of range"},
        {"tol", "-1e-9", "out of range"},
        {"seed", "-1", "out of range"},
        {"seed", "9007199254740992", "out of range"},
        {"threads", "-1", "out of range"},
        {"threads", "1025", "out of range"},
        {"max_memory_mb", "0", "out of range"},
    };
    for (const BadValue& c : cases) {
        Model m = make_model();
        const std::string before = get_param(m.get(), c.key);
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), c.key, c.value), KKM_ERR_INVALID_ARGUMENT,
                          {W(c.key), S(std::string("'") + c.value + "'"), c.why, S(param_range(c.key))}))
            << c.key << "=" << c.value;
        EXPECT_EQ(get_param(m.get(), c.key), before) << c.key;
    }
}

TEST(BadInputParams, EveryEnumRejectsAnUnknownValue) {
    for (const char* key : {"method", "kernel", "sampling", "sketch", "solver", "learning_rate", "init"}) {
        Model m = make_model();
        const std::string before = get_param(m.get(), key);
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), key, "bogus"), KKM_ERR_INVALID_ARGUMENT,
                          {W(key), "'bogus'", "not one of the choices", S(param_range(key))}))
            << key;
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), key, ""), KKM_ERR_INVALID_ARGUMENT, {W(key)})) << key;
        EXPECT_EQ(get_param(m.get(), key), before) << key;
    }
}

TEST(BadInputParams, MalformedNumbers) {
    const BadValue cases[] = {
        {"k", "10abc", "is not an integer"},          {"k", " 3", "is not an integer"},
        {"k", "0x10", "is not an integer"},           {"k", "1e3", "is not an integer"},
        {"tol", "0.5.5", "is not a finite number"},   {"gamma", "1e", "is not a finite number"},
        {"gamma", "1e999", "is not a finite number"},  // overflows a double
        {"gamma", "0,5", "is not a finite number"},   {"coef0", "nan", "is not a finite number"},
        {"coef0", "-inf", "is not a finite number"},  {"m", "auto2", "is not an integer"},
        {"rank", "None", "is not an integer"},  // the keyword is "none"
    };
    for (const BadValue& c : cases) {
        Model m = make_model();
        const std::string before = get_param(m.get(), c.key);
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), c.key, c.value), KKM_ERR_INVALID_ARGUMENT,
                          {W(c.key), S(std::string("'") + c.value + "'"), c.why}))
            << c.key << "=" << c.value;
        EXPECT_EQ(get_param(m.get(), c.key), before) << c.key;
    }
}

TEST(BadInputParams, NumbersBeyondTheirTypeSayOutOfRange) {
    // A well-formed number that a double or an int64 cannot hold is out of range, not "not a
    // number": 1e-400 underflows, 1e999 overflows, 10^23 is beyond int64.
    const BadValue cases[] = {
        {"gamma", "1e-400", "underflows"},
        {"rls_lambda", "2e-324", "underflows"},
        {"gamma", "1e999", "overflows a double"},
        {"seed", "99999999999999999999999", "is out of range"},
        {"k", "-99999999999999999999999", "is out of range"},
    };
    for (const BadValue& c : cases) {
        Model m = make_model();
        const std::string before = get_param(m.get(), c.key);
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), c.key, c.value), KKM_ERR_INVALID_ARGUMENT,
                          {W(c.key), S(std::string("'") + c.value + "'"), c.why, S(param_range(c.key))}))
            << c.key << "=" << c.value;
        EXPECT_EQ(get_param(m.get(), c.key), before) << c.key;
    }
    // Subnormal doubles are numbers (and then within the range of gamma, (0, inf)).
    Model m = make_model();
    EXPECT_TRUE(Ok(kkm_set_param(m.get(), "gamma", "1e-310")));
}

TEST(BadInputParams, RepeatedKey) {
    // "k=10 k=11" kept the last value silently; an alias is the same parameter.
    Model m = make_model("k=3");
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=10 k=11"), KKM_ERR_INVALID_ARGUMENT,
                      {"parameter 'k'", "twice", "'k=10'", "'k=11'"}));
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=10 method=exact n_clusters=11"), KKM_ERR_INVALID_ARGUMENT,
                      {"parameter 'k'", "twice", "'k=10'", "'n_clusters=11'", "n_clusters"}));
    EXPECT_TRUE(
        Fails(kkm_set_params(m.get(), "gamma=1,gamma=1"), KKM_ERR_INVALID_ARGUMENT, {"parameter 'gamma'", "twice"}))
        << "even with the same value";
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "seed=1 random_state=2"), KKM_ERR_INVALID_ARGUMENT,
                      {"parameter 'seed'", "twice"}));
    EXPECT_EQ(get_param(m.get(), "k"), "3") << "nothing applied";
    EXPECT_EQ(get_param(m.get(), "method"), param_default("method"));
    // Separate calls still override each other.
    EXPECT_TRUE(Ok(kkm_set_params(m.get(), "k=10")));
    EXPECT_TRUE(Ok(kkm_set_params(m.get(), "k=11")));
    EXPECT_EQ(get_param(m.get(), "k"), "11");
}

TEST(BadInputParams, Coef0BeyondFloat32) {
    // coef0 accepts any finite double, but kernel=polynomial computes in float32: a value that
    // does not fit is refused at fit (it would be undefined behaviour to convert, inf to use).
    Model m = make_model("k=2 method=exact kernel=polynomial coef0=1e300");
    const Dataset ds = small();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"coef0=1e+300", "float32", "kernel=polynomial"}));
    expect_unfitted(m.get());
    // Kernels without coef0 ignore it.
    ASSERT_TRUE(Ok(kkm_set_params(m.get(), "kernel=rbf gamma=1")));
    EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
}

// ================================================================== conflicting parameters

TEST(BadInputConflicts, RankWithEveryOtherMethod) {
    // method=exact: test_api_methods.cpp RankRestriction.ConflictsAreErrors.
    const Dataset ds = small();
    for (const char* method : {"method=sketch", "method=rff", "method=minibatch"}) {
        Model m = make_model((std::string("k=2 gamma=1 rank=2 ") + method).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {W("rank"), "method=nystrom", "rank=none"}))
            << method;
        expect_unfitted(m.get());
    }
}

TEST(BadInputConflicts, RandomFeaturesNeedAShiftInvariantKernel) {
    // polynomial and precomputed: test_api_methods.cpp RankRestriction.ConflictsAreErrors.
    const Dataset ds = small();
    for (const char* kernel : {"linear", "cosine"}) {
        Model m = make_model((std::string("k=2 method=rff kernel=") + kernel).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"method=rff", "rbf", "laplacian", S(std::string("kernel=") + kernel)}))
            << kernel;
    }
}

TEST(BadInputConflicts, ForcedEnginePathTheCpuLacks) {
    // On a CPU with every path (AVX-512) only the accepted side runs; on an AVX2-only CPU the
    // avx512 request must fail with this message, and on a CPU without AVX2 both must.
    const Dataset ds = small();
    for (const char* isa : {"avx512", "avx2", "portable"}) {
        Model m = make_model((std::string("k=2 isa=") + isa).c_str());
        const kkm_status s = kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr);
        if (s == KKM_OK) {
            EXPECT_EQ(get_param(m.get(), "isa"), isa);
            continue;
        }
        EXPECT_TRUE(
            Fails(s, KKM_ERR_INVALID_ARGUMENT, {S(std::string("isa=") + isa), "not supported by this CPU", "isa=auto"}))
            << isa;
        expect_unfitted(m.get());
        EXPECT_STRNE(isa, "portable") << "the portable path runs everywhere";
    }
}

TEST(BadInputConflicts, HalfKernelRowsForAnUnboundedKernel) {
    // A linear or polynomial kernel's values can exceed the half range (65504): f16 storage
    // of its rows is refused, naming the parameter, the kernel and what to use instead.
    const Dataset ds = small();
    for (const char* kernel : {"linear", "polynomial"}) {
        Model m = make_model((std::string("k=2 method=nystrom m=10 kernel_rows=f16 kernel=") + kernel).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"kernel_rows=f16", S(std::string("kernel=") + kernel), "kernel_rows=f32"}))
            << kernel;
        expect_unfitted(m.get());
    }
}

TEST(BadInputConflicts, SketchLandmarksMoreThanN) {
    // method=nystrom: test_api_errors.cpp Conflicts.LandmarksMoreThanN.
    Model m = make_model("k=2 method=sketch m=50 gamma=1");
    const Dataset ds = small();  // n = 20
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("m"), W("50"), W("20")}));
}

TEST(BadInputConflicts, PrecomputedNystromAssignRejectsDistances) {
    // method=exact: test_api_errors.cpp Conflicts.PrecomputedAssignRejectsDistances.
    const Dataset ds = small();
    const std::vector<float> K = rbf_gram(ds, 0.1);
    Model m = make_model("k=2 method=nystrom kernel=precomputed m=10 seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
    std::vector<int32_t> labels(ds.n);
    std::vector<float> dist(ds.n);
    EXPECT_TRUE(Fails(kkm_assign(m.get(), K.data(), ds.n, ds.n, labels.data(), dist.data()), KKM_ERR_INVALID_ARGUMENT,
                      {"distances", "precomputed"}));
    EXPECT_TRUE(Ok(kkm_assign(m.get(), K.data(), ds.n, ds.n, labels.data(), nullptr)));
}

// ================================================================== call order and model state

TEST(BadInputState, ResolvedAutoOnlyWhileParametersAreTheFits) {
    // After kkm_set_params changes k, gamma=auto must not report the old fit's resolved gamma
    // beside the new k (a mix of two configurations).
    Fitted f("k=2 method=nystrom m=8 gamma=auto seed=1");
    const std::string resolved = get_param(f.m.get(), "gamma");
    ASSERT_NE(resolved, "auto");
    EXPECT_EQ(get_param(f.m.get(), "m"), "8");
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "k=3")));
    EXPECT_EQ(get_param(f.m.get(), "k"), "3");
    EXPECT_EQ(get_param(f.m.get(), "gamma"), "auto");
    EXPECT_EQ(get_param(f.m.get(), "isa"), "auto");
    // The fitted model itself is unchanged: it still has k=2.
    int32_t k = 0;
    ASSERT_TRUE(Ok(kkm_get_k(f.m.get(), &k)));
    EXPECT_EQ(k, 2);
    // Back to the fit's parameters: the resolved values again.
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "k=2")));
    EXPECT_EQ(get_param(f.m.get(), "gamma"), resolved);
    // A loaded model's parameters are those of its fit.
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "tol=0.5")));
    const std::vector<unsigned char> bytes = save(f.m.get());
    Model loaded = make_model();
    ASSERT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));
    EXPECT_EQ(get_param(loaded.get(), "gamma"), resolved);
    EXPECT_EQ(get_param(loaded.get(), "tol"), param_default("tol"));
}

// ================================================================== corrupted model files

namespace {

/// Offset of the top-level section `tag` of a saved model (walking the sections from the
/// 16-byte header), or 0.
size_t top_section(const std::vector<unsigned char>& bytes, const char* tag) {
    for (size_t at = 16; at + 12 <= bytes.size();) {
        uint64_t size = 0;
        std::memcpy(&size, bytes.data() + at + 4, 8);
        if (std::memcmp(bytes.data() + at, tag, 4) == 0) return at;
        at += 12 + static_cast<size_t>(size);
    }
    ADD_FAILURE() << "no section " << tag;
    return 0;
}

/// The model with its parameter block (the first section, PARM) replaced by `text`, resealed.
std::vector<unsigned char> with_parameter_block(const std::vector<unsigned char>& bytes, const std::string& text) {
    const size_t at = top_section(bytes, "PARM");
    uint64_t size = 0;
    std::memcpy(&size, bytes.data() + at + 4, 8);
    std::vector<unsigned char> out(bytes.begin(), bytes.begin() + static_cast<long>(at));
    auto put64 = [&out](uint64_t v) {
        const auto* p = reinterpret_cast<const unsigned char*>(&v);
        out.insert(out.end(), p, p + 8);
    };
    out.insert(out.end(), {'P', 'A', 'R', 'M'});
    put64(8 + text.size());
    put64(text.size());
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), bytes.begin() + static_cast<long>(at + 12 + size), bytes.end());
    reseal(out);
    return out;
}

/// The saved parameter text of a model.
std::string parameter_block(const std::vector<unsigned char>& bytes) {
    const size_t at = top_section(bytes, "PARM");
    uint64_t count = 0;
    std::memcpy(&count, bytes.data() + at + 12, 8);
    return std::string(reinterpret_cast<const char*>(bytes.data() + at + 20), static_cast<size_t>(count));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in " << text;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    return text;
}

}  // namespace

TEST(BadInputModel, ParameterBlockContradictsBody) {
    // A PARM block whose method is not the one the body was fitted with loaded and reported
    // parameters the model was not fitted with. Each pair: the fit, the method written over it.
    struct Swap {
        const char* fit;
        const char* method;
        const char* body;  // words of the message naming the body
    };
    const Swap swaps[] = {
        {"k=2 method=rff gamma=0.1 m=16 seed=1", "exact", "random Fourier features"},
        {"k=2 method=rff gamma=0.1 m=16 seed=1", "sketch", "random Fourier features"},
        {"k=2 method=exact gamma=0.1 seed=1", "rff", "dual"},
        {"k=2 method=exact gamma=0.1 seed=1", "nystrom", "dual"},
        {"k=2 method=nystrom gamma=0.1 m=8 seed=1", "minibatch", "Nystrom"},
        {"k=2 method=sketch gamma=0.1 m=8 seed=1", "nystrom", "sketched"},
        {"k=2 method=nystrom solver=minibatch gamma=0.1 m=8 seed=1", "sketch", "Nystrom features"},
    };
    for (const Swap& c : swaps) {
        Fitted f(c.fit);
        const std::vector<unsigned char> bytes = save(f.m.get());
        const std::string text = parameter_block(bytes);
        const std::string method = get_param(f.m.get(), "method");
        const std::vector<unsigned char> bad =
            with_parameter_block(bytes, replaced(text, "method=" + method, std::string("method=") + c.method));
        Model target = make_model("k=3");
        EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), bad.data(), static_cast<int64_t>(bad.size())), KKM_ERR_FORMAT,
                          {"corrupted model", S(std::string("method=") + c.method), S(c.body), "inconsistent"}))
            << c.fit << " saved as method=" << c.method;
        expect_unfitted(target.get());
        EXPECT_EQ(get_param(target.get(), "k"), "3");
        // The untouched block (rebuilt the same way) still loads: the helper is not the cause.
        const std::vector<unsigned char> same = with_parameter_block(bytes, text);
        EXPECT_TRUE(Ok(kkm_load_buffer(target.get(), same.data(), static_cast<int64_t>(same.size())))) << c.fit;
    }
    // rff with a kernel that random features cannot represent.
    Fitted f("k=2 method=rff gamma=0.1 m=16 seed=1");
    const std::vector<unsigned char> bytes = save(f.m.get());
    const std::vector<unsigned char> bad =
        with_parameter_block(bytes, replaced(parameter_block(bytes), "kernel=rbf", "kernel=linear"));
    Model target = make_model();
    EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), bad.data(), static_cast<int64_t>(bad.size())), KKM_ERR_FORMAT,
                      {"kernel=linear", "rbf or laplacian"}));
}

TEST(BadInputModel, NegativeClusterSize) {
    for (const char* params : {"k=2 method=nystrom gamma=0.1 m=8 seed=1", "k=2 method=exact gamma=0.1 seed=1"}) {
        Fitted f(params);
        std::vector<unsigned char> bytes = save(f.m.get());
        const double negative = -3.5;
        std::memcpy(bytes.data() + top_section(bytes, "MASS") + 12 + 8 + 8, &negative, 8);  // cluster 1
        reseal(bytes);
        Model target = make_model("k=3");
        EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), bytes.data(), static_cast<int64_t>(bytes.size())),
                          KKM_ERR_FORMAT, {"corrupted model", "cluster 1", "-3.5", "negative"}))
            << params;
        expect_unfitted(target.get());
    }
}

TEST(BadInputModel, TruncatedFileSaysHowManyBytesAreMissing) {
    // The last 16 bytes of a cut file are not the END. trailer: the loader said "expected
    // section END. but found B?6?" (whatever bytes were there). It must say the file is
    // truncated, and by how much.
    Fitted f(kNystrom);
    const std::vector<unsigned char> bytes = save(f.m.get());
    Model target = make_model("k=3");
    // Cuts in the trailer and in BODY, the last section (nearly all of a model): exact counts.
    for (const size_t cut : {size_t{1}, size_t{7}, size_t{16}, size_t{17}, size_t{100}}) {
        const std::vector<unsigned char> part(bytes.begin(), bytes.end() - static_cast<long>(cut));
        EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), part.data(), static_cast<int64_t>(part.size())), KKM_ERR_FORMAT,
                          {"truncated", S("has " + std::to_string(part.size()) + " bytes"),
                           S("expected " + std::to_string(cut) + " more bytes")}))
            << "cut " << cut;
    }
    // Cut inside an earlier section: at least the rest of that section is missing.
    const size_t labels = top_section(bytes, "LABL");
    const std::vector<unsigned char> part(bytes.begin(), bytes.begin() + static_cast<long>(labels + 20));
    EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), part.data(), static_cast<int64_t>(part.size())), KKM_ERR_FORMAT,
                      {"truncated", "LABL", "expected at least"}));
    // A damaged trailer in place is not a truncation.
    std::vector<unsigned char> damaged = bytes;
    damaged[damaged.size() - 16] = 'X';
    EXPECT_TRUE(Fails(kkm_load_buffer(target.get(), damaged.data(), static_cast<int64_t>(damaged.size())),
                      KKM_ERR_FORMAT, {"END."}));
    expect_unfitted(target.get());
}

TEST(BadInputModel, FailedSaveLeavesTheOldFile) {
    // kkm_save opened the path with "wb" (truncating it) and then wrote: a write that failed
    // half-way (a full disk; here a file size limit) destroyed the model saved before.
    Fitted f;
    char dir_template[] = "/tmp/kkm_bad_input_save_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_template), nullptr);
    const std::filesystem::path dir = dir_template;
    const std::string path = (dir / "model.kkm").string();
    const std::string old_bytes = "the model saved before (any bytes)";
    {
        std::ofstream out(path, std::ios::binary);
        out << old_bytes;
    }
    auto read_all = [](const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    };
    const std::vector<unsigned char> bytes = save(f.m.get());
    ASSERT_GT(bytes.size(), 512u);
    {
        // Writes past 512 bytes fail with EFBIG (SIGXFSZ ignored) until the limit is restored.
        rlimit saved{};
        ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
        void (*old_handler)(int) = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved;
        limited.rlim_cur = 512;
        ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limited), 0);
        const kkm_status status = kkm_save(f.m.get(), path.c_str());
        const std::string message = kkm_last_error();
        ::setrlimit(RLIMIT_FSIZE, &saved);
        std::signal(SIGXFSZ, old_handler);
        EXPECT_EQ(status, KKM_ERR_IO) << message;
        EXPECT_NE(message.find(path), std::string::npos) << message;
        EXPECT_NE(message.find("unchanged"), std::string::npos) << message;
    }
    EXPECT_EQ(read_all(path), old_bytes) << "the old file must be intact";
    size_t files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 1u) << "no temporary file may be left behind";
    // A save that succeeds replaces the file whole; through a symbolic link, the link stays.
    const std::string link = (dir / "link.kkm").string();
    ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
    ASSERT_TRUE(Ok(kkm_save(f.m.get(), link.c_str())));
    EXPECT_EQ(read_all(path), std::string(bytes.begin(), bytes.end()));
    struct stat st {};
    ASSERT_EQ(::lstat(link.c_str(), &st), 0);
    EXPECT_TRUE(S_ISLNK(st.st_mode));
    Model loaded = make_model();
    EXPECT_TRUE(Ok(kkm_load(loaded.get(), link.c_str())));
    // A directory in the way: IO naming the path, nothing left behind.
    const std::string sub = (dir / "sub.kkm").string();
    std::filesystem::create_directory(sub);
    EXPECT_TRUE(Fails(kkm_save(f.m.get(), sub.c_str()), KKM_ERR_IO, {S(sub)}));
    files = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++files;
    EXPECT_EQ(files, 3u);
    std::filesystem::remove_all(dir);
}

TEST(BadInputModel, LoadFileThatIsNotAModel) {
    Fitted f;
    std::vector<int32_t> before(f.ds.n);
    ASSERT_TRUE(Ok(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, before.data(), nullptr)));
    const std::string path = ::testing::TempDir() + "kkm_bad_input_not_a_model.txt";
    {
        std::ofstream out(path, std::ios::binary);
        out << "k=3 method=exact\nthis is a text file, not a saved model\n";
    }
    EXPECT_TRUE(Fails(kkm_load(f.m.get(), path.c_str()), KKM_ERR_FORMAT, {"not a kkmeans model"}));
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);  // an empty file
    }
    EXPECT_TRUE(Fails(kkm_load(f.m.get(), path.c_str()), KKM_ERR_FORMAT, {"not a kkmeans model"}));
    std::remove(path.c_str());
    // The model is unchanged.
    std::vector<int32_t> after(f.ds.n);
    ASSERT_TRUE(Ok(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, f.ds.d, after.data(), nullptr)));
    EXPECT_EQ(after, before);
    EXPECT_EQ(get_param(f.m.get(), "method"), "exact");
}

TEST(BadInputModel, TruncatedFileIsAFormatError) {
    Fitted f(kNystrom);
    int64_t size = 0;
    ASSERT_TRUE(Ok(kkm_save_buffer(f.m.get(), nullptr, 0, &size)));
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    ASSERT_TRUE(Ok(kkm_save_buffer(f.m.get(), bytes.data(), size, &size)));
    const std::string path = ::testing::TempDir() + "kkm_bad_input_truncated.kkm";
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size() / 2));
    }
    Model target = make_model("k=3");
    EXPECT_TRUE(Fails(kkm_load(target.get(), path.c_str()), KKM_ERR_FORMAT, {}));
    std::remove(path.c_str());
    expect_unfitted(target.get());
    EXPECT_EQ(get_param(target.get(), "k"), "3");
}
