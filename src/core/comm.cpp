#include "core/comm.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/error.h"

namespace kkm {

void SoloComm::gather(const void* mine, size_t bytes, void* out) const {
    if (bytes > 0) std::memcpy(out, mine, bytes);
}

void SoloComm::gatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const {
    const auto* p = static_cast<const char*>(mine);
    out.assign(p, p + bytes);
    counts.assign(1, bytes);
}

const Comm& solo_comm() {
    static const SoloComm solo;  // stateless: no mutable global state
    return solo;
}

int RowPartition::owner(int64_t i) const {
    const auto it = std::upper_bound(starts.begin(), starts.end(), i);
    return static_cast<int>(it - starts.begin()) - 1;
}

RowPartition solo_partition(int64_t n) {
    RowPartition part;
    part.local = part.global = n;
    part.starts = {0, n};
    return part;
}

RowPartition partition_rows(const Comm& comm, int64_t local) {
    std::vector<int64_t> counts(static_cast<size_t>(comm.size()));
    comm.allgather(&local, sizeof local, counts.data());
    RowPartition part;
    part.local = local;
    part.starts.assign(1, 0);
    for (int64_t c : counts) part.starts.push_back(part.starts.back() + c);
    part.offset = part.starts[static_cast<size_t>(comm.rank())];
    part.global = part.starts.back();
    return part;
}

void sum_over_ranks(const Comm& comm, double* v, size_t len) {
    if (comm.size() == 1) return;
    std::vector<double> all(len * static_cast<size_t>(comm.size()));
    comm.allgather(v, len * sizeof(double), all.data());
    std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(len), v);
    for (int r = 1; r < comm.size(); ++r) {
        const double* part = all.data() + static_cast<size_t>(r) * len;
        for (size_t i = 0; i < len; ++i) v[i] += part[i];
    }
}

double sum_over_ranks(const Comm& comm, double v) {
    sum_over_ranks(comm, &v, 1);
    return v;
}

bool any_rank(const Comm& comm, bool flag) {
    return max_over_ranks(comm, int64_t{flag ? 1 : 0}) != 0;
}

bool every_rank(const Comm& comm, bool flag) {
    return !any_rank(comm, !flag);
}

int64_t max_over_ranks(const Comm& comm, int64_t v) {
    if (comm.size() == 1) return v;
    std::vector<int64_t> all(static_cast<size_t>(comm.size()));
    comm.allgather(&v, sizeof v, all.data());
    return *std::max_element(all.begin(), all.end());
}

double max_over_ranks(const Comm& comm, double v) {
    if (comm.size() == 1) return v;
    std::vector<double> all(static_cast<size_t>(comm.size()));
    comm.allgather(&v, sizeof v, all.data());
    return *std::max_element(all.begin(), all.end());
}

void gather_by_owner(const Comm& comm, const std::vector<int>& owners, int64_t cols,
                     const std::function<void(size_t item, float* out)>& fetch, float* out) {
    const auto width = static_cast<size_t>(cols);
    if (comm.size() == 1) {
        for (size_t t = 0; t < owners.size(); ++t) fetch(t, out + t * width);
        return;
    }
    // This rank's items in item order; the gather lists them rank by rank.
    std::vector<float> mine;
    for (size_t t = 0; t < owners.size(); ++t) {
        if (owners[t] != comm.rank()) continue;
        mine.resize(mine.size() + width);
        fetch(t, mine.data() + mine.size() - width);
    }
    std::vector<char> all;
    std::vector<size_t> counts;
    comm.allgatherv(mine.data(), mine.size() * sizeof(float), all, counts);
    std::vector<size_t> next(counts.size(), 0), begin(counts.size(), 0);
    for (size_t r = 1; r < counts.size(); ++r) begin[r] = begin[r - 1] + counts[r - 1];
    for (size_t t = 0; t < owners.size(); ++t) {
        const auto r = static_cast<size_t>(owners[t]);
        std::memcpy(out + t * width, all.data() + begin[r] + next[r] * width * sizeof(float), width * sizeof(float));
        ++next[r];
    }
}

void share_rows(const Comm& comm, const RowPartition& part, const std::vector<int64_t>& ids, int64_t cols,
                const RowFetch& fetch, float* out) {
    std::vector<int> owners(ids.size());
    for (size_t t = 0; t < ids.size(); ++t) owners[t] = comm.size() == 1 ? 0 : part.owner(ids[t]);
    gather_by_owner(
        comm, owners, cols, [&](size_t t, float* row) { fetch(ids[t] - part.offset, row); }, out);
}

Matrix rows_by_index(const Comm& comm, const RowPartition& part, ConstMatrix X, const std::vector<int64_t>& idx) {
    if (comm.size() == 1) return gather_rows(X, idx);
    Matrix rows(static_cast<int64_t>(idx.size()), X.cols);
    share_rows(
        comm, part, idx, X.cols, [&X](int64_t i, float* out) { std::copy(X.row(i), X.row(i) + X.cols, out); },
        rows.data());
    return rows;
}

void broadcast(const Comm& comm, void* data, size_t bytes, int root) {
    if (comm.size() == 1) return;
    std::vector<char> all;
    std::vector<size_t> counts;
    comm.allgatherv(data, comm.rank() == root ? bytes : 0, all, counts);
    if (bytes > 0) std::memcpy(data, all.data(), bytes);
}

DrawShare locate_draw(const Comm& comm, double local_total, Rng& rng) {
    std::vector<double> totals(static_cast<size_t>(comm.size()));
    comm.allgather(&local_total, sizeof local_total, totals.data());
    DrawShare share;
    share.total = totals[0];
    for (size_t r = 1; r < totals.size(); ++r) share.total += totals[r];
    if (!(share.total > 0)) return share;
    const double target = rng.uniform() * share.total;
    double before = 0;
    for (size_t r = 0; r < totals.size(); ++r) {
        if (!(totals[r] > 0)) continue;
        share.rank = static_cast<int>(r);
        share.target = target - before;
        if (before + totals[r] > target) break;
        before += totals[r];
    }
    return share;
}

int64_t broadcast_index(const Comm& comm, int64_t v, int root) {
    broadcast(comm, &v, sizeof v, root);
    return v;
}

void agree_on_error(const Comm& comm, int status, const std::string& message) {
    if (comm.size() == 1) {
        if (status != 0) fail(static_cast<kkm_status>(status), message);
        return;
    }
    std::vector<int> statuses(static_cast<size_t>(comm.size()));
    comm.allgather(&status, sizeof status, statuses.data());
    const auto first = std::find_if(statuses.begin(), statuses.end(), [](int s) { return s != 0; });
    if (first == statuses.end()) return;
    const int root = static_cast<int>(first - statuses.begin());
    std::vector<char> all;
    std::vector<size_t> counts;
    comm.allgatherv(message.data(), comm.rank() == root ? message.size() : 0, all, counts);
    throw CollectiveError(static_cast<kkm_status>(*first), std::string(all.begin(), all.end()));
}

void collectively(const Comm& comm, const std::function<void()>& work) {
    int status = 0;
    std::string message;
    try {
        work();
    } catch (const Error& e) {
        status = e.status();
        message = e.what();
    } catch (const std::bad_alloc&) {
        status = KKM_ERR_OUT_OF_MEMORY;
        message = "out of memory (an allocation failed)";
    } catch (const std::exception& e) {
        status = KKM_ERR_INTERNAL;
        message = std::string("internal error: ") + e.what();
    }
    agree_on_error(comm, status, message);
}

}  // namespace kkm
