// Properties the mathematics fixes: Nyström with every point a landmark is exact kernel
// k-means; exact with a linear kernel is Lloyd on the raw data; Lloyd never increases the
// objective; stored and recomputed kernel rows agree; a precomputed kernel equals its function.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <stdexcept>

#include "cluster/exact.h"
#include "cluster/lloyd.h"
#include "cluster/seeding.h"
#include "core/enum_text.h"
#include "core/error.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "eval/metrics.h"
#include "features/landmarks.h"
#include "kernels/kernel_traits.h"
#include "model/methods.h"
#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

ConstMatrix view(const testdata::Labeled& data) {
    return {data.X.data(), data.n, data.d};
}

Params base_params(Method method, int64_t k) {
    Params p;
    p.method = method;
    p.k = k;
    p.seed = 11;
    p.threads = 2;
    return p;
}

TEST(Methods, NystromWithEveryPointALandmarkReachesTheExactObjective) {
    const auto data = testdata::blobs(100, 3, 5, 4.0, 1);
    Params p = base_params(Method::exact, 3);
    p.gamma = 0.05;
    const auto exact = fit_model(p, view(data), {});
    p.method = Method::nystrom;
    p.m = data.n;
    const auto nystrom = fit_model(p, view(data), {});
    EXPECT_EQ(nystrom->report().m, data.n);
    EXPECT_NEAR(nystrom->report().objective / exact->report().objective, 1.0, 1e-4);
    EXPECT_EQ(nystrom->report().labels, exact->report().labels);
}

/// Plain Lloyd in float64 from given labels until no label changes.
std::vector<int32_t> reference_lloyd(const testdata::Labeled& data, std::vector<int32_t> labels, int64_t k) {
    for (int it = 0; it < 1000; ++it) {
        std::vector<double> sums(static_cast<size_t>(k * data.d), 0.0), counts(static_cast<size_t>(k), 0.0);
        for (int64_t i = 0; i < data.n; ++i) {
            counts[static_cast<size_t>(labels[static_cast<size_t>(i)])] += 1;
            for (int64_t j = 0; j < data.d; ++j)
                sums[static_cast<size_t>(labels[static_cast<size_t>(i)] * data.d + j)] +=
                    data.X[static_cast<size_t>(i * data.d + j)];
        }
        std::vector<int32_t> next(labels.size());
        for (int64_t i = 0; i < data.n; ++i) {
            double best = INFINITY;
            for (int64_t c = 0; c < k; ++c) {
                double dist = 0;
                for (int64_t j = 0; j < data.d; ++j) {
                    const double diff = data.X[static_cast<size_t>(i * data.d + j)] -
                                        sums[static_cast<size_t>(c * data.d + j)] / counts[static_cast<size_t>(c)];
                    dist += diff * diff;
                }
                if (dist < best) {
                    best = dist;
                    next[static_cast<size_t>(i)] = static_cast<int32_t>(c);
                }
            }
        }
        if (next == labels) break;
        labels = next;
    }
    return labels;
}

TEST(Methods, ExactWithLinearKernelIsLloydOnRawData) {
    const auto data = testdata::blobs(100, 4, 3, 3.0, 2);
    Params p = base_params(Method::exact, 4);
    p.kernel = KernelType::linear;
    p.tol = 0;
    const auto exact = fit_model(p, view(data), {});
    // The same seeding on the raw rows: the library's streams are public to the tests.
    FeatureLloyd raw(view(data), {}, 4, 1, engine::best_isa());
    Rng rng(p.seed, Stream::seeding, 0);
    const Seeding s = seed_centres(Init::kmeanspp, data.n, 4, {}, raw.distance_oracle(), rng);
    EXPECT_EQ(exact->report().labels, reference_lloyd(data, s.labels, 4));
}

