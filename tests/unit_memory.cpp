// The memory ledger (core/memory_ledger.h) and the footprints behind every method's budget
// (model/fit_memory.h): charges add up and are given back, a charge past the budget names
// the stage, the bytes, the running total and max_memory_mb; and for every method, solver and
// sampling, a fit given exactly its estimate runs to the end (no stage charges past it) and
// gives every charge back, while one MiB less is refused before any stage charges anything.
// The resident memory those charges stand for is measured by test_api_memory.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/memory_ledger.h"
#include "core/params.h"
#include "kernels/kernel_traits.h"
#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

ConstMatrix view(const testdata::Labeled& data) {
    return {data.X.data(), data.n, data.d};
}

/// The parameters of `text`, with one restart unless it says otherwise (n_init=auto would run
/// ten on these small data: the same buffers, ten times the time).
Params params_of(const std::string& text) {
    ParamSet set;
    set.set_many(text);
    Params p = set.typed();
    if (p.n_init_auto && !kernel_traits(p.kernel).graph) {
        p.n_init = 1;
        p.n_init_auto = false;
    }
    return p;
}

TEST(Ledger, ChargesAddUpAndAreGivenBackWhenReleasedOrDestroyed) {
    MemoryLedger ledger(1);
    {
        MemoryLedger::Charge a = ledger.charge("one", "a", 1000);
        const MemoryLedger::Charge b = ledger.charge("two", "b", 2000);
        EXPECT_EQ(ledger.total(), 3000);
        MemoryLedger::Charge moved = std::move(a);
        EXPECT_EQ(ledger.total(), 3000);  // moving a charge does not give it back
        moved.release();
        moved.release();  // twice is a no-op
        EXPECT_EQ(ledger.total(), 2000);
    }
    EXPECT_EQ(ledger.total(), 0);
    EXPECT_EQ(ledger.peak(), 3000);
    EXPECT_TRUE(ledger.fits(kMiB));
    EXPECT_FALSE(ledger.fits(kMiB + 1));
}

TEST(Ledger, AChargePastTheBudgetThrowsNamingStageBytesTotalAndBudget) {
    MemoryLedger ledger(2);
    const MemoryLedger::Charge held = ledger.charge("kernel", "rows", 1.5 * kMiB);
    try {
        const MemoryLedger::Charge more = ledger.charge("features", "the n x m features", 0.75 * kMiB);
        FAIL() << "a charge past the budget was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KKM_ERR_OUT_OF_MEMORY);
        const std::string m = e.what();
        for (const char* word : {"max_memory_mb=2", "'features'", "0.75 MiB", "the n x m features", "1.5 MiB",
                                 "2.25 MiB", "budget 2 MiB"}) {
            EXPECT_NE(m.find(word), std::string::npos) << word << " missing from: " << m;
        }
    }
    EXPECT_EQ(ledger.total(), 1.5 * kMiB);  // the refused charge took nothing
}

TEST(Ledger, RequireNamesTheEstimateAndTheBudget) {
    MemoryLedger ledger(4);
    EXPECT_NO_THROW(ledger.require("method=rff", 4 * kMiB, "features", "use fewer rows"));
    try {
        ledger.require("method=rff", 4 * kMiB + 1, "n x m features", "use fewer rows");
        FAIL() << "an estimate past the budget was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KKM_ERR_OUT_OF_MEMORY);
        const std::string m = e.what();
        for (const char* word :
             {"method=rff", "needs an estimated 5 MiB", "n x m features", "max_memory_mb=4", "use fewer rows"}) {
            EXPECT_NE(m.find(word), std::string::npos) << word << " missing from: " << m;
        }
    }
}

struct Combination {
    const char* name;
    const char* params;
    bool weighted = false;
};

const Combination kCombinations[] = {
    {"exact", "method=exact"},
    {"exact_weighted", "method=exact n_init=2", true},
    {"nystrom_uniform", "method=nystrom m=120"},
    {"nystrom_kmeanspp", "method=nystrom m=120 sampling=kmeanspp"},
    {"nystrom_rls", "method=nystrom m=120 sampling=rls", true},
    {"nystrom_rank", "method=nystrom m=120 rank=5"},
    {"nystrom_f32_restarts", "method=nystrom m=120 kernel_rows=f32 n_init=3 init=random"},
    {"nystrom_linear", "method=nystrom m=120 kernel=linear"},  // rank-deficient K_LL: features when they fit
    {"nystrom_solver_minibatch", "method=nystrom m=120 solver=minibatch batch_size=256", true},
    {"nystrom_solver_minibatch_rank", "method=nystrom m=120 rank=5 solver=minibatch batch_size=256"},
    {"sketch_subgaussian", "method=sketch m=120"},
    {"sketch_ros", "method=sketch m=100 sketch=ros sampling=kmeanspp"},
    {"sketch_gaussian", "method=sketch m=120 sketch=gaussian"},
    {"sketch_identity_solver_minibatch", "method=sketch m=120 sketch=identity solver=minibatch"},
    {"rff", "method=rff m=300", true},
    {"rff_laplacian_auto_gamma", "method=rff m=300 kernel=laplacian gamma=auto"},
    {"minibatch", "method=minibatch batch_size=256 tau=100"},
    {"minibatch_restarts_weighted", "method=minibatch batch_size=128 tau=50 n_init=2 init=random", true},
    {"minibatch_untruncated", "method=minibatch batch_size=128 tau=0 max_iter=20"},
    {"minibatch_large_batch", "method=minibatch batch_size=20000 tau=100 max_iter=3"},
};

