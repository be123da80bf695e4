// The graph kernels' pieces (src/graph): exact q-NN against brute force (ties, duplicates,
// q = n - 1), NN-descent's recall and determinism, the symmetrised graph, components, a user's
// graph checks, the spectrum against a dense eigen-decomposition, the heat features and their
// extension, and the normalized-cut Lloyd (its objective against the formula, never rising).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "cluster/lloyd_driver.h"
#include "core/error.h"
#include "core/linalg.h"
#include "engine/dgemm.h"
#include "engine/isa.h"
#include "features/anchor_map.h"
#include "graph/anchors.h"
#include "graph/heat.h"
#include "graph/ncut.h"
#include "graph/neighbours.h"
#include "graph/nndescent.h"
#include "graph/sparse_graph.h"
#include "graph/spectrum.h"
#include "unit_data.h"

namespace kkm::graph {
namespace {

/// Brute force: each row's q nearest others by (squared distance in float64, index).
std::vector<std::vector<int32_t>> brute_force(const std::vector<float>& X, int64_t n, int64_t d, int64_t q,
                                              const std::vector<float>* queries = nullptr, int64_t nq = 0) {
    const bool self = queries == nullptr;
    const std::vector<float>& Q = self ? X : *queries;
    const int64_t rows = self ? n : nq;
    std::vector<std::vector<int32_t>> out(static_cast<size_t>(rows));
    for (int64_t i = 0; i < rows; ++i) {
        std::vector<std::pair<double, int32_t>> all;
        for (int64_t j = 0; j < n; ++j) {
            if (self && j == i) continue;
            double s = 0;
            for (int64_t t = 0; t < d; ++t) {
                const double diff =
                    static_cast<double>(Q[static_cast<size_t>(i * d + t)]) - X[static_cast<size_t>(j * d + t)];
                s += diff * diff;
            }
            all.emplace_back(s, static_cast<int32_t>(j));
        }
        std::sort(all.begin(), all.end());
        for (int64_t j = 0; j < q; ++j) out[static_cast<size_t>(i)].push_back(all[static_cast<size_t>(j)].second);
    }
    return out;
}

std::vector<std::vector<int32_t>> as_rows(const NeighbourLists& l) {
    std::vector<std::vector<int32_t>> out(static_cast<size_t>(l.rows));
    for (int64_t i = 0; i < l.rows; ++i) out[static_cast<size_t>(i)].assign(l.neighbours(i), l.neighbours(i) + l.q);
    return out;
}

/// Small integer coordinates: every distance is exact in float32, many are tied, and some
/// rows repeat.
std::vector<float> integer_grid(int64_t n, int64_t d, uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> v(-3, 3);
    std::vector<float> X(static_cast<size_t>(n * d));
    for (float& x : X) x = static_cast<float>(v(gen));
    for (int64_t t = 0; t < d; ++t)
        X[static_cast<size_t>(5 * d + t)] = X[static_cast<size_t>(2 * d + t)];  // a duplicate
    return X;
}

std::vector<float> column_means(const std::vector<float>& X, int64_t n, int64_t d) {
    std::vector<float> m(static_cast<size_t>(d), 0.0f);
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t t = 0; t < d; ++t) m[static_cast<size_t>(t)] += X[static_cast<size_t>(i * d + t)];
    }
    for (float& v : m) v /= static_cast<float>(n);
    return m;
}

TEST(ExactNeighbours, MatchBruteForceWithTiesAndDuplicatesOnEveryPath) {
    const int64_t n = 300, d = 5;
    const std::vector<float> X = integer_grid(n, d, 3);
    for (engine::Isa isa : {engine::Isa::portable, engine::Isa::avx2, engine::Isa::avx512}) {
        if (!engine::isa_supported(isa)) continue;
        for (int64_t q : {int64_t{1}, int64_t{7}, n - 1}) {
            // No shift: integer rows keep every product exact, so ties are exact ties.
            const SearchRows rows(ConstMatrix{X.data(), n, d}, {}, isa, 2);
            const NeighbourLists one = exact_self_neighbours(rows, q, 1), two = exact_self_neighbours(rows, q, 2);
            EXPECT_EQ(one.index, two.index);
            EXPECT_EQ(one.dist, two.dist);
            EXPECT_EQ(as_rows(one), brute_force(X, n, d, q)) << "q=" << q << " isa=" << engine::isa_name(isa);
            // neighbors=auto's larger q take the first entries of one wider search: the same lists.
            const NeighbourLists prefix = first_neighbours(exact_self_neighbours(rows, n - 1, 2), q);
            EXPECT_EQ(prefix.index, one.index);
            EXPECT_EQ(prefix.dist, one.dist);
            // The duplicate pair: each is the other's nearest, at distance 0.
            EXPECT_EQ(one.neighbours(5)[0], 2);
            EXPECT_EQ(one.distances(5)[0], 0.0f);
            for (int64_t i = 0; i < n; ++i) {
                for (int64_t j = 1; j < q; ++j) EXPECT_LE(one.distances(i)[j - 1], one.distances(i)[j]);
            }
        }
    }
}