void expect_monotone(LloydProblem& problem, std::vector<int32_t> labels) {
    std::vector<int32_t> next(labels.size());
    std::vector<float> dist(labels.size());
    double previous = problem.objective(labels);
    for (int it = 0; it < 15; ++it) {
        problem.reassign(labels, next, dist);
        labels = next;
        const double now = problem.objective(labels);
        EXPECT_LE(now, previous * (1 + 1e-6)) << "iteration " << it;
        previous = now;
    }
}

TEST(Methods, LloydNeverIncreasesTheObjective) {
    const auto data = testdata::blobs(60, 5, 4, 2.0, 3);
    std::vector<int32_t> start(static_cast<size_t>(data.n));
    for (size_t i = 0; i < start.size(); ++i) start[i] = static_cast<int32_t>(i % 5);
    FeatureLloyd linear(view(data), {}, 5, 2, engine::best_isa());
    expect_monotone(linear, start);

    const KernelBasis basis(Kernel(KernelType::rbf, 0.1, 3, 1), Matrix(0, data.d));
    Matrix copy;
    copy_into(view(data), copy);
    const KernelBasis train(Kernel(KernelType::rbf, 0.1, 3, 1), copy);
    const KernelRows rows(train, copy.view(), 64, 2);
    std::vector<float> diag(static_cast<size_t>(data.n), 1.0f);
    ExactLloyd exact(rows, diag, {}, 5, 2);
    expect_monotone(exact, start);
}

TEST(Methods, RecomputedKernelRowsMatchTheStoredMatrix) {
    const auto data = testdata::rings(1000, 0.1, 4);
    Params p = base_params(Method::exact, 2);
    p.gamma = 2.0;
    const auto stored = fit_model(p, view(data), {});
    p.max_memory_mb = 8;  // K would need 16 MiB: rows are recomputed in blocks
    const auto recomputed = fit_model(p, view(data), {});
    EXPECT_EQ(stored->report().labels, recomputed->report().labels);
    EXPECT_NEAR(stored->report().objective, recomputed->report().objective, 1e-9 * stored->report().objective);
}

TEST(Methods, PrecomputedKernelEqualsItsFunction) {
    const auto data = testdata::blobs(50, 3, 4, 3.0, 5);
    const double gamma = 0.1;
    std::vector<float> K(static_cast<size_t>(data.n * data.n));
    for (int64_t a = 0; a < data.n; ++a) {
        for (int64_t b = 0; b < data.n; ++b) {
            double d2 = 0;
            for (int64_t j = 0; j < data.d; ++j) {
                const double diff =
                    data.X[static_cast<size_t>(a * data.d + j)] - data.X[static_cast<size_t>(b * data.d + j)];
                d2 += diff * diff;
            }
            K[static_cast<size_t>(a * data.n + b)] = static_cast<float>(std::exp(-gamma * d2));
        }
    }
    for (Method method : {Method::exact, Method::nystrom}) {
        Params p = base_params(method, 3);
        p.gamma = gamma;
        p.m = 40;
        const auto by_function = fit_model(p, view(data), {});
        p.kernel = KernelType::precomputed;
        const auto by_matrix = fit_model(p, ConstMatrix{K.data(), data.n, data.n}, {});
        EXPECT_EQ(by_function->report().labels, by_matrix->report().labels);
        EXPECT_NEAR(by_matrix->report().objective / by_function->report().objective, 1.0, 1e-4);
        std::vector<int32_t> assigned(static_cast<size_t>(data.n));
        by_matrix->assign(ConstMatrix{K.data(), data.n, data.n}, assigned.data(), nullptr, 1);
        EXPECT_EQ(assigned, by_matrix->report().labels);
    }
}

