// Malformed input, whatever the entry point (fit, fit_f64, assign, assign_f64, transform): sizes
// (n or d not positive, a d other than the fit's, products that overflow 64 bits), non-finite
// values or doubles beyond float32 in X, bad weights; and a fit that fails on them leaves the
// model exactly as it was. A feature's own bad parameters and calls are tested in its own file
// (tests/README.md). Each row of tests/BAD_INPUT.md names the tests that check it, and every test
// here is named there (check_bad_input_table.py, meson test bad_input_table). Every test asserts
// the exact status and the words of kkm_last_error() that name the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kNaN64 = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf64 = std::numeric_limits<double>::infinity();

}  // namespace

// ================================================================== sizes

TEST(Sizes, FitNZero) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), 0, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, FitNNegative) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), -1, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, FitDZero) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, 0, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
}
TEST(Sizes, FitDNegative) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, -2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
}
TEST(Sizes, FitF64NZero) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), ds.X64.data(), 0, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, AssignNZero) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), 0, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("n")}));
}
TEST(Sizes, AssignNNegative) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), -5, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("n")}));
}
TEST(Sizes, AssignWrongD) {
    SmallFit f;  // fitted on d = 2
    std::vector<float> X(static_cast<size_t>(f.ds.n) * 3, 0.5f);
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), X.data(), f.ds.n, 3, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), W("2"), W("3")}));
}
TEST(Sizes, AssignF64WrongD) {
    SmallFit f;  // fitted on d = 2
    std::vector<double> X(static_cast<size_t>(f.ds.n), 0.5);
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, 1, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), W("2"), W("1")}));
}
TEST(Sizes, TransformWrongD) {
    SmallFit f(kSmallNystrom);
    std::vector<float> X(static_cast<size_t>(f.ds.n) * 3, 0.5f);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), X.data(), f.ds.n, 3, out.data(), f.ds.n * 8), KKM_ERR_INVALID_ARGUMENT,
                      {W("d")}));
}

TEST(BadInputSizes, FitF64DZero) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, 0, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d"), W("0")}));
    expect_unfitted(m.get());
}

TEST(BadInputSizes, FitF64NNegative) {
    Model m = make_model("k=2");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), -3, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("n"), W("-3")}));
}

TEST(BadInputSizes, AssignDZero) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), f.ds.n, 0, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("d"), W("0")}));
}

TEST(BadInputSizes, AssignF64NZero) {
    SmallFit f;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), f.ds.X64.data(), 0, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("n"), W("0")}));
}

TEST(BadInputSizes, TransformNZero) {
    SmallFit f(kSmallNystrom);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), 0, f.ds.d, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("n"), W("0")}));
}

TEST(BadInputSizes, TransformDZero) {
    SmallFit f(kSmallNystrom);
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), f.ds.X.data(), f.ds.n, 0, out.data(), f.ds.n * 8),
                      KKM_ERR_INVALID_ARGUMENT, {W("d"), W("0")}));
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

TEST(BadInputSizes, StartingLabelsAndCentresOverflow64Bits) {
    // Refused before a label or centre is read: the labels were scanned up to n (a fault past
    // the buffer, or "labels[8]=<garbage> is negative"); the centres' message named n and X.
    Model m = make_model("k=2 method=exact gamma=1");
    std::vector<int32_t> labels(64, 0);
    std::vector<float> centres(64, 1.0f);
    EXPECT_TRUE(Fails(kkm_set_init_labels(m.get(), labels.data(), int64_t{1} << 62), KKM_ERR_INVALID_ARGUMENT,
                      {S("n=" + std::to_string(int64_t{1} << 62)), "starting labels", "overflow"}));
    EXPECT_TRUE(Fails(kkm_set_init_centres(m.get(), centres.data(), kTwo33, kTwo33), KKM_ERR_INVALID_ARGUMENT,
                      {"k=8589934592", "d=8589934592", "starting centres", "overflows", "check k and d"}));
}

TEST(BadInputSizes, AssignShapeOverflows64Bits) {
    SmallFit f(kSmallNystrom);  // d = 2
    std::vector<int32_t> labels(64);
    std::vector<double> dist(64);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), f.ds.X.data(), kTwo62Plus1, f.ds.d, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(kTwo62Plus1)), "d=2", "overflows"}));
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), f.ds.X64.data(), kTwo62Plus1, f.ds.d, labels.data(), dist.data()),
                      KKM_ERR_INVALID_ARGUMENT, {S("n=" + std::to_string(kTwo62Plus1)), "d=2", "overflows"}));
    SmallFit wide("k=2 method=exact gamma=0.1");
    EXPECT_TRUE(Fails(kkm_assign(wide.m.get(), wide.ds.X.data(), INT64_MAX / 2, 2, labels.data(), nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {"d=2", "overflows"}));
}

