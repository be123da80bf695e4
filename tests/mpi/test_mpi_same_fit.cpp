// kkm_fit_mpi gives what kkm_fit gives on the concatenated rows: the same labels (each rank's
// rows' share), the objective within 1e-6 relative, the same iterations and cluster sizes,
// for every method and solver of issue 14 (and kernel=heat and knn with graph=anchor) on two concentric rings and on blobs, with even and uneven
// splits and a rank holding no rows; bit-identical across runs; the same model on every rank.
// Run under mpirun -np P (tests/meson.build: P = 1, 2, 3, 4).
#include <cmath>
#include <string>
#include <vector>

#include "mpi_fit_util.h"

using namespace mpi_test;

namespace {

struct Config {
    const char* name;
    const char* params;
};

/// Every configuration of issue 14.
const Config kConfigs[] = {
    {"nystrom_uniform", "method=nystrom m=100 sampling=uniform"},
    {"nystrom_kmeanspp", "method=nystrom m=100 sampling=kmeanspp"},
    {"nystrom_rls", "method=nystrom m=100 sampling=rls"},
    {"nystrom_rank", "method=nystrom m=100 rank=10"},
    {"sketch_subgaussian", "method=sketch m=100 sketch=subgaussian"},
    {"sketch_ros", "method=sketch m=100 sketch=ros"},
    {"sketch_gaussian", "method=sketch m=100 sketch=gaussian"},
    {"sketch_identity", "method=sketch m=100 sketch=identity"},
    {"rff", "method=rff m=500"},
    {"nystrom_solver_minibatch", "method=nystrom m=100 solver=minibatch batch_size=128"},
    {"sketch_solver_minibatch", "method=sketch m=100 solver=minibatch batch_size=128"},
    {"rff_solver_minibatch", "method=rff m=500 solver=minibatch batch_size=128"},
    {"minibatch", "method=minibatch batch_size=128"},
    {"exact", "method=exact"},
};

struct DataSet {
    const char* name;
    Data data;
    /// The parameters every configuration adds: a fixed gamma that separates the rings (the
    /// one-process Nyström reference must reach ARI 1 on them) with restarts, gamma=auto and
    /// one restart on the blobs.
    std::string params;
    bool one_restart() const { return params.find("n_init=1 ") != std::string::npos; }
};

std::vector<DataSet> data_sets() {
    return {{"rings", rings(300, 7), "k=2 kernel=rbf gamma=0.5 n_init=3 seed=1 threads=1 "},
            {"blobs", blobs(200, 3, 5, 11), "k=3 kernel=rbf gamma=auto n_init=1 seed=2 threads=1 "}};
}

struct NamedSplit {
    std::string name;
    Split rows;
};

std::vector<NamedSplit> splits(int64_t n, int ranks) {
    std::vector<NamedSplit> out = {{"even", even_split(n, ranks)}, {"uneven", uneven_split(n, ranks)}};
    if (ranks > 1) out.push_back({"empty_rank", split_with_empty_rank(n, ranks, (ranks - 1) / 2)});
    return out;
}

std::string fmt(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

/// The distributed fit equals the one-process reference on this rank's rows. The iterations
/// too, with one restart: with several, restarts that reach the same partition tie up to
/// rounding, and which of them is kept (with its iteration count) may differ.
void expect_same(Checks& t, const Fit& ref, const Fit& got, int64_t offset, int64_t rows, bool one_restart) {
    if (!t.expect(got.status == KKM_OK, "kkm_fit_mpi failed: " + got.message)) return;
    CHECK(t, got.n_train == rows);
    if (rows == 0) CHECK(t, kkm_get_labels(got.model.get(), nullptr, 0) == KKM_OK);  // none to copy
    const std::vector<int32_t> mine(ref.labels.begin() + offset, ref.labels.begin() + offset + rows);
    CHECK(t, got.labels == mine);
    t.expect(std::fabs(got.objective - ref.objective) <= 1e-6 * std::fabs(ref.objective),
             "objective " + fmt(got.objective) + " vs one process " + fmt(ref.objective));
    t.expect(!one_restart || got.iterations == ref.iterations,
             "iterations " + std::to_string(got.iterations) + " vs one process " + std::to_string(ref.iterations));
    bool sizes = got.sizes.size() == ref.sizes.size();
    for (size_t j = 0; sizes && j < ref.sizes.size(); ++j)
        sizes = std::fabs(got.sizes[j] - ref.sizes[j]) <= 1e-9 * ref.sizes[j];
    CHECK(t, sizes);
}

void same_as_one_process(Suite& suite, MPI_Comm comm, const DataSet& ds, const Config& c) {
    const int ranks = size_of(comm), rank = rank_of(comm);
    const std::string params = ds.params + c.params;
    const Fit ref = fit_one_process(ds.data, params);
    for (const NamedSplit& split : splits(ds.data.n, ranks)) {
        suite.run(std::string("same_as_one_process/") + ds.name + "/" + c.name + "/" + split.name, [&](Checks& t) {
            if (!t.expect(ref.status == KKM_OK, "kkm_fit failed: " + ref.message)) return;
            const Fit got = fit_share(comm, ds.data, split.rows, params);
            expect_same(t, ref, got, offset_of(split.rows, rank), split.rows[static_cast<size_t>(rank)],
                        ds.one_restart());
            if (got.status != KKM_OK) return;
            // Every rank holds the same model, which assigns as the reference does.
            const std::string assigned = assign_digest(got.model.get(), ds.data);
            CHECK(t, same_on_every_rank(comm, assigned));
            std::vector<int32_t> by_model(static_cast<size_t>(ds.data.n)), by_ref(by_model.size());
            kkm_assign(got.model.get(), ds.data.X.data(), ds.data.n, ds.data.d, by_model.data(), nullptr);
            kkm_assign(ref.model.get(), ds.data.X.data(), ds.data.n, ds.data.d, by_ref.data(), nullptr);
            CHECK(t, by_model == by_ref);
            // The same ranks and split again: the same bits.
            const Fit again = fit_share(comm, ds.data, split.rows, params);
            CHECK(t, again.status == KKM_OK);
            CHECK(t, std::memcmp(&again.objective, &got.objective, sizeof(double)) == 0);
            CHECK(t, again.labels == got.labels);
            CHECK(t, assign_digest(again.model.get(), ds.data) == assigned);
        });
    }
}

void rings_are_separated(Suite& suite, const DataSet& rings) {
    suite.run("reference/rings_separated_by_nystrom", [&](Checks& t) {
        const Fit ref = fit_one_process(rings.data, rings.params + "method=nystrom m=100");
        double ari = 0;
        kkm_adjusted_rand_index(ref.labels.data(), rings.data.truth.data(), rings.data.n, &ari);
        t.expect(ari > 0.99, "ARI " + fmt(ari) + ": the rings' gamma does not separate them");
    });
}

void weighted(Suite& suite, MPI_Comm comm, const DataSet& ds) {
    const int ranks = size_of(comm), rank = rank_of(comm);
    std::vector<float> w(static_cast<size_t>(ds.data.n));
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + static_cast<float>(i % 4);
    for (const char* method :
         {"method=nystrom m=100", "method=rff m=500", "method=exact", "method=minibatch batch_size=128"}) {
        const std::string params = ds.params + method;
        const Fit ref = fit_one_process(ds.data, params, w.data());
        // With an empty rank, that rank passes NULL weights (ranks without rows do not count).
        for (const NamedSplit& split : splits(ds.data.n, ranks)) {
            suite.run(std::string("weighted/") + ds.name + "/" + method + "/" + split.name, [&](Checks& t) {
                if (!t.expect(ref.status == KKM_OK, "kkm_fit failed: " + ref.message)) return;
                const Fit got = fit_share(comm, ds.data, split.rows, params, w.data());
                expect_same(t, ref, got, offset_of(split.rows, rank), split.rows[static_cast<size_t>(rank)],
                            ds.one_restart());
            });
        }
    }
}

void saved_model_holds_this_ranks_labels(Suite& suite, MPI_Comm comm, const DataSet& ds) {
    suite.run("saved_model_holds_this_ranks_labels", [&](Checks& t) {
        const Split split = uneven_split(ds.data.n, size_of(comm));
        const Fit got = fit_share(comm, ds.data, split, ds.params + "method=nystrom m=100");
        if (!t.expect(got.status == KKM_OK, got.message)) return;
        int64_t size = 0;
        kkm_save_buffer(got.model.get(), nullptr, 0, &size);
        std::vector<unsigned char> bytes(static_cast<size_t>(size));
        CHECK(t, kkm_save_buffer(got.model.get(), bytes.data(), size, &size) == KKM_OK);
        Model loaded = make_model("");
        CHECK(t, kkm_load_buffer(loaded.get(), bytes.data(), size) == KKM_OK);
        Fit back;
        back.model = std::move(loaded);
        back.status = KKM_OK;
        read_results(back);
        CHECK(t, back.n_train == got.n_train);
        CHECK(t, back.labels == got.labels);
        CHECK(t, back.objective == got.objective);
        CHECK(t, assign_digest(back.model.get(), ds.data) == assign_digest(got.model.get(), ds.data));
    });
}

void threads_may_differ(Suite& suite, MPI_Comm comm, const DataSet& ds) {
    suite.run("threads_may_differ_between_ranks", [&](Checks& t) {
        const std::string params = ds.params + "method=nystrom m=100";
        const Fit ref = fit_one_process(ds.data, params);
        const Split split = even_split(ds.data.n, size_of(comm));
        const int rank = rank_of(comm);
        std::string mine = params;
        mine.replace(mine.find("threads=1"), 9, "threads=" + std::to_string(1 + rank % 2));
        const Fit got = fit_share(comm, ds.data, split, mine);
        expect_same(t, ref, got, offset_of(split, rank), split[static_cast<size_t>(rank)], ds.one_restart());
    });
}

/// Fits over a sub-communicator: even and odd ranks each fit their own copy of the data.
void sub_communicator(Suite& suite, MPI_Comm comm, const DataSet& ds) {
    suite.run("fit_over_a_sub_communicator", [&](Checks& t) {
        MPI_Comm half = MPI_COMM_NULL;
        MPI_Comm_split(comm, rank_of(comm) % 2, rank_of(comm), &half);
        const std::string params = ds.params + "method=nystrom m=100";
        const Fit ref = fit_one_process(ds.data, params);
        const Split split = uneven_split(ds.data.n, size_of(half));
        const Fit got = fit_share(half, ds.data, split, params);
        expect_same(t, ref, got, offset_of(split, rank_of(half)), split[static_cast<size_t>(rank_of(half))],
                    ds.one_restart());
        MPI_Comm_free(&half);
    });
}

int count_calls(const char*, double, void* calls) {
    ++*static_cast<int*>(calls);
    return 1;  // asks to stop: ignored by a distributed fit
}

void progress_cannot_cancel(Suite& suite, MPI_Comm comm, const DataSet& ds) {
    suite.run("progress_reported_on_every_rank_and_cannot_cancel", [&](Checks& t) {
        const Split split = even_split(ds.data.n, size_of(comm));
        const int rank = rank_of(comm);
        Model m = make_model(ds.params + "method=nystrom m=100");
        int calls = 0;
        kkm_set_progress(m.get(), &count_calls, &calls);
        const int64_t rows = split[static_cast<size_t>(rank)];
        const kkm_status s =
            kkm_fit_mpi(m.get(), comm, ds.data.X.data() + offset_of(split, rank) * ds.data.d, rows, ds.data.d, nullptr);
        t.expect(s == KKM_OK, std::string("status ") + kkm_status_string(s) + ": " + kkm_last_error());
        CHECK(t, calls > 0);
    });
}

}  // namespace

int main(int argc, char** argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    const MPI_Comm comm = MPI_COMM_WORLD;
    Suite suite(comm);
    const std::vector<DataSet> sets = data_sets();
    rings_are_separated(suite, sets[0]);
    for (const DataSet& ds : sets) {
        for (const Config& c : kConfigs) same_as_one_process(suite, comm, ds, c);
    }
    // kernel=heat on the anchor graph (graph=anchor): anchors from a sample gathered to every
    // rank, each rank its own rows' anchors, ZᵀZ summed over the ranks.
    const DataSet heat = {"rings_heat", sets[0].data, "k=2 kernel=heat n_init=3 seed=1 threads=1 "};
    const Config anchor = {"heat_anchor", "graph=anchor anchors=60"};
    same_as_one_process(suite, comm, heat, anchor);
    // kernel=knn there: the normalized cut's Lloyd from the heat features' labels, over the ranks.
    const DataSet knn = {"rings_knn", sets[0].data, "k=2 kernel=knn n_init=3 seed=1 threads=1 "};
    same_as_one_process(suite, comm, knn, Config{"knn_anchor", "graph=anchor anchors=60"});
    weighted(suite, comm, sets[1]);
    saved_model_holds_this_ranks_labels(suite, comm, sets[0]);
    threads_may_differ(suite, comm, sets[0]);
    sub_communicator(suite, comm, sets[0]);
    progress_cannot_cancel(suite, comm, sets[1]);
    const int status = suite.finish();
    MPI_Finalize();
    return status;
}