// graph=anchor's search: every anchor packed once, blocks searched on one thread; the lists of
// brute force (ties by index, exact integer distances), and exact_neighbours' keys bit for bit
// on every path, with more than one tile of anchors.
TEST(AnchorGraph, PackedSearchMatchesBruteForceAndExactNeighbours) {
    const int64_t p = 1500, d = 5, nq = 300;
    const std::vector<float> A = integer_grid(p, d, 7), Q = integer_grid(nq, d, 8);
    for (engine::Isa isa : {engine::Isa::portable, engine::Isa::avx2, engine::Isa::avx512}) {
        if (!engine::isa_supported(isa)) continue;
        const SearchRows rows(ConstMatrix{A.data(), p, d}, {}, isa, 2);
        const PackedSearch search{SearchRows(ConstMatrix{A.data(), p, d}, {}, isa, 2)};
        for (const int64_t q : {int64_t{1}, int64_t{3}, int64_t{9}}) {
            NeighbourLists got;
            got.rows = nq;
            got.q = q;
            got.index.resize(static_cast<size_t>(nq * q));
            got.dist.resize(static_cast<size_t>(nq * q));
            Matrix queries, tile;
            engine::BlockScratch scratch;
            for (int64_t b = 0; b < nq; b += 252) {
                const int64_t rows_b = std::min<int64_t>(252, nq - b);
                search.nearest(ConstMatrix{Q.data() + b * d, rows_b, d}, q, queries, tile, scratch,
                               got.index.data() + b * q, got.dist.data() + b * q);
            }
            EXPECT_EQ(as_rows(got), brute_force(A, p, d, q, &Q, nq)) << engine::isa_name(isa);
            const NeighbourLists exact = exact_neighbours(rows, ConstMatrix{Q.data(), nq, d}, q, 2);
            EXPECT_EQ(got.index, exact.index);
            EXPECT_EQ(got.dist, exact.dist);
        }
    }
}

// ZᵀZ and the degrees against a dense product; the eigenpairs of D^-½ZᵀZD^-½ against LAPACK on
// the whole matrix (two components: eigenvalue 1 twice); weights normalised, the nearest first.
/// n rows of r = 3 anchors among p = 12: even rows attach to anchors 0-5, odd ones to 6-11 (two
/// components), with the weights of three distances.
AnchorLists split_lists(int64_t n) {
    const int64_t r = 3;
    AnchorLists Z(n, r);
    std::mt19937 gen(3);
    for (int64_t i = 0; i < n; ++i) {
        const int64_t half = i % 2 == 0 ? 0 : 6;
        std::vector<int32_t> pick = {0, 1, 2, 3, 4, 5};
        std::shuffle(pick.begin(), pick.end(), gen);
        std::vector<float> dist = {0.5f, 1.0f + static_cast<float>(i % 7), 9.0f};
        for (int64_t t = 0; t < r; ++t)
            Z.index[static_cast<size_t>(i * r + t)] = static_cast<int32_t>(half + pick[static_cast<size_t>(t)]);
        anchor_weights(dist.data(), r, 2.0, Z.weight.data() + i * r);
    }
    return Z;
}

/// Z as a dense n x p matrix.
std::vector<double> dense_lists(const AnchorLists& Z, int64_t p) {
    std::vector<double> dense(static_cast<size_t>(Z.rows * p), 0.0);
    for (int64_t i = 0; i < Z.rows; ++i) {
        for (int64_t t = 0; t < Z.r; ++t)
            dense[static_cast<size_t>(i * p + Z.index[static_cast<size_t>(i * Z.r + t)])] +=
                Z.weight[static_cast<size_t>(i * Z.r + t)];
    }
    return dense;
}

