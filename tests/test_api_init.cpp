// Starting partitions (kkm_set_init_labels, kkm_set_init_centres: scikit-learn's init=array,
// R's centers=matrix) and the feature-space centres (kkm_get_centres), through the C API.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "unit_data.h"

namespace {

using kkm_test::Fails;
using kkm_test::I;
using kkm_test::labels_of;
using kkm_test::make_model;
using kkm_test::Ok;
using kkm_test::W;

double ari(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    double out = 0;
    EXPECT_TRUE(Ok(kkm_adjusted_rand_index(a.data(), b.data(), static_cast<int64_t>(a.size()), &out)));
    return out;
}

// A rings fit whose k-means++ start splits the rings in half (gamma 0.5, one restart), and the
// true partition, which is a Lloyd fixed point of the rbf kernel there.
struct RingsCase {
    kkm::testdata::Labeled data = kkm::testdata::rings(200, 0.1, 3);
    const char* params = "k=2 method=exact gamma=2 n_init=1 seed=0";
};

TEST(InitLabels, StartsTheFitFromTheGivenPartition) {
    const RingsCase c;
    auto seeded = make_model(c.params);
    ASSERT_TRUE(Ok(kkm_fit(seeded.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
    ASSERT_LT(ari(labels_of(seeded.get(), c.data.n), c.data.y), 0.5);  // the seeding splits the rings

    auto started = make_model(c.params);
    ASSERT_TRUE(Ok(kkm_set_init_labels(started.get(), c.data.y.data(), c.data.n)));
    ASSERT_TRUE(Ok(kkm_fit(started.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
    EXPECT_DOUBLE_EQ(ari(labels_of(started.get(), c.data.n), c.data.y), 1.0);
    int32_t iterations = 0;
    ASSERT_TRUE(Ok(kkm_get_iterations(started.get(), &iterations)));
    EXPECT_LE(iterations, 2);  // already a fixed point: one pass that moves nothing
}

TEST(InitLabels, EveryLloydMethodHonoursTheStart) {
    const RingsCase c;
    for (const char* method : {"method=exact", "method=nystrom m=300", "method=sketch m=300", "method=rff m=400"}) {
        SCOPED_TRACE(method);
        auto m = make_model((std::string("k=2 gamma=2 n_init=1 seed=0 ") + method).c_str());
        ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), c.data.y.data(), c.data.n)));
        ASSERT_TRUE(Ok(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
        EXPECT_GT(ari(labels_of(m.get(), c.data.n), c.data.y), 0.95);
    }
}

TEST(InitLabels, FurtherRestartsSeedAndTheBestWins) {
    // With n_init=3 the start is restart 0: a worse start (everything but one point in one
    // cluster) loses to the seeded restarts only if they are better, and the fit never ends
    // above the start's own Lloyd result.
    const auto data = kkm::testdata::blobs(100, 3, 2, 10.0, 5);
    std::vector<int32_t> bad(static_cast<size_t>(data.n), 0);
    bad[0] = 1;
    bad[1] = 2;
    auto one = make_model("k=3 method=exact gamma=0.05 n_init=1 seed=0");
    ASSERT_TRUE(Ok(kkm_set_init_labels(one.get(), bad.data(), data.n)));
    ASSERT_TRUE(Ok(kkm_fit(one.get(), data.X.data(), data.n, data.d, nullptr)));
    auto three = make_model("k=3 method=exact gamma=0.05 n_init=3 seed=0");
    ASSERT_TRUE(Ok(kkm_set_init_labels(three.get(), bad.data(), data.n)));
    ASSERT_TRUE(Ok(kkm_fit(three.get(), data.X.data(), data.n, data.d, nullptr)));
    double o1 = 0, o3 = 0;
    ASSERT_TRUE(Ok(kkm_get_objective(one.get(), &o1)));
    ASSERT_TRUE(Ok(kkm_get_objective(three.get(), &o3)));
    EXPECT_LE(o3, o1);
    EXPECT_GT(ari(labels_of(three.get(), data.n), data.y), 0.99);
}

TEST(InitCentres, EachRowStartsAtTheNearestCentre) {
    const RingsCase c;
    // Centres on the rings themselves: rbf's nearest centre in feature space is the nearest
    // point, so each row starts in its own ring's cluster only if the centres are used.
    const float centres[] = {1.0f, 0.0f, 3.0f, 0.0f};
    auto m = make_model(c.params);
    ASSERT_TRUE(Ok(kkm_set_init_centres(m.get(), centres, 2, 2)));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
    // The same centres give the same fit; centres at the blob means give the blobs, for every kernel.
    auto again = make_model(c.params);
    ASSERT_TRUE(Ok(kkm_set_init_centres(again.get(), centres, 2, 2)));
    ASSERT_TRUE(Ok(kkm_fit(again.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
    EXPECT_EQ(labels_of(m.get(), c.data.n), labels_of(again.get(), c.data.n));

    const auto blobs = kkm::testdata::blobs(50, 3, 2, 30.0, 9);
    std::vector<float> means(6, 0.0f);
    for (int64_t i = 0; i < blobs.n; ++i) {
        for (int j = 0; j < 2; ++j) means[static_cast<size_t>(blobs.y[static_cast<size_t>(i)] * 2 + j)] += blobs.X[static_cast<size_t>(i * 2 + j)] / 50.0f;
    }
    for (const char* kernel : {"kernel=rbf gamma=0.05", "kernel=linear", "kernel=polynomial degree=2",
                               "kernel=laplacian gamma=0.1"}) {
        SCOPED_TRACE(kernel);
        auto b = make_model((std::string("k=3 method=exact n_init=1 max_iter=1 ") + kernel).c_str());
        ASSERT_TRUE(Ok(kkm_set_init_centres(b.get(), means.data(), 3, 2)));
        ASSERT_TRUE(Ok(kkm_fit(b.get(), blobs.X.data(), blobs.n, blobs.d, nullptr)));
        EXPECT_GT(ari(labels_of(b.get(), blobs.n), blobs.y), 0.99);
    }
}

TEST(InitLabels, ClearedByNullAndByLoad) {
    const RingsCase c;
    auto m = make_model(c.params);
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), c.data.y.data(), c.data.n)));
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), nullptr, 0)));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
    EXPECT_LT(ari(labels_of(m.get(), c.data.n), c.data.y), 0.5);  // seeded again
    const std::vector<unsigned char> saved = kkm_test::save(m.get());
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), c.data.y.data(), c.data.n)));
    ASSERT_TRUE(Ok(kkm_load_buffer(m.get(), saved.data(), static_cast<int64_t>(saved.size()))));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr)));
    EXPECT_LT(ari(labels_of(m.get(), c.data.n), c.data.y), 0.5);
}

