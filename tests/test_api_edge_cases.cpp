// Numerical edge cases for every method: duplicate points, constant columns, all points
// identical, k = n, extreme gamma, rank-deficient landmark kernels, zero weights, extreme
// magnitudes. Each gives a valid clustering or a clear error, never a NaN:
//
//  - on KKM_OK: every label in [0, k), the objective finite and >= 0 (up to round-off), the
//    cluster sizes finite, >= 0 and adding up to the total weight, kkm_assign / kkm_assign_f64
//    on the training rows give labels in [0, k) and finite, non-negative distances, and
//    kkm_transform gives finite features;
//  - on an error: the status the case documents and a message naming the problem.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

// ================================================================== numerical edge cases of every method

namespace {

// ------------------------------------------------------------------ methods

struct Method {
    const char* name;    // test-name suffix
    const char* params;  // method and its options
};

// Every method, and every variant of a method that computes differently.
const Method kMethods[] = {
    {"exact", "method=exact"},
    {"nystrom", "method=nystrom"},
    {"nystrom_rank", "method=nystrom rank=2"},
    {"nystrom_rls", "method=nystrom sampling=rls"},
    {"nystrom_kmeanspp", "method=nystrom sampling=kmeanspp"},
    {"nystrom_minibatch_solver", "method=nystrom solver=minibatch batch_size=16"},
    {"sketch_subgaussian", "method=sketch sketch=subgaussian"},
    {"sketch_ros", "method=sketch sketch=ros"},
    {"sketch_gaussian", "method=sketch sketch=gaussian"},
    {"sketch_identity", "method=sketch sketch=identity"},
    {"rff", "method=rff"},
    {"minibatch", "method=minibatch batch_size=16"},
};

class EdgeCase : public ::testing::TestWithParam<Method> {
protected:
    std::string method() const { return GetParam().params; }
    bool is(const char* prefix) const { return std::string(GetParam().name).starts_with(prefix); }
    // method=rff exists for shift-invariant kernels only (a documented INVALID_ARGUMENT).
    bool rff() const { return is("rff"); }
};

// ------------------------------------------------------------------ data

Dataset from_rows(std::vector<float> X, int64_t d) {
    Dataset ds;
    ds.d = d;
    ds.n = static_cast<int64_t>(X.size()) / d;
    ds.X = std::move(X);
    ds.truth.assign(static_cast<size_t>(ds.n), 0);
    finish(ds);
    return ds;
}

// `distinct` points 10 apart (in 3-D), each repeated `reps` times, interleaved.
Dataset duplicates(int64_t distinct, int64_t reps) {
    std::vector<float> X;
    for (int64_t r = 0; r < reps; ++r) {
        for (int64_t p = 0; p < distinct; ++p) {
            X.push_back(static_cast<float>(10 * p));
            X.push_back(static_cast<float>(p % 2 == 0 ? 1 : -1));
            X.push_back(0.5f);
        }
    }
    return from_rows(std::move(X), 3);
}

// Three blobs in 4-D whose columns 1 and 3 are constant.
Dataset constant_columns() {
    Dataset ds = blobs(15, 4, 3, 11);
    for (int64_t i = 0; i < ds.n; ++i) {
        ds.X[i * 4 + 1] = 7.0f;
        ds.X[i * 4 + 3] = -2.5f;
    }
    finish(ds);
    return ds;
}

// n copies of one row.
Dataset identical(int64_t n) {
    std::vector<float> X;
    for (int64_t i = 0; i < n; ++i) X.insert(X.end(), {1.0f, 2.0f, 3.0f});
    return from_rows(std::move(X), 3);
}

// Three blobs in 2-D multiplied by `scale`.
Dataset scaled_blobs(double scale) {
    Dataset ds = blobs(12, 2, 3, 5);
    for (float& x : ds.X) x = static_cast<float>(x * scale);
    finish(ds);
    return ds;
}

// ------------------------------------------------------------------ checks

double total_weight(const Dataset& ds, const std::vector<float>& w) {
    if (w.empty()) return static_cast<double>(ds.n);
    double s = 0;
    for (float v : w) s += v;
    return s;
}

// Largest kernel diagonal K(x, x) the objective may involve: 1 for rbf / laplacian / cosine,
// |x|^2 for linear. Scales the round-off tolerance.
double diag_scale(const Dataset& ds, const std::string& params) {
    if (params.find("kernel=linear") == std::string::npos) return 1.0;
    double m = 0;
    for (int64_t i = 0; i < ds.n; ++i) {
        double s = 0;
        for (int64_t j = 0; j < ds.d; ++j) s += static_cast<double>(ds.X[i * ds.d + j]) * ds.X[i * ds.d + j];
        m = std::max(m, s);
    }
    return std::max(1.0, m);
}

// Every output of a fitted model is valid (see the file comment).
void expect_valid_model(const kkm_model* m, const Dataset& ds, const std::vector<float>& w, const std::string& params) {
    SCOPED_TRACE(params);
    int32_t k = 0;
    int64_t n_train = 0;
    ASSERT_TRUE(Ok(kkm_get_k(m, &k)));
    ASSERT_TRUE(Ok(kkm_get_n_train(m, &n_train)));
    ASSERT_EQ(n_train, ds.n);
    ASSERT_GE(k, 1);
    const double W = total_weight(ds, w);
    const double tol = 1e-6 * W * diag_scale(ds, params);

    std::vector<int32_t> labels(static_cast<size_t>(ds.n), -1);
    ASSERT_TRUE(Ok(kkm_get_labels(m, labels.data(), ds.n)));
    for (int64_t i = 0; i < ds.n; ++i) {
        ASSERT_TRUE(labels[i] >= 0 && labels[i] < k) << "training label " << labels[i] << " of row " << i;
    }

    double objective = std::numeric_limits<double>::quiet_NaN();
    ASSERT_TRUE(Ok(kkm_get_objective(m, &objective)));
    EXPECT_TRUE(std::isfinite(objective)) << "objective " << objective;
    EXPECT_GE(objective, -tol) << "objective";

    std::vector<double> sizes(static_cast<size_t>(k), -1.0);
    ASSERT_TRUE(Ok(kkm_get_cluster_sizes(m, sizes.data(), k)));
    double sum = 0;
    for (int32_t j = 0; j < k; ++j) {
        EXPECT_TRUE(std::isfinite(sizes[j]) && sizes[j] >= 0) << "size of cluster " << j << ": " << sizes[j];
        sum += sizes[j];
    }
    EXPECT_NEAR(sum, W, 1e-5 * W) << "cluster sizes must add up to the total weight";

    std::vector<int32_t> assigned(static_cast<size_t>(ds.n), -1);
    std::vector<float> dist(static_cast<size_t>(ds.n), -1.0f);
    ASSERT_TRUE(Ok(kkm_assign(m, ds.X.data(), ds.n, ds.d, assigned.data(), dist.data())));
    std::vector<int32_t> assigned64(static_cast<size_t>(ds.n), -1);
    std::vector<double> dist64(static_cast<size_t>(ds.n), -1.0);
    ASSERT_TRUE(Ok(kkm_assign_f64(m, ds.X64.data(), ds.n, ds.d, assigned64.data(), dist64.data())));
    const double dtol = 1e-5 * diag_scale(ds, params);
    for (int64_t i = 0; i < ds.n; ++i) {
        ASSERT_TRUE(assigned[i] >= 0 && assigned[i] < k) << "assigned label " << assigned[i] << " of row " << i;
        ASSERT_TRUE(assigned64[i] >= 0 && assigned64[i] < k) << "assigned label " << assigned64[i] << " of row " << i;
        ASSERT_TRUE(std::isfinite(dist[i])) << "distance of row " << i << ": " << dist[i];
        ASSERT_TRUE(std::isfinite(dist64[i])) << "distance of row " << i << ": " << dist64[i];
        EXPECT_GE(dist[i], -dtol) << "distance of row " << i;
        EXPECT_GE(dist64[i], -dtol) << "distance of row " << i;
    }

    int64_t dim = -1;
    ASSERT_TRUE(Ok(kkm_get_feature_dim(m, &dim)));
    if (dim > 0) {
        std::vector<float> F(static_cast<size_t>(ds.n * dim), std::numeric_limits<float>::quiet_NaN());
        ASSERT_TRUE(Ok(kkm_transform(m, ds.X.data(), ds.n, ds.d, F.data(), ds.n * dim)));
        for (size_t i = 0; i < F.size(); ++i) {
            ASSERT_TRUE(std::isfinite(F[i])) << "feature " << i % dim << " of row " << i / dim << ": " << F[i];
        }
    }
}

// Fits `params` on ds (weights w, or none) and expects KKM_OK and a valid model.
void expect_valid_fit(const std::string& params, const Dataset& ds, const std::vector<float>& w = {}) {
    Model m = make_model(params.c_str());
    ASSERT_TRUE(m);
    const kkm_status s = kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.empty() ? nullptr : w.data());
    ASSERT_TRUE(Ok(s)) << params;
    expect_valid_model(m.get(), ds, w, params);
}

