// Spectra (header-only, on Eigen) runs the implicitly restarted Lanczos iterations; the
// matrix-vector products are ours, over the sparse rows in parallel blocks. Eigen's own
// products stay on one thread (EIGEN_DONT_PARALLELIZE) so that no result depends on the
// thread count.
#define EIGEN_DONT_PARALLELIZE
#include "graph/spectrum.h"

#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "core/error.h"
#include "core/linalg.h"
#include "core/parallel.h"
#include "core/rng.h"
#include "engine/dgemm.h"

namespace kkm::graph {
namespace {

/// Rows per task of a matrix-vector product.
constexpr int64_t kProductRows = 2048;
/// Lanczos convergence: relative residual of each pair.
constexpr double kTolerance = 1e-7;

/// One component's graph, re-indexed from 0, and 1/sqrt(degree) of its nodes.
struct Part {
    SparseGraph A;
    std::vector<double> scale;
    std::vector<int64_t> nodes;  ///< global index of each local node
};

Part extract(const SparseGraph& A, const std::vector<double>& degree, const Components& parts, int32_t id) {
    Part p;
    std::vector<int32_t> local(static_cast<size_t>(A.n), -1);
    for (int64_t i = 0; i < A.n; ++i) {
        if (parts.of[static_cast<size_t>(i)] != id) continue;
        local[static_cast<size_t>(i)] = static_cast<int32_t>(p.nodes.size());
        p.nodes.push_back(i);
    }
    p.A.n = static_cast<int64_t>(p.nodes.size());
    p.A.indptr.assign(1, 0);
    for (int64_t i : p.nodes) {
        for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
            p.A.indices.push_back(local[static_cast<size_t>(A.indices[static_cast<size_t>(e)])]);
            p.A.values.push_back(A.values[static_cast<size_t>(e)]);
        }
        p.A.indptr.push_back(p.A.entries());
        p.scale.push_back(1.0 / std::sqrt(degree[static_cast<size_t>(i)]));
    }
    return p;
}

/// y = D^-½ A D^-½ x for Spectra, rows in parallel blocks (each y_i summed in column order).
class NormalizedAdjacency {
public:
    using Scalar = double;
    NormalizedAdjacency(const Part& part, int threads) : part_(part), threads_(threads) {}
    Eigen::Index rows() const { return part_.A.n; }
    Eigen::Index cols() const { return part_.A.n; }
    void perform_op(const double* x, double* y) const {
        const SparseGraph& A = part_.A;
        parallel_blocks(threads_, block_count(A.n, kProductRows), [&](int64_t b) {
            for (int64_t i = b * kProductRows; i < std::min(A.n, (b + 1) * kProductRows); ++i) {
                double s = 0;
                for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
                    const int32_t j = A.indices[static_cast<size_t>(e)];
                    s += static_cast<double>(A.values[static_cast<size_t>(e)]) * part_.scale[static_cast<size_t>(j)] *
                         x[j];
                }
                y[i] = part_.scale[static_cast<size_t>(i)] * s;
            }
        });
    }

private:
    const Part& part_;
    int threads_;
};

void dense_pairs(const Part& p, int32_t id, int64_t r, std::vector<ComponentPair>& out) {
    const int64_t m = p.A.n;
    std::vector<double> S(static_cast<size_t>(m * m), 0.0);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t e = p.A.row_begin(i); e < p.A.row_end(i); ++e) {
            const int32_t j = p.A.indices[static_cast<size_t>(e)];
            S[static_cast<size_t>(i * m + j)] = static_cast<double>(p.A.values[static_cast<size_t>(e)]) *
                                                p.scale[static_cast<size_t>(i)] * p.scale[static_cast<size_t>(j)];
        }
    }
    dense_component_pairs(m, S, id, r, out);
}

