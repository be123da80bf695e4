// Ranks as threads of one process, for testing distributed fits without MPI: each rank runs
// on its own std::thread and the collectives meet at a barrier. Internal unit tests only.
#pragma once

#include <barrier>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "core/comm.h"

namespace kkm::testing {

/// What the ranks of one group share: a slot per rank and the barrier they meet at.
class ThreadGroup {
public:
    explicit ThreadGroup(int size) : slots_(static_cast<size_t>(size)), barrier_(size) {}
    int size() const { return static_cast<int>(slots_.size()); }
    std::vector<char>& slot(int rank) { return slots_[static_cast<size_t>(rank)]; }
    void meet() { barrier_.arrive_and_wait(); }

private:
    std::vector<std::vector<char>> slots_;
    std::barrier<> barrier_;
};

class ThreadComm final : public Comm {
public:
    ThreadComm(ThreadGroup& group, int rank) : group_(group), rank_(rank) {}
    int rank() const override { return rank_; }
    int size() const override { return group_.size(); }

protected:
    void gather(const void* mine, size_t bytes, void* out) const override {
        publish(mine, bytes);
        for (int r = 0; r < size(); ++r) {
            if (bytes > 0)
                std::memcpy(static_cast<char*>(out) + static_cast<size_t>(r) * bytes, group_.slot(r).data(), bytes);
        }
        group_.meet();  // nobody overwrites a slot before every rank has read it
    }
    void gatherv(const void* mine, size_t bytes, std::vector<char>& out,
                 std::vector<size_t>& counts) const override {
        publish(mine, bytes);
        out.clear();
        counts.clear();
        for (int r = 0; r < size(); ++r) {
            const std::vector<char>& s = group_.slot(r);
            out.insert(out.end(), s.begin(), s.end());
            counts.push_back(s.size());
        }
        group_.meet();
    }

private:
    void publish(const void* mine, size_t bytes) const {
        const auto* p = static_cast<const char*>(mine);
        group_.slot(rank_).assign(p, p + bytes);
        group_.meet();
    }
    ThreadGroup& group_;
    int rank_;
};

/// Runs body(comm) on `ranks` threads, one rank each, and waits for all.
inline void run_ranks(int ranks, const std::function<void(const Comm&)>& body) {
    ThreadGroup group(ranks);
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r) {
        threads.emplace_back([&group, &body, r] {
            const ThreadComm comm(group, r);
            body(comm);
        });
    }
    for (std::thread& t : threads) t.join();
}

}  // namespace kkm::testing