TEST(AnchorGraph, GramComponentsAndEigenpairsMatchDenseLinearAlgebra) {
    const int64_t n = 400, p = 12, r = 3;
    const AnchorLists Z = split_lists(n);
    for (int64_t i = 0; i < n; ++i) {
        double sum = 0;
        for (int64_t t = 0; t < r; ++t) sum += Z.weight[static_cast<size_t>(i * r + t)];
        EXPECT_NEAR(sum, 1.0, 1e-6);
        EXPECT_GT(Z.weight[static_cast<size_t>(i * r)], Z.weight[static_cast<size_t>(i * r + 1)]);
    }
    const AnchorGram one = anchor_gram(Z, p, 1), two = anchor_gram(Z, p, 2);
    EXPECT_EQ(one.M, two.M);
    const std::vector<double> dense = dense_lists(Z, p);
    std::vector<double> M(static_cast<size_t>(p * p), 0.0);
    for (int64_t a = 0; a < p; ++a) {
        double deg = 0;
        for (int64_t i = 0; i < n; ++i) deg += dense[static_cast<size_t>(i * p + a)];
        EXPECT_NEAR(one.degree[static_cast<size_t>(a)], deg, 1e-9);
        for (int64_t b = 0; b < p; ++b) {
            double s = 0;
            for (int64_t i = 0; i < n; ++i)
                s += dense[static_cast<size_t>(i * p + a)] * dense[static_cast<size_t>(i * p + b)];
            M[static_cast<size_t>(a * p + b)] = s / std::sqrt(deg);
            EXPECT_NEAR(one.M[static_cast<size_t>(a * p + b)], s, 1e-9);
        }
    }
    const Components parts = anchor_components(one);
    ASSERT_EQ(parts.count, 2);
    EXPECT_EQ(parts.sizes, (std::vector<int64_t>{6, 6}));
    for (int64_t a = 0; a < p; ++a) {
        for (int64_t b = 0; b < p; ++b)
            M[static_cast<size_t>(a * p + b)] /= std::sqrt(one.degree[static_cast<size_t>(b)]);
    }
    std::vector<double> w(static_cast<size_t>(p));
    linalg::dsyevd_rows_one_call(p, M.data(), w.data());
    const Eigenpairs e = anchor_eigenpairs(one, parts, 5, 0.0);
    ASSERT_EQ(e.values.size(), 5u);
    EXPECT_NEAR(e.values[0], 1.0, 1e-6);  // float32 weights: rows sum to 1 within 1e-7
    EXPECT_NEAR(e.values[1], 1.0, 1e-6);  // float32 weights: rows sum to 1 within 1e-7
    for (int64_t l = 0; l < 5; ++l)
        EXPECT_NEAR(e.values[static_cast<size_t>(l)], w[static_cast<size_t>(p - 1 - l)], 1e-10);
    // Each component's indicator direction D^½1 lives on its own anchors only.
    for (int64_t j = 0; j < p; ++j) EXPECT_EQ(e.vectors.row(j)[0] != 0.0f, j < 6) << j;
}

// kernel=knn on the anchor graph: with every pair of positive eigenvalue, the features of the
// normalized cut (Q = D^-½V) have the Gram matrix W = Z D⁻¹ Zᵀ itself, the cut's kernel; the
// heat features of the same pairs are unit rows.
TEST(AnchorGraph, TheCutsFeaturesReproduceItsKernelExactly) {
    const int64_t n = 200, p = 12, r = 3;
    const AnchorLists Z = split_lists(n);
    const AnchorGram g = anchor_gram(Z, p, 1);
    const Eigenpairs e = anchor_eigenpairs(g, anchor_components(g), p, 1e-12);
    ASSERT_GE(e.values.size(), 8u);
    const std::vector<float> points(static_cast<size_t>(p * 2), 0.0f);
    const auto search = [&] {
        return PackedSearch(SearchRows(ConstMatrix{points.data(), p, 2}, {}, engine::best_isa(), 1));
    };
    const AnchorMap cut(search(), r, 1.0, AnchorMap::knn_projection(e, g.degree), false);
    const Matrix F = anchor_features(cut, Z, 2);
    const std::vector<double> dense = dense_lists(Z, p);
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double w = 0, f = 0;
            for (int64_t a = 0; a < p; ++a) {
                w += dense[static_cast<size_t>(i * p + a)] * dense[static_cast<size_t>(j * p + a)] /
                     g.degree[static_cast<size_t>(a)];
            }
            for (int64_t l = 0; l < F.cols; ++l) f += static_cast<double>(F.row(i)[l]) * F.row(j)[l];
            worst = std::max(worst, std::abs(f - w));
        }
    }
    EXPECT_LT(worst, 1e-5);
    const AnchorMap heat(search(), r, 1.0, AnchorMap::heat_projection(e, g.degree, 5.0), true);
    const Matrix H = anchor_features(heat, Z, 1);
    for (int64_t i = 0; i < n; ++i) {
        double s = 0;
        for (int64_t l = 0; l < H.cols; ++l) s += static_cast<double>(H.row(i)[l]) * H.row(i)[l];
        EXPECT_NEAR(s, 1.0, 1e-5) << i;
    }
}

