// A small harness for test programs run under mpirun. Every rank runs every test, in the same
// order (a test may make collective calls); a test passes only if it passes on every rank.
// Rank 0 prints "ok   NAME" or "FAIL NAME" with each failing rank's messages, and at the end
// the line "N passed, N failed" that scripts/summarize-tests.py counts. The exit status is
// the same on every rank: 0 only when every test passed.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace mpi_test {

inline int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

inline int size_of(MPI_Comm comm) {
    int p = 0;
    MPI_Comm_size(comm, &p);
    return p;
}

/// Every rank's string, in rank order (collective).
inline std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
    const auto ranks = static_cast<size_t>(size_of(comm));
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(ranks), starts(ranks, 0);
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
    for (size_t r = 1; r < ranks; ++r) starts[r] = starts[r - 1] + lengths[r - 1];
    std::string all(static_cast<size_t>(starts.back() + lengths.back()), '\0');
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), starts.data(), MPI_CHAR, comm);
    std::vector<std::string> out;
    for (size_t r = 0; r < ranks; ++r) {
        out.push_back(all.substr(static_cast<size_t>(starts[r]), static_cast<size_t>(lengths[r])));
    }
    return out;
}

/// The failures of one test on this rank.
class Checks {
public:
    /// Records `what` as a failure unless ok; returns ok.
    bool expect(bool ok, const std::string& what) {
        if (!ok) failures_ += "    " + what + "\n";
        return ok;
    }
    const std::string& failures() const { return failures_; }

private:
    std::string failures_;
};

class Suite {
public:
    explicit Suite(MPI_Comm comm) : comm_(comm), rank_(rank_of(comm)) {}

    /// Runs body on every rank (collective). An exception counts as a failure of this rank;
    /// it must not leave other ranks waiting in a collective call of the body.
    void run(const std::string& name, const std::function<void(Checks&)>& body) {
        Checks checks;
        try {
            body(checks);
        } catch (const std::exception& e) {
            checks.expect(false, std::string("exception: ") + e.what());
        }
        const std::vector<std::string> all = gather_strings(comm_, checks.failures());
        std::string report;
        for (size_t r = 0; r < all.size(); ++r) {
            if (!all[r].empty()) report += "  rank " + std::to_string(r) + ":\n" + all[r];
        }
        (report.empty() ? passed_ : failed_) += 1;
        if (rank_ == 0) {
            std::printf("%s %s\n%s", report.empty() ? "ok  " : "FAIL", name.c_str(), report.c_str());
            std::fflush(stdout);
        }
    }

    /// Prints the closing line on rank 0; returns the exit status (the same on every rank).
    int finish() const {
        if (rank_ == 0) {
            std::printf("%d passed, %d failed\n", passed_, failed_);
            std::fflush(stdout);
        }
        return failed_ == 0 ? 0 : 1;
    }

private:
    MPI_Comm comm_;
    int rank_;
    int passed_ = 0;
    int failed_ = 0;
};

}  // namespace mpi_test

/// CHECK(t, condition): records the condition's text and line when it is false.
#define CHECK(t, cond) \
    (t).expect(static_cast<bool>(cond), std::string(#cond) + " (line " + std::to_string(__LINE__) + ")")
