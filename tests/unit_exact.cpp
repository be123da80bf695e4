// Exact Lloyd keeps S = K·Z across iterations and updates it per moved point: every step must
// match a rebuild of S from all kernel rows (ExactLloyd::Update::rebuild), whatever labels
// the driver passes in (relocations into empty clusters included), for stored and recomputed
// kernel rows, weighted or not, and independently of the thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "cluster/exact.h"
#include "cluster/lloyd_driver.h"
#include "cluster/seeding.h"
#include "core/rng.h"
#include "model/model.h"
#include "unit_data.h"

namespace kkm {
namespace {

ConstMatrix view(const testdata::Labeled& data) {
    return {data.X.data(), data.n, data.d};
}

/// The training points under an rbf kernel, and K stored.
struct Kernels {
    KernelBasis basis;
    Matrix K;
    std::vector<float> diag;

    Kernels(const testdata::Labeled& data, double gamma)
        : basis(Kernel(KernelType::rbf, gamma, 3, 1), copy(data)),
          K(data.n, data.n),
          diag(static_cast<size_t>(data.n), 1.0f) {
        basis.evaluate(basis.points().view(), K.data(), data.n);
    }
    /// Stored rows, or rows recomputed in blocks of 16 (several groups per update).
    KernelRows rows(bool stored, int threads) const {
        return stored ? KernelRows(K.view(), 64, false) : KernelRows(basis, basis.points().view(), 16, threads);
    }
    static Matrix copy(const testdata::Labeled& data) {
        Matrix m;
        copy_into(view(data), m);
        return m;
    }
};

/// Weights in [0.5, 2], every seventh point 0 (its moves change no sums).
std::vector<float> some_weights(int64_t n) {
    std::mt19937 gen(5);
    std::uniform_real_distribution<float> u(0.5f, 2.0f);
    std::vector<float> w(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) w[static_cast<size_t>(i)] = i % 7 == 3 ? 0.0f : u(gen);
    return w;
}

/// Moves a fraction of the points to random clusters (as a driver's relocation might).
void scramble(std::vector<int32_t>& labels, double fraction, int64_t k, std::mt19937& gen) {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int32_t& l : labels) {
        if (u(gen) < fraction) l = static_cast<int32_t>(gen() % static_cast<uint32_t>(k));
    }
}

struct Case {
    const char* data;
    bool weighted;
    bool stored;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.data << (c.weighted ? " weighted" : "") << (c.stored ? " stored" : " recomputed");
}

class ExactSteps : public ::testing::TestWithParam<Case> {
protected:
    testdata::Labeled data() const {
        return std::string(GetParam().data) == "rings" ? testdata::rings(200, 0.1, 4)
                                                       : testdata::blobs(60, 5, 4, 2.0, 3);
    }
    double gamma() const { return std::string(GetParam().data) == "rings" ? 2.0 : 0.1; }
    int64_t k() const { return std::string(GetParam().data) == "rings" ? 2 : 5; }
    std::vector<float> weights(int64_t n) const { return GetParam().weighted ? some_weights(n) : std::vector<float>{}; }
};

// Every reassignment from labels that moved by 0 % to 95 % between calls (incremental updates,
// rebuilds past the crossover, and calls with unchanged labels) equals the rebuild's.
TEST_P(ExactSteps, EveryStepMatchesARebuild) {
    const auto d = data();
    const Kernels kernels(d, gamma());
    const KernelRows rows = kernels.rows(GetParam().stored, 2);
    const std::vector<float> w = weights(d.n);
    ExactLloyd incremental(rows, kernels.diag, w, k(), 2);
    ExactLloyd rebuild(rows, kernels.diag, w, k(), 2, ExactLloyd::Update::rebuild);
    std::vector<int32_t> labels(static_cast<size_t>(d.n));
    for (size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<int32_t>(i % static_cast<size_t>(k()));
    std::vector<int32_t> next_a(labels.size()), next_b(labels.size());
    std::vector<float> dist_a(labels.size()), dist_b(labels.size());
    std::mt19937 gen(8);
    const double fractions[] = {0.0, 0.01, 0.3, 0.95, 0.0, 0.05, 0.7, 0.002, 0.5, 0.0};
    for (double fraction : fractions) {
        const double a = incremental.reassign(labels, next_a, dist_a);
        const double b = rebuild.reassign(labels, next_b, dist_b);
        ASSERT_EQ(next_a, next_b) << "after moving " << fraction;
        EXPECT_NEAR(a, b, 1e-9 * b);
        for (size_t i = 0; i < labels.size(); ++i) EXPECT_NEAR(dist_a[i], dist_b[i], 1e-5f) << i;
        EXPECT_NEAR(incremental.objective(labels), rebuild.objective(labels), 1e-9 * b);
        labels = next_a;
        scramble(labels, fraction, k(), gen);
    }
    // The incremental object did update S per move (else this compared two rebuilds).
    EXPECT_LT(incremental.rows_applied(), rebuild.rows_applied() / 2);
}

/// A Lloyd problem that counts the calls whose labels are not the previous call's result
/// (the driver relocated a point into an empty cluster in between).
class CountRelocations final : public LloydProblem {
public:
    explicit CountRelocations(ExactLloyd& inner) : inner_(inner) {}
    int64_t size() const override { return inner_.size(); }
    double reassign(const std::vector<int32_t>& labels, std::vector<int32_t>& next, std::vector<float>& dist) override {
        if (!last_.empty() && labels != last_) ++relocations;
        const double value = inner_.reassign(labels, next, dist);
        last_ = next;
        return value;
    }
    double objective_of(const std::vector<int32_t>& members, const std::vector<int32_t>& labels) override {
        return inner_.objective_of(members, labels);
    }
    int relocations = 0;

private:
    ExactLloyd& inner_;
    std::vector<int32_t> last_;
};

/// Lloyd with incremental or rebuilt sums on the given thread count, from the given labels
/// or (empty) from k-means++ seeds.
LloydResult lloyd(const testdata::Labeled& d, const Kernels& kernels, bool stored, const std::vector<float>& w,
                  int64_t k, int threads, ExactLloyd::Update update, std::vector<int32_t> start = {},
                  int* relocations = nullptr) {
    const KernelRows rows = kernels.rows(stored, threads);
    ExactLloyd problem(rows, kernels.diag, w, k, threads, update);
    if (start.empty()) {
        Rng rng(3, Stream::seeding, 0);
        start = seed_centres(Init::kmeanspp, d.n, k, w, problem.distance_oracle(), rng).labels;
    }
    CountRelocations counted(problem);
    LloydResult result = run_lloyd(counted, std::move(start), w, LloydOptions{k, 100, 0.0});
    if (relocations != nullptr) *relocations = counted.relocations;
    return result;
}

TEST_P(ExactSteps, LloydMatchesRebuildsAndIgnoresTheThreadCount) {
    const auto d = data();
    const Kernels kernels(d, gamma());
    const std::vector<float> w = weights(d.n);
    const bool stored = GetParam().stored;
    const LloydResult reference = lloyd(d, kernels, stored, w, k(), 2, ExactLloyd::Update::rebuild);
    const LloydResult two = lloyd(d, kernels, stored, w, k(), 2, ExactLloyd::Update::incremental);
    const LloydResult one = lloyd(d, kernels, stored, w, k(), 1, ExactLloyd::Update::incremental);
    EXPECT_GT(reference.iterations, 1);
    EXPECT_EQ(two.labels, reference.labels);
    EXPECT_EQ(two.iterations, reference.iterations);
    EXPECT_NEAR(two.objective, reference.objective, 1e-6 * reference.objective);
    EXPECT_EQ(one.labels, two.labels);
    EXPECT_EQ(one.iterations, two.iterations);
    EXPECT_EQ(one.objective, two.objective);  // bit for bit
}

INSTANTIATE_TEST_SUITE_P(, ExactSteps,
                         ::testing::Values(Case{"blobs", false, true}, Case{"blobs", true, true},
                                           Case{"blobs", false, false}, Case{"blobs", true, false},
                                           Case{"rings", false, true}, Case{"rings", true, true},
                                           Case{"rings", false, false}, Case{"rings", true, false}),
                         [](const auto& info) {
                             return std::string(info.param.data) + (info.param.weighted ? "_weighted" : "") +
                                    (info.param.stored ? "_stored" : "_recomputed");
                         });

// Five tight, distant blobs in clusters 0-4, but the first points of blobs 0 and 1 form
// cluster 5: the first reassignment empties it and the driver relocates a point into it, so
// the labels passed in next are not the last step's result.
TEST(ExactUpdates, RelocationsIntoEmptyClustersMatchRebuilds) {
    const auto d = testdata::blobs(60, 5, 4, 10.0, 7);
    const Kernels kernels(d, 0.02);
    std::vector<int32_t> start(d.y.begin(), d.y.end());
    start[0] = start[60] = 5;
    for (bool stored : {true, false}) {
        int relocations = 0;
        const LloydResult reference = lloyd(d, kernels, stored, {}, 6, 2, ExactLloyd::Update::rebuild, start);
        const LloydResult incremental =
            lloyd(d, kernels, stored, {}, 6, 2, ExactLloyd::Update::incremental, start, &relocations);
        EXPECT_GT(relocations, 0);
        EXPECT_EQ(incremental.labels, reference.labels);
        EXPECT_NEAR(incremental.objective, reference.objective, 1e-6 * reference.objective);
    }
}

// Through fit_model: the kernel stored or recomputed (small max_memory_mb), one thread or two,
// weighted: the same labels and the same objective bit for bit.
TEST(ExactUpdates, FitIgnoresThreadsAndStorage) {
    const auto data = testdata::rings(500, 0.1, 6);
    const std::vector<float> w = some_weights(data.n);
    Params p;
    p.method = Method::exact;
    p.k = 2;
    p.seed = 11;
    p.gamma = 2.0;
    p.threads = 1;
    const auto one = fit_model(p, view(data), w);
    p.threads = 2;
    const auto two = fit_model(p, view(data), w);
    p.max_memory_mb = 2;  // K would need 4 MiB: rows are recomputed in blocks
    const auto recomputed = fit_model(p, view(data), w);
    EXPECT_EQ(one->report().labels, two->report().labels);
    EXPECT_EQ(one->report().objective, two->report().objective);
    EXPECT_EQ(recomputed->report().labels, two->report().labels);
    EXPECT_EQ(recomputed->report().objective, two->report().objective);
}

// dual_nearest sums each centre's terms (Z's non-zeros by column) instead of multiplying the
// kernel rows by the dense Z: rows of Z with no, one or several non-zeros (a mini-batch
// model's support point can sit in several centres), a centre without weight, and a row
// count that is not a multiple of the rows summed together must give the dense product's
// distances (float64 reference) and its nearest centre.
TEST(DualNearest, SumsEveryCentresTermsAsTheDenseProduct) {
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    const int64_t n = 300, k = 7, count = 23;
    DualCentres c;
    c.Z = Matrix(n, k);
    for (int64_t a = 0; a < n; ++a) {
        const int64_t nonzeros = a % 5 == 0 ? 0 : a % 5 == 1 ? 3 : 1;
        for (int64_t t = 0; t < nonzeros; ++t) c.Z.row(a)[(a + 2 * t) % (k - 1)] = 1.5f * unit(gen) - 0.2f;  // small and negative ones too
    }
    c.mass.assign(static_cast<size_t>(k), 0.0);
    c.self_dot.assign(static_cast<size_t>(k), 0.0);
    for (int64_t j = 0; j < k - 1; ++j) {  // centre k - 1 has no terms and no weight
        for (int64_t a = 0; a < n; ++a) c.mass[static_cast<size_t>(j)] += c.Z.row(a)[j];
        c.self_dot[static_cast<size_t>(j)] = 0.2 + 0.1 * static_cast<double>(j);
    }
    const DualTerms terms = dual_terms(c);
    ASSERT_EQ(terms.start.size(), static_cast<size_t>(k + 1));
    EXPECT_EQ(terms.start[static_cast<size_t>(k - 1)], terms.start[static_cast<size_t>(k)]);
    for (int64_t j = 0; j < k; ++j) {
        for (int64_t e = terms.start[static_cast<size_t>(j)]; e + 1 < terms.start[static_cast<size_t>(j + 1)]; ++e)
            EXPECT_LT(terms.point[static_cast<size_t>(e)], terms.point[static_cast<size_t>(e + 1)]);
    }
    Matrix K(count, n);
    std::vector<float> self(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) {
        for (int64_t a = 0; a < n; ++a) K.row(i)[a] = unit(gen);
        self[static_cast<size_t>(i)] = 1.0f;
    }
    std::vector<int32_t> labels(static_cast<size_t>(count));
    std::vector<float> dist(static_cast<size_t>(count)), each(static_cast<size_t>(count * k));
    dual_nearest(K.data(), count, self.data(), c, terms, labels.data(), dist.data(), each.data());
    for (int64_t i = 0; i < count; ++i) {
        int32_t best = -1;
        double nearest = 0;
        for (int64_t j = 0; j < k; ++j) {
            const float got = each[static_cast<size_t>(i * k + j)];
            if (!(c.mass[static_cast<size_t>(j)] > 0)) {
                EXPECT_EQ(got, std::numeric_limits<float>::infinity());
                continue;
            }
            double cross = 0;
            for (int64_t a = 0; a < n; ++a) cross += static_cast<double>(c.Z.row(a)[j]) * K.row(i)[a];
            const double d = 1.0 - 2.0 * cross / c.mass[static_cast<size_t>(j)] + c.self_dot[static_cast<size_t>(j)];
            EXPECT_NEAR(got, std::max(d, 0.0), 1e-6 * (1.0 + std::abs(d))) << "row " << i << ", centre " << j;
            if (best < 0 || d < nearest) {
                best = static_cast<int32_t>(j);
                nearest = d;
            }
        }
        EXPECT_EQ(labels[static_cast<size_t>(i)], best) << "row " << i;
        EXPECT_EQ(dist[static_cast<size_t>(i)], each[static_cast<size_t>(i * k + best)]);
    }
}

}  // namespace
}  // namespace kkm
