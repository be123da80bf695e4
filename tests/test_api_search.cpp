// gamma=search and k=auto through the C API: the choice reported by kkm_get_param and
// kkm_get_k, the scan by kkm_get_search (kept by save and load), and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.h"

using namespace kkm_test;

namespace {

struct Scan {
    std::vector<double> gammas, scores;
    std::vector<int32_t> ks, criteria;
};

Scan scan_of(const kkm_model* m) {
    int64_t count = -1;
    EXPECT_TRUE(Ok(kkm_get_search(m, nullptr, nullptr, nullptr, nullptr, 0, &count)));
    Scan s;
    s.gammas.resize(static_cast<size_t>(count));
    s.scores.resize(static_cast<size_t>(count));
    s.ks.resize(static_cast<size_t>(count));
    s.criteria.resize(static_cast<size_t>(count));
    int64_t again = -1;
    EXPECT_TRUE(Ok(kkm_get_search(m, s.gammas.data(), s.ks.data(), s.scores.data(), s.criteria.data(), count, &again)));
    EXPECT_EQ(again, count);
    return s;
}

const Dataset& rings400() {
    static const Dataset ds = rings(200, 31);
    return ds;
}

TEST(Search, RingsWithNeitherGammaNorKReportTheChoiceAndTheScan) {
    const Dataset& ds = rings400();
    for (const char* method : {"method=exact", "method=nystrom"}) {
        SCOPED_TRACE(method);
        Model m = make_model((std::string(method) + " gamma=search k=auto").c_str());
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        int32_t k = 0;
        ASSERT_TRUE(Ok(kkm_get_k(m.get(), &k)));
        EXPECT_EQ(k, 2);
        EXPECT_EQ(get_param(m.get(), "k"), "2");
        const double gamma = std::stod(get_param(m.get(), "gamma"));
        std::vector<int32_t> labels(static_cast<size_t>(ds.n));
        ASSERT_TRUE(Ok(kkm_get_labels(m.get(), labels.data(), ds.n)));
        EXPECT_GE(ari(labels, ds.truth), 0.95);
        const Scan s = scan_of(m.get());
        ASSERT_FALSE(s.gammas.empty());
        bool chosen_scored = false;
        for (size_t i = 0; i < s.gammas.size(); ++i) {
            EXPECT_TRUE(s.criteria[i] == KKM_SEARCH_STABILITY || s.criteria[i] == KKM_SEARCH_MATR);
            EXPECT_GE(s.ks[i], 2);
            EXPECT_LE(s.ks[i], 10);
            chosen_scored |= s.gammas[i] == gamma && s.ks[i] == 2;
        }
        EXPECT_TRUE(chosen_scored) << "gamma " << gamma;
        // The timings name the search stage.
        char timings[512];
        ASSERT_TRUE(Ok(kkm_get_timings(m.get(), timings, sizeof timings, nullptr)));
        EXPECT_NE(std::string(timings).find("search="), std::string::npos) << timings;
        // Changed parameters: "search" and "auto" are reported as set again.
        ASSERT_TRUE(Ok(kkm_set_param(m.get(), "seed", "5")));
        EXPECT_EQ(get_param(m.get(), "gamma"), "search");
        EXPECT_EQ(get_param(m.get(), "k"), "auto");
    }
}

TEST(Search, MatrScoresGammaAndStabilityScoresK) {
    const Dataset& ds = rings400();
    Model m = make_model("method=exact gamma=search k=auto");  // search_criterion=matr by default
    EXPECT_EQ(get_param(m.get(), "search_criterion"), "matr");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const Scan s = scan_of(m.get());
    int32_t k = 0;
    ASSERT_TRUE(Ok(kkm_get_k(m.get(), &k)));
    EXPECT_EQ(k, 2);
    // Stability scored every (gamma, k); MATR scored the same grid at the chosen k, and the
    // chosen gamma is its smallest within 1% of its best.
    size_t matr = 0, stability = 0;
    double best = 0;
    for (size_t i = 0; i < s.criteria.size(); ++i) {
        if (s.criteria[i] == KKM_SEARCH_MATR) {
            ++matr;
            EXPECT_EQ(s.ks[i], k);
            best = std::max(best, s.scores[i]);
        } else {
            ++stability;
        }
    }
    EXPECT_EQ(stability, 9 * matr);
    const double gamma = std::stod(get_param(m.get(), "gamma"));
    for (size_t i = 0; i < s.criteria.size(); ++i) {
        if (s.criteria[i] != KKM_SEARCH_MATR) continue;
        if (s.gammas[i] < gamma) {
            EXPECT_LT(s.scores[i], 0.99 * best);
        } else if (s.gammas[i] == gamma) {
            EXPECT_GE(s.scores[i], 0.99 * best);
        }
    }
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    ASSERT_TRUE(Ok(kkm_get_labels(m.get(), labels.data(), ds.n)));
    EXPECT_GE(ari(labels, ds.truth), 0.95);
}

TEST(Search, SaveAndLoadKeepTheScanAndTheChoice) {
    const Dataset& ds = rings400();
    Model m = make_model("method=nystrom gamma=search k=auto k_max=4");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::vector<unsigned char> bytes = save(m.get());
    Model loaded = make_model("");
    ASSERT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));
    const Scan a = scan_of(m.get()), b = scan_of(loaded.get());
    EXPECT_EQ(a.gammas, b.gammas);
    EXPECT_EQ(a.ks, b.ks);
    EXPECT_EQ(a.scores, b.scores);
    EXPECT_EQ(a.criteria, b.criteria);
    EXPECT_EQ(get_param(loaded.get(), "k"), get_param(m.get(), "k"));
    EXPECT_EQ(get_param(loaded.get(), "gamma"), get_param(m.get(), "gamma"));
    std::vector<int32_t> want(static_cast<size_t>(ds.n)), got(want.size());
    ASSERT_TRUE(Ok(kkm_assign(m.get(), ds.X.data(), ds.n, ds.d, want.data(), nullptr)));
    ASSERT_TRUE(Ok(kkm_assign(loaded.get(), ds.X.data(), ds.n, ds.d, got.data(), nullptr)));
    EXPECT_EQ(got, want);
}