TEST(ExactNeighbours, QueriesAgainstReferenceRowsMatchBruteForce) {
    const int64_t n = 5000, d = 4, nq = 300;  // more than one 4096-row chunk
    const std::vector<float> X = integer_grid(n, d, 5), Q = integer_grid(nq, d, 6);
    const SearchRows rows(ConstMatrix{X.data(), n, d}, {}, engine::best_isa(), 2);
    const NeighbourLists got = exact_neighbours(rows, ConstMatrix{Q.data(), nq, d}, 9, 2);
    EXPECT_EQ(as_rows(got), brute_force(X, n, d, 9, &Q, nq));
    // A few queries at a time (the reference rows streamed, not packed): the same lists.
    for (const int64_t few : {int64_t{1}, int64_t{3}, int64_t{7}}) {
        const NeighbourLists part = exact_neighbours(rows, ConstMatrix{Q.data() + 11 * d, few, d}, 9, 2);
        for (int64_t i = 0; i < few; ++i) {
            EXPECT_TRUE(std::equal(part.neighbours(i), part.neighbours(i) + 9, got.neighbours(11 + i))) << few;
            EXPECT_TRUE(std::equal(part.distances(i), part.distances(i) + 9, got.distances(11 + i))) << few;
        }
    }
}

// Real-valued rows (every distance rounded) with a centring shift, across chunks: the lists of
// a few queries searched alone (the reference rows streamed) are those of the same queries in
// a batch (the packed tiles), index for index and bit for bit, on every path and thread count.
TEST(ExactNeighbours, AFewQueriesAloneGetTheListsTheyGetInABatch) {
    const int64_t n = 4500, d = 37, nq = 40, q = 12;
    std::mt19937 gen(21);
    std::normal_distribution<float> g(3.0f, 1.5f);
    std::vector<float> X(static_cast<size_t>(n * d)), Q(static_cast<size_t>(nq * d));
    for (float& v : X) v = g(gen);
    for (float& v : Q) v = g(gen);
    for (engine::Isa isa : {engine::Isa::portable, engine::Isa::avx2, engine::Isa::avx512}) {
        if (!engine::isa_supported(isa)) continue;
        const SearchRows rows(ConstMatrix{X.data(), n, d}, column_means(X, n, d), isa, 2);
        const NeighbourLists batch = exact_neighbours(rows, ConstMatrix{Q.data(), nq, d}, q, 2);
        for (const int64_t few : {int64_t{1}, int64_t{2}, int64_t{7}}) {
            for (const int threads : {1, 2}) {
                for (int64_t first = 0; first + few <= nq; first += 13) {
                    const NeighbourLists part =
                        exact_neighbours(rows, ConstMatrix{Q.data() + first * d, few, d}, q, threads);
                    for (int64_t i = 0; i < few; ++i) {
                        EXPECT_TRUE(std::equal(part.neighbours(i), part.neighbours(i) + q, batch.neighbours(first + i)))
                            << engine::isa_name(isa) << " " << few << " rows from " << first;
                        EXPECT_EQ(std::memcmp(part.distances(i), batch.distances(first + i), q * sizeof(float)), 0)
                            << engine::isa_name(isa) << " " << few << " rows from " << first;
                    }
                }
            }
        }
    }
}

TEST(ExactNeighbours, CentringKeepsNeighboursOfRowsFarFromTheOrigin) {
    // Blobs at an offset of 1e5: ‖x‖² + ‖y‖² − 2x·y of raw rows cancels to noise in float32.
    testdata::Labeled ds = testdata::blobs(100, 3, 4, 20.0, 7);
    for (float& v : ds.X) v += 1e5f;
    const SearchRows rows(ConstMatrix{ds.X.data(), ds.n, ds.d}, column_means(ds.X, ds.n, ds.d), engine::best_isa(), 2);
    const NeighbourLists lists = exact_self_neighbours(rows, 5, 2);
    for (int64_t i = 0; i < ds.n; ++i) {
        for (int64_t j = 0; j < 5; ++j)
            EXPECT_EQ(ds.y[static_cast<size_t>(lists.neighbours(i)[j])], ds.y[static_cast<size_t>(i)]);
    }
}

TEST(Nndescent, RecallAndThreadCountIndependence) {
    const testdata::Labeled ds = testdata::blobs(500, 8, 20, 4.0, 11);  // 4000 rows: NN-descent runs
    const SearchRows rows(ConstMatrix{ds.X.data(), ds.n, ds.d}, column_means(ds.X, ds.n, ds.d), engine::best_isa(), 2);
    const NeighbourLists exact = exact_self_neighbours(rows, 10, 2);
    const NeighbourLists one = nndescent_neighbours(rows, 10, 1, 1), two = nndescent_neighbours(rows, 10, 1, 2);
    EXPECT_EQ(one.index, two.index);
    EXPECT_EQ(one.dist, two.dist);
    EXPECT_GE(recall(one, exact), 0.95);
    const NeighbourLists other_seed = nndescent_neighbours(rows, 10, 2, 2);
    EXPECT_GE(recall(other_seed, exact), 0.95);
    for (int64_t i = 0; i < ds.n; ++i) {
        const int32_t* row = one.neighbours(i);
        EXPECT_EQ(std::find(row, row + 10, static_cast<int32_t>(i)), row + 10) << "row " << i << " lists itself";
        std::vector<int32_t> sorted(row, row + 10);
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "row " << i << " repeats";
    }
}

