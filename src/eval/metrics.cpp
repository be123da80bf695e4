#include "eval/metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace kkm {
namespace {

/// Dense ids 0..c-1 for arbitrary label values.
std::vector<int64_t> dense_ids(const int32_t* labels, int64_t n, int64_t& count) {
    std::vector<int32_t> values(labels, labels + n);
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    count = static_cast<int64_t>(values.size());
    std::vector<int64_t> ids(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        ids[static_cast<size_t>(i)] = std::lower_bound(values.begin(), values.end(), labels[i]) - values.begin();
    }
    return ids;
}

struct Contingency {
    std::map<std::pair<int64_t, int64_t>, double> cells;
    std::vector<double> rows, cols;
};

Contingency contingency(const int32_t* a, const int32_t* b, int64_t n) {
    int64_t ca = 0, cb = 0;
    const std::vector<int64_t> ia = dense_ids(a, n, ca), ib = dense_ids(b, n, cb);
    Contingency t;
    t.rows.assign(static_cast<size_t>(ca), 0.0);
    t.cols.assign(static_cast<size_t>(cb), 0.0);
    for (int64_t i = 0; i < n; ++i) {
        t.cells[{ia[static_cast<size_t>(i)], ib[static_cast<size_t>(i)]}] += 1.0;
        t.rows[static_cast<size_t>(ia[static_cast<size_t>(i)])] += 1.0;
        t.cols[static_cast<size_t>(ib[static_cast<size_t>(i)])] += 1.0;
    }
    return t;
}

double pairs(double x) {
    return x * (x - 1.0) / 2.0;
}

double entropy(const std::vector<double>& counts, double n) {
    double h = 0;
    for (double c : counts) {
        if (c > 0) h -= (c / n) * std::log(c / n);
    }
    return h;
}

}  // namespace

double adjusted_rand_index(const int32_t* a, const int32_t* b, int64_t n) {
    const Contingency t = contingency(a, b, n);
    const double dn = static_cast<double>(n);
    if ((t.rows.size() == 1 && t.cols.size() == 1) ||
        (static_cast<int64_t>(t.cells.size()) == n && static_cast<int64_t>(t.rows.size()) == n &&
         static_cast<int64_t>(t.cols.size()) == n)) {
        return 1.0;
    }
    double index = 0, sum_rows = 0, sum_cols = 0;
    for (const auto& cell : t.cells) index += pairs(cell.second);
    for (double r : t.rows) sum_rows += pairs(r);
    for (double c : t.cols) sum_cols += pairs(c);
    const double expected = sum_rows * sum_cols / pairs(dn);
    const double maximum = 0.5 * (sum_rows + sum_cols);
    if (maximum == expected) return 1.0;
    return (index - expected) / (maximum - expected);
}

double normalized_mutual_info(const int32_t* a, const int32_t* b, int64_t n) {
    const Contingency t = contingency(a, b, n);
    if (t.rows.size() == t.cols.size() && (t.rows.size() == 1 || t.rows.empty())) return 1.0;
    const double dn = static_cast<double>(n);
    double mi = 0;
    for (const auto& [key, count] : t.cells) {
        const double r = t.rows[static_cast<size_t>(key.first)], c = t.cols[static_cast<size_t>(key.second)];
        mi += (count / dn) * std::log(count * dn / (r * c));
    }
    const double norm = 0.5 * (entropy(t.rows, dn) + entropy(t.cols, dn));
    if (!(norm > 0)) return 0.0;
    return std::max(0.0, mi) / norm;
}

}  // namespace kkm
