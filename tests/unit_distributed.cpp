// Distributed fits (fit_model over a Comm) against one process on the concatenated rows:
// ranks run as threads (thread_comm.h), so the core's reductions, draws and row sharing are
// tested without MPI. Same labels, same iterations, objective within 1e-6 relative, for
// every method a distributed fit supports, even and uneven splits and a rank without rows;
// the same bits on every run with a fixed number of ranks; errors on every rank alike.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <mutex>
#include <string>

#include "core/error.h"
#include "model/model.h"
#include "thread_comm.h"
#include "unit_data.h"

namespace kkm {
namespace {

struct RankResult {
    std::vector<int32_t> labels;
    double objective = 0;
    int32_t iterations = 0;
    std::vector<double> mass;
    int status = 0;
    std::string message;
};

/// Row counts per rank: `parts[r]` shares of n (a 0 gives the rank no rows).
std::vector<int64_t> split(int64_t n, const std::vector<int>& parts) {
    int total = 0;
    for (int p : parts) total += p;
    std::vector<int64_t> sizes;
    int64_t given = 0, acc = 0;
    for (int p : parts) {
        acc += p;
        const int64_t upto = n * acc / total;
        sizes.push_back(upto - given);
        given = upto;
    }
    return sizes;
}

std::vector<RankResult> fit_spread(const Params& p, const testdata::Labeled& data, const std::vector<float>& w,
                                   const std::vector<int>& parts) {
    const std::vector<int64_t> sizes = split(data.n, parts);
    std::vector<RankResult> out(parts.size());
    testing::run_ranks(static_cast<int>(parts.size()), [&](const Comm& comm) {
        const auto r = static_cast<size_t>(comm.rank());
        int64_t first = 0;
        for (size_t q = 0; q < r; ++q) first += sizes[q];
        const ConstMatrix X{data.X.data() + first * data.d, sizes[r], data.d};
        const std::vector<float> mine =
            w.empty() ? std::vector<float>() : std::vector<float>(w.begin() + first, w.begin() + first + sizes[r]);
        try {
            const auto model = fit_model(p, X, mine, comm);
            out[r].labels = model->report().labels;
            out[r].objective = model->report().objective;
            out[r].iterations = model->report().iterations;
            out[r].mass = model->report().mass;
        } catch (const Error& e) {
            out[r].status = e.status();
            out[r].message = e.what();
        }
    });
    return out;
}

Params params(Method method, int64_t k, double gamma) {
    Params p;
    p.method = method;
    p.k = k;
    p.gamma = gamma;
    p.seed = 5;
    p.threads = 1;
    return p;
}

void expect_same_as_one_process(const Params& p, const testdata::Labeled& data, const std::vector<float>& w,
                                const std::vector<int>& parts) {
    const auto solo = fit_model(p, ConstMatrix{data.X.data(), data.n, data.d}, w);
    const std::vector<RankResult> spread = fit_spread(p, data, w, parts);
    std::vector<int32_t> labels;
    for (const RankResult& r : spread) {
        ASSERT_EQ(r.status, 0) << r.message;
        labels.insert(labels.end(), r.labels.begin(), r.labels.end());
        EXPECT_EQ(r.objective, spread[0].objective) << "every rank reports the same objective";
        EXPECT_EQ(r.mass, spread[0].mass);
    }
    EXPECT_EQ(labels, solo->report().labels);
    EXPECT_NEAR(spread[0].objective, solo->report().objective, 1e-6 * solo->report().objective);
    EXPECT_EQ(spread[0].iterations, solo->report().iterations);
    ASSERT_EQ(spread[0].mass.size(), solo->report().mass.size());
    for (size_t j = 0; j < spread[0].mass.size(); ++j) EXPECT_NEAR(spread[0].mass[j], solo->report().mass[j], 1e-9);
}

const std::vector<std::vector<int>> kSplits = {{1, 1}, {1, 2, 3}, {2, 0, 1, 1}, {1}};

struct Case {
    const char* name;
    std::function<void(Params&)> set;
};

class Distributed : public ::testing::TestWithParam<Case> {};

TEST_P(Distributed, RingsAsOneProcess) {
    const auto data = testdata::rings(150, 0.1, 3);
    Params p = params(Method::nystrom, 2, 0.35);
    GetParam().set(p);
    for (const auto& parts : kSplits) {
        SCOPED_TRACE(std::to_string(parts.size()) + " ranks");
        expect_same_as_one_process(p, data, {}, parts);
    }
}

TEST_P(Distributed, WeightedBlobsAsOneProcess) {
    const auto data = testdata::blobs(60, 4, 5, 6.0, 7);
    std::vector<float> w(static_cast<size_t>(data.n));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + static_cast<float>(i % 7) * 0.25f;
    Params p = params(Method::nystrom, 4, 0.05);
    GetParam().set(p);
    for (const auto& parts : kSplits) {
        SCOPED_TRACE(std::to_string(parts.size()) + " ranks");
        expect_same_as_one_process(p, data, w, parts);
    }
}

TEST_P(Distributed, AutoGammaAndRandomInitAsOneProcess) {
    const auto data = testdata::blobs(50, 3, 4, 5.0, 9);
    Params p = params(Method::nystrom, 3, 0.0);
    p.init = Init::random;
    GetParam().set(p);
    if (p.kernel == KernelType::laplacian) GTEST_SKIP() << "laplacian's gamma=auto is refused when distributed";
    for (const auto& parts : kSplits) expect_same_as_one_process(p, data, {}, parts);
}

TEST_P(Distributed, SameBitsOnEveryRun) {
    const auto data = testdata::blobs(40, 3, 3, 5.0, 2);
    Params p = params(Method::nystrom, 3, 0.1);
    GetParam().set(p);
    const auto a = fit_spread(p, data, {}, {1, 2, 1});
    const auto b = fit_spread(p, data, {}, {1, 2, 1});
    for (size_t r = 0; r < a.size(); ++r) {
        EXPECT_EQ(a[r].labels, b[r].labels);
        EXPECT_EQ(a[r].objective, b[r].objective);  // bit-identical
    }
}

INSTANTIATE_TEST_SUITE_P(Methods, Distributed,
                         ::testing::Values(Case{"nystrom_uniform", [](Params&) {}},
                                           Case{"nystrom_m_all", [](Params& p) { p.m = 0; }},
                                           Case{"nystrom_kmeanspp",
                                                [](Params& p) {
                                                    p.sampling = Sampling::kmeanspp;
                                                    p.m = 30;
                                                }},
                                           Case{"nystrom_rls",
                                                [](Params& p) {
                                                    p.sampling = Sampling::rls;
                                                    p.m = 30;
                                                }},
                                           Case{"sketch_rls",
                                                [](Params& p) {
                                                    p.method = Method::sketch;
                                                    p.sampling = Sampling::rls;
                                                    p.m = 30;
                                                }},
                                           Case{"nystrom_rank",
                                                [](Params& p) {
                                                    p.m = 40;
                                                    p.rank = 6;
                                                }},
                                           Case{"nystrom_f32",
                                                [](Params& p) {
                                                    p.m = 25;
                                                    p.kernel_rows = RowsChoice::f32;
                                                }},
                                           Case{"sketch_subgaussian",
                                                [](Params& p) {
                                                    p.method = Method::sketch;
                                                    p.m = 30;
                                                }},
                                           Case{"sketch_ros",
                                                [](Params& p) {
                                                    p.method = Method::sketch;
                                                    p.m = 30;
                                                    p.sketch = SketchKind::ros;
                                                }},
                                           Case{"sketch_gaussian",
                                                [](Params& p) {
                                                    p.method = Method::sketch;
                                                    p.m = 30;
                                                    p.sketch = SketchKind::gaussian;
                                                }},
                                           Case{"rff",
                                                [](Params& p) {
                                                    p.method = Method::rff;
                                                    p.m = 200;
                                                }},
                                           Case{"exact", [](Params& p) { p.method = Method::exact; }},
                                           Case{"minibatch_truncated",
                                                [](Params& p) {
                                                    p.method = Method::minibatch;
                                                    p.batch_size = 40;
                                                    p.tau = 20;
                                                    p.max_iter = 30;
                                                }},
                                           Case{"exact_recomputed",
                                                [](Params& p) {
                                                    p.method = Method::exact;
                                                    p.max_memory_mb = 1;
                                                }},
                                           Case{"nystrom_minibatch_solver",
                                                [](Params& p) {
                                                    p.m = 30;
                                                    p.solver = Solver::minibatch;
                                                    p.batch_size = 64;
                                                }},
                                           Case{"rff_minibatch_solver",
                                                [](Params& p) {
                                                    p.method = Method::rff;
                                                    p.m = 100;
                                                    p.solver = Solver::minibatch;
                                                    p.batch_size = 50;
                                                }},
                                           Case{"laplacian",
                                                [](Params& p) {
                                                    p.kernel = KernelType::laplacian;
                                                    p.m = 30;
                                                }},
                                           Case{"linear",
                                                [](Params& p) {
                                                    p.kernel = KernelType::linear;
                                                    p.m = 20;
                                                }},
                                           Case{"cosine_restarts",
                                                [](Params& p) {
                                                    p.kernel = KernelType::cosine;
                                                    p.m = 20;
                                                    p.n_init = 3;
                                                }}),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(DistributedErrors, EveryRankGetsTheSameError) {
    const auto data = testdata::blobs(20, 2, 3, 5.0, 1);
    Params p = params(Method::nystrom, 50, 0.1);  // k > n over all ranks (40)
    const auto out = fit_spread(p, data, {}, {1, 1, 1});
    for (const RankResult& r : out) {
        EXPECT_EQ(r.status, KKM_ERR_INVALID_ARGUMENT);
        EXPECT_EQ(r.message, out[0].message);
    }
    EXPECT_NE(out[0].message.find("n=40"), std::string::npos) << out[0].message;
}

TEST(DistributedErrors, MethodsNotDistributedAreRefusedEverywhere) {
    const auto data = testdata::blobs(20, 2, 3, 5.0, 1);
    for (Method m : {Method::minibatch}) {
        Params p = params(m, 2, 0.1);
        p.tau = 0;
        const auto out = fit_spread(p, data, {}, {1, 1});
        for (const RankResult& r : out) {
            EXPECT_EQ(r.status, KKM_ERR_INVALID_ARGUMENT);
            EXPECT_NE(r.message.find("kkm_fit_mpi"), std::string::npos) << r.message;
        }
    }
}

TEST(DistributedErrors, AMemoryRefusalOnOneRankIsARefusalOnAll) {
    const auto data = testdata::blobs(2000, 2, 8, 5.0, 1);
    Params p = params(Method::nystrom, 2, 0.1);
    p.m = 1000;
    p.max_memory_mb = 6;  // the rank with 3/4 of the rows needs more than the one with 1/4
    const auto out = fit_spread(p, data, {}, {1, 3});
    for (const RankResult& r : out) {
        EXPECT_EQ(r.status, KKM_ERR_OUT_OF_MEMORY) << r.message;
        EXPECT_EQ(r.message, out[0].message);
    }
}

TEST(DistributedErrors, ZeroSpreadOverAllRanks) {
    testdata::Labeled same;
    same.n = 12;
    same.d = 2;
    same.X.assign(24, 1.5f);
    const auto out = fit_spread(params(Method::nystrom, 2, 0.0), same, {}, {1, 0, 2});
    for (const RankResult& r : out) EXPECT_EQ(r.status, KKM_ERR_INVALID_DATA) << r.message;
}

}  // namespace
}  // namespace kkm
