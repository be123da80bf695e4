// Errors of kkm_fit_mpi are collective: bad arguments, data or parameters on any rank give
// every rank the same status and the same message (gathered and compared here), naming the
// rank and the global row; nothing hangs (the test runs under a timeout). A memory refusal
// on one rank is a refusal on all; methods not distributed yet are refused on every rank.
// Run under mpirun -np P (tests/meson.build: P = 1, 2, 3, 4).
#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "mpi_fit_util.h"

using namespace mpi_test;

namespace {

const std::string kParams = "k=2 kernel=rbf gamma=0.5 method=nystrom m=50 seed=1 threads=1";

/// Checks that every rank got the same status and message (read from kkm_last_error() right
/// after the call), that the status is `want`, and that the message holds every word.
void expect_collective_outcome(Checks& t, MPI_Comm comm, kkm_status got, const std::string& message, kkm_status want,
                               const std::vector<std::string>& words) {
    const std::string outcome = std::string(kkm_status_string(got)) + ": " + message;
    t.expect(same_on_every_rank(comm, outcome), "the ranks disagree; this one has " + outcome);
    t.expect(got == want, std::string("expected ") + kkm_status_string(want) + ", got " + outcome);
    for (const std::string& w : words)
        t.expect(contains(message, w), "message \"" + message + "\" lacks \"" + w + "\"");
}

void expect_collective(Checks& t, MPI_Comm comm, kkm_status got, kkm_status want,
                       const std::vector<std::string>& words) {
    expect_collective_outcome(t, comm, got, got == KKM_OK ? "" : kkm_last_error(), want, words);
}

/// This rank's share of a data set in buffers of its own, which a test may damage.
struct Share {
    std::vector<float> X;
    std::vector<float> w;  ///< all ones
    int64_t rows = 0;
    int64_t offset = 0;
    int64_t d = 0;
    const float* x() const { return rows > 0 ? X.data() : nullptr; }
};

Share share_of(MPI_Comm comm, const Data& ds, const Split& split) {
    const int rank = rank_of(comm);
    Share s;
    s.rows = split[static_cast<size_t>(rank)];
    s.offset = offset_of(split, rank);
    s.d = ds.d;
    s.X.assign(ds.X.begin() + s.offset * ds.d, ds.X.begin() + (s.offset + s.rows) * ds.d);
    s.w.assign(static_cast<size_t>(s.rows), 1.0f);
    return s;
}

struct Context {
    MPI_Comm comm;
    int rank;
    int ranks;
    int bad;  ///< the rank that passes the bad input: the last one
    Data data;
    Split split;  ///< uneven: every rank holds rows
    Share share;
    std::string where() const { return "rank " + std::to_string(bad) + " of " + std::to_string(ranks); }
};

/// kkm_fit_mpi of a fresh model with these parameters.
kkm_status fit(const Context& c, const std::string& params, const float* X, int64_t rows, int64_t d, const float* w) {
    Model m = make_model(params);
    return kkm_fit_mpi(m.get(), c.comm, X, rows, d, w);
}

void argument_errors(Suite& suite, const Context& c) {
    const bool bad = c.rank == c.bad;
    const Share& s = c.share;
    suite.run("errors/null_model_on_one_rank", [&](Checks& t) {
        Model m = make_model(kParams);
        const kkm_status got = kkm_fit_mpi(bad ? nullptr : m.get(), c.comm, s.x(), s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT, {"model is NULL", c.where()});
    });
    suite.run("errors/null_X_with_rows_on_one_rank", [&](Checks& t) {
        const kkm_status got = fit(c, kParams, bad ? nullptr : s.x(), s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT,
                          {"X is NULL", "n_local=" + std::to_string(c.split.back()), c.where()});
    });
    suite.run("errors/negative_n_local_on_one_rank", [&](Checks& t) {
        const kkm_status got = fit(c, kParams, s.x(), bad ? -1 : s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT, {"n_local", "got -1", c.where()});
    });
    suite.run("errors/d_zero_on_one_rank", [&](Checks& t) {
        const kkm_status got = fit(c, kParams, s.x(), s.rows, bad ? 0 : s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT,
                          {"d (number of columns) must be > 0, got 0", c.where()});
    });
    suite.run("errors/no_rows_on_any_rank", [&](Checks& t) {
        const kkm_status got = fit(c, kParams, nullptr, 0, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT, {"no rows"});
    });
    suite.run("errors/k_exceeds_the_global_row_count", [&](Checks& t) {
        // 40 rows in all, every rank holding fewer than k = 50: the global count is compared.
        const Split split = even_split(40, c.ranks);
        const Share small = share_of(c.comm, c.data, split);
        const kkm_status got =
            fit(c, "k=50 gamma=0.5 method=nystrom m=40 threads=1", small.x(), small.rows, small.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT, {"k=50", "n=40"});
    });
    suite.run("errors/mpi_comm_null", [&](Checks& t) {
        Model m = make_model(kParams);
        const kkm_status got = kkm_fit_mpi(m.get(), MPI_COMM_NULL, s.x(), s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT, {"MPI_COMM_NULL"});
    });
    if (c.ranks == 1) return;
    suite.run("errors/d_differs_between_ranks", [&](Checks& t) {
        const std::vector<float> wide(static_cast<size_t>(s.rows * 3), 0.5f);
        const kkm_status got = fit(c, kParams, bad ? wide.data() : s.x(), s.rows, bad ? 3 : s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT,
                          {"d differs between ranks", "rank 0 has d=2", "rank " + std::to_string(c.bad) + " has d=3"});
    });
    suite.run("errors/parameters_differ_between_ranks", [&](Checks& t) {
        Model m = make_model(kParams);
        if (bad) kkm_set_param(m.get(), "k", "3");
        const kkm_status got = kkm_fit_mpi(m.get(), c.comm, s.x(), s.rows, s.d, nullptr);
        expect_collective(
            t, c.comm, got, KKM_ERR_INVALID_ARGUMENT,
            {"parameters differ between ranks", "rank 0 has k=2", "rank " + std::to_string(c.bad) + " has k=3"});
    });
}

void data_errors(Suite& suite, const Context& c) {
    const bool bad = c.rank == c.bad;
    const Share& s = c.share;
    const std::string global_row = std::to_string(c.split.back() > 3 ? offset_of(c.split, c.bad) + 3 : -1);
    suite.run("errors/nan_names_the_global_row", [&](Checks& t) {
        Share damaged = s;
        if (bad) damaged.X[3 * 2 + 1] = std::numeric_limits<float>::quiet_NaN();
        const kkm_status got = fit(c, kParams, damaged.x(), s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_DATA,
                          {"nan", "at row " + global_row + ", column 1", c.where()});
    });
    suite.run("errors/negative_weight_names_the_global_row", [&](Checks& t) {
        std::vector<float> w = s.w;
        if (bad) w[3] = -1.0f;
        const kkm_status got = fit(c, kParams, s.x(), s.rows, s.d, w.data());
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_DATA, {"weights[" + global_row + "] = -1", c.where()});
    });
    suite.run("errors/nan_weight_names_the_global_row", [&](Checks& t) {
        std::vector<float> w = s.w;
        if (bad) w[3] = std::numeric_limits<float>::quiet_NaN();
        const kkm_status got = fit(c, kParams, s.x(), s.rows, s.d, w.data());
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_DATA, {"weights[" + global_row + "] = nan", c.where()});
    });
    suite.run("errors/all_weights_zero_over_all_ranks", [&](Checks& t) {
        const std::vector<float> zeros(static_cast<size_t>(s.rows), 0.0f);
        const kkm_status got = fit(c, kParams, s.x(), s.rows, s.d, zeros.data());
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_DATA, {"all weights are zero"});
    });
    suite.run("errors/zero_variance_with_gamma_auto", [&](Checks& t) {
        const std::vector<float> same(s.X.size(), 1.5f);
        const kkm_status got = fit(c, "k=2 gamma=auto method=nystrom m=50 threads=1",
                                   s.rows > 0 ? same.data() : nullptr, s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_DATA, {});
    });
    suite.run("errors/a_failed_fit_leaves_every_model_unchanged", [&](Checks& t) {
        Model m = make_model(kParams);
        CHECK(t, kkm_fit_mpi(m.get(), c.comm, s.x(), s.rows, s.d, nullptr) == KKM_OK);
        const std::string before = assign_digest(m.get(), c.data);
        double objective_before = 0, objective_after = 0;
        kkm_get_objective(m.get(), &objective_before);
        Share damaged = s;
        if (bad) damaged.X[1] = std::numeric_limits<float>::quiet_NaN();
        expect_collective(t, c.comm, kkm_fit_mpi(m.get(), c.comm, damaged.x(), s.rows, s.d, nullptr),
                          KKM_ERR_INVALID_DATA, {});
        kkm_get_objective(m.get(), &objective_after);
        CHECK(t, objective_after == objective_before);
        CHECK(t, assign_digest(m.get(), c.data) == before);
    });
    if (c.ranks == 1) return;
    suite.run("errors/the_lowest_failing_rank_is_reported", [&](Checks& t) {
        // Rank 0: +Inf at its row 5, column 0; the last rank: NaN at its row 3.
        Share damaged = s;
        if (c.rank == 0) damaged.X[5 * 2] = std::numeric_limits<float>::infinity();
        if (bad) damaged.X[3 * 2 + 1] = std::numeric_limits<float>::quiet_NaN();
        const kkm_status got = fit(c, kParams, damaged.x(), s.rows, s.d, nullptr);
        expect_collective(t, c.comm, got, KKM_ERR_INVALID_DATA,
                          {"inf", "at row 5, column 0", "rank 0 of " + std::to_string(c.ranks)});
    });
    suite.run("errors/weights_on_some_ranks_only", [&](Checks& t) {
        const kkm_status got = fit(c, kParams, s.x(), s.rows, s.d, c.rank == 0 ? s.w.data() : nullptr);
        expect_collective(
            t, c.comm, got, KKM_ERR_INVALID_ARGUMENT,
            {"weights are given on rank 0 but NULL on rank 1", "pass weights on every rank that holds rows"});
    });
    suite.run("errors/zero_weights_on_one_rank_only_are_fine", [&](Checks& t) {
        std::vector<float> w = s.w;
        if (c.rank == 0) w.assign(w.size(), 0.0f);
        expect_collective(t, c.comm, fit(c, kParams, s.x(), s.rows, s.d, w.data()), KKM_OK, {});
    });
}