/// Offset of the first element of the array section `tag` (tag, byte size, element count).
size_t array_data(const std::vector<unsigned char>& b, const char* tag) {
    for (size_t i = 0; i + 4 <= b.size(); ++i) {
        if (std::memcmp(b.data() + i, tag, 4) == 0) return i + 4 + 8 + 8;
    }
    ADD_FAILURE() << "no section " << tag;
    return 0;
}

TEST(Search, DamagedScanIsAFormatError) {
    const Dataset& ds = rings400();
    Model m = make_model("method=exact gamma=search k=2");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    std::vector<unsigned char> bytes = save(m.get());
    const double nan = std::nan("");
    std::memcpy(bytes.data() + array_data(bytes, "SRCS"), &nan, sizeof nan);
    reseal(bytes);
    Model loaded = make_model("");
    EXPECT_TRUE(Fails(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size())), KKM_ERR_FORMAT,
                      {"SRCS", "non-finite"}));
    // One score fewer than gammas: the SRCS count says so (its bytes stay, so the section
    // sizes stay consistent and only the count disagrees).
    bytes = save(m.get());
    uint64_t count = 0;
    const size_t at = array_data(bytes, "SRCS") - 8;
    std::memcpy(&count, bytes.data() + at, 8);
    --count;
    std::memcpy(bytes.data() + at, &count, 8);
    reseal(bytes);
    const kkm_status got = kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()));
    EXPECT_EQ(got, KKM_ERR_FORMAT) << kkm_last_error();
    int64_t n = 0;
    EXPECT_TRUE(Fails(kkm_get_n_train(loaded.get(), &n), KKM_ERR_NOT_FITTED));  // unchanged: still unfitted
}

TEST(Search, AFitWithoutSearchHasAnEmptyScan) {
    const Dataset& ds = rings400();
    Model m = make_model("k=2 method=exact");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    int64_t count = -1;
    double gamma = 0;
    ASSERT_TRUE(Ok(kkm_get_search(m.get(), &gamma, nullptr, nullptr, nullptr, 1, &count)));
    EXPECT_EQ(count, 0);
}

TEST(Search, GetterErrors) {
    const Dataset& ds = rings400();
    Model m = make_model("method=exact gamma=search k=2");
    int64_t count = 0;
    EXPECT_TRUE(Fails(kkm_get_search(m.get(), nullptr, nullptr, nullptr, nullptr, 0, &count), KKM_ERR_NOT_FITTED));
    EXPECT_TRUE(Fails(kkm_get_search(nullptr, nullptr, nullptr, nullptr, nullptr, 0, &count), KKM_ERR_INVALID_ARGUMENT,
                      {W("model")}));
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    EXPECT_TRUE(Fails(kkm_get_search(m.get(), nullptr, nullptr, nullptr, nullptr, 0, nullptr), KKM_ERR_INVALID_ARGUMENT,
                      {W("count")}));
    ASSERT_TRUE(Ok(kkm_get_search(m.get(), nullptr, nullptr, nullptr, nullptr, 0, &count)));
    ASSERT_GT(count, 1);
    std::vector<double> scores(static_cast<size_t>(count));
    EXPECT_TRUE(Fails(kkm_get_search(m.get(), nullptr, nullptr, scores.data(), nullptr, count - 1, &count),
                      KKM_ERR_INVALID_ARGUMENT, {W("len")}));
}

TEST(Search, BadParametersAreRefusedNamingThem) {
    const Dataset& ds = rings400();
    {
        Model m = make_model("kernel=linear gamma=search k=2");
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"gamma=search", "kernel=linear"}));
    }
    {
        Model m = make_model("k=auto k_min=6 k_max=5");
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"k_min=6", "k_max=5"}));
    }
    {
        Model m = make_model("k=auto k_min=30 k_max=40");
        EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), 40, ds.d, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {"k_min=30", "search_size"}));
    }
    Model m = make_model("");
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k_min", "1"), KKM_ERR_INVALID_ARGUMENT, {W("k_min")}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "search_size", "10"), KKM_ERR_INVALID_ARGUMENT, {W("search_size")}));
    EXPECT_TRUE(
        Fails(kkm_set_param(m.get(), "search_criterion", "silhouette"), KKM_ERR_INVALID_ARGUMENT, {"matr|stability"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "search"), KKM_ERR_INVALID_ARGUMENT, {W("k")}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "m", "search"), KKM_ERR_INVALID_ARGUMENT, {W("m")}));
}

TEST(Search, NaNInTheDataIsRefusedBeforeTheSearch) {
    Dataset ds = rings(50, 3);
    ds.X[7] = std::nanf("");
    Model m = make_model("gamma=search k=auto");
    EXPECT_TRUE(Fails(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr), KKM_ERR_INVALID_DATA, {"row 3"}));
}

}  // namespace