/// The first `count` Fashion-MNIST training images (pixels / 255), or empty when the data set
/// is not installed (Debian dataset-fashion-mnist, which scripts/install-deps.sh installs).
std::vector<float> fashion_rows(int64_t count) {
    gzFile f = gzopen("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz", "rb");
    if (f == nullptr) return {};
    std::vector<unsigned char> header(16), pixels(static_cast<size_t>(count * 784));
    const bool ok = gzread(f, header.data(), 16) == 16 &&
                    gzread(f, pixels.data(), static_cast<unsigned>(pixels.size())) == static_cast<int>(pixels.size());
    gzclose(f);
    if (!ok) return {};
    std::vector<float> X(pixels.size());
    for (size_t i = 0; i < pixels.size(); ++i) X[i] = static_cast<float>(pixels[i]) / 255.0f;
    return X;
}

TEST(Nndescent, RecallOnFashionMnist10kIsAtLeast95Percent) {
    const int64_t n = 10000, d = 784;
    const std::vector<float> X = fashion_rows(n);
    if (X.empty()) GTEST_SKIP() << "Fashion-MNIST not installed (apt-get install dataset-fashion-mnist)";
    const SearchRows rows(ConstMatrix{X.data(), n, d}, column_means(X, n, d), engine::best_isa(), 2);
    const NeighbourLists exact = exact_self_neighbours(rows, 10, 2);
    const NeighbourLists approximate = nndescent_neighbours(rows, 10, 0, 2);
    const double r = recall(approximate, exact);
    std::printf("NN-descent recall on Fashion-MNIST 10000 x 784, q = 10: %.4f\n", r);
    EXPECT_GE(r, 0.95);
}

TEST(SparseGraphs, SymmetrisedWeightsDegreesAndComponents) {
    NeighbourLists l;
    l.rows = 4;
    l.q = 1;
    l.index = {1, 0, 3, 0};  // 0<->1 mutual, 2->3 and 3->0 one way
    l.dist.assign(4, 1.0f);
    const SparseGraph A = symmetrised(l);
    EXPECT_EQ(A.weight(0, 1), 1.0f);
    EXPECT_EQ(A.weight(1, 0), 1.0f);
    EXPECT_EQ(A.weight(2, 3), 0.5f);
    EXPECT_EQ(A.weight(3, 2), 0.5f);
    EXPECT_EQ(A.weight(3, 0), 0.5f);
    EXPECT_EQ(A.weight(0, 3), 0.5f);
    EXPECT_EQ(A.weight(1, 2), 0.0f);
    EXPECT_EQ(degrees(A), (std::vector<double>{1.5, 1.0, 0.5, 1.0}));
    EXPECT_EQ(components(A).count, 1);
    // Two cliques: two components, numbered by their smallest node.
    std::vector<int64_t> indptr{0}, indices;
    for (int64_t i = 0; i < 6; ++i) {
        for (int64_t j = 0; j < 6; ++j) {
            if (i != j && (i < 3) == (j < 3)) indices.push_back(j);
        }
        indptr.push_back(static_cast<int64_t>(indices.size()));
    }
    const Components c = components(checked_graph(6, indptr.data(), indices.data(), nullptr));
    EXPECT_EQ(c.count, 2);
    EXPECT_EQ(c.of, (std::vector<int32_t>{0, 0, 0, 1, 1, 1}));
}

