// Kernel-specific behaviour through the public C API: kernel=precomputed (a square matrix,
// finite, symmetric and positive semi-definite; assigned against the training rows, without
// distances), kernel=polynomial's coef0 in float32, half kernel rows only for the bounded
// kernels, and an engine path (isa) this CPU lacks. Each error asserts the exact status and the
// words of kkm_last_error(), and that the model is left as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

// ================================================================== kernel=precomputed

TEST(Conflicts, PrecomputedNeedsSquareMatrix) {
    Model m = make_model("k=2 method=exact kernel=precomputed");
    const Dataset ds = small_blobs();  // n = 20, d = 2
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT, {"precomputed"}));
}
TEST(Conflicts, PrecomputedAssignRejectsDistances) {
    const Dataset ds = small_blobs();
    const std::vector<float> K = rbf_gram(ds, 0.1);
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
    const Dataset ds = small_blobs();
    const std::vector<float> K = rbf_gram(ds, 0.1);
    Model m = make_model("k=2 method=exact kernel=precomputed seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
    std::vector<int32_t> labels(ds.n);
    // Rows against the training points must have n_train columns.
    EXPECT_TRUE(
        Fails(kkm_assign(m.get(), K.data(), 1, ds.n - 1, labels.data(), nullptr), KKM_ERR_INVALID_ARGUMENT, {W("d")}));
}

TEST(BadInputConflicts, PrecomputedNystromAssignRejectsDistances) {
    // method=exact: Conflicts.PrecomputedAssignRejectsDistances.
    const Dataset ds = small_blobs();
    const std::vector<float> K = rbf_gram(ds, 0.1);
    Model m = make_model("k=2 method=nystrom kernel=precomputed m=10 seed=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
    std::vector<int32_t> labels(ds.n);
    std::vector<float> dist(ds.n);
    EXPECT_TRUE(Fails(kkm_assign(m.get(), K.data(), ds.n, ds.n, labels.data(), dist.data()), KKM_ERR_INVALID_ARGUMENT,
                      {"distances", "precomputed"}));
    EXPECT_TRUE(Ok(kkm_assign(m.get(), K.data(), ds.n, ds.n, labels.data(), nullptr)));
}

TEST(BadInputData, NaNInPrecomputedKernel) {
    const Dataset ds = small_blobs();
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n), 0.0f);
    for (int64_t i = 0; i < ds.n; ++i) K[i * ds.n + i] = 1.0f;
    K[4 * ds.n + 9] = kNaN;
    Model m = make_model("k=2 method=exact kernel=precomputed");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA, {"row 4", "column 9"}));
}

TEST(BadInputData, PrecomputedKernelNotSymmetric) {
    const Dataset ds = small_blobs();
    std::vector<float> K = rbf_gram(ds, 0.5);
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
    const Dataset ds = small_blobs();
    // −I − 0.5: a negative diagonal.
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n), -0.5f);
    for (int64_t i = 0; i < ds.n; ++i) K[static_cast<size_t>(i * ds.n + i)] = -1.5f;
    Model m = make_model("k=2 kernel=precomputed method=exact");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA,
                      {"K[0][0]", "< 0", "non-negative diagonal"}));
    // A symmetric off-diagonal entry beyond sqrt(K_ii K_jj) (Cauchy-Schwarz).
    K = rbf_gram(ds, 0.5);
    K[static_cast<size_t>(2 * ds.n + 7)] = K[static_cast<size_t>(7 * ds.n + 2)] = 1.5f;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr), KKM_ERR_INVALID_DATA,
                      {"not positive semi-definite", "K[2][7]", "Cauchy-Schwarz"}));
    expect_unfitted(m.get());
    // The same kernel untouched, and rounded the way a kernel computed elsewhere might be,
    // fits.
    K = rbf_gram(ds, 0.5);
    for (size_t t = 0; t < K.size(); t += 3) K[t] = std::nextafter(K[t], 2.0f);
    EXPECT_TRUE(Ok(kkm_fit(m.get(), K.data(), ds.n, ds.n, nullptr)));
}

// ================================================================== kernel=polynomial

TEST(BadInputParams, Coef0BeyondFloat32) {
    // coef0 accepts any finite double, but kernel=polynomial computes in float32: a value that
    // does not fit is refused at fit (it would be undefined behaviour to convert, inf to use).
    Model m = make_model("k=2 method=exact kernel=polynomial coef0=1e300");
    const Dataset ds = small_blobs();
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {"coef0=1e+300", "float32", "kernel=polynomial"}));
    expect_unfitted(m.get());
    // Kernels without coef0 ignore it.
    ASSERT_TRUE(Ok(kkm_set_params(m.get(), "kernel=rbf gamma=1")));
    EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
}

// ================================================================== kernel rows and the engine

TEST(BadInputConflicts, HalfKernelRowsForAnUnboundedKernel) {
    // A linear or polynomial kernel's values can exceed the half range (65504): f16 storage
    // of its rows is refused, naming the parameter, the kernel and what to use instead.
    const Dataset ds = small_blobs();
    for (const char* kernel : {"linear", "polynomial"}) {
        Model m = make_model((std::string("k=2 method=nystrom m=10 kernel_rows=f16 kernel=") + kernel).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"kernel_rows=f16", S(std::string("kernel=") + kernel), "kernel_rows=f32"}))
            << kernel;
        expect_unfitted(m.get());
    }
}

TEST(BadInputConflicts, ForcedEnginePathTheCpuLacks) {
    // On a CPU with every path (AVX-512) only the accepted side runs; on an AVX2-only CPU the
    // avx512 request must fail with this message, and on a CPU without AVX2 both must.
    const Dataset ds = small_blobs();
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

// ================================================================== values below the 8-bit grid

TEST(EnginePaths, DataOfTinyValuesClusterAsOnEveryPath) {
    // Every |value| below 1.2e-7 was packed as 8-bit zeros on the VNNI paths (every kernel
    // value 1, objective 0, ARI 0.008): the same blobs, scaled to 1e-9, cluster on every path
    // this CPU runs and every method, and a minibatch model assigns its training rows their
    // labels.
    Dataset ds = blobs(40, 5, 3, 21);
    for (float& v : ds.X) v *= 1e-9f;
    finish(ds);
    for (const char* isa : {"auto", "avx512", "avx2", "portable"}) {
        if (!isa_runs_here(isa)) continue;
        for (const char* method : {"exact", "nystrom", "sketch", "minibatch", "rff"}) {
            const std::string params = std::string("k=3 n_init=3 seed=2 isa=") + isa + " method=" + method;
            FitResult r = fit_and_read(ds, params);
            EXPECT_GT(r.objective, 0.0) << params;
            EXPECT_GT(ari(r.labels, ds.truth), 0.99) << params << ": objective " << r.objective;
            std::vector<int32_t> assigned(static_cast<size_t>(ds.n), -1);
            ASSERT_TRUE(Ok(kkm_assign(r.m.get(), ds.X.data(), ds.n, ds.d, assigned.data(), nullptr))) << params;
            EXPECT_EQ(assigned, r.labels) << params;
        }
    }
}