// Fits `params` on ds and expects status `want` with every word in the message, and the model
// left unfitted.
void expect_error(const std::string& params, const Dataset& ds, kkm_status want, std::initializer_list<Word> words) {
    Model m = make_model(params.c_str());
    ASSERT_TRUE(m);
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), want, words)) << params;
    int32_t k = 0;
    EXPECT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED) << params;
}

}  // namespace

// ================================================================== duplicate points

TEST_P(EdgeCase, ManyExactDuplicates) {
    const Dataset ds = duplicates(4, 15);  // 60 rows, 4 distinct points
    expect_valid_fit("k=3 seed=1 gamma=auto " + method(), ds);
    expect_valid_fit("k=4 seed=2 gamma=0.05 " + method(), ds);
}

TEST_P(EdgeCase, MoreClustersThanDistinctPoints) {
    // k = 6 > 4 distinct points: some clusters must share a point or stay empty.
    const Dataset ds = duplicates(4, 15);
    expect_valid_fit("k=6 seed=3 gamma=auto " + method(), ds);
    expect_valid_fit("k=6 seed=3 gamma=0.05 init=random " + method(), ds);
}

// With more clusters than distinct points, fill_empty_clusters hands an empty cluster a
// duplicate point and the next reassignment gives it back to the tied centre of lower index.
// Lloyd used to cycle so until max_iter (100 iterations where 1 is enough); it now stops when
// a reassignment repeats the previous one (src/cluster/lloyd_driver.cpp).
TEST_P(EdgeCase, LloydStopsWhenClustersOutnumberDistinctPoints) {
    const Dataset ds = duplicates(4, 15);
    Model m = make_model(("k=6 seed=3 gamma=0.05 max_iter=100 threads=1 " + method()).c_str());
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    int32_t iterations = 0;
    ASSERT_TRUE(Ok(kkm_get_iterations(m.get(), &iterations)));
    EXPECT_LT(iterations, 10);
}

