// Mini-batch kernel k-means (2024), the algorithm core: the library against a dense float64
// reading of Algorithms 1 and 2 (coefficients and every batch objective); the sparse centre
// bookkeeping worked by hand; truncation beyond every sampled point is the recursive
// Algorithm 1; truncated centres stay within τ + b points; early stopping, and how equation
// (1) as printed defeats it; rings separated with both learning rates; thread-count
// invariance; weights as multiplicities; resuming a run (kkm_partial_fit) and the bounded
// support of a stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cluster/minibatch_centres.h"
#include "cluster/minibatch_kernel.h"
#include "core/blocking.h"
#include "core/error.h"
#include "core/parallel.h"
#include "eval/metrics.h"
#include "kernels/kernel.h"
#include "model/partial_fit.h"
#include "unit_data.h"

namespace kkm {
namespace {

constexpr double kNever = -std::numeric_limits<double>::infinity();  // epsilon: run to max_iter

/// Options for k centres, batches of b and max_iter iterations without early stopping.
MinibatchOptions never_stopping(int64_t k, int64_t b, int64_t max_iter, LearningRate rate) {
    MinibatchOptions o;
    o.k = k;
    o.batch_size = b;
    o.max_iter = max_iter;
    o.epsilon = kNever;
    o.rate = rate;
    return o;
}

/// rbf kernel values between points of a generated data set, by index: gathered rows copied
/// into Matrix memory (GEMM may read past its operands), blocks of rows in parallel.
class TestKernel final : public PointKernel {
public:
    TestKernel(const testdata::Labeled& data, double gamma) : data_(data), kernel_(KernelType::rbf, gamma, 3, 1.0) {}

    int64_t size() const override { return data_.n; }
    float diag(int64_t) const override { return 1.0f; }

    void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out,
               int threads) const override {
        constexpr int64_t step = 128;
        const auto nr = static_cast<int64_t>(rows.size()), nc = static_cast<int64_t>(cols.size());
        out.reshape(nr, nc);
        const Matrix right = gather(cols, 0, nc);
        const engine::PackedRows packed = kernel_.pack(right.view());
        parallel_blocks(threads, block_count(nr, step), [&](int64_t b) {
            const int64_t begin = b * step, count = std::min(step, nr - begin);
            const Matrix left = gather(rows, begin, count);
            kernel_.block(left.view(), packed, out.row(begin), nc);
        });
    }

private:
    Matrix gather(const std::vector<int64_t>& idx, int64_t begin, int64_t count) const {
        Matrix m(count, data_.d);
        for (int64_t r = 0; r < count; ++r) {
            std::copy_n(data_.X.begin() + idx[static_cast<size_t>(begin + r)] * data_.d, data_.d, m.row(r));
        }
        return m;
    }

    const testdata::Labeled& data_;
    Kernel kernel_;
};

/// The same rbf kernel evaluated pair by pair in float64 and rounded once: every block holds
/// bit-identical values for the same pair (GEMM blocks differ in the last bits), so the library
/// and the dense reference below see the same numbers and may differ by summation order only.
class PairwiseKernel final : public PointKernel {
public:
    PairwiseKernel(const testdata::Labeled& data, double gamma) : data_(data), gamma_(gamma) {}

    int64_t size() const override { return data_.n; }
    float diag(int64_t) const override { return 1.0f; }

    void block(const std::vector<int64_t>& rows, const std::vector<int64_t>& cols, Matrix& out, int) const override {
        out.reshape(static_cast<int64_t>(rows.size()), static_cast<int64_t>(cols.size()));
        for (size_t a = 0; a < rows.size(); ++a) {
            for (size_t b = 0; b < cols.size(); ++b) out.row(static_cast<int64_t>(a))[b] = value(rows[a], cols[b]);
        }
    }

private:
    float value(int64_t i, int64_t j) const {
        double d2 = 0;
        for (int64_t t = 0; t < data_.d; ++t) {
            const double diff = static_cast<double>(data_.X[static_cast<size_t>(i * data_.d + t)]) -
                                data_.X[static_cast<size_t>(j * data_.d + t)];
            d2 += diff * diff;
        }
        return static_cast<float>(std::exp(-gamma_ * d2));
    }

