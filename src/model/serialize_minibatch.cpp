#include "model/serialize_minibatch.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace kkm {
namespace {

[[noreturn]] void corrupted(const std::string& message) {
    fail(KKM_ERR_FORMAT, "corrupted model: the mini-batch history " + message);
}

/// The histories as flat arrays: per centre its base size and term count, per term its
/// iteration, alpha and point count, then every point and base coefficient in order.
struct FlatHistory {
    std::vector<double> seen, base_coef, alphas;
    std::vector<int64_t> base_sizes, base_points, term_counts, iterations, term_sizes, term_points;

    explicit FlatHistory(const MinibatchState& s) : seen(s.seen) {
        for (const CentreHistory& h : s.centres) {
            base_sizes.push_back(static_cast<int64_t>(h.base().points.size()));
            base_points.insert(base_points.end(), h.base().points.begin(), h.base().points.end());
            base_coef.insert(base_coef.end(), h.base().coef.begin(), h.base().coef.end());
            term_counts.push_back(static_cast<int64_t>(h.terms().size()));
            for (const BatchTerm& t : h.terms()) {
                iterations.push_back(t.iteration);
                alphas.push_back(t.alpha);
                term_sizes.push_back(static_cast<int64_t>(t.points.size()));
                term_points.insert(term_points.end(), t.points.begin(), t.points.end());
            }
        }
    }

    /// Reads the arrays in the order of the members (their initialisation order), which write keeps.
    explicit FlatHistory(Reader& r)
        : seen(r.array<double>(tag("MBSN"))),
          base_coef(r.array<double>(tag("MBBC"))),
          alphas(r.array<double>(tag("MBTA"))),
          base_sizes(r.array<int64_t>(tag("MBBN"))),
          base_points(r.array<int64_t>(tag("MBBP"))),
          term_counts(r.array<int64_t>(tag("MBTN"))),
          iterations(r.array<int64_t>(tag("MBTI"))),
          term_sizes(r.array<int64_t>(tag("MBTS"))),
          term_points(r.array<int64_t>(tag("MBTP"))) {}

    void write(Writer& w) const {
        w.array<double>(tag("MBSN"), seen);
        w.array<double>(tag("MBBC"), base_coef);
        w.array<double>(tag("MBTA"), alphas);
        w.array<int64_t>(tag("MBBN"), base_sizes);
        w.array<int64_t>(tag("MBBP"), base_points);
        w.array<int64_t>(tag("MBTN"), term_counts);
        w.array<int64_t>(tag("MBTI"), iterations);
        w.array<int64_t>(tag("MBTS"), term_sizes);
        w.array<int64_t>(tag("MBTP"), term_points);
    }
};

/// Σ of counts that are each ≥ `least`, or −1 when one is not.
int64_t total_of(const std::vector<int64_t>& counts, int64_t least) {
    int64_t total = 0;
    for (int64_t c : counts) {
        if (c < least || c > (int64_t{1} << 40)) return -1;
        total += c;
    }
    return total;
}

void require_total(const char* what, const std::vector<int64_t>& counts, int64_t least, size_t have) {
    if (total_of(counts, least) != static_cast<int64_t>(have)) {
        corrupted(std::string("has ") + std::to_string(have) + " " + what + " but its counts say otherwise");
    }
}

/// Sizes that add up, points among the basis, weights and rates in range.
void check(const FlatHistory& f, int64_t k, int64_t support) {
    const auto centres = static_cast<size_t>(k);
    if (f.seen.size() != centres || f.base_sizes.size() != centres || f.term_counts.size() != centres) {
        corrupted("does not hold k=" + std::to_string(k) + " centres");
    }
    require_total("base points", f.base_sizes, 0, f.base_points.size());
    require_total("base coefficients", f.base_sizes, 0, f.base_coef.size());
    require_total("batch terms", f.term_counts, 0, f.iterations.size());
    require_total("batch rates", f.term_counts, 0, f.alphas.size());
    require_total("batch terms", f.term_counts, 0, f.term_sizes.size());
    require_total("term points", f.term_sizes, 1, f.term_points.size());
    for (const auto* points : {&f.base_points, &f.term_points}) {
        for (int64_t p : *points) {
            if (p < 0 || p >= support) corrupted("names point " + std::to_string(p) + " outside its basis");
        }
    }
    for (double s : f.seen) {
        if (!(s >= 1)) corrupted("has a learning-rate count below 1");
    }
    for (double a : f.alphas) {
        if (!(a > 0 && a <= 1)) corrupted("has a learning rate outside (0, 1]");
    }
    for (double c : f.base_coef) {
        if (!(c >= 0)) corrupted("has a negative coefficient");
    }
    for (int64_t it : f.iterations) {
        if (it < 1) corrupted("has a batch numbered below 1");
    }
    for (size_t j = 0; j < centres; ++j) {
        if (f.base_sizes[j] == 0 && f.term_counts[j] == 0) corrupted("has an empty centre " + std::to_string(j));
    }
}

/// Centre j's history: its base, then its terms (newest first), read from the positions
/// `at` = {base point, term, term point} onwards, which it advances.
CentreHistory centre_of(const FlatHistory& f, size_t j, size_t at[3]) {
    const auto base_size = static_cast<size_t>(f.base_sizes[j]);
    SparseCentre base{{f.base_points.begin() + static_cast<std::ptrdiff_t>(at[0]),
                       f.base_points.begin() + static_cast<std::ptrdiff_t>(at[0] + base_size)},
                      {f.base_coef.begin() + static_cast<std::ptrdiff_t>(at[0]),
                       f.base_coef.begin() + static_cast<std::ptrdiff_t>(at[0] + base_size)}};
    at[0] += base_size;
    std::deque<BatchTerm> terms;
    for (int64_t t = 0; t < f.term_counts[j]; ++t, ++at[1]) {
        const auto size = static_cast<size_t>(f.term_sizes[at[1]]);
        const auto first = f.term_points.begin() + static_cast<std::ptrdiff_t>(at[2]);
        std::vector<int64_t> points(first, first + static_cast<std::ptrdiff_t>(size));
        if (!std::is_sorted(points.begin(), points.end())) corrupted("has a batch term out of order");
        terms.push_back({f.iterations[at[1]], f.alphas[at[1]], std::move(points)});
        at[2] += size;
    }
    return CentreHistory(std::move(base), std::move(terms));
}

}  // namespace

void save_minibatch_state(const MinibatchState& state, Writer& w) {
    if (state.centres.empty()) return;
    const FlatHistory flat(state);
    w.section(tag("MBST"), [&] { flat.write(w); });
}

MinibatchState load_minibatch_state(Reader& body, int64_t k, int64_t support, bool allowed) {
    if (body.peek_tag() != tag("MBST")) return {};
    if (!allowed) corrupted("is stored for parameters that keep none (method=minibatch with tau > 0 does)");
    Reader r = body.section(tag("MBST"));
    const FlatHistory flat(r);
    r.finish();
    check(flat, k, support);
    MinibatchState state;
    state.seen = flat.seen;
    size_t at[3] = {0, 0, 0};
    for (size_t j = 0; j < static_cast<size_t>(k); ++j) state.centres.push_back(centre_of(flat, j, at));
    return state;
}

}  // namespace kkm
