// A host that calls the library from inside its own OpenMP parallel region: each of its
// threads fits and assigns on its own model (threads=1), as R's parallel packages or a Java
// host with a native pool may. The library's per-thread scratch must not be indexed by the
// host team's thread numbers (a heap overflow before thread_slot; ASan found it).
#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

TEST(HostThreads, FitsAndAssignsInsideTheHostsOwnOpenMPTeam) {
    // The last row far from the rest: k-means++ then draws it as a seed, and exact reads a
    // caller-owned kernel's last row through its scratch.
    auto data = testdata::blobs(50, 3, 4, 10.0, 2);
    for (int64_t j = 0; j < data.d; ++j) data.X.push_back(60.0f);
    data.y.push_back(3);
    ++data.n;
    const ConstMatrix X{data.X.data(), data.n, data.d};
    constexpr int kHostThreads = 4;
    // The Gram matrix as a precomputed kernel: exact then reads the caller's matrix through
    // per-thread scratch (its last block is copied for GEMM).
    std::vector<float> gram(static_cast<size_t>(data.n * data.n));
    for (int64_t a = 0; a < data.n; ++a) {
        for (int64_t b = 0; b < data.n; ++b) {
            double dot = 0;
            for (int64_t j = 0; j < data.d; ++j) dot += double{X.row(a)[j]} * X.row(b)[j];
            gram[static_cast<size_t>(a * data.n + b)] = static_cast<float>(dot);
        }
    }
    const ConstMatrix K{gram.data(), data.n, data.n};
    for (Method method : {Method::exact, Method::nystrom, Method::sketch, Method::rff, Method::minibatch}) {
        for (bool precomputed : {false, true}) {
            if (precomputed && method == Method::rff) continue;  // rff needs a kernel function
            const ConstMatrix input = precomputed ? K : X;
            Params p;
            p.kernel = precomputed ? KernelType::precomputed : KernelType::rbf;
            p.method = method;
            p.k = 3;
            p.gamma = 0.05;
            p.m = 40;
            p.threads = 1;
            p.sampling = method == Method::nystrom ? Sampling::rls : Sampling::uniform;
            const auto reference = fit_model(p, input, {});
            std::vector<std::vector<int32_t>> labels(kHostThreads), assigned(kHostThreads);
#pragma omp parallel num_threads(kHostThreads)
            {
                const int t = omp_get_thread_num();
                const auto model = fit_model(p, input, {});
                labels[static_cast<size_t>(t)] = model->report().labels;
                assigned[static_cast<size_t>(t)].resize(static_cast<size_t>(data.n));
                model->assign(input, assigned[static_cast<size_t>(t)].data(), nullptr, 1);
            }
            std::vector<int32_t> want(static_cast<size_t>(data.n));
            reference->assign(input, want.data(), nullptr, 1);
            for (int t = 0; t < kHostThreads; ++t) {
                EXPECT_EQ(labels[static_cast<size_t>(t)], reference->report().labels) << "host thread " << t;
                EXPECT_EQ(assigned[static_cast<size_t>(t)], want) << "host thread " << t;
            }
        }
    }
}

}  // namespace
}  // namespace kkm
