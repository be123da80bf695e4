#include "cluster/minibatch_centres.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace kkm {

CentreHistory::CentreHistory(int64_t seed) : base_{{seed}, {1.0}} {}

CentreHistory::CentreHistory(SparseCentre base, std::deque<BatchTerm> terms)
    : base_(std::move(base)), terms_(std::move(terms)) {
    for (const BatchTerm& t : terms_) term_points_ += static_cast<int64_t>(t.points.size());
}

void CentreHistory::renumber(const std::vector<int64_t>& support) {
    const auto position = [&](int64_t& p) { p = std::lower_bound(support.begin(), support.end(), p) - support.begin(); };
    for (int64_t& p : base_.points) position(p);
    for (BatchTerm& t : terms_) {
        for (int64_t& p : t.points) position(p);
    }
}

void CentreHistory::add(int64_t iteration, std::vector<int64_t> points, double alpha) {
    if (alpha >= 1.0) {  // (1 − α) = 0: the older terms and C_1 no longer count
        terms_.clear();
        term_points_ = 0;
        base_ = {};
    }
    std::sort(points.begin(), points.end());
    term_points_ += static_cast<int64_t>(points.size());
    terms_.push_front({iteration, alpha, std::move(points)});
}

bool CentreHistory::truncate(int64_t tau) {
    int64_t count = 0;
    size_t keep = 0;  // |Q| in terms
    while (keep < terms_.size() && count < tau) count += static_cast<int64_t>(terms_[keep++].points.size());
    if (count < tau || terms_[keep - 1].iteration == 1) return false;  // min Q = 1
    const bool dropped = keep < terms_.size() || !base_.points.empty();
    for (size_t t = keep; t < terms_.size(); ++t) term_points_ -= static_cast<int64_t>(terms_[t].points.size());
    terms_.resize(keep);
    base_ = {};
    return dropped;
}

void CentreHistory::fold() {
    base_ = coefficients();
    terms_.clear();
    term_points_ = 0;
}

double CentreHistory::mass() const {
    if (!base_.points.empty()) return 1.0;
    double rest = 1.0;
    for (const BatchTerm& t : terms_) rest *= 1.0 - t.alpha;
    return 1.0 - rest;
}

CentreHistory::Weights CentreHistory::weights(bool normalise) const {
    Weights w;
    for (const BatchTerm& t : terms_) {
        w.term.push_back(t.alpha * w.rest / static_cast<double>(t.points.size()));
        w.rest *= 1.0 - t.alpha;
    }
    w.scale = normalise && base_.points.empty() ? 1.0 / (1.0 - w.rest) : 1.0;
    return w;
}

SparseCentre CentreHistory::coefficients(bool normalise) const {
    std::vector<std::pair<int64_t, double>> parts;
    parts.reserve(static_cast<size_t>(term_points_) + base_.points.size());
    const Weights weight = weights(normalise);
    for (size_t t = 0; t < terms_.size(); ++t) {
        for (int64_t p : terms_[t].points) parts.emplace_back(p, weight.term[t]);
    }
    for (size_t s = 0; s < base_.points.size(); ++s) parts.emplace_back(base_.points[s], weight.rest * base_.coef[s]);
    std::stable_sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    SparseCentre c;
    for (auto [point, w] : parts) {
        w *= weight.scale;
        if (!c.points.empty() && c.points.back() == point) {
            c.coef.back() += w;
        } else {
            c.points.push_back(point);
            c.coef.push_back(w);
        }
    }
    return c;
}

double TermSums::pair(int64_t a, int64_t b) const {
    const auto at = [&](int64_t iteration) { return std::find(iterations_.begin(), iterations_.end(), iteration); };
    const auto ia = at(a), ib = at(b);
    if (ia == iterations_.end() || ib == iterations_.end()) return std::numeric_limits<double>::quiet_NaN();
    return sums_[static_cast<size_t>((ia - iterations_.begin()) * std::ssize(iterations_) +
                                     (ib - iterations_.begin()))];
}

void TermSums::follow(const CentreHistory& h, const std::function<double(const BatchTerm&)>& with_newest) {
    const std::deque<BatchTerm>& terms = h.terms();
    const auto t = std::ssize(terms);
    std::vector<double> sums(static_cast<size_t>(t * t));
    for (int64_t a = 0; a < t; ++a) {
        for (int64_t b = a; b < t; ++b) {
            const BatchTerm& ta = terms[static_cast<size_t>(a)];
            const BatchTerm& tb = terms[static_cast<size_t>(b)];
            const double v = a == 0 ? with_newest(tb) : pair(ta.iteration, tb.iteration);
            sums[static_cast<size_t>(a * t + b)] = sums[static_cast<size_t>(b * t + a)] = v;
        }
    }
    iterations_.clear();
    for (const BatchTerm& term : terms) iterations_.push_back(term.iteration);
    sums_ = std::move(sums);
}

void TermSums::rebuild(const CentreHistory& h, const std::function<double(int64_t, int64_t)>& kernel) {
    follow(h, [](const BatchTerm&) { return 0.0; });
    const std::deque<BatchTerm>& terms = h.terms();
    const auto t = std::ssize(terms);
    for (int64_t a = 0; a < t; ++a) {
        for (int64_t b = a; b < t; ++b) {
            double sum = 0;
            for (int64_t p : terms[static_cast<size_t>(a)].points) {
                for (int64_t q : terms[static_cast<size_t>(b)].points) sum += kernel(p, q);
            }
            sums_[static_cast<size_t>(a * t + b)] = sums_[static_cast<size_t>(b * t + a)] = sum;
        }
    }
}

double TermSums::squared_norm(const CentreHistory& h, bool normalise) const {
    if (!h.base().points.empty()) return std::numeric_limits<double>::quiet_NaN();
    const CentreHistory::Weights weight = h.weights(normalise);
    const std::vector<double>& w = weight.term;
    const double scale = weight.scale;
    double total = 0;
    for (size_t a = 0; a < w.size(); ++a) {
        for (size_t b = 0; b < w.size(); ++b) {
            total += w[a] * w[b] * pair(h.terms()[a].iteration, h.terms()[b].iteration);
        }
    }
    return total * scale * scale;
}

}  // namespace kkm
