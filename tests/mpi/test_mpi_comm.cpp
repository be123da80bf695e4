// MpiComm's gathers give every rank's bytes in rank order, for equal and for differing counts
// (0 included), in one MPI call and in rounds: a message limit of a few bytes forces the
// rounds that lift MPI's int counts (> INT_MAX bytes) without allocating gigabytes. It is a
// private duplicate of the caller's communicator, used from the calling thread only.
// Run under mpirun -np P (tests/mpi/meson.build: P = 1, 2, 3, 4).
#include <climits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mpi/mpi_comm.h"
#include "mpi_test.h"

using namespace mpi_test;

namespace {

/// Byte i of rank r's message.
char byte_of(int r, size_t i) {
    return static_cast<char>(r * 31 + static_cast<int>(i) * 7 + 1);
}

std::vector<char> message_of(int r, size_t bytes) {
    std::vector<char> out(bytes);
    for (size_t i = 0; i < bytes; ++i) out[i] = byte_of(r, i);
    return out;
}

void allgather(Suite& suite, MPI_Comm world, size_t limit, size_t bytes) {
    suite.run("allgather/" + std::to_string(bytes) + "_bytes/limit_" + std::to_string(limit), [&](Checks& t) {
        const kkm::MpiComm comm(world, limit);
        CHECK(t, comm.rank() == rank_of(world) && comm.size() == size_of(world));
        const std::vector<char> mine = message_of(comm.rank(), bytes);
        std::vector<char> all(bytes * static_cast<size_t>(comm.size()), 0);
        comm.allgather(mine.data(), bytes, all.data());
        bool same = true;
        for (int r = 0; r < comm.size(); ++r) {
            for (size_t i = 0; i < bytes; ++i) same = same && all[static_cast<size_t>(r) * bytes + i] == byte_of(r, i);
        }
        CHECK(t, same);
    });
}

/// Rank r sends counts(r) bytes.
void allgatherv(Suite& suite, MPI_Comm world, size_t limit, const std::string& name, size_t (*count)(int)) {
    suite.run("allgatherv/" + name + "/limit_" + std::to_string(limit), [&](Checks& t) {
        const kkm::MpiComm comm(world, limit);
        const std::vector<char> mine = message_of(comm.rank(), count(comm.rank()));
        std::vector<char> all = {'x'};
        std::vector<size_t> counts;
        comm.allgatherv(mine.data(), mine.size(), all, counts);
        CHECK(t, counts.size() == static_cast<size_t>(comm.size()));
        size_t at = 0;
        bool same = true;
        for (int r = 0; r < comm.size() && same; ++r) {
            same = counts[static_cast<size_t>(r)] == count(r);
            for (size_t i = 0; same && i < count(r); ++i) same = all[at + i] == byte_of(r, i);
            at += count(r);
        }
        CHECK(t, same);
        CHECK(t, all.size() == at);
    });
}

size_t varied(int r) {
    return r == 1 ? 0 : static_cast<size_t>(13 * r + 5);
}
size_t only_last(int r) {
    return r == size_of(MPI_COMM_WORLD) - 1 ? 40 : 0;
}
size_t none(int) {
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    Suite suite(MPI_COMM_WORLD);
    for (const size_t limit : {size_t{INT_MAX}, size_t{64}, size_t{7}, size_t{1}}) {
        for (const size_t bytes : {size_t{0}, size_t{1}, size_t{37}}) allgather(suite, MPI_COMM_WORLD, limit, bytes);
        allgatherv(suite, MPI_COMM_WORLD, limit, "varied_counts_one_zero", &varied);
        allgatherv(suite, MPI_COMM_WORLD, limit, "only_the_last_rank_sends", &only_last);
        allgatherv(suite, MPI_COMM_WORLD, limit, "nobody_sends", &none);
    }
    suite.run("the_fit_communicator_is_a_duplicate", [&](Checks& t) {
        // Messages on the caller's communicator are not seen by the duplicate's collectives.
        const kkm::MpiComm comm(MPI_COMM_WORLD);
        int value = rank_of(MPI_COMM_WORLD), sum = 0;
        MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        std::vector<int> all(static_cast<size_t>(comm.size()));
        comm.allgather(&value, sizeof value, all.data());
        int total = 0;
        for (const int v : all) total += v;
        CHECK(t, total == sum);
    });
    suite.run("traffic_is_counted", [&](Checks& t) {
        const kkm::MpiComm comm(MPI_COMM_WORLD);
        const auto ranks = static_cast<uint64_t>(comm.size());
        const std::vector<char> mine = message_of(comm.rank(), 37);
        std::vector<char> all(37 * ranks);
        comm.allgather(mine.data(), 37, all.data());
        CHECK(t, comm.traffic().calls == 1 && comm.traffic().sent == 37 && comm.traffic().received == 37 * ranks);
        std::vector<char> out;
        std::vector<size_t> counts;
        comm.allgatherv(mine.data(), 37, out, counts);  // the counts (8 bytes each), then the bytes
        CHECK(t, comm.traffic().calls == 3);
        CHECK(t, comm.traffic().sent == 37 + 8 + 37);
        CHECK(t, comm.traffic().received == 37 * ranks + 8 * ranks + 37 * ranks);
    });
    suite.run("another_thread_is_refused_before_any_mpi_call", [&](Checks& t) {
        const kkm::MpiComm comm(MPI_COMM_WORLD);
        bool refused = false;
        std::thread other([&] {
            int value = 1;
            std::vector<int> all(static_cast<size_t>(comm.size()));
            try {
                comm.allgather(&value, sizeof value, all.data());
            } catch (const std::logic_error&) {
                refused = true;
            }
        });
        other.join();
        CHECK(t, refused);
    });
    const int status = suite.finish();
    MPI_Finalize();
    return status;
}
