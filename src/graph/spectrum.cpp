// Spectra (header-only, on Eigen) runs the implicitly restarted Lanczos iterations; the
// matrix-vector products are ours, over the sparse rows in parallel blocks. Eigen's own
// products stay on one thread (EIGEN_DONT_PARALLELIZE) so that no result depends on the
// thread count.
#define EIGEN_DONT_PARALLELIZE
#include "graph/spectrum.h"

#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>
#include <Eigen/SparseCholesky>

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
/// Slowly mixing graphs (their top eigenvalues within 1e-7 of each other: a ring, a chain, a
/// grid, a road network) are sparse with small separators: at most this many entries per
/// node on average, their top pairs come from shift-invert first (when its factor is small),
/// where Lanczos on M needed minutes (a ring of 20000 nodes: 339 s). Denser graphs (the
/// q-NN graphs of rows, q >= 10; Fashion-MNIST converges in 24 restarts) take Lanczos on M,
/// and shift-invert only if that does not converge.
constexpr int64_t kSparseEntriesPerNode = 8;
/// Shift-invert's shift above the top eigenvalue 1: (1 + δ − λ)⁻¹ spreads the eigenvalues
/// next to 1 apart (a ring of 20000 nodes: 1 − λ₂ = 5e-8); σI − M stays SPD, its condition
/// 2/δ well within float64.
constexpr double kShiftAbove = 1e-6;
/// The factor's entries shift-invert may hold, per node: beyond it (a graph without small
/// separators fills in) the Lanczos iterations go on instead.
constexpr int64_t kFactorEntriesPerNode = 64;

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

/// A converged solver's nev pairs of component id, in its order, appended to out.
void append_pairs(const Eigen::VectorXd& values, const Eigen::MatrixXd& vectors, int32_t id, int64_t nev,
                  std::vector<ComponentPair>& out) {
    for (int64_t rank = 0; rank < nev; ++rank) {
        out.push_back({values[rank], id, rank,
                       std::vector<double>(vectors.col(rank).data(), vectors.col(rank).data() + vectors.rows())});
    }
}

/// A sparse LDLᵀ that reports its factor's size after the symbolic analysis.
class CountedLdlt : public Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> {
public:
    int64_t factor_entries() const { return m_nonZerosPerCol.cast<int64_t>().sum(); }
};

/// y = (M − σI)⁻¹ x for Spectra's shift-invert mode, M = D^-½ A D^-½, through one sparse LDLᵀ
/// of σI − M (single-threaded: the same bits for any thread count). ready() is false when its
/// factor would exceed kFactorEntriesPerNode entries per node or it is not positive definite.
class ShiftedInverse {
public:
    using Scalar = double;
    explicit ShiftedInverse(const Part& part) : part_(part) {}
    Eigen::Index rows() const { return part_.A.n; }
    Eigen::Index cols() const { return part_.A.n; }
    bool ready() const { return ready_; }
    void set_shift(double sigma) {
        const SparseGraph& A = part_.A;
        std::vector<Eigen::Triplet<double>> entries;
        entries.reserve(static_cast<size_t>(A.entries() + A.n));
        for (int64_t i = 0; i < A.n; ++i) {
            double diagonal = sigma;
            for (int64_t e = A.row_begin(i); e < A.row_end(i); ++e) {
                const int32_t j = A.indices[static_cast<size_t>(e)];
                const double v = static_cast<double>(A.values[static_cast<size_t>(e)]) *
                                 part_.scale[static_cast<size_t>(i)] * part_.scale[static_cast<size_t>(j)];
                if (j == i) {
                    diagonal -= v;
                } else if (j < i) {
                    entries.emplace_back(static_cast<int>(i), j, -v);  // the lower triangle
                }
            }
            entries.emplace_back(static_cast<int>(i), static_cast<int>(i), diagonal);
        }
        Eigen::SparseMatrix<double> B(A.n, A.n);
        B.setFromTriplets(entries.begin(), entries.end());
        std::vector<Eigen::Triplet<double>>().swap(entries);
        ldlt_.analyzePattern(B);
        if (ldlt_.info() != Eigen::Success || ldlt_.factor_entries() > kFactorEntriesPerNode * A.n) return;
        ldlt_.factorize(B);
        ready_ = ldlt_.info() == Eigen::Success && (ldlt_.vectorD().array() > 0).all();
    }
    void perform_op(const double* x, double* y) const {
        const Eigen::Map<const Eigen::VectorXd> in(x, part_.A.n);
        Eigen::Map<Eigen::VectorXd>(y, part_.A.n) = -ldlt_.solve(in);
    }

private:
    const Part& part_;
    CountedLdlt ldlt_;
    bool ready_ = false;
};

/// The top nev pairs by shift-invert (slowly mixing graphs); false when the factor is too
/// large or the iterations do not converge.
bool shift_invert_pairs(const Part& p, int32_t id, int64_t nev, int64_t ncv, const Eigen::VectorXd& start,
                        std::vector<ComponentPair>& out) {
    ShiftedInverse op(p);
    Spectra::SymEigsShiftSolver<ShiftedInverse> solver(op, nev, ncv, 1.0 + kShiftAbove);
    if (!op.ready()) return false;
    solver.init(start.data());
    solver.compute(Spectra::SortRule::LargestMagn, 1000, kTolerance);
    if (solver.info() != Spectra::CompInfo::Successful) return false;
    append_pairs(solver.eigenvalues(), solver.eigenvectors(), id, nev, out);
    return true;
}

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
    const int64_t first_ncv = std::min(m, std::max(2 * nev + 1, nev + 20));
    const bool sparse = p.A.entries() <= kSparseEntriesPerNode * m;
    if (sparse && shift_invert_pairs(p, id, nev, first_ncv, start, out)) return;
    for (int64_t ncv = first_ncv;; ncv = std::min(m, 2 * ncv)) {
        Spectra::SymEigsSolver<NormalizedAdjacency> solver(op, nev, ncv);
        solver.init(start.data());
        solver.compute(Spectra::SortRule::LargestAlge, 1000, kTolerance);
        if (solver.info() != Spectra::CompInfo::Successful && ncv == first_ncv && !sparse &&
            shift_invert_pairs(p, id, nev, first_ncv, start, out)) {
            return;
        }
        if (solver.info() == Spectra::CompInfo::Successful) {
            append_pairs(solver.eigenvalues(), solver.eigenvectors(), id, nev, out);
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
    // Shift-invert on a sparse graph: the factor (index and value per entry), σI − S and its
    // triplets, beside a basis of the first ncv. (A denser graph takes it only when Lanczos
    // fails to converge, beyond the estimate.)
    const bool sparse = entries <= static_cast<double>(kSparseEntriesPerNode) * n;
    const double factor = sparse ? 12.0 * static_cast<double>(kFactorEntriesPerNode) * n + 28 * (entries + n) : 0.0;
    return lanczos + factor + 12 * entries + 28 * n + 2 * 8.0 * dense * dense + Matrix::footprint(n, r);
}

}  // namespace kkm::graph