// Issue 60 item 9: rows that differ only in their last bits, so that every kernel value is
// tied to float32 rounding. A Lloyd that ended on a relocation (max_iter right after one, or a
// reassignment that undid it) kept labels that were not the rows' nearest centres, and
// kkm_assign gave the training rows other labels: 2 of 120 rows for exact rbf, nystrom cosine
// and laplacian, 72 for sketch cosine (its restarts). Now the labels are kkm_assign's.
TEST_P(EdgeCase, TrainingLabelsAreAssignsOnRowsTiedToTheLastBit) {
    std::vector<float> rows;
    for (int i = 0; i < 120; ++i) {
        float last = 4.0f;
        for (int t = 0; t < i % 5; ++t) last = std::nextafter(last, 10.0f);
        rows.insert(rows.end(), {1.0f, 2.0f, 3.0f, last});
    }
    const Dataset ds = from_rows(std::move(rows), 4);
    std::vector<std::string> kernels = {"kernel=rbf gamma=1", "kernel=laplacian gamma=1"};
    if (!rff()) kernels.push_back("kernel=cosine");
    for (const std::string& kernel : kernels) {
        for (const char* k : {"k=3", "k=5"}) {
            const std::string params = std::string(k) + " " + kernel + " " + method();
            Model m = make_model(params.c_str());
            ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr))) << params;
            std::vector<int32_t> labels(static_cast<size_t>(ds.n)), assigned(static_cast<size_t>(ds.n), -1);
            ASSERT_TRUE(Ok(kkm_get_labels(m.get(), labels.data(), ds.n)));
            ASSERT_TRUE(Ok(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, assigned.data(), nullptr)));
            EXPECT_EQ(labels, assigned) << params;
        }
    }
}