TEST(InitLabels, BadStartsAreNamedErrors) {
    const RingsCase c;
    std::vector<int32_t> labels = c.data.y;
    auto m = make_model(c.params);
    EXPECT_TRUE(Fails(kkm_set_init_labels(nullptr, labels.data(), c.data.n), KKM_ERR_INVALID_ARGUMENT, {W("model")}));
    labels[5] = -1;
    EXPECT_TRUE(Fails(kkm_set_init_labels(m.get(), labels.data(), c.data.n), KKM_ERR_INVALID_ARGUMENT,
                      {I("labels[5]=-1"), W("negative")}));
    EXPECT_TRUE(Fails(kkm_set_init_labels(m.get(), labels.data(), 0), KKM_ERR_INVALID_ARGUMENT, {I("n=0")}));
    labels[5] = 2;  // k = 2
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), labels.data(), c.data.n)));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {I("labels[5]=2"), I("k=2")}));
    EXPECT_TRUE(Fails(kkm_get_k(m.get(), nullptr), KKM_ERR_NOT_FITTED));  // the failed fit left it unfitted
    labels[5] = 0;
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), labels.data(), c.data.n - 1)));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {I("n=399"), I("n=400")}));
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), labels.data(), c.data.n)));
    const std::pair<const char*, const char*> refused[] = {
        {"gamma=search", "gamma=search"},        {"k=auto", "k=auto"},
        {"method=minibatch", "method=minibatch"}, {"method=nystrom solver=minibatch", "solver=minibatch"},
        {"kernel=knn gamma=auto", "kernel=knn"}, {"kernel=heat gamma=auto", "kernel=heat"},
    };
    for (const auto& [params, named] : refused) {
        SCOPED_TRACE(params);
        ASSERT_TRUE(Ok(kkm_set_params(m.get(), params)));
        EXPECT_TRUE(Fails(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {I(named), I("kkm_set_init_labels")}));
        ASSERT_TRUE(Ok(kkm_set_params(m.get(), c.params)));
        ASSERT_TRUE(Ok(kkm_set_params(m.get(), "method=exact kernel=rbf solver=lloyd")));
    }
    const int64_t indptr[] = {0, 1, 2};
    const int64_t indices[] = {1, 0};
    ASSERT_TRUE(Ok(kkm_set_params(m.get(), "kernel=knn k=1")));
    EXPECT_TRUE(Fails(kkm_fit_graph(m.get(), 2, indptr, indices, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {I("kkm_fit_graph"), I("kkm_set_init_labels")}));
}

