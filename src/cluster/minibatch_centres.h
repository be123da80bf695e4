// The sparse bookkeeping of one mini-batch kernel k-means centre (mini-batch kernel k-means,
// 2024, Section 4.1 and Algorithm 2). A centre is kept as its unrolled recursion
//     C_{i+1} = Σ_{ℓ ≤ i} α_ℓ cm(B_ℓ) Π_{ℓ < ℓ' ≤ i} (1 − α_ℓ')  +  C_1 Π_{ℓ ≤ i} (1 − α_ℓ),
// one term per batch that gave the centre points (batches that gave none have α = 0 and
// change nothing), so that truncation can drop the oldest terms and the coefficients of
// equation (1) can be rebuilt exactly.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace kkm {

/// Σ_s coef[s] · φ(x_{points[s]}), points distinct.
struct SparseCentre {
    std::vector<int64_t> points;
    std::vector<double> coef;
};

/// One batch's term α_ℓ cm(B_ℓ^j) of a centre.
struct BatchTerm {
    int64_t iteration = 0;        ///< ℓ, counted from 1
    double alpha = 0;             ///< α_ℓ^j
    std::vector<int64_t> points;  ///< B_ℓ^j, sorted, with multiplicity (b_ℓ^j = size)
};

/// Bytes one BatchTerm takes in a centre's deque besides its points: the term and its slot.
inline constexpr double kBatchTermBytes = 96;
static_assert(sizeof(BatchTerm) <= kBatchTermBytes / 2, "kBatchTermBytes: the term and as much again for its slot");

class CentreHistory {
public:
    /// C_1 = φ(x_seed).
    explicit CentreHistory(int64_t seed);
    /// A centre as base() and terms() gave it (a saved model's): base empty once dropped;
    /// terms newest first, each with sorted points.
    CentreHistory(SparseCentre base, std::deque<BatchTerm> terms);

    /// C ← (1 − α) C + α cm(points), points non-empty, 0 < α ≤ 1. With α = 1 every older
    /// term has coefficient 0 and is forgotten at once (the recursion still holds exactly).
    void add(int64_t iteration, std::vector<int64_t> points, double alpha);

    /// Truncation to Q (equation (1)): keeps the newest terms whose counts first add up to
    /// at least tau (tau ≥ 1) and drops every older term; the initial centre C_1 is dropped
    /// too unless min Q = 1, i.e. unless the counts never reach tau or the term that reaches
    /// it is the one from iteration 1. Returns true when anything was dropped: the centre is
    /// then no longer (1 − α) C + α cm(B) of the previous one.
    bool truncate(int64_t tau);

    /// Folds every term into the base centre (the coefficients as they are now), so that an
    /// untruncated centre holds at most n points plus the terms added since. Never call it
    /// on a truncated run: truncation must be able to drop individual terms.
    void fold();

    /// Every point index p (in the base and the terms) becomes its position in `support`,
    /// which is sorted, distinct and holds them all: the centre over a gathered support.
    void renumber(const std::vector<int64_t>& support);

    /// C_1 (or the folded history); empty once dropped.
    const SparseCentre& base() const { return base_; }
    /// The batch terms, newest first.
    const std::deque<BatchTerm>& terms() const { return terms_; }

    /// Points held by the terms, with multiplicity.
    int64_t term_points() const { return term_points_; }

    /// Σ of the coefficients: 1 while C_1 is kept, 1 − Π_{ℓ∈Q} (1 − α_ℓ) once dropped.
    double mass() const;

    /// The coefficients: terms newest first with the running product of (1 − α), then the
    /// base centre; points ascending, duplicates merged (summed newest first). normalise:
    /// divided by mass() once C_1 is dropped, so that the centre stays a convex combination.
    SparseCentre coefficients(bool normalise = false) const;

    /// coefficients(normalise) by term: the centre is scale · (Σ_t term[t] Σ_{p∈B_t} φ(p) +
    /// rest · base()), term[t] = α_t Π_{newer}(1 − α) / |B_t| (terms newest first).
    struct Weights {
        std::vector<double> term;
        double rest = 1;   ///< Π (1 − α) over every term
        double scale = 1;  ///< 1 / mass() when normalised with C_1 dropped, else 1
    };
    Weights weights(bool normalise = false) const;

private:
    SparseCentre base_;            ///< C_1 (or the folded history); empty once dropped
    std::deque<BatchTerm> terms_;  ///< newest first
    int64_t term_points_ = 0;
};

/// S_st = Σ_{a∈B_s, b∈B_t} K(a, b) for every pair of one centre's batch terms, so that ⟨C, C⟩
/// after a truncation (C_1 dropped) is Σ_st w_s w_t S_st with w_t a term's per-point
/// coefficient: no kernel values of its own. A truncated iteration's kernel block (the batch
/// against the batch and every centre's support) holds every pair its new term makes; the
/// older pairs were there when their terms were new.
class TermSums {
public:
    /// Follows h after its newest term was added (and h truncated): keeps the pairs of terms
    /// still in h, takes the newest term's pair with each term t (itself included) from
    /// with_newest(t), and forgets the rest.
    void follow(const CentreHistory& h, const std::function<double(const BatchTerm&)>& with_newest);
    /// Every pair of h's terms from kernel(p, q) over their points (a centre whose older
    /// pairs were never seen: a resumed run's).
    void rebuild(const CentreHistory& h, const std::function<double(int64_t, int64_t)>& kernel);
    /// ⟨C, C⟩ of h, whose C_1 must be dropped, with the coefficients of
    /// h.coefficients(normalise); NaN when a pair is unknown.
    double squared_norm(const CentreHistory& h, bool normalise) const;

private:
    /// S of the terms of iterations a and b, NaN when unknown.
    double pair(int64_t a, int64_t b) const;

    std::vector<int64_t> iterations_;  ///< the terms' iterations, as in the history
    std::vector<double> sums_;         ///< iterations_.size()², symmetric
};

}  // namespace kkm