// ================================================================== constant columns

TEST_P(EdgeCase, ConstantColumns) {
    const Dataset ds = constant_columns();
    expect_valid_fit("k=3 seed=1 gamma=auto " + method(), ds);
    expect_valid_fit("k=3 seed=1 gamma=0.02 " + method(), ds);
    expect_valid_fit("k=3 seed=1 kernel=laplacian gamma=auto " + method(), ds);
}

// ================================================================== all points identical

TEST_P(EdgeCase, AllIdenticalGammaAutoIsZeroSpread) {
    const Dataset ds = identical(30);
    for (const char* kernel : {"rbf", "laplacian"}) {
        Model m = make_model(("k=3 gamma=auto kernel=" + std::string(kernel) + " " + method()).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA,
                          {"gamma=auto", "identical", "zero spread"}))
            << kernel;
        int32_t k = 0;
        EXPECT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED);
    }
}

// Non-uniform weights: the weighted mean of identical rows rounds away from them, which left
// a spread of ~1e-34 and gamma ~8e34 instead of the zero-spread error.
TEST_P(EdgeCase, AllIdenticalWeightedGammaAutoIsZeroSpread) {
    std::vector<float> rows;
    for (int i = 0; i < 30; ++i) rows.insert(rows.end(), {0.1f, 7.77f, 123.456f});  // not exact in binary
    const Dataset ds = from_rows(std::move(rows), 3);
    std::vector<float> w(static_cast<size_t>(ds.n));
    for (int64_t i = 0; i < ds.n; ++i) w[static_cast<size_t>(i)] = 0.1f + 0.37f * static_cast<float>(i % 7);
    for (const char* kernel : {"rbf", "laplacian"}) {
        Model m = make_model(("k=3 gamma=auto kernel=" + std::string(kernel) + " " + method()).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w.data()), KKM_ERR_INVALID_DATA,
                          {"gamma=auto", "identical", "zero spread"}))
            << kernel;
    }
}

// Distinct float64 rows below float32's range (1e-50) are all 0 in float32: the zero-spread
// error says why and what to do (it read as if the caller's rows were identical).
TEST(EdgeCaseScale, RowsBelowFloat32RangeAreNamedAsSuch) {
    std::vector<double> X(40);
    for (size_t i = 0; i < X.size(); ++i) X[i] = 1e-50 * static_cast<double>(i + 1);
    Model m = make_model("k=2 gamma=auto method=exact");
    EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), X.data(), 20, 2, nullptr), KKM_ERR_INVALID_DATA,
                      {"gamma=auto", "zero spread", "in float32", "rescale the data", "1.4e-45"}));
}

TEST_P(EdgeCase, AllIdenticalExplicitGamma) {
    const Dataset ds = identical(30);
    expect_valid_fit("k=3 seed=1 gamma=1 " + method(), ds);
    expect_valid_fit("k=1 seed=1 gamma=1 " + method(), ds);
    if (!rff()) expect_valid_fit("k=3 seed=1 kernel=linear " + method(), ds);
}

// ================================================================== k = n

TEST_P(EdgeCase, KEqualsN) {
    const Dataset ds = uniform(12, 2, 7);
    expect_valid_fit("k=12 seed=1 gamma=auto " + method(), ds);
    expect_valid_fit("k=12 seed=1 gamma=auto init=random " + method(), ds);
}

// ================================================================== extreme gamma

TEST_P(EdgeCase, ExtremeGamma) {
    const Dataset ds = blobs(12, 2, 3, 9);
    for (const char* kernel : {"rbf", "laplacian"}) {
        for (const char* gamma : {"1e-12", "1e12", "1e-37", "1e30"}) {
            expect_valid_fit("k=3 seed=1 kernel=" + std::string(kernel) + " gamma=" + gamma + " " + method(), ds);
        }
    }
}