    const testdata::Labeled& data_;
    double gamma_;
};

/// 10 blobs of per_blob points (std 1) in 2-D, centres on a 5×2 grid of spacing 20.
testdata::Labeled ten_blobs(int64_t per_blob, uint32_t seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> z(0.0, 1.0);
    testdata::Labeled out;
    out.d = 2;
    for (int c = 0; c < 10; ++c) {
        for (int64_t i = 0; i < per_blob; ++i) {
            out.X.push_back(static_cast<float>(20.0 * (c % 5) + z(gen)));
            out.X.push_back(static_cast<float>(20.0 * (c / 5) + z(gen)));
            out.y.push_back(c);
        }
    }
    out.n = 10 * per_blob;
    return out;
}

double ari(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    return adjusted_rand_index(a.data(), b.data(), static_cast<int64_t>(a.size()));
}

double mean_pairwise_sq(const testdata::Labeled& data) {
    double sum = 0;
    for (int64_t i = 0; i < data.n; ++i) {
        for (int64_t j = 0; j < data.n; ++j) {
            double d2 = 0;
            for (int64_t t = 0; t < data.d; ++t) {
                const double diff =
                    data.X[static_cast<size_t>(i * data.d + t)] - data.X[static_cast<size_t>(j * data.d + t)];
                d2 += diff * diff;
            }
            sum += d2;
        }
    }
    return sum / static_cast<double>(data.n * data.n);
}

/// The dense, float64 reading of Algorithms 1 and 2 on a small data set: every centre is an
/// n-vector of coefficients; distances are computed directly as K_yy − 2 (K c)_y + cᵀ K c (no
/// recursion); Q and equation (1) are evaluated literally over iteration indices (normalise:
/// divided by their sum when min Q > 1). Seeds and batches are the library's (max_iter = 0
/// gives the seeds; BatchSampler the batches).
struct Reference {
    std::vector<std::vector<double>> centres;  // k × n
    std::vector<BatchObjective> history;
    int32_t iterations = 0;
    bool stopped_early = false;
};

Reference reference_run(const PointKernel& K, const MinibatchOptions& o, uint64_t seed) {
    const int64_t n = K.size(), k = o.k, b = o.batch_size;
    std::vector<int64_t> all(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
    Matrix kf;
    K.block(all, all, kf, 1);
    auto kern = [&](int64_t a, int64_t c) { return static_cast<double>(kf.row(a)[c]); };
    MinibatchOptions zero = o;
    zero.max_iter = 0;
    const MinibatchResult seeds = minibatch_kernel_kmeans(K, {}, zero, seed);
    // Per centre: C_1 (dense), and per iteration ℓ: b_ℓ, α_ℓ, cm(B_ℓ) (dense).
    std::vector<std::vector<double>> first(static_cast<size_t>(k), std::vector<double>(static_cast<size_t>(n), 0.0));
    for (int64_t j = 0; j < k; ++j)
        first[static_cast<size_t>(j)][static_cast<size_t>(seeds.centres[static_cast<size_t>(j)].points[0])] = 1.0;
    std::vector<std::vector<int64_t>> counts(static_cast<size_t>(k));
    std::vector<std::vector<double>> alphas(static_cast<size_t>(k));
    std::vector<std::vector<std::vector<double>>> means(static_cast<size_t>(k));
    std::vector<double> seen(static_cast<size_t>(k), 1.0);
    Reference ref;
    ref.centres = first;
    auto dot = [&](int64_t y, const std::vector<double>& c) {
        double s = 0;
        for (int64_t a = 0; a < n; ++a) s += c[static_cast<size_t>(a)] * kern(y, a);
        return s;
    };
    auto norm2 = [&](const std::vector<double>& c) {
        double s = 0;
        for (int64_t a = 0; a < n; ++a) s += c[static_cast<size_t>(a)] * dot(a, c);
        return s;
    };
    auto objective = [&](const std::vector<int64_t>& batch, std::vector<int32_t>* labels) {
        std::vector<double> cc;
        for (const auto& c : ref.centres) cc.push_back(norm2(c));
        double total = 0;
        for (size_t t = 0; t < batch.size(); ++t) {
            double best = std::numeric_limits<double>::infinity();
            for (int64_t j = 0; j < k; ++j) {
                const double d = cc[static_cast<size_t>(j)] - 2 * dot(batch[t], ref.centres[static_cast<size_t>(j)]);
                if (d < best) {
                    best = d;
                    if (labels != nullptr) (*labels)[t] = static_cast<int32_t>(j);
                }
            }
            total += std::max(0.0, kern(batch[t], batch[t]) + best);
        }
        return total / static_cast<double>(batch.size());
    };
    const BatchSampler sampler(n, {}, seed);
    std::vector<int64_t> batch;
    for (int64_t i = 1; i <= o.max_iter && !ref.stopped_early; ++i) {
        sampler.draw(i, b, batch);
        std::vector<int32_t> labels(batch.size());
        const double before = objective(batch, &labels);
        for (int64_t j = 0; j < k; ++j) {
            const auto ju = static_cast<size_t>(j);
            std::vector<double> cm(static_cast<size_t>(n), 0.0);
            int64_t bj = 0;
            for (size_t t = 0; t < batch.size(); ++t) bj += labels[t] == j;
            for (size_t t = 0; t < batch.size(); ++t) {
                if (labels[t] == j) cm[static_cast<size_t>(batch[t])] += 1.0 / static_cast<double>(bj);
            }
            seen[ju] += static_cast<double>(bj);
            const double alpha = bj == 0 ? 0.0
                                 : o.rate == LearningRate::beta
                                     ? std::sqrt(static_cast<double>(bj) / static_cast<double>(b))
                                     : static_cast<double>(bj) / seen[ju];
            counts[ju].push_back(bj);
            alphas[ju].push_back(alpha);
            means[ju].push_back(cm);
            // Q: iterations i, i−1, ..., i−t with t the smallest making the counts reach τ.
            int64_t min_q = 1, sum = 0;
            if (o.tau > 0) {
                for (int64_t l = i; l >= 1; --l) {
                    sum += counts[ju][static_cast<size_t>(l - 1)];
                    if (sum >= o.tau) {
                        min_q = l;
                        break;
                    }
                }
            }
            std::vector<double> c(static_cast<size_t>(n), 0.0);
            double rest = 1.0;  // Π_{ℓ' ∈ Q, ℓ' > ℓ} (1 − α_ℓ')
            for (int64_t l = i; l >= min_q; --l) {
                const double a = alphas[ju][static_cast<size_t>(l - 1)];
                for (int64_t p = 0; p < n; ++p)
                    c[static_cast<size_t>(p)] +=
                        a * rest * means[ju][static_cast<size_t>(l - 1)][static_cast<size_t>(p)];
                rest *= 1.0 - a;
            }
            if (min_q == 1) {
                for (int64_t p = 0; p < n; ++p) c[static_cast<size_t>(p)] += rest * first[ju][static_cast<size_t>(p)];
            } else if (o.normalise) {
                double mass = 0;
                for (double v : c) mass += v;
                for (double& v : c) v /= mass;
            }
            ref.centres[ju] = c;
        }
        const double after = objective(batch, nullptr);
        ref.iterations = static_cast<int32_t>(i);
        ref.stopped_early = before - after < o.epsilon;
        ref.history.push_back({before, after});
    }
    return ref;
}

/// Largest |library − reference| coefficient over all centres and points.
double max_difference(const MinibatchResult& r, const Reference& ref) {
    double worst = 0;
    for (size_t j = 0; j < r.centres.size(); ++j) {
        std::vector<double> dense(ref.centres[j].size(), 0.0);
        const SparseCentre& c = r.centres[j];
        for (size_t s = 0; s < c.points.size(); ++s) dense[static_cast<size_t>(c.points[s])] = c.coef[s];
        for (size_t p = 0; p < dense.size(); ++p) worst = std::max(worst, std::abs(dense[p] - ref.centres[j][p]));
    }
    return worst;
}

// The library (sparse terms, recursions for ⟨C,C⟩ and, at tau = 0, for ⟨φ(x), C⟩) against the
// literal dense reading, on 3 overlapping blobs where assignments keep changing, for both
// rates, no truncation, truncation that drops terms every iteration, and truncation where a
// centre's window sometimes reaches back to iteration 1; equation (1) as printed and
// normalised. Both see bit-identical kernel values, so they may differ by float64 summation
// order only: 1e-12 on coefficients and on every batch objective.
TEST(Minibatch, MatchesTheDenseReadingOfAlgorithms1And2) {
    const auto data = testdata::blobs(60, 3, 2, 2.0, 5);
    const PairwiseKernel K(data, 0.5);
    for (LearningRate rate : {LearningRate::beta, LearningRate::sklearn}) {
        for (int64_t tau : {0, 1, 12, 40}) {
            for (bool normalise : {false, true}) {
                for (double epsilon : {kNever, 1e-3}) {
                    MinibatchOptions o;
                    o.k = 3;
                    o.batch_size = 16;
                    o.tau = tau;
                    o.rate = rate;
                    o.normalise = normalise;
                    o.epsilon = epsilon;
                    o.max_iter = 25;
                    const MinibatchResult r = minibatch_kernel_kmeans(K, {}, o, 9);
                    const Reference ref = reference_run(K, o, 9);
                    const std::string what = "rate " + std::to_string(static_cast<int>(rate)) + " tau " +
                                             std::to_string(tau) + " normalise " + std::to_string(normalise) +
                                             " epsilon " + std::to_string(epsilon);
                    EXPECT_EQ(r.iterations, ref.iterations) << what;
                    EXPECT_EQ(r.stopped_early, ref.stopped_early) << what;
                    EXPECT_LE(max_difference(r, ref), 1e-12) << what;
                    ASSERT_EQ(r.history.size(), ref.history.size()) << what;
                    for (size_t i = 0; i < r.history.size(); ++i) {
                        EXPECT_NEAR(r.history[i].before, ref.history[i].before, 1e-12)
                            << what << " iteration " << i + 1;
                        EXPECT_NEAR(r.history[i].after, ref.history[i].after, 1e-12) << what << " iteration " << i + 1;
                    }
                }
            }
        }
    }
}

void expect_coefficients(const SparseCentre& c, const std::vector<int64_t>& points, const std::vector<double>& coef) {
    EXPECT_EQ(c.points, points);
    ASSERT_EQ(c.coef.size(), coef.size());
    for (size_t s = 0; s < coef.size(); ++s) EXPECT_NEAR(c.coef[s], coef[s], 1e-15) << "point " << points[s];
}

// Worked by hand: C_1 = φ(x0); α = 1/2 on {2,1,1}, 1/4 on {3}, 1/2 on {5,4}. Unrolled:
// x4, x5: ½·½ = 0.25 each; x3: ¼·½ = 0.125; {2,1,1}: ½·¾·½ = 0.1875 (x1 twice: 0.125, x2:
// 0.0625); C_1: ½·¾·½ = 0.1875.
TEST(MinibatchCentres, CoefficientsUnrollTheRecursionAndTruncationKeepsQ) {
    CentreHistory h(0);
    h.add(1, {2, 1, 1}, 0.5);
    h.add(2, {3}, 0.25);
    h.add(3, {5, 4}, 0.5);
    expect_coefficients(h.coefficients(), {0, 1, 2, 3, 4, 5}, {0.1875, 0.125, 0.0625, 0.125, 0.25, 0.25});
    EXPECT_DOUBLE_EQ(h.mass(), 1.0);
    // τ = 6: the counts 2 + 1 + 3 reach 6 only with iteration 1's term: min Q = 1, nothing goes.
    EXPECT_FALSE(h.truncate(6));
    EXPECT_EQ(h.coefficients().points.size(), 6u);
    // τ = 3: iterations 3 and 2 (2 + 1 points) make Q; iteration 1's term and C_1 go.
    EXPECT_TRUE(h.truncate(3));
    EXPECT_EQ(h.term_points(), 3);
    expect_coefficients(h.coefficients(), {3, 4, 5}, {0.125, 0.25, 0.25});
    EXPECT_DOUBLE_EQ(h.mass(), 0.625);
    expect_coefficients(h.coefficients(true), {3, 4, 5}, {0.2, 0.4, 0.4});
    EXPECT_FALSE(h.truncate(3));
}

// A centre that got no point in iteration 1: once its counts reach τ, min Q > 1 and C_1 goes
// although no batch term is dropped (equation (1) read over iteration indices).
TEST(MinibatchCentres, TheSeedGoesWhenQStartsAfterIterationOne) {
    CentreHistory h(7);
    h.add(2, {1, 2}, 0.5);
    EXPECT_FALSE(h.truncate(3));
    expect_coefficients(h.coefficients(), {1, 2, 7}, {0.25, 0.25, 0.5});
    h.add(3, {3}, 0.5);
    EXPECT_TRUE(h.truncate(3));
    expect_coefficients(h.coefficients(), {1, 2, 3}, {0.125, 0.125, 0.5});
}

TEST(MinibatchCentres, LearningRateOneForgetsEverythingOlder) {
    CentreHistory h(0);
    h.add(1, {1}, 0.5);
    h.add(2, {3, 2}, 1.0);
    EXPECT_EQ(h.term_points(), 2);
    expect_coefficients(h.coefficients(), {2, 3}, {0.5, 0.5});
    EXPECT_DOUBLE_EQ(h.mass(), 1.0);
}

TEST(MinibatchCentres, FoldingKeepsTheCentre) {
    CentreHistory folded(0), plain(0);
    const std::vector<std::vector<int64_t>> batches = {{1, 2, 2}, {3}, {1, 4}, {5, 0}};
    const std::vector<double> alphas = {0.7, 0.2, 0.5, 0.3};
    for (size_t i = 0; i < batches.size(); ++i) {
        folded.add(static_cast<int64_t>(i) + 1, batches[i], alphas[i]);
        plain.add(static_cast<int64_t>(i) + 1, batches[i], alphas[i]);
        if (i == 1) folded.fold();
    }
    EXPECT_EQ(folded.term_points(), 4);
    const SparseCentre a = folded.coefficients(), b = plain.coefficients();
    expect_coefficients(a, b.points, b.coef);
}

// A saved centre (base and terms) comes back the same, and renumbering onto a gathered
// support keeps its coefficients on the renumbered points.
TEST(MinibatchCentres, RebuiltAndRenumberedHistoriesKeepTheCentre) {
    CentreHistory h(40);
    h.add(1, {52, 41, 41}, 0.5);
    h.add(2, {60}, 0.25);
    CentreHistory rebuilt(h.base(), h.terms());
    EXPECT_EQ(rebuilt.term_points(), h.term_points());
    const SparseCentre before = h.coefficients(true);
    expect_coefficients(rebuilt.coefficients(true), before.points, before.coef);
    rebuilt.renumber({7, 40, 41, 52, 60});
    expect_coefficients(rebuilt.coefficients(true), {1, 2, 3, 4}, before.coef);
    EXPECT_TRUE(rebuilt.truncate(1));  // the terms still truncate by their own counts
    expect_coefficients(rebuilt.coefficients(true), {4}, {1.0});
}

// The tasks the mini-batch fit's kernel blocks are cut into depend on the rows alone (with
// the 8-bit tiles a value depends on whether the other rows of its task are 8-bit too, so a
// thread count must not move them), whole register rows of every path; the team is no larger
// than row_blocks' workers (what the memory estimates charge) nor the thread count.
TEST(MinibatchBlocks, TasksDependOnTheRowsAloneAndTheTeamStaysWithinTheEstimate) {
    for (const int64_t rows : {int64_t{1}, int64_t{100}, kRowBlock, kRowBlock + 1, int64_t{1024}, int64_t{20000}}) {
        const int64_t one = balanced_blocks(rows, 1).rows;
        EXPECT_EQ(one % 42, 0) << rows;
        EXPECT_LE(one, kRowBlock) << rows;
        for (const int threads : {2, 3, 4, 8, 64}) {
            const BalancedBlocks b = balanced_blocks(rows, threads);
            EXPECT_EQ(b.rows, one) << rows << " rows, " << threads << " threads";
            EXPECT_GE(b.threads, 1);
            EXPECT_LE(b.threads, threads);
            EXPECT_LE(static_cast<double>(b.threads), row_blocks(static_cast<double>(rows), threads).workers) << rows;
        }
    }
    // More than one block's rows: tasks small enough that two threads end close together.
    EXPECT_GE(block_count(1024, balanced_blocks(1024, 2).rows), 12);
}

/// Σ_ab c_a c_b k(p_a, p_b) over a centre's coefficients: ⟨C, C⟩ as the truncated fit
/// computed it before TermSums, from a kernel block of the support.
double bilinear(const SparseCentre& c, const std::function<double(int64_t, int64_t)>& k) {
    double total = 0;
    for (size_t a = 0; a < c.points.size(); ++a) {
        for (size_t b = 0; b < c.points.size(); ++b) total += c.coef[a] * c.coef[b] * k(c.points[a], c.points[b]);
    }
    return total;
}

// TermSums follows a centre through additions, truncations and a learning rate of 1 with
// only the new term's pairs each time, and gives ⟨C, C⟩ of the coefficients (both
// normalisations); pairs it never saw (a history it did not follow) make NaN until rebuilt.
TEST(MinibatchCentres, TermSumsGiveTheNormOfTheTruncatedCentre) {
    const auto k = [](int64_t p, int64_t q) { return std::exp(-0.1 * static_cast<double>((p - q) * (p - q))); };
    const auto pair_sum = [&](const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
        double s = 0;
        for (int64_t p : a) {
            for (int64_t q : b) s += k(p, q);
        }
        return s;
    };
    for (bool normalise : {false, true}) {
        CentreHistory h(0);
        TermSums sums;
        const std::vector<std::vector<int64_t>> batches = {{2, 1, 1}, {3}, {5, 4}, {6, 6, 2}, {7}, {1, 8}, {9, 3}};
        const std::vector<double> alphas = {0.5, 0.25, 0.5, 0.4, 1.0, 0.3, 0.6};
        int truncated = 0;
        for (size_t i = 0; i < batches.size(); ++i) {
            h.add(static_cast<int64_t>(i) + 1, batches[i], alphas[i]);
            const bool dropped = h.truncate(3);
            const std::vector<int64_t> newest = h.terms().front().points;
            sums.follow(h, [&](const BatchTerm& t) { return pair_sum(newest, t.points); });
            if (!h.base().points.empty()) {
                EXPECT_TRUE(std::isnan(sums.squared_norm(h, normalise))) << i;  // C_1 still there
                continue;
            }
            truncated += dropped ? 1 : 0;
            const double want = bilinear(h.coefficients(normalise), k);
            EXPECT_NEAR(sums.squared_norm(h, normalise), want, 1e-14 * want) << "batch " << i << " " << normalise;
        }
        EXPECT_GE(truncated, 3);
        // A history TermSums did not follow: its older pairs are unknown.
        CentreHistory resumed(h.base(), h.terms());
        TermSums fresh;
        resumed.add(8, {2, 4}, 0.5);
        resumed.truncate(3);
        const std::vector<int64_t> newest = resumed.terms().front().points;
        fresh.follow(resumed, [&](const BatchTerm& t) { return pair_sum(newest, t.points); });
        const double want = bilinear(resumed.coefficients(normalise), k);
        ASSERT_GT(resumed.terms().size(), 1u);
        EXPECT_TRUE(std::isnan(fresh.squared_norm(resumed, normalise)));
        fresh.rebuild(resumed, k);
        EXPECT_NEAR(fresh.squared_norm(resumed, normalise), want, 1e-14 * want);
    }
}

/// ⟨C, C⟩ of a sparse centre from K.
double self_dot_of(const PointKernel& K, const SparseCentre& c) {
    Matrix block;
    K.block(c.points, c.points, block, 1);
    double sum = 0;
    for (size_t a = 0; a < c.points.size(); ++a) {
        for (size_t b = 0; b < c.points.size(); ++b) sum += c.coef[a] * c.coef[b] * block.row(static_cast<int64_t>(a))[b];
    }
    return sum;
}

// kkm_partial_fit's continuation: a truncated run stopped after 6 iterations and resumed from
// its state (histories, rate counts, ⟨C, C⟩ from its centres) for 8 more, drawing from the same
// points, is the uninterrupted 14-iteration run (⟨C, C⟩ recomputed once instead of carried by
// the recursion: 1e-9).
TEST(Minibatch, AResumedRunGoesOnAsTheUninterruptedRun) {
    const auto data = testdata::blobs(60, 3, 2, 2.0, 5);
    const PairwiseKernel K(data, 0.5);
    for (LearningRate rate : {LearningRate::beta, LearningRate::sklearn}) {
        MinibatchOptions o = never_stopping(3, 16, 14, rate);
        o.tau = 12;
        o.normalise = true;
        const MinibatchResult whole = minibatch_kernel_kmeans(K, {}, o, 9);
        o.max_iter = 6;
        MinibatchResult part = minibatch_kernel_kmeans(K, {}, o, 9);
        MinibatchResume resume{std::move(part.state), {}, 0, 6};
        for (const SparseCentre& c : part.centres) resume.self_dot.push_back(self_dot_of(K, c));
        o.max_iter = 8;
        const MinibatchResult rest = resume_minibatch(K, {}, o, 9, std::move(resume));
        EXPECT_EQ(rest.iterations, 8);
        ASSERT_EQ(rest.centres.size(), 3u);
        for (size_t j = 0; j < 3; ++j) {
            EXPECT_EQ(rest.centres[j].points, whole.centres[j].points) << "centre " << j;
            for (size_t q = 0; q < rest.centres[j].coef.size() && q < whole.centres[j].coef.size(); ++q)
                EXPECT_NEAR(rest.centres[j].coef[q], whole.centres[j].coef[q], 1e-9) << "centre " << j;
            EXPECT_DOUBLE_EQ(rest.state.seen[j], whole.state.seen[j]);
        }
        for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(rest.history[i].after, whole.history[i + 6].after, 1e-9) << i;
    }
}

// A stream of 30 later batches: the model's support rows stay within k(τ + b), every centre
// within τ + b points (its batch terms, C_1 long dropped), whatever the stream has seen.
TEST(MinibatchStream, TheModelsSupportStaysWithinKTauPlusB) {
    const auto data = testdata::blobs(400, 3, 2, 2.0, 4);
    ParamSet set;
    set.set_many("k=3 method=minibatch batch_size=32 tau=16 n_init=1");
    const Params p = set.typed();
    std::unique_ptr<FittedModel> model = partial_fit(p, nullptr, ConstMatrix{data.X.data(), 200, data.d}, {});
    for (int64_t b = 0; b < 30; ++b) {
        const int64_t begin = 200 + (b * 50) % 1000;
        model = partial_fit(p, model.get(), ConstMatrix{data.X.data() + begin * data.d, 50, data.d}, {});
        const auto& dual = dynamic_cast<const DualModel&>(*model);
        EXPECT_LE(dual.basis().size(), 3 * (16 + 32)) << "batch " << b;
        ASSERT_EQ(dual.stream_state().centres.size(), 3u);
        for (const CentreHistory& h : dual.stream_state().centres) {
            EXPECT_TRUE(h.base().points.empty());
            EXPECT_LE(h.term_points(), 16 + 32) << "batch " << b;
            EXPECT_LE(h.coefficients(true).points.back(), dual.basis().size() - 1);
        }
    }
}

/// Nearest final centre and squared distance of every point.
struct Assigned {
    std::vector<int32_t> labels;
    std::vector<double> dist;
};

Assigned nearest(const PointKernel& K, const std::vector<SparseCentre>& centres) {
    std::vector<int64_t> all(static_cast<size_t>(K.size()));
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
    Assigned out{std::vector<int32_t>(all.size(), 0),
                 std::vector<double>(all.size(), std::numeric_limits<double>::infinity())};
    Matrix kx, kss;
    for (size_t j = 0; j < centres.size(); ++j) {
        const SparseCentre& c = centres[j];
        K.block(c.points, c.points, kss, 1);
        double cc = 0;
        for (size_t a = 0; a < c.points.size(); ++a) {
            for (size_t b = 0; b < c.points.size(); ++b)
                cc += c.coef[a] * c.coef[b] * kss.row(static_cast<int64_t>(a))[b];
        }
        K.block(all, c.points, kx, 1);
        for (size_t i = 0; i < all.size(); ++i) {
            double dot = 0;
            for (size_t s = 0; s < c.points.size(); ++s) dot += c.coef[s] * kx.row(static_cast<int64_t>(i))[s];
            const double d = K.diag(all[i]) + cc - 2 * dot;
            if (d < out.dist[i]) {
                out.dist[i] = d;
                out.labels[i] = static_cast<int32_t>(j);
            }
        }
    }
    return out;
}

// With τ at least every point the run will ever draw nothing is truncated: Algorithm 2's
// explicit centres and Algorithm 1's recursive update for all n points (tau = 0) make the same
// assignments, hence the same batch terms and bit-identical coefficients, for both rates
// (n = 2000 > the 1920 points drawn, so no centre folds its terms). A second, small data set
// makes the tau = 0 run fold (more term points than n): coefficients then differ by rounding
// only (1e-12). The batch objectives agree to float
// kernel precision (the two read K from differently shaped GEMM blocks).
TEST(Minibatch, TruncationBeyondEverySampledPointIsTheRecursiveAlgorithm) {
    for (int64_t per_blob : {500, 50}) {
        const auto data = testdata::blobs(per_blob, 4, 2, 10.0, 3);
        const TestKernel K(data, 0.2);
        for (LearningRate rate : {LearningRate::beta, LearningRate::sklearn}) {
            MinibatchOptions o = never_stopping(4, 64, 30, rate);
            o.tau = 0;
            const MinibatchResult recursive = minibatch_kernel_kmeans(K, {}, o, 4);
            o.tau = o.batch_size * o.max_iter;
            const MinibatchResult explicit_centres = minibatch_kernel_kmeans(K, {}, o, 4);
            ASSERT_EQ(recursive.iterations, 30);
            ASSERT_EQ(explicit_centres.iterations, 30);
            for (size_t j = 0; j < recursive.centres.size(); ++j) {
                const SparseCentre &a = recursive.centres[j], &b = explicit_centres.centres[j];
                ASSERT_EQ(a.points, b.points) << "centre " << j;
                for (size_t s = 0; s < a.coef.size(); ++s) {
                    if (per_blob == 500) {
                        EXPECT_EQ(a.coef[s], b.coef[s]) << "centre " << j;
                    } else {
                        EXPECT_NEAR(a.coef[s], b.coef[s], 1e-12) << "centre " << j;
                    }
                }
            }
            for (size_t i = 0; i < recursive.history.size(); ++i) {
                EXPECT_NEAR(recursive.history[i].before, explicit_centres.history[i].before, 1e-5) << i;
                EXPECT_NEAR(recursive.history[i].after, explicit_centres.history[i].after, 1e-5) << i;
            }
            EXPECT_EQ(nearest(K, recursive.centres).labels, nearest(K, explicit_centres.centres).labels);
        }
    }
}

// Checked after every iteration: the runs with max_iter = 1..20 are the prefixes of one run
// (every draw is a function of (seed, iteration)). Overlapping blobs keep the assignments
// moving; without truncation the same runs' centres outgrow τ + b, so the bound is not vacuous.
TEST(Minibatch, TruncatedCentresHoldAtMostTauPlusBPoints) {
    const auto data = testdata::blobs(400, 3, 2, 2.0, 4);
    const TestKernel K(data, 0.5);
    const std::vector<std::pair<int64_t, int64_t>> settings = {{1, 8}, {10, 16}, {50, 32}, {200, 64}};
    for (const auto& [tau, b] : settings) {
        for (bool normalise : {false, true}) {
            MinibatchOptions o;
            o.k = 3;
            o.batch_size = b;
            o.tau = tau;
            o.normalise = normalise;
            o.epsilon = kNever;
            const auto bound = static_cast<size_t>(tau + b);
            for (int64_t m = 1; m <= 20; ++m) {
                o.max_iter = m;
                const MinibatchResult r = minibatch_kernel_kmeans(K, {}, o, 6);
                size_t total = 0;
                for (const SparseCentre& c : r.centres) {
                    EXPECT_LE(c.points.size(), bound) << "tau " << tau << " b " << b << " iteration " << m;
                    total += c.points.size();
                }
                EXPECT_LE(total, 3 * bound) << "tau " << tau << " b " << b << " iteration " << m;
            }
            o.tau = 0;
            size_t largest = 0;
            for (const SparseCentre& c : minibatch_kernel_kmeans(K, {}, o, 6).centres)
                largest = std::max(largest, c.points.size());
            EXPECT_GT(largest, bound) << "tau " << tau << " b " << b;
        }
    }
}

// 10 well-separated blobs, gamma by the library's auto rule 1/(2σ²). Without truncation the
// batch objective never rises (each centre moves towards its batch mean, and
// Σ_{y∈B_j} ‖φ(y) − C‖² = Σ ‖φ(y) − cm‖² + b_j ‖cm − C‖² only falls), so epsilon = 0 runs to
// max_iter, while the default epsilon stops at once: the blobs are found in the first
// iterations and the improvement drops far below 1e-3. Normalised truncation keeps both.
TEST(Minibatch, EarlyStoppingEndsBeforeMaxIterAndEpsilonZeroRunsToIt) {
    const auto data = ten_blobs(100, 3);
    const TestKernel K(data, 1.0 / (2 * mean_pairwise_sq(data)));
    for (const auto& [tau, normalise] : std::vector<std::pair<int64_t, bool>>{{0, false}, {200, true}}) {
        for (LearningRate rate : {LearningRate::beta, LearningRate::sklearn}) {
            MinibatchOptions o;
            o.k = 10;
            o.tau = tau;
            o.normalise = normalise;
            o.rate = rate;
            o.max_iter = 200;
            const std::string what = "tau " + std::to_string(tau) + " rate " + std::to_string(static_cast<int>(rate));
            const MinibatchResult early = minibatch_kernel_kmeans(K, {}, o, 2);
            EXPECT_TRUE(early.stopped_early) << what;
            EXPECT_LT(early.iterations, 200) << what;
            EXPECT_GE(ari(nearest(K, early.centres).labels, data.y), 0.99) << what;
            o.epsilon = 0;
            const MinibatchResult full = minibatch_kernel_kmeans(K, {}, o, 2);
            EXPECT_FALSE(full.stopped_early) << what;
            EXPECT_EQ(full.iterations, 200) << what;
            EXPECT_GE(ari(nearest(K, full.centres).labels, data.y), 0.99) << what;
            if (tau == 0) {
                for (const BatchObjective& f : full.history) EXPECT_LE(f.after, f.before + 1e-12) << what;
            }
        }
    }
}

// Equation (1) as printed leaves out the mass Π_{ℓ∈Q}(1 − α_ℓ) of what it drops: with τ = 200
// < b = 1024 the first truncation (iteration 3 here: ~100 points per centre and batch) shrinks
// the centres to about half their mass; the batch objective rises, which ends the run under
// any epsilon ≥ 0 (and on this smooth kernel scrambles the blobs). Hence
// MinibatchOptions::normalise.
TEST(Minibatch, EquationOneAsPrintedCanRaiseTheBatchObjective) {
    const auto data = ten_blobs(100, 3);
    const TestKernel K(data, 1.0 / (2 * mean_pairwise_sq(data)));
    MinibatchOptions o;
    o.k = 10;
    o.max_iter = 200;
    o.epsilon = 0;
    const MinibatchResult r = minibatch_kernel_kmeans(K, {}, o, 2);
    EXPECT_TRUE(r.stopped_early);
    EXPECT_LE(r.iterations, 5);
    EXPECT_GT(r.history.back().after, r.history.back().before);
}

// Two rings (radii 1 and 3, noise 0.1, 2000 points), gamma = 1/(2 · 0.16 · σ²) with σ² the
// mean pairwise squared distance (≈ 10, gamma ≈ 0.31); every point assigned to the final
// centres. Normalised truncation separates them with both rates under the defaults (b = 1024,
// τ = 200, epsilon = 1e-3); equation (1) as printed does with beta when run for a fixed 100
// iterations, as in the paper's experiments (with sklearn its centres shrink towards 0).
TEST(Minibatch, SeparatesTheRingsWithBothLearningRates) {
    const auto data = testdata::rings(1000, 0.1, 7);
    const TestKernel K(data, 1.0 / (2 * 0.16 * mean_pairwise_sq(data)));
    for (LearningRate rate : {LearningRate::beta, LearningRate::sklearn}) {
        MinibatchOptions o;
        o.k = 2;
        o.rate = rate;
        o.normalise = true;
        const MinibatchResult r = minibatch_kernel_kmeans(K, {}, o, 1);
        EXPECT_GE(ari(nearest(K, r.centres).labels, data.y), 0.9) << "rate " << static_cast<int>(rate);
    }
    MinibatchOptions o;
    o.k = 2;
    o.epsilon = kNever;
    const MinibatchResult r = minibatch_kernel_kmeans(K, {}, o, 1);
    EXPECT_GE(ari(nearest(K, r.centres).labels, data.y), 0.9) << "beta, equation (1) as printed";
}

TEST(Minibatch, ThreadCountChangesNothing) {
    const auto data = testdata::rings(400, 0.1, 3);
    const TestKernel K(data, 0.3);
    for (int64_t tau : {0, 100}) {
        MinibatchOptions o;
        o.k = 3;
        o.batch_size = 256;
        o.tau = tau;
        o.max_iter = 15;
        o.epsilon = kNever;
        o.threads = 1;
        const MinibatchResult one = minibatch_kernel_kmeans(K, {}, o, 5);
        o.threads = 2;
        const MinibatchResult two = minibatch_kernel_kmeans(K, {}, o, 5);
        for (size_t j = 0; j < one.centres.size(); ++j) {
            EXPECT_EQ(one.centres[j].points, two.centres[j].points) << "tau " << tau;
            EXPECT_EQ(one.centres[j].coef, two.centres[j].coef) << "tau " << tau;
        }
        for (size_t i = 0; i < one.history.size(); ++i) {
            EXPECT_EQ(one.history[i].before, two.history[i].before) << "tau " << tau;
            EXPECT_EQ(one.history[i].after, two.history[i].after) << "tau " << tau;
        }
    }
}

// 50 points: x0 has weight 2, x1 weight 0, the others 1 (total 50). Over N = 200 batches of
// 1000 draws, x0's count is Binomial(N, 2/50) (mean 8000, sd 87.6) and every weight-1 point's
// Binomial(N, 1/50) (mean 4000, sd 62.6). 5 sd per count: a correct sampler fails with
// probability below 50 · 6e-7; one that ignored the weights would put x0 at 4000, 46 sd off.
TEST(Minibatch, BatchesDrawAWeightTwoPointTwiceAsOftenAndWeightZeroNever) {
    std::vector<float> w(50, 1.0f);
    w[0] = 2.0f;
    w[1] = 0.0f;
    const BatchSampler sampler(50, w, 12);
    std::vector<int64_t> counts(50, 0), batch;
    const int64_t batches = 200, b = 1000;
    for (int64_t i = 1; i <= batches; ++i) {
        sampler.draw(i, b, batch);
        for (int64_t p : batch) ++counts[static_cast<size_t>(p)];
    }
    const double N = static_cast<double>(batches * b);
    auto sd = [N](double p) { return std::sqrt(N * p * (1 - p)); };
    EXPECT_NEAR(static_cast<double>(counts[0]), N * 2 / 50, 5 * sd(2.0 / 50));
    EXPECT_EQ(counts[1], 0);
    for (size_t i = 2; i < counts.size(); ++i)
        EXPECT_NEAR(static_cast<double>(counts[i]), N / 50, 5 * sd(1.0 / 50)) << i;
}

// Weight 2 on the first 150 points of 3 blobs vs those points duplicated: the same
// distribution of batches, so the same clustering up to sampling noise. Compared: the
// weighted objective Σ w_i d_i / Σ w_i (the duplicated run's objective over all its points is
// the same quantity), within 2% (over 16 pairs of seeds the ratio stayed within 0.6%), and
// the agreement of the two labelings of the original points (ARI ≥ 0.95; 1.0 in all 16).
TEST(Minibatch, WeightTwoClustersLikeADuplicatedPoint) {
    const auto data = testdata::blobs(150, 3, 2, 10.0, 8);
    testdata::Labeled twice = data;
    std::vector<float> w(static_cast<size_t>(data.n), 1.0f);
    for (int64_t i = 0; i < 150; ++i) {
        w[static_cast<size_t>(i)] = 2.0f;
        twice.X.insert(twice.X.end(), data.X.begin() + i * data.d, data.X.begin() + (i + 1) * data.d);
        twice.y.push_back(data.y[static_cast<size_t>(i)]);
    }
    twice.n = data.n + 150;
    const TestKernel Kw(data, 0.05), Kd(twice, 0.05);
    MinibatchOptions o;
    o.k = 3;
    o.batch_size = 256;
    o.normalise = true;
    const MinibatchResult rw = minibatch_kernel_kmeans(Kw, w, o, 3);
    const MinibatchResult rd = minibatch_kernel_kmeans(Kd, {}, o, 3);
    const Assigned aw = nearest(Kw, rw.centres), ad = nearest(Kd, rd.centres);
    double fw = 0, fd = 0, total = 0;
    for (int64_t i = 0; i < data.n; ++i) {
        fw += w[static_cast<size_t>(i)] * aw.dist[static_cast<size_t>(i)];
        total += w[static_cast<size_t>(i)];
    }
    for (double d : ad.dist) fd += d;
    fw /= total;
    fd /= static_cast<double>(twice.n);
    EXPECT_NEAR(fw / fd, 1.0, 0.02);
    const std::vector<int32_t> first(ad.labels.begin(), ad.labels.begin() + data.n);
    EXPECT_GE(ari(aw.labels, first), 0.95);
}

TEST(Minibatch, RejectsBadOptionsAndWeights) {
    const auto data = testdata::blobs(10, 2, 2, 3.0, 1);
    const TestKernel K(data, 0.3);
    MinibatchOptions o;
    o.k = 21;
    EXPECT_THROW(minibatch_kernel_kmeans(K, {}, o, 1), Error);
    o.k = 2;
    o.batch_size = 0;
    EXPECT_THROW(minibatch_kernel_kmeans(K, {}, o, 1), Error);
    o.batch_size = 8;
    EXPECT_THROW(minibatch_kernel_kmeans(K, std::vector<float>(20, -1.0f), o, 1), Error);
    EXPECT_THROW(minibatch_kernel_kmeans(K, std::vector<float>(20, 0.0f), o, 1), Error);
    EXPECT_THROW(minibatch_kernel_kmeans(K, std::vector<float>(19, 1.0f), o, 1), Error);
    o.max_iter = 0;
    const MinibatchResult seeds = minibatch_kernel_kmeans(K, {}, o, 1);
    EXPECT_EQ(seeds.iterations, 0);
    ASSERT_EQ(seeds.centres.size(), 2u);
    for (const SparseCentre& c : seeds.centres) EXPECT_EQ(c.coef, std::vector<double>{1.0});
}

}  // namespace
}  // namespace kkm