class EveryMethod : public ::testing::TestWithParam<Combination> {};

TEST_P(EveryMethod, ExactlyItsEstimateIsEnoughAndOneMiBLessIsRefusedBeforeAnyStage) {
    const Combination& c = GetParam();
    const auto data = testdata::blobs(700, 3, 5, 6.0, 3);  // n = 2100
    std::vector<float> w;
    if (c.weighted) {
        for (int64_t i = 0; i < data.n; ++i) w.push_back(0.5f + static_cast<float>(i % 7));
    }
    // Defaults for what the combination does not set itself (a key may be given only once).
    std::string base = c.params;
    for (const char* pair : {"k=3", "gamma=0.2", "seed=4", "threads=2", "max_iter=30"}) {
        const std::string key = std::string(pair).substr(0, std::string(pair).find('=') + 1);
        if ((" " + base).find(" " + key) == std::string::npos) base += std::string(" ") + pair;
    }

    // A budget that holds anything: the estimate the fit makes, every charge given back.
    MemoryLedger roomy(1 << 20);
    const auto first = fit_model(params_of(base + " max_memory_mb=1048576"), view(data), w, &roomy);
    const double estimate = first->report().memory_estimate;
    EXPECT_GT(estimate, 0.0);
    EXPECT_EQ(roomy.total(), 0.0) << "a charge outlived the fit";
    const auto budget = static_cast<int64_t>(std::ceil(estimate / kMiB));

    // Exactly the estimate (in whole MiB): the fit runs to the end within it.
    MemoryLedger exact(budget);
    std::unique_ptr<FittedModel> fitted;
    ASSERT_NO_THROW(fitted =
                        fit_model(params_of(base + " max_memory_mb=" + std::to_string(budget)), view(data), w, &exact));
    EXPECT_LE(exact.peak(), exact.budget());
    // The estimate is the peak of the charges, except where it bounds what the data decide
    // (mini-batch support points: at most k(tau + b); the assign stage charges the real ones).
    if (std::string(c.params).find("method=minibatch") == std::string::npos) {
        EXPECT_GT(exact.peak(), 0.8 * estimate) << "the charges cover less than 80 % of the estimate";
    }
    EXPECT_EQ(exact.total(), 0.0);
    // The same clustering (a different path may round differently: Nyström's features or its
    // kernel rows, exact's stored or recomputed kernel).
    EXPECT_NEAR(fitted->report().objective, first->report().objective, 1e-3 * first->report().objective);

    if (budget <= 1) return;
    const std::string below = base + " max_memory_mb=" + std::to_string(budget - 1);
    MemoryLedger tight(budget - 1);
    if (std::string(c.params).find("method=exact") != std::string::npos) {
        // exact recomputes its kernel rows in blocks instead of storing K: still accepted.
        EXPECT_NO_THROW(fit_model(params_of(below), view(data), w, &tight));
        EXPECT_LE(tight.peak(), tight.budget());
        return;
    }
    try {
        fit_model(params_of(below), view(data), w, &tight);
        FAIL() << "one MiB below the estimate was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KKM_ERR_OUT_OF_MEMORY);
        EXPECT_NE(std::string(e.what()).find("estimated"), std::string::npos) << e.what();
    }
    // Refused before any stage: only the weights and the centring shift were ever charged.
    EXPECT_LE(tight.peak(), 8.0 * static_cast<double>(data.n) + 4.0 * static_cast<double>(data.d));
    EXPECT_EQ(tight.total(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Combinations, EveryMethod, ::testing::ValuesIn(kCombinations),
                         [](const ::testing::TestParamInfo<Combination>& info) {
                             return std::string(info.param.name);
                         });

TEST(Ledger, Float64CopyIsChargedAndTheFitCheckedBeforeTheCopyIsMade) {
    const Params p = params_of("k=3 gamma=0.2 method=rff m=500 max_memory_mb=3");
    MemoryLedger ledger(p.max_memory_mb);
    // 20000 x 30 floats: 2.3 MiB fits, the fit's features (20000 x 500) on top do not.
    try {
        const MemoryLedger::Charge copy = charge_float32_copy(ledger, p, 20000, 30, false);
        FAIL() << "the fit's estimate was not checked with the copy";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KKM_ERR_OUT_OF_MEMORY);
        EXPECT_NE(std::string(e.what()).find("already in use"), std::string::npos) << e.what();
    }
    EXPECT_EQ(ledger.total(), 0.0);
    MemoryLedger small(1);  // the copy alone is over
    try {
        const MemoryLedger::Charge copy = charge_float32_copy(small, p, 20000, 30, false);
        FAIL() << "the copy was not charged";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("float64"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace kkm
