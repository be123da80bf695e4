#include "api/distributed_input.h"

#include <functional>
#include <string>

#include "core/error.h"
#include "core/validate.h"
#include "model/model.h"

namespace kkm {
namespace {

std::string rank_text(const Comm& comm) {
    return "rank " + std::to_string(comm.rank()) + " of " + std::to_string(comm.size());
}

/// collectively(), with " (on WHERE)" appended to the message of the rank that failed.
void check_on_this_rank(const Comm& comm, const std::string& where, const std::function<void()>& check) {
    collectively(comm, [&] {
        try {
            check();
        } catch (const Error& e) {
            throw Error(e.status(), std::string(e.what()) + " (on " + where + ")");
        }
    });
}

/// Every rank's value of a plain struct, in rank order.
template <class T>
std::vector<T> gather(const Comm& comm, const T& mine) {
    std::vector<T> all(static_cast<size_t>(comm.size()));
    comm.allgather(&mine, sizeof mine, all.data());
    return all;
}

/// Every rank's string, in rank order.
std::vector<std::string> gather_strings(const Comm& comm, const std::string& mine) {
    std::vector<char> all;
    std::vector<size_t> counts;
    comm.allgatherv(mine.data(), mine.size(), all, counts);
    std::vector<std::string> out;
    size_t at = 0;
    for (const size_t count : counts) {
        out.emplace_back(all.data() + at, count);
        at += count;
    }
    return out;
}

/// The value of parameter `index` in a "value\0value\0..." list of every parameter.
std::string nth_value(const std::string& values, size_t index) {
    size_t begin = 0;
    for (size_t i = 0; i < index; ++i) begin = values.find('\0', begin) + 1;
    return values.substr(begin, values.find('\0', begin) - begin);
}

struct Shape {
    int64_t rows;
    int64_t cols;
};

struct WeightShare {
    int64_t rows;
    int64_t given;
    double total;
};

}  // namespace

void require_local_arguments(const Comm& comm, const void* model, const float* X, int64_t n_local, int64_t d) {
    check_on_this_rank(comm, rank_text(comm), [&] {
        require_pointer(model, "model");
        if (n_local < 0) {
            invalid_argument("n_local (this rank's number of rows) must be >= 0, got " + std::to_string(n_local));
        }
        if (d <= 0) invalid_argument("d (number of columns) must be > 0, got " + std::to_string(d));
        if (n_local > 0 && X == nullptr) {
            invalid_argument("X is NULL but n_local=" + std::to_string(n_local) + " rows are to be read from it");
        }
        require_product(n_local, "n_local", d, "d", sizeof(float), "X");
    });
}

// The checks below work on values gathered from every rank: each rank computes the same
// verdict from the same values, so they need no further agreement.

RowPartition agree_on_shape(const Comm& comm, int64_t n_local, int64_t d) {
    const std::vector<Shape> all = gather(comm, Shape{n_local, d});
    for (size_t r = 1; r < all.size(); ++r) {
        if (all[r].cols == all[0].cols) continue;
        invalid_argument("d differs between ranks: rank 0 has d=" + std::to_string(all[0].cols) + " but rank " +
                         std::to_string(r) + " has d=" + std::to_string(all[r].cols) +
                         "; every rank must pass the same number of columns");
    }
    RowPartition part;
    part.starts.assign(1, 0);
    for (size_t r = 0; r < all.size(); ++r) {
        int64_t next = 0;
        if (__builtin_add_overflow(part.starts.back(), all[r].rows, &next)) {
            invalid_argument("the ranks' row counts add up to more than int64 holds (at rank " + std::to_string(r) +
                             ", n_local=" + std::to_string(all[r].rows) + ")");
        }
        part.starts.push_back(next);
    }
    part.global = part.starts.back();
    if (part.global == 0) invalid_argument("no rows to fit: n_local is 0 on every rank");
    part.offset = part.starts[static_cast<size_t>(comm.rank())];
    part.local = n_local;
    return part;
}

void require_same_params(const Comm& comm, const ParamSet& params) {
    const std::vector<ParamSpec>& table = param_table();
    std::string mine;
    for (const ParamSpec& spec : table) mine.append(params.get(spec.name)).push_back('\0');
    const std::vector<std::string> all = gather_strings(comm, mine);
    for (size_t r = 1; r < all.size(); ++r) {
        if (all[r] == all[0]) continue;
        for (size_t i = 0; i < table.size(); ++i) {
            const std::string first = nth_value(all[0], i), other = nth_value(all[r], i);
            if (first == other || std::string(table[i].name) == "threads") continue;
            invalid_argument("parameters differ between ranks: rank 0 has " + std::string(table[i].name) + "=" + first +
                             " but rank " + std::to_string(r) + " has " + table[i].name + "=" + other +
                             "; set the same parameters on every rank (only threads may differ)");
        }
    }
}

std::vector<float> check_local_data(const Comm& comm, const RowPartition& part, const Params& params, const float* X,
                                    int64_t d, const float* weights) {
    collectively(comm, [&] { require_fit_sizes(params, part.global, d); });
    std::vector<float> w;
    const std::string where = rank_text(comm) + ", which holds rows " + std::to_string(part.offset) + " to " +
                              std::to_string(part.offset + part.local - 1);
    check_on_this_rank(comm, where, [&] {
        require_finite(ConstMatrix{X, part.local, d}, "X", part.offset);
        if (weights != nullptr && part.local > 0) w = weight_values(weights, part.local, part.offset);
    });
    return w;
}

void agree_on_weights(const Comm& comm, const RowPartition& part, const std::vector<float>& weights, bool given) {
    double total = 0;
    for (const float v : weights) total += v;
    const std::vector<WeightShare> all = gather(comm, WeightShare{part.local, given ? 1 : 0, total});
    int with = -1, without = -1;
    for (size_t r = 0; r < all.size(); ++r) {
        if (all[r].rows == 0) continue;
        int& first = all[r].given != 0 ? with : without;
        if (first < 0) first = static_cast<int>(r);
    }
    if (with >= 0 && without >= 0) {
        invalid_argument("weights are given on rank " + std::to_string(with) + " but NULL on rank " +
                         std::to_string(without) + " (which holds " +
                         std::to_string(all[static_cast<size_t>(without)].rows) +
                         " rows); pass weights on every rank that holds rows, or on none (a rank without "
                         "rows may pass NULL)");
    }
    if (with < 0) return;
    double sum = 0;
    for (const WeightShare& share : all) sum += share.total;
    if (!(sum > 0)) invalid_data("weights: all weights are zero on every rank; at least one must be positive");
}

}  // namespace kkm
