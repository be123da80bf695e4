// Progress reports from a long step run beside a parallel loop (parallel_blocks_beside: the
// m x m eigen-decomposition beside the Nystrom kernel rows). The step's polls report the
// blocks the other threads have finished, so a progress bar moves during the step instead of
// jumping from 0 to where the loop stood when the step ended.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel.h"
#include "core/progress.h"

namespace {

struct Recorder {
    std::vector<double> fractions;
    static int callback(const char*, double fraction, void* self) {
        static_cast<Recorder*>(self)->fractions.push_back(fraction);
        return 0;
    }
};

TEST(ProgressBeside, TheSidesPollsReportTheBlocksFinishedBesideIt) {
    if (kkm::usable_threads(2) < 2) GTEST_SKIP() << "needs two threads";
    Recorder r;
    kkm::Progress progress(&Recorder::callback, &r);
    kkm::ProgressScope scope(progress);
    progress.begin("kernel+eigen");
    bool saw_blocks = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    kkm::parallel_blocks_beside(
        2,
        [&] {
            // The side polls until a report shows finished blocks (or a generous deadline).
            while (!saw_blocks && std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                kkm::progress_check();
                for (double f : r.fractions) saw_blocks = saw_blocks || (f > 0 && f < 1);
            }
        },
        8, [](int64_t) { std::this_thread::sleep_for(std::chrono::milliseconds(60)); });
    EXPECT_TRUE(saw_blocks) << "no report between 0 and 1 while the side ran";
    for (size_t i = 1; i < r.fractions.size(); ++i) EXPECT_GE(r.fractions[i], r.fractions[i - 1]);
    // After the loop, a plain check reports the stage's own fraction again (nothing shared).
    const size_t before = r.fractions.size();
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    kkm::progress_check();
    ASSERT_EQ(r.fractions.size(), before + 1);
    EXPECT_GE(r.fractions.back(), r.fractions[before - 1]);
}

}  // namespace