TEST(SparseGraphs, UserGraphsAreCheckedAndMadeCanonical) {
    // Unsorted columns and a repeated entry (summed), a zero (dropped), a self-loop (kept).
    const std::vector<int64_t> indptr{0, 3, 5, 6};
    const std::vector<int64_t> indices{2, 1, 1, 0, 1, 0};
    const std::vector<float> values{2.0f, 0.5f, 0.5f, 1.0f, 0.0f, 2.0f};
    const SparseGraph A = checked_graph(3, indptr.data(), indices.data(), values.data());
    EXPECT_EQ(A.indices, (std::vector<int32_t>{1, 2, 0, 0}));
    EXPECT_EQ(A.values, (std::vector<float>{1.0f, 2.0f, 1.0f, 2.0f}));
    auto error = [](int64_t n, std::vector<int64_t> p, std::vector<int64_t> i, std::vector<float> v) {
        try {
            checked_graph(n, p.data(), i.data(), v.empty() ? nullptr : v.data());
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(error(2, {0, 1, 1}, {1}, {}).find("not symmetric"), std::string::npos);
    EXPECT_NE(error(2, {0, 1, 2}, {1, 0}, {1.0f, 2.0f}).find("A[0,1]=1 but A[1,0]=2"), std::string::npos);
    EXPECT_NE(error(2, {0, 1, 2}, {1, 0}, {-1.0f, -1.0f}).find("values[0]"), std::string::npos);
    EXPECT_NE(error(3, {0, 1, 2, 2}, {1, 0}, {}).find("node 2 has no edge"), std::string::npos);
    EXPECT_NE(error(2, {0, 1, 2}, {1, 2}, {}).find("indices[1]=2"), std::string::npos);
    EXPECT_NE(error(2, {1, 1, 2}, {1, 0}, {}).find("indptr[0]=1"), std::string::npos);
    EXPECT_NE(error(2, {0, 2, 1}, {1, 0}, {}).find("indptr[2]=1 is below indptr[1]=2"), std::string::npos);
    EXPECT_NE(error(2, {0, 1, 2}, {1, 0}, {std::nanf(""), std::nanf("")}).find("values[0]"), std::string::npos);
}

/// A ring lattice graph of n nodes (each linked to its `reach` nearest on both sides) with a
/// few chords: connected, with distinct eigenvalues.
SparseGraph lattice(int64_t n, int64_t reach, uint32_t seed) {
    std::vector<std::vector<std::pair<int64_t, float>>> rows(static_cast<size_t>(n));
    std::mt19937 gen(seed);
    auto link = [&](int64_t i, int64_t j, float w) {
        rows[static_cast<size_t>(i)].emplace_back(j, w);
        rows[static_cast<size_t>(j)].emplace_back(i, w);
    };
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t s = 1; s <= reach; ++s) link(i, (i + s) % n, 1.0f);
    }
    std::uniform_int_distribution<int64_t> node(0, n - 1);
    for (int c = 0; c < n / 10; ++c) link(node(gen), node(gen), 0.5f);
    std::vector<int64_t> indptr{0}, indices;
    std::vector<float> values;
    for (const auto& row : rows) {
        for (const auto& [j, w] : row) {
            indices.push_back(j);
            values.push_back(w);
        }
        indptr.push_back(static_cast<int64_t>(indices.size()));
    }
    return checked_graph(n, indptr.data(), indices.data(), values.data());
}

/// The dense normalized adjacency's eigenvalues, descending.
std::vector<double> dense_spectrum(const SparseGraph& A) {
    const std::vector<double> d = degrees(A);
    const int64_t n = A.n;
    std::vector<double> S(static_cast<size_t>(n * n), 0.0), w(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
            const int64_t j = A.indices[static_cast<size_t>(e)];
            S[static_cast<size_t>(i * n + j)] =
                A.values[static_cast<size_t>(e)] / std::sqrt(d[static_cast<size_t>(i)] * d[static_cast<size_t>(j)]);
        }
    }
    engine::Dgemm products(engine::best_isa());
    linalg::dsyevd_rows(n, S.data(), w.data(), &products);
    std::reverse(w.begin(), w.end());
    return w;
}

TEST(Spectrum, LanczosMatchesTheDenseDecompositionAndIsThreadCountFree) {
    const SparseGraph A = lattice(900, 3, 1);  // above kDenseComponent, 6 entries per node: shift-invert
    ASSERT_GT(A.n, kDenseComponent);
    const std::vector<double> d = degrees(A);
    const Components parts = components(A);
    ASSERT_EQ(parts.count, 1);
    const Eigenpairs one = top_eigenpairs(A, d, parts, 12, 3, 1), two = top_eigenpairs(A, d, parts, 12, 3, 2);
    EXPECT_EQ(one.values, two.values);
    EXPECT_TRUE(std::equal(one.vectors.values.data(), one.vectors.values.data() + 900 * 12, two.vectors.values.data()));
    const std::vector<double> dense = dense_spectrum(A);
    for (int64_t l = 0; l < 12; ++l)
        EXPECT_NEAR(one.values[static_cast<size_t>(l)], dense[static_cast<size_t>(l)], 1e-6);
    // Each vector is a unit eigenvector: ‖S u − λ u‖ small.
    for (int64_t l = 0; l < 12; ++l) {
        double residual = 0, norm = 0;
        for (int64_t i = 0; i < A.n; ++i) {
            double su = 0;
            for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
                const int64_t j = A.indices[static_cast<size_t>(e)];
                su += A.values[static_cast<size_t>(e)] /
                      std::sqrt(d[static_cast<size_t>(i)] * d[static_cast<size_t>(j)]) * one.vectors.row(j)[l];
            }
            const double r = su - one.values[static_cast<size_t>(l)] * one.vectors.row(i)[l];
            residual += r * r;
            norm += static_cast<double>(one.vectors.row(i)[l]) * one.vectors.row(i)[l];
        }
        EXPECT_NEAR(norm, 1.0, 1e-5);
        EXPECT_LT(std::sqrt(residual), 1e-4) << "pair " << l;
    }
}