TEST_P(EdgeCase, GammaBeyondFloat32IsAnError) {
    // The kernels compute in float32: a gamma that is 0 or inf there would give 0 * inf = NaN.
    const Dataset ds = blobs(12, 2, 3, 9);
    for (const char* kernel : {"rbf", "laplacian"}) {
        for (const char* gamma : {"1e39", "1e-39", "1e300"}) {
            const std::string params = "k=3 seed=1 kernel=" + std::string(kernel) + " gamma=" + gamma + " " + method();
            Model m = make_model(params.c_str());
            EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                              {W("gamma"), "float32"}))
                << params;
        }
    }
}

// ================================================================== rank-deficient landmark kernel

TEST_P(EdgeCase, MoreLandmarksThanDistinctPoints) {
    const Dataset ds = duplicates(4, 10);  // 40 rows, 4 distinct: K_LL has rank <= 4
    expect_valid_fit("k=3 seed=1 gamma=0.05 m=20 " + method(), ds);
    expect_valid_fit("k=3 seed=1 gamma=0.05 m=40 " + method(), ds);
}

TEST_P(EdgeCase, LinearKernelMoreLandmarksThanColumns) {
    const Dataset ds = blobs(15, 2, 2, 4);  // d = 2: a linear K_LL has rank <= 2
    if (rff()) {
        Model m = make_model(("k=2 kernel=linear m=10 " + method()).c_str());
        EXPECT_TRUE(
            Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {"rff", "linear"}));
        return;
    }
    expect_valid_fit("k=2 seed=1 kernel=linear m=10 " + method(), ds);
    expect_valid_fit("k=3 seed=1 kernel=linear m=30 " + method(), ds);
}

// ================================================================== zero weights

TEST_P(EdgeCase, SomeZeroWeights) {
    const Dataset ds = blobs(10, 2, 3, 6);
    std::vector<float> w(static_cast<size_t>(ds.n), 1.0f);
    for (size_t i = 0; i < w.size(); i += 3) w[i] = 0.0f;
    w[1] = 2.5f;
    expect_valid_fit("k=3 seed=1 gamma=auto " + method(), ds, w);
}

TEST_P(EdgeCase, FewerPositiveWeightsThanClusters) {
    const Dataset ds = blobs(10, 2, 3, 6);
    std::vector<float> w(static_cast<size_t>(ds.n), 0.0f);
    w[0] = 1.0f;
    w[15] = 0.5f;  // two points carry all the weight; k = 3
    expect_valid_fit("k=3 seed=1 gamma=auto " + method(), ds, w);
    expect_valid_fit("k=3 seed=1 gamma=0.1 init=random " + method(), ds, w);
}

// ================================================================== extreme magnitudes
//
// The kernels compute in float32. Laplacian (L1 distances) and random Fourier features work
// at any scale float32 holds. The dot-product kernels (rbf, linear, polynomial, cosine) need
// squared row norms below FLT_MAX / 4, and gamma=auto must resolve to a normal float32;
// beyond that the fit is a clear INVALID_DATA asking to rescale the data.

TEST_P(EdgeCase, HugeValues) {
    const Dataset ds = scaled_blobs(1e30);
    expect_valid_fit("k=3 seed=1 kernel=laplacian gamma=auto " + method(), ds);
    expect_error("k=3 seed=1 kernel=rbf gamma=auto " + method(), ds, KKM_ERR_INVALID_DATA,
                 {"gamma=auto", "too large", "rescale"});
    if (rff()) {
        expect_valid_fit("k=3 seed=1 kernel=rbf gamma=1 " + method(), ds);
    } else {
        expect_error("k=3 seed=1 kernel=rbf gamma=1 " + method(), ds, KKM_ERR_INVALID_DATA,
                     {"squared norm", "kernel=rbf", "rescale"});
    }
    for (const char* kernel : {"linear", "cosine", "polynomial"}) {
        const std::string params = "k=3 seed=1 kernel=" + std::string(kernel) + " " + method();
        if (rff()) {
            expect_error(params, ds, KKM_ERR_INVALID_ARGUMENT, {"rff", kernel});
        } else {
            expect_error(params, ds, KKM_ERR_INVALID_DATA, {"squared norm", kernel, "rescale"});
        }
    }
}