TEST(BadInputSizes, TransformShapeOverflows64Bits) {
    SmallFit f(kSmallNystrom);  // d = 2, feature_dim >= 3
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

// ================================================================== NaN / Inf / out of float32 range in X

TEST(BadData, NaNInXAtFit) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small_blobs();
    ds.X[3 * ds.d + 1] = kNaN;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 3", "column 1"}));
}
TEST(BadData, InfInXAtFit) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small_blobs();
    ds.X[5 * ds.d + 0] = kInf;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 5", "column 0"}));
}
TEST(BadData, NegativeInfInXAtFitNystrom) {
    Model m = make_model(kSmallNystrom);
    Dataset ds = small_blobs();
    ds.X[17 * ds.d + 1] = -kInf;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 17", "column 1"}));
}
TEST(BadData, NaNInXAtFitGammaAuto) {
    // gamma=auto reads the data before anything else: the NaN must still be reported as such.
    Model m = make_model("k=2 method=nystrom gamma=auto");
    Dataset ds = small_blobs();
    ds.X[0] = kNaN;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 0", "column 0"}));
}
TEST(BadData, NaNInXAtFitF64) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small_blobs();
    ds.X64[7 * ds.d + 1] = kNaN64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 7", "column 1"}));
}
TEST(BadData, InfInXAtFitF64) {
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small_blobs();
    ds.X64[12 * ds.d + 0] = kInf64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 12", "column 0"}));
}
TEST(BadData, NaNInXAtAssign) {
    SmallFit f;
    std::vector<float> X = f.ds.X;
    X[2 * f.ds.d + 1] = kNaN;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 2", "column 1"}));
}
TEST(BadData, NaNInXAtAssignNystrom) {
    SmallFit f(kSmallNystrom);
    std::vector<float> X = f.ds.X;
    X[4 * f.ds.d + 0] = kNaN;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 4", "column 0"}));
}
TEST(BadData, InfInXAtAssignF64) {
    SmallFit f;
    std::vector<double> X = f.ds.X64;
    X[6 * f.ds.d + 1] = -kInf64;
    std::vector<int32_t> labels(f.ds.n);
    std::vector<double> dist(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), dist.data()),
                      KKM_ERR_INVALID_DATA, {"row 6", "column 1"}));
}
TEST(BadInputData, NaNInXAtAssignF64) {
    SmallFit f(kSmallNystrom);
    std::vector<double> X = f.ds.X64;
    X[8 * f.ds.d + 0] = kNaN64;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 8", "column 0"}));
}

TEST(BadInputData, NaNInXAtTransform) {
    SmallFit f(kSmallNystrom);
    std::vector<float> X = f.ds.X;
    X[3 * f.ds.d + 1] = kNaN;
    std::vector<float> out(static_cast<size_t>(f.ds.n) * 8);
    EXPECT_TRUE(Fails(kkm_transform(f.m.get(), X.data(), f.ds.n, f.ds.d, out.data(), f.ds.n * 8), KKM_ERR_INVALID_DATA,
                      {"row 3", "column 1"}));
}

TEST(BadInputData, BeyondFloat32AtFitF64) {
    // The computation runs in float32: a finite double beyond FLT_MAX cannot be converted.
    Model m = make_model("k=2 method=exact gamma=1");
    Dataset ds = small_blobs();
    ds.X64[6 * ds.d + 1] = 1e300;
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA,
                      {"row 6", "column 1", "float32"}));
    expect_unfitted(m.get());
}

TEST(BadInputData, BeyondFloat32AtAssignF64) {
    SmallFit f;
    std::vector<double> X = f.ds.X64;
    X[2 * f.ds.d + 0] = -1e39;
    std::vector<int32_t> labels(f.ds.n);
    EXPECT_TRUE(Fails(kkm_assign_f64(f.m.get(), X.data(), f.ds.n, f.ds.d, labels.data(), nullptr), KKM_ERR_INVALID_DATA,
                      {"row 2", "column 0", "float32"}));
}

// ================================================================== weights

TEST(BadWeights, Negative) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small_blobs();
    std::vector<float> w(ds.n, 1.0f);
    w[4] = -1.0f;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("4")}));
}
TEST(BadWeights, NegativeF64) {
    Model m = make_model("k=2 method=nystrom gamma=1 m=8");
    const Dataset ds = small_blobs();
    std::vector<double> w(ds.n, 1.0);
    w[9] = -0.5;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("9")}));
}
TEST(BadWeights, NaN) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small_blobs();
    std::vector<float> w(ds.n, 1.0f);
    w[2] = kNaN;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("2")}));
}
TEST(BadWeights, Inf) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small_blobs();
    std::vector<float> w(ds.n, 1.0f);
    w[11] = kInf;
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("11")}));
}
TEST(BadWeights, AllZero) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small_blobs();
    std::vector<float> w(ds.n, 0.0f);
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight")}));
}
TEST(BadWeights, AllZeroF64Nystrom) {
    Model m = make_model("k=2 method=nystrom gamma=1 m=8");
    const Dataset ds = small_blobs();
    std::vector<double> w(ds.n, 0.0);
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight")}));
}

TEST(BadInputWeights, NaNF64) {
    Model m = make_model("k=2 method=exact gamma=1");
    const Dataset ds = small_blobs();
    std::vector<double> w(ds.n, 1.0);
    w[13] = kNaN64;
    EXPECT_TRUE(
        Fails(kkm_fit_f64(m.get(), ds.X64.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), W("13")}));
}

TEST(BadInputWeights, InfAndBeyondFloat32F64) {
    Model m = make_model("k=2 method=rff gamma=1");
    const Dataset ds = small_blobs();
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
    const Dataset ds = small_blobs();
    std::vector<float> w(ds.n, -0.0f);
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA, {I("weight"), "zero"}));
    w[0] = 1.0f;
    w[19] = 1.0f;
    EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data())));
}

// ================================================================== failed fit keeps the model

namespace {
void expect_failed_fit_keeps_model(const char* params) {
    SmallFit f(params);
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
    expect_failed_fit_keeps_model(kSmallNystrom);
}
TEST(FailedFit, KeepsAutoGammaModel) {
    expect_failed_fit_keeps_model("k=2 method=nystrom kernel=rbf gamma=auto m=auto seed=1");
}
