// The processes one fit spans. A single-process fit runs on SoloComm (one rank: every
// collective is a copy); libkkmeans_mpi passes an MPI communicator behind the same interface,
// so the core library never depends on MPI. Every reduction goes through allgather and is
// summed here in rank order: a fixed number of ranks gives the same bits on every run and on
// every rank (no MPI_SUM order dependence).
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/matrix.h"
#include "core/rng.h"

namespace kkm {

/// Every collective step of several ranks starts with a status word from each rank: 0 to go
/// on, or the status of an error that rank cannot recover from where it is (an allocation
/// failing inside a stage, between collective steps). A rank that meets such an error calls
/// abandon() (kkm_fit_mpi's entry point does, for any error the others do not know of): at
/// their next collective step the other ranks find its status, and every rank throws the same
/// CollectiveError instead of waiting for a rank that will never come.
class Comm {
public:
    virtual ~Comm() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// Collective: every rank's `bytes` bytes (the same count on every rank), concatenated in
    /// rank order into out (size() · bytes). Throws CollectiveError when a rank abandoned.
    void allgather(const void* mine, size_t bytes, void* out) const;
    /// Collective: every rank's bytes (counts may differ, 0 included), concatenated in rank
    /// order into out; counts[r] receives rank r's byte count. Throws CollectiveError when a
    /// rank abandoned.
    void allgatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const;
    /// Collective with whatever step the other ranks are at: tells them that this rank gives
    /// up with (status, message), and throws the CollectiveError every rank throws (that of
    /// the lowest rank that gave up, should several).
    [[noreturn]] void abandon(int status, const std::string& message) const;

protected:
    /// The transport's gathers, as allgather and allgatherv above without the status word.
    virtual void gather(const void* mine, size_t bytes, void* out) const = 0;
    virtual void gatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const = 0;
    /// Every rank's status word, in rank order (a gather of one int32 unless overridden).
    virtual void gather_status(int32_t mine, int32_t* all) const { gather(&mine, sizeof mine, all); }

private:
    /// The status words of one collective step (this rank's: `mine`); throws CollectiveError
    /// with the lowest nonzero rank's status and message when there is one.
    void agree_on_status(int32_t mine, const std::string& message) const;
};

/// One process: rank 0 of 1 (no status words: nobody to tell).
class SoloComm final : public Comm {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }

protected:
    void gather(const void* mine, size_t bytes, void* out) const override;
    void gatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const override;
};

// Comm's protocol is defined here, inline: libkkmeans_mpi's communicator (another shared
// object, which sees none of libkkmeans' hidden symbols) uses it too.
inline void Comm::allgather(const void* mine, size_t bytes, void* out) const {
    if (size() > 1) agree_on_status(0, {});
    gather(mine, bytes, out);
}

inline void Comm::allgatherv(const void* mine, size_t bytes, std::vector<char>& out, std::vector<size_t>& counts) const {
    if (size() > 1) agree_on_status(0, {});
    gatherv(mine, bytes, out, counts);
}

inline void Comm::abandon(int status, const std::string& message) const {
    if (size() == 1) throw CollectiveError(static_cast<kkm_status>(status), message);
    agree_on_status(status != 0 ? status : KKM_ERR_INTERNAL, message);
    throw CollectiveError(KKM_ERR_INTERNAL, "internal error: an abandoned fit went on");  // not reached
}

inline void Comm::agree_on_status(int32_t mine, const std::string& message) const {
    std::vector<int32_t> all(static_cast<size_t>(size()));
    gather_status(mine, all.data());
    const auto first = std::find_if(all.begin(), all.end(), [](int32_t s) { return s != 0; });
    if (first == all.end()) return;
    // Every rank that gave up sends its message; the lowest one's is every rank's error.
    std::vector<char> text;
    std::vector<size_t> counts;
    gatherv(message.data(), mine != 0 ? message.size() : 0, text, counts);
    const auto root = static_cast<size_t>(first - all.begin());
    size_t at = 0;
    for (size_t r = 0; r < root; ++r) at += counts[r];
    throw CollectiveError(static_cast<kkm_status>(*first),
                          std::string(text.begin() + static_cast<std::ptrdiff_t>(at),
                                      text.begin() + static_cast<std::ptrdiff_t>(at + counts[root])) +
                              " (rank " + std::to_string(root) + " gave up the fit there; every rank stops)");
}

