// gamma=search and k=auto: rings separate with neither gamma nor k given, blobs get their
// true k, the scan is reported and reproducible, and what the search cannot do is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "eval/metrics.h"
#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

ConstMatrix view(const testdata::Labeled& data) {
    return {data.X.data(), data.n, data.d};
}

Params searching(Method method) {
    Params p;
    p.method = method;
    p.k = 0;
    p.gamma_search = true;
    p.threads = 2;
    return p;
}

double ari(const testdata::Labeled& data, const FittedModel& model) {
    return adjusted_rand_index(data.y.data(), model.report().labels.data(), data.n);
}

std::string scan_text(const FittedModel& model) {
    std::string out;
    for (const SearchPoint& s : model.report().search) {
        out += "gamma " + std::to_string(s.gamma) + " k " + std::to_string(s.k) + " score " + std::to_string(s.score) +
               (s.criterion == SearchCriterion::matr ? " matr\n" : " stability\n");
    }
    return out;
}

kkm_status status_of(const Params& p, ConstMatrix X) {
    try {
        fit_model(p, X, {});
    } catch (const Error& e) {
        return e.status();
    }
    return KKM_OK;
}

struct Case {
    Method method;
    SearchCriterion criterion;
};

class RingsSearch : public ::testing::TestWithParam<Case> {};

TEST_P(RingsSearch, SeparateWithNeitherGammaNorKGiven) {
    const auto data = testdata::rings(300, 0.1, 7);
    Params p = searching(GetParam().method);
    p.search_criterion = GetParam().criterion;
    const auto model = fit_model(p, view(data), {});
    EXPECT_EQ(model->params().k, 2) << scan_text(*model);
    EXPECT_GE(ari(data, *model), 0.95) << scan_text(*model);
    // The chosen gamma is one the scan scored, and the fit used it.
    const auto& scan = model->report().search;
    EXPECT_TRUE(std::any_of(scan.begin(), scan.end(),
                            [&](const SearchPoint& s) { return s.gamma == model->report().gamma && s.k == 2; }));
    EXPECT_EQ(model->params().gamma, model->report().gamma);
}

INSTANTIATE_TEST_SUITE_P(Search, RingsSearch,
                         ::testing::Values(Case{Method::exact, SearchCriterion::stability},
                                           Case{Method::nystrom, SearchCriterion::stability},
                                           Case{Method::exact, SearchCriterion::matr},
                                           Case{Method::nystrom, SearchCriterion::matr}));

TEST(Search, BlobsGetTheirTrueK) {
    for (int64_t k : {3, 5, 7}) {
        const auto data = testdata::blobs(80, k, 4, 12.0, static_cast<uint32_t>(k));
        for (Method method : {Method::exact, Method::nystrom}) {
            Params p = searching(method);
            p.gamma_search = false;  // gamma=auto, k=auto
            const auto model = fit_model(p, view(data), {});
            EXPECT_EQ(model->params().k, k) << scan_text(*model);
            EXPECT_GE(ari(data, *model), 0.99);
            // One stability score per k in [k_min, k_max], all at the auto gamma.
            ASSERT_EQ(model->report().search.size(), 9u);
            for (const SearchPoint& s : model->report().search) EXPECT_EQ(s.gamma, model->report().gamma);
        }
    }
}

TEST(Search, GammaSearchWithAGivenKScoresTheGridAtThatK) {
    const auto data = testdata::rings(200, 0.1, 3);
    Params p = searching(Method::exact);
    p.k = 2;
    p.search_criterion = SearchCriterion::stability;  // scores are adjusted Rand indices
    const auto model = fit_model(p, view(data), {});
    const auto& scan = model->report().search;
    ASSERT_GE(scan.size(), 9u);  // at least 0.1x to 10x of one scale, 4 per decade
    for (size_t i = 0; i < scan.size(); ++i) {
        EXPECT_EQ(scan[i].k, 2);
        EXPECT_GE(scan[i].score, -1.0);
        EXPECT_LE(scan[i].score, 1.0 + 1e-12);
        if (i > 0) {
            EXPECT_NEAR(scan[i].gamma / scan[i - 1].gamma, std::pow(10.0, 0.25), 1e-9);
        }
    }
    EXPECT_GE(ari(data, *model), 0.95) << scan_text(*model);
}

