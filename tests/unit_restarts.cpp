// Restarts (n_init): one seeding rule for every method (restart_rng), and one helper that
// keeps the lowest objective with rounding-level ties going to the earliest restart.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "model/fit_common.h"
#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

std::vector<uint64_t> draws(Rng rng, int count) {
    std::vector<uint64_t> out;
    for (int i = 0; i < count; ++i) out.push_back(rng.next_u64());
    return out;
}

TEST(Restarts, RestartZeroDrawsTheFitsOwnStream) {
    for (uint64_t sub : {0ULL, 1ULL, 17ULL}) {
        EXPECT_EQ(draws(restart_rng(5, Stream::seeding, 0, sub), 8), draws(Rng(5, Stream::seeding, sub), 8));
        EXPECT_EQ(draws(restart_rng(5, Stream::batches, 0, sub), 8), draws(Rng(5, Stream::batches, sub), 8));
    }
}

TEST(Restarts, EveryRestartAndSubStreamIsItsOwn) {
    const std::vector<uint64_t> first = draws(restart_rng(5, Stream::seeding, 1), 8);
    EXPECT_NE(first, draws(restart_rng(5, Stream::seeding, 0), 8));
    EXPECT_NE(first, draws(restart_rng(5, Stream::seeding, 2), 8));
    EXPECT_NE(first, draws(restart_rng(5, Stream::seeding, 1, 1), 8));
    EXPECT_NE(first, draws(restart_rng(5, Stream::batches, 1), 8));
    EXPECT_NE(first, draws(restart_rng(6, Stream::seeding, 1), 8));
}

struct Outcome {
    int64_t restart;
    double objective;
};

Outcome best_of(const std::vector<double>& objectives) {
    return best_restart(static_cast<int64_t>(objectives.size()), [&](int64_t r) {
        return Outcome{r, objectives[static_cast<size_t>(r)]};
    });
}

TEST(Restarts, TheLowestObjectiveWins) {
    EXPECT_EQ(best_of({3.0}).restart, 0);
    EXPECT_EQ(best_of({3.0, 2.0, 2.5}).restart, 1);
    EXPECT_EQ(best_of({3.0, 2.5, 1.0}).restart, 2);
    EXPECT_EQ(best_of({-1.0, -2.0}).restart, 1);  // the objective of a kernel can be < 0 only by rounding
}

TEST(Restarts, RoundingLevelTiesGoToTheEarliest) {
    // The same partition summed in another order differs in the last bits.
    EXPECT_EQ(best_of({214.936, 214.936 * (1 - 1e-14), 214.936 * (1 - 4e-16)}).restart, 0);
    EXPECT_EQ(best_of({5.0, 5.0 * (1 - 1e-6)}).restart, 1);  // a real improvement, however small
}

TEST(Restarts, RunsEveryRestartOnce) {
    std::vector<int64_t> ran;
    (void)best_restart(int64_t{4}, [&](int64_t r) {
        ran.push_back(r);
        return Outcome{r, 1.0};
    });
    EXPECT_EQ(ran, (std::vector<int64_t>{0, 1, 2, 3}));
}

// Every method: n_init = 1 is restart 0 of n_init > 1, which then keeps it unless a later
// restart is lower, and on data with many local optima the later restarts find lower ones.
TEST(Restarts, EveryMethodKeepsTheBestOfItsRestarts) {
    const testdata::Labeled data = testdata::blobs(40, 12, 3, 0.9, 21);
    const ConstMatrix X{data.X.data(), data.n, data.d};
    for (Method method : {Method::exact, Method::nystrom, Method::sketch, Method::rff, Method::minibatch}) {
        SCOPED_TRACE(static_cast<int>(method));
        int improved = 0;
        for (uint64_t seed : {1ULL, 2ULL, 3ULL}) {
            Params p;
            p.method = method;
            p.k = 12;
            p.seed = seed;
            p.threads = 2;
            p.init = Init::random;  // many poor starts, so that restarts matter
            p.batch_size = 64;
            const auto one = fit_model(p, X, {});
            p.n_init = 6;
            const auto six = fit_model(p, X, {});
            const double a = one->report().objective, b = six->report().objective;
            EXPECT_LE(b, a * (1 + kRestartTie));
            if (b >= a * (1 - kRestartTie)) {
                EXPECT_EQ(one->report().labels, six->report().labels);  // restart 0 kept
            } else {
                ++improved;
            }
        }
        EXPECT_GE(improved, 1) << "six restarts never beat the first";
    }
}

}  // namespace
}  // namespace kkm