TEST(Spectrum, EveryComponentContributesItsIndicator) {
    // Three separate lattices (two small: LAPACK; one large: Lanczos): eigenvalue 1 three times,
    // each vector supported on one component.
    const SparseGraph a = lattice(40, 2, 1), b = lattice(700, 2, 2), c = lattice(30, 2, 3);
    std::vector<int64_t> indptr{0}, indices;
    std::vector<float> values;
    int64_t offset = 0;
    for (const SparseGraph* g : {&a, &b, &c}) {
        for (int64_t i = 0; i < g->n; ++i) {
            for (int64_t e = g->row_begin(i); e < g->row_end(i); ++e) {
                indices.push_back(offset + g->indices[static_cast<size_t>(e)]);
                values.push_back(g->values[static_cast<size_t>(e)]);
            }
            indptr.push_back(static_cast<int64_t>(indices.size()));
        }
        offset += g->n;
    }
    const SparseGraph A = checked_graph(offset, indptr.data(), indices.data(), values.data());
    const Components parts = components(A);
    ASSERT_EQ(parts.count, 3);
    const Eigenpairs e = top_eigenpairs(A, degrees(A), parts, 6, 1, 2);
    for (int l = 0; l < 3; ++l) {
        EXPECT_NEAR(e.values[static_cast<size_t>(l)], 1.0, 1e-9);
        std::vector<int> support(3, 0);
        for (int64_t i = 0; i < A.n; ++i) {
            if (e.vectors.row(i)[l] != 0.0f) support[static_cast<size_t>(parts.of[static_cast<size_t>(i)])] = 1;
        }
        EXPECT_EQ(std::accumulate(support.begin(), support.end(), 0), 1) << "vector " << l;
    }
    EXPECT_LT(e.values[3], 1.0 - 1e-6);
}

/// A ring (wrap) or a chain of n nodes, each linked to the next with weight 1.
SparseGraph path_graph(int64_t n, bool wrap) {
    std::vector<int64_t> indptr{0}, indices;
    for (int64_t i = 0; i < n; ++i) {
        if (i > 0 || wrap) indices.push_back((i + n - 1) % n);
        if (i + 1 < n || wrap) indices.push_back((i + 1) % n);
        indptr.push_back(static_cast<int64_t>(indices.size()));
    }
    return checked_graph(n, indptr.data(), indices.data(), nullptr);
}

// Slowly mixing graphs (issue 60): on a ring of 20000 nodes the eigen stage took 339 s (113 s
// at 10000), Lanczos on eigenvalues 5e-8 apart. Their spectra are known exactly: a ring's
// normalized adjacency has cos(2πj/n) (each twice but j = 0), a chain's cos(πj/(n−1)); the
// top 20 must come out to 1e-9, each vector an eigenvector, for any thread count.
TEST(Spectrum, RingsAndChainsGiveTheirExactTopEigenvalues) {
    for (const bool wrap : {true, false}) {
        for (const int64_t n : {int64_t{2000}, int64_t{20000}}) {
            SCOPED_TRACE(std::string(wrap ? "ring " : "chain ") + std::to_string(n));
            const SparseGraph A = path_graph(n, wrap);
            const Components parts = components(A);
            const Eigenpairs e = top_eigenpairs(A, degrees(A), parts, 20, 1, 2);
            ASSERT_EQ(e.values.size(), 20u);
            std::vector<double> want;
            for (int64_t j = 0; static_cast<int64_t>(want.size()) < 20; ++j) {
                const double pi = std::acos(-1.0);
                want.push_back(wrap ? std::cos(2 * pi * j / n) : std::cos(pi * j / (n - 1)));
                if (wrap && j > 0) want.push_back(want.back());
            }
            want.resize(20);
            for (size_t l = 0; l < 20; ++l) EXPECT_NEAR(e.values[l], want[l], 1e-9) << "eigenvalue " << l;
            for (int64_t l = 0; l < 20; l += 7) {  // (S u)_i = Σ_j u_j / sqrt(d_i d_j), d = 2 (chain ends 1)
                double residual = 0;
                for (int64_t i = 0; i < n; ++i) {
                    double su = 0;
                    const double di = static_cast<double>(A.row_end(i) - A.row_begin(i));
                    for (int64_t t = A.row_begin(i); t < A.row_end(i); ++t) {
                        const int64_t j = A.indices[static_cast<size_t>(t)];
                        su += e.vectors.row(j)[l] / std::sqrt(di * static_cast<double>(A.row_end(j) - A.row_begin(j)));
                    }
                    residual += std::pow(su - e.values[static_cast<size_t>(l)] * e.vectors.row(i)[l], 2);
                }
                EXPECT_LT(std::sqrt(residual), 1e-5) << "vector " << l;
            }
            if (n == 2000) {
                const Eigenpairs one = top_eigenpairs(A, degrees(A), parts, 20, 1, 1);
                EXPECT_EQ(one.values, e.values);
            }
        }
    }
}