TEST_P(EdgeCase, TinyValues) {
    const Dataset ds = scaled_blobs(1e-30);
    expect_valid_fit("k=3 seed=1 kernel=laplacian gamma=auto " + method(), ds);
    expect_error("k=3 seed=1 kernel=rbf gamma=auto " + method(), ds, KKM_ERR_INVALID_DATA,
                 {"gamma=auto", "too small", "rescale"});
    expect_valid_fit("k=3 seed=1 kernel=rbf gamma=1 " + method(), ds);  // every kernel value ~1
    // Linear kernel values (~1e-60) underflow to 0: a degenerate but valid clustering, except
    // where the Nystrom eigen-decomposition needs a positive eigenvalue.
    if (rff()) {
        expect_error("k=3 seed=1 kernel=linear " + method(), ds, KKM_ERR_INVALID_ARGUMENT, {"rff"});
    } else if (is("nystrom")) {
        expect_error("k=3 seed=1 kernel=linear " + method(), ds, KKM_ERR_INVALID_DATA, {"K_LL", "positive eigenvalue"});
    } else {
        expect_valid_fit("k=3 seed=1 kernel=linear " + method(), ds);
    }
}

TEST_P(EdgeCase, CosineOfSubnormalRows) {
    // |x|^2 ~ 1e-40 is subnormal: 1/|x| overflows the float32 products of the cosine kernel.
    if (rff()) GTEST_SKIP() << "method=rff has no cosine kernel";
    const Dataset ds = scaled_blobs(1e-20);
    expect_error("k=3 seed=1 kernel=cosine " + method(), ds, KKM_ERR_INVALID_DATA,
                 {"squared norm", "cosine", "rescale"});
}

TEST_P(EdgeCase, AssignHugeRowsToANormalModel) {
    const Dataset ds = blobs(12, 2, 3, 5);
    Model m = make_model(("k=3 seed=1 kernel=rbf gamma=auto " + method()).c_str());
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const Dataset far = scaled_blobs(1e30);
    std::vector<int32_t> labels(static_cast<size_t>(far.n), -1);
    std::vector<float> dist(static_cast<size_t>(far.n), -1.0f);
    const kkm_status s = kkm_assign(m.get(), far.X.data(), far.n, far.d, labels.data(), dist.data());
    if (rff()) {  // cos(W x + b) of any finite W x is finite
        ASSERT_TRUE(Ok(s));
        for (int64_t i = 0; i < far.n; ++i) {
            EXPECT_TRUE(labels[i] >= 0 && labels[i] < 3) << labels[i];
            EXPECT_TRUE(std::isfinite(dist[i]) && dist[i] >= 0) << dist[i];
        }
    } else {
        EXPECT_TRUE(Fails(s, KKM_ERR_INVALID_DATA, {"squared norm", "kernel=rbf"}));
    }
}

TEST(RandomFeatures, ProjectionOverflowIsAnError) {
    // W x of method=rff is computed in float32: frequencies ~gamma (laplacian, Cauchy) or
    // ~sqrt(2 gamma) (rbf) times values ~1e3 or 1e21 overflow; cos(inf) would be NaN.
    const Dataset ds = scaled_blobs(100.0);
    const Dataset far = scaled_blobs(1e21);
    for (const auto& [params, data] :
         {std::pair{"kernel=laplacian gamma=1e37", &ds}, std::pair{"kernel=rbf gamma=1e37", &far}}) {
        const std::string p = std::string("k=3 seed=1 method=rff ") + params;
        expect_error(p, *data, KKM_ERR_INVALID_DATA, {"rff", "overflows float32", "gamma", "rescale"});
    }
}

INSTANTIATE_TEST_SUITE_P(Methods, EdgeCase, ::testing::ValuesIn(kMethods),
                         [](const ::testing::TestParamInfo<Method>& info) { return std::string(info.param.name); });