/// Random Fourier features, n_local x 2000 floats on each rank.
const std::string kMemoryParams = "k=2 kernel=rbf gamma=0.5 method=rff m=2000 max_iter=1 seed=3 threads=1 ";

/// Whether a fit with this budget succeeds: the ranks decide together (MAX over ranks of a
/// failure), so that every rank takes the same branch of the search below. A refusal must
/// be OUT_OF_MEMORY on every rank.
bool accepted(Checks& t, const Context& c, const Data& ds, const Split& split, int64_t mb) {
    const std::string budget = "max_memory_mb=" + std::to_string(mb);
    const Fit f = fit_share(c.comm, ds, split, kMemoryParams + budget);
    t.expect(f.status == KKM_OK || f.status == KKM_ERR_OUT_OF_MEMORY, budget + ": " + f.message);
    int failed = f.status != KKM_OK ? 1 : 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, c.comm);
    t.expect(any == failed, budget + ": the ranks disagree (" + f.message + ")");
    return any == 0;
}

void memory_refusal(Suite& suite, const Context& c) {
    suite.run("errors/memory_refusal_on_one_rank_is_a_refusal_on_all", [&](Checks& t) {
        // 2000 rows: the last rank holds nearly all of them, every other rank 50.
        const Data ds = blobs(1000, 2, 2, 5);
        Split heavy(static_cast<size_t>(c.ranks), 50);
        heavy.back() = ds.n - 50 * (c.ranks - 1);
        // The smallest budget the heavy split accepts, by bisection.
        int64_t lo = 1, hi = 4096;
        if (!t.expect(accepted(t, c, ds, heavy, hi), "max_memory_mb=4096 is refused")) return;
        while (lo < hi) {
            const int64_t mid = lo + (hi - lo) / 2;
            if (accepted(t, c, ds, heavy, mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        if (!t.expect(hi > 1, "max_memory_mb=1 is accepted: nothing to refuse")) return;
        const std::string budget = "max_memory_mb=" + std::to_string(hi - 1);
        const Fit refused = fit_share(c.comm, ds, heavy, kMemoryParams + budget);
        expect_collective_outcome(t, c.comm, refused.status, refused.message, KKM_ERR_OUT_OF_MEMORY, {"max_memory_mb"});
        // The budget is per process: spread evenly, the same rows fit in it, so above only the
        // heavy rank refused, and every rank reported its refusal.
        if (c.ranks > 1) {
            t.expect(accepted(t, c, ds, even_split(ds.n, c.ranks), hi - 1),
                     "the even split is refused too at " + budget + ": the budget is not per rank");
        }
    });
}

/// VmSize of this process in bytes (its address space), from /proc/self/status.
uint64_t address_space_bytes() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return 0;
    char line[256];
    unsigned long long kib = 0;
    while (std::fgets(line, sizeof line, f) != nullptr) {
        if (std::sscanf(line, "VmSize: %llu kB", &kib) == 1) break;
    }
    std::fclose(f);
    return static_cast<uint64_t>(kib) * 1024;
}

/// An allocation that fails inside a stage on one rank only, after the collective budget
/// check passed (the last rank's address space is capped 24 MiB above what it uses, below
/// its share of the stored kernel rows): the other ranks waited in the next collective step
/// for ever. Now that rank gives up the fit in the protocol's status word and every rank
/// returns OUT_OF_MEMORY with the same message, naming it.
void allocation_failure(Suite& suite, const Context& c) {
    suite.run("errors/allocation_failure_inside_a_stage_on_one_rank", [&](Checks& t) {
        const Data ds = blobs(2000, 3, 4, 9);  // 6000 rows: the last rank's kernel rows hold >= 36 MiB
        const Split split = even_split(ds.n, c.ranks);
        rlimit old{};
        getrlimit(RLIMIT_AS, &old);
        const uint64_t now = address_space_bytes();
        if (!t.expect(now > 0, "VmSize unreadable")) return;
        if (c.rank == c.bad) {
            rlimit capped = old;
            capped.rlim_cur = static_cast<rlim_t>(now + (24ull << 20));
            t.expect(setrlimit(RLIMIT_AS, &capped) == 0, "setrlimit");
        }
        // An explicit budget: auto would follow the capped address space, and exact would then
        // compute its kernel rows as it goes instead of failing inside the stage.
        const Fit f =
            fit_share(c.comm, ds, split, "k=3 kernel=rbf gamma=0.5 method=exact threads=1 seed=1 max_memory_mb=4096");
        if (c.rank == c.bad) setrlimit(RLIMIT_AS, &old);
        expect_collective_outcome(t, c.comm, f.status, f.message, KKM_ERR_OUT_OF_MEMORY, {"out of memory"});
        if (c.ranks > 1) {
            t.expect(contains(f.message, "rank " + std::to_string(c.bad) + " gave up the fit"),
                     "the message does not name the rank: " + f.message);
        }
        // The library works on every rank afterwards.
        const Fit again = fit_share(c.comm, ds, split, kParams);
        expect_collective_outcome(t, c.comm, again.status, again.message, KKM_OK, {});
    });
}

/// Options the core does not run over several ranks yet: refused on every rank.
void not_distributed(Suite& suite, const Context& c) {
    if (c.ranks == 1) return;  // one rank: kkm_fit_mpi is kkm_fit (test_mpi_same_fit.cpp)
    const std::pair<const char*, const char*> refused[] = {
        {"gamma=0.5 method=minibatch batch_size=128 tau=0", "tau=0"},
        {"method=nystrom m=50 kernel=precomputed", "kernel=precomputed"},
        {"method=nystrom m=50 kernel=laplacian gamma=auto", "kernel=laplacian"},
        {"method=exact gamma=0.5 refine=hartigan", "refine=hartigan"},
        {"method=nystrom m=50 gamma=search", "gamma=search"},
        {"kernel=knn", "kernel=knn"},
        {"kernel=heat method=minibatch", "kernel=heat"},
    };
    for (const auto& [params, key] : refused) {
        suite.run(std::string("not_distributed_yet/") + params, [&](Checks& t) {
            const kkm_status got =
                fit(c, std::string("k=2 seed=1 threads=1 ") + params, c.share.x(), c.share.rows, c.share.d, nullptr);
            expect_collective(t, c.comm, got, KKM_ERR_INVALID_ARGUMENT, {key, "not available in a distributed fit"});
        });
    }
}

}  // namespace

int main(int argc, char** argv) {
    // Before MPI_Init: refused by the calling rank alone, before any communication.
    const float row[2] = {0.0f, 1.0f};
    Model early = make_model(kParams);
    const kkm_status before_init = kkm_fit_mpi(early.get(), MPI_COMM_WORLD, row, 1, 2, nullptr);
    const std::string before_init_message = kkm_last_error();
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    Context c{MPI_COMM_WORLD, rank_of(MPI_COMM_WORLD), size_of(MPI_COMM_WORLD), 0, rings(300, 7), {}, {}};
    c.bad = c.ranks - 1;
    c.split = uneven_split(c.data.n, c.ranks);
    c.share = share_of(c.comm, c.data, c.split);
    Suite suite(c.comm);
    suite.run("errors/mpi_not_initialized", [&](Checks& t) {
        expect_collective_outcome(t, c.comm, before_init, before_init_message, KKM_ERR_INVALID_ARGUMENT,
                                  {"MPI is not initialized"});
    });
    argument_errors(suite, c);
    data_errors(suite, c);
    memory_refusal(suite, c);
    allocation_failure(suite, c);
    not_distributed(suite, c);
    const int status = suite.finish();
    MPI_Finalize();
    return status;
}