TEST(HeatFeatures, UnitRowsAndTheExtensionOfATrainingNodeIsItself) {
    const SparseGraph A = lattice(800, 3, 4);
    HeatMap map;
    const Components parts = components(A);
    Eigenpairs e = top_eigenpairs(A, degrees(A), parts, 10, 1, 2);
    map.values = e.values;
    map.vectors = std::move(e.vectors);
    map.degree = degrees(A);
    map.t = 20;
    map.normalise = true;
    const Matrix F = training_features(map, 2);
    for (int64_t i = 0; i < A.n; ++i) {
        double s = 0;
        for (int64_t l = 0; l < map.dim(); ++l) s += static_cast<double>(F.row(i)[l]) * F.row(i)[l];
        EXPECT_NEAR(s, 1.0, 1e-5);
    }
    // Node 17 placed by its own row of A: the Nyström extension reproduces its eigenvector
    // entries (S u = λ u), so its features are its training features.
    Placement p;
    p.self = {-1};
    p.at = {0, A.row_end(17) - A.row_begin(17)};
    for (int64_t e2 = A.row_begin(17); e2 < A.row_end(17); ++e2) {
        p.nodes.push_back(A.indices[static_cast<size_t>(e2)]);
        p.weights.push_back(A.values[static_cast<size_t>(e2)]);
    }
    std::vector<float> f(static_cast<size_t>(map.dim()));
    map.features(p, 0, 1, f.data());
    for (int64_t l = 0; l < map.dim(); ++l) EXPECT_NEAR(f[static_cast<size_t>(l)], F.row(17)[l], 1e-3);
}

/// The q-NN graph of rows, exactly.
SparseGraph knn_graph(const testdata::Labeled& ds, int64_t q) {
    const SearchRows rows(ConstMatrix{ds.X.data(), ds.n, ds.d}, column_means(ds.X, ds.n, ds.d), engine::best_isa(), 2);
    return symmetrised(exact_self_neighbours(rows, q, 2));
}

TEST(NormalizedCut, ObjectiveIsTheFormulaAndNeverRises) {
    const testdata::Labeled ds = testdata::blobs(60, 4, 3, 3.0, 9);
    const SparseGraph A = knn_graph(ds, 8);
    const std::vector<double> d = degrees(A);
    NcutLloyd problem(A, d, 4, 2);
    std::mt19937 gen(2);
    std::vector<int32_t> labels(static_cast<size_t>(ds.n));
    for (auto& l : labels) l = static_cast<int32_t>(gen() % 4);
    // objective = σ(n − k) + Σ A_ii/d_i − k + ncut (no self-loops, every cluster non-empty)
    const double ncut = problem.normalized_cut(labels);
    EXPECT_NEAR(problem.objective(labels), kKnnShift * static_cast<double>(ds.n - 4) - 4.0 + ncut, 1e-9);
    double previous = problem.objective(labels);
    std::vector<int32_t> next(labels.size());
    std::vector<float> dist(labels.size());
    for (int it = 0; it < 30; ++it) {
        // Each point to its nearest centre (no farther than its own), then the centres of the
        // new labels (no farther from their members than the old ones): both steps lower it.
        const double reported = problem.reassign(labels, next, dist);
        EXPECT_LE(reported, previous + 1e-9 * std::abs(previous)) << "iteration " << it;
        // The new labels against the old centres, point by point: what reassign summed.
        if (next != labels) {
            EXPECT_EQ(problem.objective_of(labels, next), reported) << "iteration " << it;
        }
        const double now = problem.objective(next);
        EXPECT_LE(now, reported + 1e-9 * std::abs(reported)) << "iteration " << it;
        if (next == labels) break;
        labels = next;
        previous = now;
    }
    // Brute-force ncut of the final labels.
    double cut = 0;
    for (int32_t c = 0; c < 4; ++c) {
        double vol = 0, inside = 0;
        for (int64_t i = 0; i < A.n; ++i) {
            if (labels[static_cast<size_t>(i)] != c) continue;
            vol += d[static_cast<size_t>(i)];
            for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
                if (labels[static_cast<size_t>(A.indices[static_cast<size_t>(e)])] == c)
                    inside += A.values[static_cast<size_t>(e)];
            }
        }
        if (vol > 0) cut += (vol - inside) / vol;
    }
    EXPECT_NEAR(problem.normalized_cut(labels), cut, 1e-12);
}

}  // namespace
}  // namespace kkm::graph