void lanczos_pairs(const Part& p, int32_t id, int64_t r, uint64_t seed, int threads, std::vector<ComponentPair>& out) {
    const int64_t m = p.A.n, nev = std::min(r, m - 1);
    NormalizedAdjacency op(p, threads);
    Eigen::VectorXd start(m);
    Rng rng(seed, Stream::graph, (uint64_t{1} << 40) | static_cast<uint64_t>(id));
    for (int64_t i = 0; i < m; ++i) start[i] = rng.uniform() - 0.5;
    for (int64_t ncv = std::min(m, std::max(2 * nev + 1, nev + 20));; ncv = std::min(m, 2 * ncv)) {
        Spectra::SymEigsSolver<NormalizedAdjacency> solver(op, nev, ncv);
        solver.init(start.data());
        solver.compute(Spectra::SortRule::LargestAlge, 1000, kTolerance);
        if (solver.info() == Spectra::CompInfo::Successful) {
            const Eigen::VectorXd values = solver.eigenvalues();
            const Eigen::MatrixXd vectors = solver.eigenvectors();
            for (int64_t rank = 0; rank < nev; ++rank) {
                out.push_back({values[rank], id, rank,
                               std::vector<double>(vectors.col(rank).data(), vectors.col(rank).data() + m)});
            }
            return;
        }
        if (ncv == m) {
            fail(KKM_ERR_INTERNAL, "heat kernel: the Lanczos eigen-solver did not converge on graph component " +
                                       std::to_string(id) + " (" + std::to_string(m) + " nodes, " +
                                       std::to_string(nev) + " eigenpairs); please report it");
        }
    }
}

/// Makes the entry of largest magnitude (the first, on ties) positive.
void fix_sign(std::vector<double>& v) {
    size_t at = 0;
    for (size_t i = 1; i < v.size(); ++i) {
        if (std::abs(v[i]) > std::abs(v[at])) at = i;
    }
    if (!v.empty() && v[at] < 0) {
        for (double& x : v) x = -x;
    }
}

}  // namespace

void dense_component_pairs(int64_t m, std::vector<double>& S, int32_t id, int64_t r, std::vector<ComponentPair>& out) {
    std::vector<double> w(static_cast<size_t>(m));
    engine::Dgemm products(engine::best_isa());
    linalg::dsyevd_rows(m, S.data(), w.data(), &products);
    for (int64_t rank = 0; rank < std::min(r, m); ++rank) {
        const int64_t e = m - 1 - rank;  // ascending order: the largest last
        out.push_back(
            {w[static_cast<size_t>(e)], id, rank, std::vector<double>(S.begin() + e * m, S.begin() + (e + 1) * m)});
    }
}

Eigenpairs merge_component_pairs(std::vector<ComponentPair> pairs, const std::vector<std::vector<int64_t>>& nodes,
                                 int64_t n, int64_t r, double floor) {
    std::stable_sort(pairs.begin(), pairs.end(), [](const ComponentPair& a, const ComponentPair& b) {
        if (a.value != b.value) return a.value > b.value;
        return a.part != b.part ? a.part < b.part : a.rank < b.rank;
    });
    int64_t kept = 0;
    while (kept < std::min<int64_t>(r, static_cast<int64_t>(pairs.size())) &&
           pairs[static_cast<size_t>(kept)].value > floor) {
        ++kept;
    }
    Eigenpairs out;
    out.vectors = Matrix(n, kept);
    for (int64_t l = 0; l < kept; ++l) {
        ComponentPair& pair = pairs[static_cast<size_t>(l)];
        fix_sign(pair.vector);
        out.values.push_back(pair.value);
        const std::vector<int64_t>& where = nodes[static_cast<size_t>(pair.part)];
        for (size_t i = 0; i < where.size(); ++i) out.vectors.row(where[i])[l] = static_cast<float>(pair.vector[i]);
    }
    return out;
}

Eigenpairs top_eigenpairs(const SparseGraph& A, const std::vector<double>& degree, const Components& parts, int64_t r,
                          uint64_t seed, int threads) {
    std::vector<ComponentPair> pairs;
    std::vector<std::vector<int64_t>> nodes(static_cast<size_t>(parts.count));
    for (int32_t id = 0; id < static_cast<int32_t>(parts.count); ++id) {
        const Part p = extract(A, degree, parts, id);
        if (p.A.n <= kDenseComponent) {
            dense_pairs(p, id, r, pairs);
        } else {
            lanczos_pairs(p, id, r, seed, threads, pairs);
        }
        nodes[static_cast<size_t>(id)] = p.nodes;
    }
    return merge_component_pairs(std::move(pairs), nodes, A.n, r, -std::numeric_limits<double>::infinity());
}

double eigenpairs_footprint(double n, double entries, double r) {
    const double ncv = std::min(n, std::max(2 * r + 1, r + 20));
    const double lanczos = 8 * n * (2 * 2 * ncv + 2 * r + 6);  // the basis at up to twice ncv, restarts, pairs
    const auto dense = static_cast<double>(kDenseComponent);
    return lanczos + 12 * entries + 28 * n + 2 * 8.0 * dense * dense + Matrix::footprint(n, r);
}

}  // namespace kkm::graph