TEST(Methods, IntegerWeightsEqualDuplicatedRows) {
    const auto data = testdata::blobs(20, 2, 3, 3.0, 6);
    std::vector<float> w(static_cast<size_t>(data.n), 1.0f);
    w[3] = 2.0f;
    testdata::Labeled dup = data;
    dup.X.insert(dup.X.end(), data.X.begin() + 3 * data.d, data.X.begin() + 4 * data.d);
    dup.n += 1;
    std::vector<int32_t> labels(static_cast<size_t>(data.n));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>(i % 2);
    std::vector<int32_t> dup_labels = labels;
    dup_labels.push_back(labels[3]);
    FeatureLloyd weighted(view(data), w, 2, 1, engine::best_isa()), duplicated(view(dup), {}, 2, 1, engine::best_isa());
    EXPECT_NEAR(weighted.objective(labels), duplicated.objective(dup_labels), 1e-9 * duplicated.objective(dup_labels));
}

TEST(Methods, AutoGammaIsThePapersBandwidthRule) {
    const auto data = testdata::blobs(30, 3, 4, 2.0, 7);
    double sq = 0, l1 = 0;
    for (int64_t a = 0; a < data.n; ++a) {
        for (int64_t b = 0; b < data.n; ++b) {
            for (int64_t j = 0; j < data.d; ++j) {
                const double diff =
                    data.X[static_cast<size_t>(a * data.d + j)] - data.X[static_cast<size_t>(b * data.d + j)];
                sq += diff * diff;
                l1 += std::fabs(diff);
            }
        }
    }
    const double pairs = static_cast<double>(data.n * data.n);
    EXPECT_NEAR(auto_gamma(KernelType::rbf, view(data), {}, 1.0, 2), 1.0 / (2.0 * sq / pairs), 1e-9);
    EXPECT_NEAR(auto_gamma(KernelType::laplacian, view(data), {}, 1.0, 2), pairs / l1, 1e-9);
    EXPECT_NEAR(auto_gamma(KernelType::polynomial, view(data), {}, 1.0, 2), 1.0 / data.d, 1e-15);
    const std::vector<float> same(8, 1.5f);
    EXPECT_THROW(auto_gamma(KernelType::rbf, ConstMatrix{same.data(), 4, 2}, {}, 1.0, 1), Error);
}

TEST(Methods, MinibatchObjectiveIsRecomputedFromLabelsAndCentres) {
    // Σ_i ‖φ(x_i) − C_{l_i}‖² in float64 with the exact rbf kernel, from the labels and the
    // sparse centres the model keeps (support points and coefficients).
    const auto data = testdata::rings(300, 0.1, 9);
    Params p = base_params(Method::minibatch, 2);
    p.gamma = 0.3;
    p.batch_size = 64;
    p.tau = 40;
    const auto fitted = fit_model(p, view(data), {});
    const auto& model = dynamic_cast<const DualModel&>(*fitted);
    const Matrix& S = model.basis().points();
    const DualCentres& c = model.centres();
    auto k = [&](const float* a, const float* b) {
        double d2 = 0;
        for (int64_t t = 0; t < data.d; ++t)
            d2 += (static_cast<double>(a[t]) - b[t]) * (static_cast<double>(a[t]) - b[t]);
        return std::exp(-p.gamma * d2);
    };
    std::vector<double> cc(2, 0.0);
    for (int64_t j = 0; j < 2; ++j) {
        for (int64_t a = 0; a < S.rows; ++a) {
            for (int64_t b = 0; b < S.rows; ++b)
                cc[static_cast<size_t>(j)] +=
                    static_cast<double>(c.Z.row(a)[j]) * c.Z.row(b)[j] * k(S.row(a), S.row(b));
        }
    }
    double objective = 0;
    for (int64_t i = 0; i < data.n; ++i) {
        const int32_t j = fitted->report().labels[static_cast<size_t>(i)];
        double cross = 0;
        for (int64_t a = 0; a < S.rows; ++a)
            cross += static_cast<double>(c.Z.row(a)[j]) * k(&data.X[static_cast<size_t>(i * data.d)], S.row(a));
        objective += 1.0 - 2.0 * cross / c.mass[static_cast<size_t>(j)] + cc[static_cast<size_t>(j)];
    }
    EXPECT_LE(S.rows, 2 * (p.tau + p.batch_size));  // the support bound k(τ + b)
    EXPECT_NEAR(fitted->report().objective / objective, 1.0, 1e-5);
}