/// The shared single-process communicator (stateless).
const Comm& solo_comm();

/// Where this rank's rows sit in the global row numbering (ranks in order).
struct RowPartition {
    int64_t offset = 0;           ///< global index of this rank's first row
    int64_t local = 0;            ///< this rank's row count
    int64_t global = 0;           ///< rows over all ranks
    std::vector<int64_t> starts;  ///< size()+1 offsets: rank r holds [starts[r], starts[r+1])
    /// The rank holding global row i (i in [0, global)).
    int owner(int64_t i) const;
    bool holds(int64_t i) const { return i >= offset && i < offset + local; }
};

/// One process's partition of n rows (no collective call).
RowPartition solo_partition(int64_t n);

/// Collective: the partition of `local` rows per rank.
RowPartition partition_rows(const Comm& comm, int64_t local);

/// Collective: v ← Σ over ranks of v, added in rank order (identical on every rank).
void sum_over_ranks(const Comm& comm, double* v, size_t len);
double sum_over_ranks(const Comm& comm, double v);
/// Collective: true when `flag` is true on any rank / on every rank.
bool any_rank(const Comm& comm, bool flag);
bool every_rank(const Comm& comm, bool flag);
/// Collective: the largest of the ranks' values.
int64_t max_over_ranks(const Comm& comm, int64_t v);
double max_over_ranks(const Comm& comm, double v);

/// Copies row `local_row` of this rank's table into out (cols floats).
using RowFetch = std::function<void(int64_t local_row, float* out)>;

/// Collective: rows `ids` (global indices, the same list on every rank) of a table spread over
/// the ranks by `part`, cols floats each, into out (ids.size() × cols) on every rank; each
/// rank supplies the rows it holds through `fetch`.
void share_rows(const Comm& comm, const RowPartition& part, const std::vector<int64_t>& ids, int64_t cols,
                const RowFetch& fetch, float* out);

/// Collective: rows idx (global indices, the same list on every rank) of X, a table spread over
/// the ranks by `part` (one process: X itself), as an idx.size() × X.cols Matrix on every rank.
Matrix rows_by_index(const Comm& comm, const RowPartition& part, ConstMatrix X, const std::vector<int64_t>& idx);

/// Where a draw u·T (u = rng.uniform(), drawn only when T > 0) lands among the ranks' shares, T the sum of the ranks' local totals
/// (added in rank order): the rank whose share holds it (the last rank with a positive total
/// when round-off leaves u·T past them all; -1 when T is not positive) and the target within
/// that share (u·T less the totals of the ranks before it).
struct DrawShare {
    int rank = -1;
    double target = 0;
    double total = 0;
};
/// Collective. One process: {0, u·T, T}, the single-process arithmetic unchanged.
DrawShare locate_draw(const Comm& comm, double local_total, Rng& rng);

/// Collective: rank `root`'s value of v on every rank.
int64_t broadcast_index(const Comm& comm, int64_t v, int root);

/// Collective: items 0..owners.size()-1 of cols floats each, item t held by rank owners[t]
/// (the same list on every rank), into out (owners.size() × cols) on every rank; each rank
/// supplies its items through fetch(t, out).
void gather_by_owner(const Comm& comm, const std::vector<int>& owners, int64_t cols,
                     const std::function<void(size_t item, float* out)>& fetch, float* out);

/// Collective: `bytes` bytes of rank `root` into data on every rank.
void broadcast(const Comm& comm, void* data, size_t bytes, int root);

/// Collective error agreement. Runs `work`, which must make no collective call; when it
/// throws kkm::Error on any rank, every rank throws the error of the lowest failing rank (same
/// status, same message), so nothing hangs and every rank reports the same thing. Other
/// exceptions (std::bad_alloc) count as KKM_ERR_OUT_OF_MEMORY / KKM_ERR_INTERNAL.
void collectively(const Comm& comm, const std::function<void()>& work);

}  // namespace kkm