TEST(InitCentres, BadCentresAreNamedErrors) {
    const RingsCase c;
    auto m = make_model(c.params);
    float centres[] = {1.0f, 0.0f, 3.0f, NAN};
    EXPECT_TRUE(Fails(kkm_set_init_centres(m.get(), centres, 2, 2), KKM_ERR_INVALID_DATA, {I("row 1"), I("column 1")}));
    EXPECT_TRUE(Fails(kkm_set_init_centres(m.get(), centres, 0, 2), KKM_ERR_INVALID_ARGUMENT, {I("k=0")}));
    centres[3] = 0.0f;
    ASSERT_TRUE(Ok(kkm_set_init_centres(m.get(), centres, 1, 2)));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {I("1 x 2"), I("2 x 2")}));
    ASSERT_TRUE(Ok(kkm_set_init_centres(m.get(), centres, 2, 1)));
    EXPECT_TRUE(Fails(kkm_fit(m.get(), c.data.X.data(), c.data.n, c.data.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {I("2 x 1"), I("2 x 2")}));
    ASSERT_TRUE(Ok(kkm_set_init_centres(m.get(), centres, 2, 2)));
    ASSERT_TRUE(Ok(kkm_set_params(m.get(), "kernel=precomputed")));
    std::vector<float> K(9, 0.5f);
    for (int i = 0; i < 3; ++i) K[static_cast<size_t>(i * 4)] = 1.0f;
    EXPECT_TRUE(Fails(kkm_fit(m.get(), K.data(), 3, 3, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {I("kernel=precomputed"), I("kkm_set_init_centres")}));
}

// ------------------------------------------------------------------ kkm_get_centres

std::vector<float> centres_of(const kkm_model* m, int64_t k, int64_t dim) {
    std::vector<float> out(static_cast<size_t>(k * dim));
    EXPECT_TRUE(Ok(kkm_get_centres(m, out.data(), k * dim)));
    return out;
}

TEST(GetCentres, FeatureSpaceDistancesAreTheModelsDistances) {
    const auto data = kkm::testdata::blobs(60, 3, 4, 5.0, 11);
    for (const char* method : {"method=rff m=64", "method=sketch m=50", "method=nystrom m=40 rank=5",
                               "method=nystrom m=40"}) {
        SCOPED_TRACE(method);
        auto m = make_model((std::string("k=3 gamma=0.1 seed=1 ") + method).c_str());
        ASSERT_TRUE(Ok(kkm_fit(m.get(), data.X.data(), data.n, data.d, nullptr)));
        int64_t dim = 0;
        ASSERT_TRUE(Ok(kkm_get_feature_dim(m.get(), &dim)));
        const std::vector<float> C = centres_of(m.get(), 3, dim);
        std::vector<float> F(static_cast<size_t>(data.n * dim)), D(static_cast<size_t>(data.n * 3));
        ASSERT_TRUE(Ok(kkm_transform(m.get(), data.X.data(), data.n, data.d, F.data(), data.n * dim)));
        ASSERT_TRUE(Ok(kkm_distances(m.get(), data.X.data(), data.n, data.d, D.data(), data.n * 3)));
        // Distances differ from ‖f − c‖² by a per-row constant (Nyström's K(x,x) − ‖f‖²,
        // 0 for the sketches and rff): the differences between centres must agree.
        for (int64_t i = 0; i < data.n; ++i) {
            double sq[3];
            for (int64_t j = 0; j < 3; ++j) {
                double s = 0;
                for (int64_t t = 0; t < dim; ++t) {
                    const double e = F[static_cast<size_t>(i * dim + t)] - C[static_cast<size_t>(j * dim + t)];
                    s += e * e;
                }
                sq[j] = s;
            }
            for (int64_t j = 1; j < 3; ++j) {
                EXPECT_NEAR(sq[j] - sq[0], D[static_cast<size_t>(i * 3 + j)] - D[static_cast<size_t>(i * 3)], 2e-3)
                    << "row " << i << " centre " << j;
            }
        }
        // A loaded model gives the same centres (Nyström recomputes them from H, K_LL and P).
        const std::vector<unsigned char> saved = kkm_test::save(m.get());
        auto loaded = make_model();
        ASSERT_TRUE(Ok(kkm_load_buffer(loaded.get(), saved.data(), static_cast<int64_t>(saved.size()))));
        const std::vector<float> again = centres_of(loaded.get(), 3, dim);
        for (size_t t = 0; t < C.size(); ++t) EXPECT_NEAR(again[t], C[t], 1e-3 * (1 + std::abs(C[t])));
    }
}

TEST(GetCentres, ModelsWithoutExplicitCentresSaySo) {
    const auto data = kkm::testdata::blobs(30, 2, 2, 5.0, 2);
    std::vector<float> out(64);
    auto none = make_model("k=2");
    EXPECT_TRUE(Fails(kkm_get_centres(none.get(), out.data(), 64), KKM_ERR_NOT_FITTED));
    for (const char* method : {"method=exact", "method=minibatch batch_size=16"}) {
        auto m = make_model((std::string("k=2 gamma=0.1 ") + method).c_str());
        ASSERT_TRUE(Ok(kkm_fit(m.get(), data.X.data(), data.n, data.d, nullptr)));
        EXPECT_TRUE(Fails(kkm_get_centres(m.get(), out.data(), 64), KKM_ERR_INVALID_ARGUMENT,
                          {I("no explicit centres"), I("kkm_distances")}));
    }
    auto m = make_model("k=2 gamma=0.1 method=rff m=16");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), data.X.data(), data.n, data.d, nullptr)));
    EXPECT_TRUE(Fails(kkm_get_centres(m.get(), out.data(), 31), KKM_ERR_INVALID_ARGUMENT, {I("len=31"), I("32")}));
    EXPECT_TRUE(Fails(kkm_get_centres(m.get(), nullptr, 64), KKM_ERR_INVALID_ARGUMENT, {W("centres")}));
}

}  // namespace

namespace {

TEST(InitLabels, AutoRestartsMeanTheGivenStartOnly) {
    const auto data = kkm::testdata::blobs(40, 2, 2, 10.0, 4);
    auto m = make_model("k=2 method=exact gamma=0.05 seed=0");  // n_init=auto: 10 at 80 rows
    ASSERT_TRUE(Ok(kkm_fit(m.get(), data.X.data(), data.n, data.d, nullptr)));
    EXPECT_EQ(kkm_test::get_param(m.get(), "n_init"), "10");
    ASSERT_TRUE(Ok(kkm_set_init_labels(m.get(), data.y.data(), data.n)));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), data.X.data(), data.n, data.d, nullptr)));
    EXPECT_EQ(kkm_test::get_param(m.get(), "n_init"), "1");
    ASSERT_TRUE(Ok(kkm_set_params(m.get(), "n_init=4")));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), data.X.data(), data.n, data.d, nullptr)));
    EXPECT_EQ(kkm_test::get_param(m.get(), "n_init"), "4");
}

}  // namespace