TEST(Search, SameSeedSameChoiceForAnyThreadCount) {
    const auto data = testdata::rings(150, 0.1, 11);
    Params p = searching(Method::exact);
    p.k_max = 4;  // three values of k keep it short under the sanitizers
    p.threads = 1;
    const auto one = fit_model(p, view(data), {});
    p.threads = 2;
    const auto two = fit_model(p, view(data), {});
    ASSERT_EQ(one->report().search.size(), two->report().search.size());
    for (size_t i = 0; i < one->report().search.size(); ++i) {
        EXPECT_EQ(one->report().search[i].score, two->report().search[i].score);
    }
    EXPECT_EQ(one->report().labels, two->report().labels);
    EXPECT_EQ(one->report().gamma, two->report().gamma);
}

TEST(Search, KAutoWorksForKernelsWithoutAScaleAndPrecomputedKernels) {
    const auto data = testdata::blobs(60, 4, 3, 15.0, 5);
    Params p = searching(Method::exact);
    p.gamma_search = false;
    p.kernel = KernelType::linear;
    const auto linear = fit_model(p, view(data), {});
    EXPECT_EQ(linear->params().k, 4) << scan_text(*linear);
    // The same data as a precomputed linear kernel (centred, as the linear kernel centres).
    std::vector<double> mean(3, 0.0);
    for (int64_t i = 0; i < data.n; ++i) {
        for (int j = 0; j < 3; ++j)
            mean[static_cast<size_t>(j)] += data.X[static_cast<size_t>(i * 3 + j)] / static_cast<double>(data.n);
    }
    std::vector<float> K(static_cast<size_t>(data.n * data.n));
    for (int64_t a = 0; a < data.n; ++a) {
        for (int64_t b = 0; b < data.n; ++b) {
            double dot = 0;
            for (int j = 0; j < 3; ++j) {
                dot += (data.X[static_cast<size_t>(a * 3 + j)] - mean[static_cast<size_t>(j)]) *
                       (data.X[static_cast<size_t>(b * 3 + j)] - mean[static_cast<size_t>(j)]);
            }
            K[static_cast<size_t>(a * data.n + b)] = static_cast<float>(dot);
        }
    }
    for (int64_t a = 0; a < data.n; ++a) {  // exactly symmetric
        for (int64_t b = 0; b < a; ++b) K[static_cast<size_t>(a * data.n + b)] = K[static_cast<size_t>(b * data.n + a)];
    }
    p.kernel = KernelType::precomputed;
    const auto pre = fit_model(p, ConstMatrix{K.data(), data.n, data.n}, {});
    EXPECT_EQ(pre->params().k, 4) << scan_text(*pre);
    EXPECT_EQ(adjusted_rand_index(pre->report().labels.data(), linear->report().labels.data(), data.n), 1.0);
}

TEST(Search, ZeroWeightRowsStayOutOfTheSubsample) {
    // Half the rows are a far-away fifth blob of weight 0: were they drawn, k=auto would see 5.
    auto data = testdata::blobs(60, 5, 2, 20.0, 9);
    std::vector<float> w(static_cast<size_t>(data.n), 1.0f);
    for (int64_t i = 4 * 60; i < data.n; ++i) w[static_cast<size_t>(i)] = 0.0f;
    Params p = searching(Method::exact);
    p.gamma_search = false;
    const auto model = fit_model(p, view(data), w);
    EXPECT_EQ(model->params().k, 4) << scan_text(*model);
}

TEST(Search, RefusesWhatItCannotRun) {
    const auto data = testdata::blobs(20, 2, 2, 10.0, 1);
    Params p = searching(Method::exact);
    p.kernel = KernelType::linear;  // gamma=search needs a scale
    EXPECT_EQ(status_of(p, view(data)), KKM_ERR_INVALID_ARGUMENT);
    p.kernel = KernelType::polynomial;
    EXPECT_EQ(status_of(p, view(data)), KKM_ERR_INVALID_ARGUMENT);
    p = searching(Method::exact);
    p.k_min = 5;
    p.k_max = 4;
    EXPECT_EQ(status_of(p, view(data)), KKM_ERR_INVALID_ARGUMENT);
    p.k_min = 25;  // 40 rows: halves of 20 score at most k = 20
    p.k_max = 30;
    EXPECT_EQ(status_of(p, view(data)), KKM_ERR_INVALID_ARGUMENT);
    p = searching(Method::exact);
    p.k = 25;  // stability needs 2k rows
    p.search_criterion = SearchCriterion::stability;
    EXPECT_EQ(status_of(p, view(data)), KKM_ERR_INVALID_ARGUMENT);
    p.search_criterion = SearchCriterion::matr;  // matr fits the whole subsample
    EXPECT_EQ(status_of(p, view(data)), KKM_OK);
    p = searching(Method::minibatch);
    EXPECT_EQ(status_of(p, view(data)), KKM_OK);  // the search's start is the minibatch's to ignore
}

}  // namespace
}  // namespace kkm