// Every kernel, method and sampler the parameters name has its descriptor row, with the hooks
// the fit calls (the static_assert in kernel_traits.h checks the rest of a kernel's row).
TEST(Descriptors, EveryKernelMethodAndSamplerHasACompleteRow) {
    for (const auto& [type, name] : EnumText<KernelType>::values) {
        const KernelTraits& t = kernel_traits(type);
        EXPECT_EQ(t.type, type) << name;
        EXPECT_NE(t.positive_semidefinite, nullptr) << name;
        EXPECT_EQ(t.diagonal != nullptr, !t.precomputed && !t.graph) << name << ": a kernel function has a diagonal";
        if (t.norms != KernelNorms::none) {
            EXPECT_NE(t.check_row, nullptr) << name << ": norms are checked rows";
        }
        if (t.diagonal != nullptr) {
            const KernelScalars s{0.5f, 1.0f, 2};
            if (t.check_row != nullptr) t.check_row(type, 1.0f, s);  // an ordinary row passes
            EXPECT_TRUE(std::isfinite(t.diagonal(1.0f, s))) << name;
        }
    }
    for (const auto& [method, name] : EnumText<Method>::values) {
        const MethodTraits& t = method_traits(method);
        EXPECT_EQ(t.method, method) << name;
        EXPECT_NE(t.fit, nullptr) << name;
        EXPECT_NE(t.check_budget, nullptr) << name;
        EXPECT_NE(t.work, nullptr) << name;
        if (t.landmarks) {
            EXPECT_TRUE(t.features) << name << ": landmarks span features";
        }
    }
    for (const auto& [sampling, name] : EnumText<Sampling>::values) {
        const SamplerTraits& t = sampler_traits(sampling);
        EXPECT_EQ(t.sampling, sampling) << name;
        EXPECT_NE(t.choose, nullptr) << name;
    }
}

TEST(Metrics, MatchScikitLearn) {
    const int32_t a[] = {0, 0, 1, 1, 2, 2, 2, 0};
    const int32_t b[] = {1, 1, 0, 0, 0, 2, 2, 2};
    // sklearn.metrics.adjusted_rand_score / normalized_mutual_info_score on these labels.
    EXPECT_NEAR(adjusted_rand_index(a, b, 8), 0.23809523809523808, 1e-12);
    EXPECT_NEAR(normalized_mutual_info(a, b, 8), 0.5588730382170326, 1e-12);
    const int32_t c[] = {5, 5, 7, 7, 9, 9, 9, 5};  // a relabelled
    EXPECT_DOUBLE_EQ(adjusted_rand_index(a, c, 8), 1.0);
    EXPECT_NEAR(normalized_mutual_info(a, c, 8), 1.0, 1e-12);
}

TEST(Parallel, AutomaticThreadCountFollowsTheWork) {
    const int cores = resolve_threads(0);
    EXPECT_EQ(resolve_threads(0, 0.0), 1);
    EXPECT_EQ(resolve_threads(0, 1.99 * kMinWorkPerThread), 1);
    EXPECT_EQ(resolve_threads(0, 2.0 * kMinWorkPerThread), std::min(cores, 2));
    EXPECT_EQ(resolve_threads(0, 1e30), cores);
    EXPECT_EQ(resolve_threads(3, 0.0), 3);  // an explicit count is honoured
}

TEST(Parallel, AnExceptionInsideTheRegionIsRethrownAfterIt) {
    std::atomic<int> finished{0};
    auto body = [&](int64_t b) {
        if (b == 5) invalid_data("block 5 failed");
        ++finished;
    };
    EXPECT_THROW(parallel_blocks(2, 64, body), Error);
    EXPECT_EQ(finished.load(), 63);
}

}  // namespace
}  // namespace kkm
