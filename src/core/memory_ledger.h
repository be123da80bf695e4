// MemoryLedger: the one place a fit's memory is counted against max_memory_mb. Every stage
// charges what it is about to allocate (kernel rows, features, sampling blocks, batches,
// per-thread scratch, the float32 copy of float64 input) and gets back a Charge that gives
// the bytes back when the memory is freed (RAII). A charge that would take the running total
// past the budget throws KKM_ERR_OUT_OF_MEMORY before anything is allocated, naming the
// stage, what it would allocate, the running total and the budget. A fit owns its ledger (no
// global state); the up-front estimate of a method (model/fit_memory.h) is checked through
// the same ledger before any stage starts.
//
// Not thread-safe: charges are taken and released outside parallel regions (a stage charges
// its threads' scratch as one amount before the region starts).
#pragma once

#include <cstdint>
#include <string>

namespace kkm {

class MemoryLedger {
public:
    /// The bytes of one charge, given back to the ledger when it is released or destroyed.
    class Charge {
    public:
        Charge() = default;
        Charge(Charge&& other) noexcept;
        Charge& operator=(Charge&& other) noexcept;
        Charge(const Charge&) = delete;
        Charge& operator=(const Charge&) = delete;
        ~Charge() { release(); }
        /// Gives the bytes back (the memory has been freed); a no-op the second time.
        void release() noexcept;
        double bytes() const { return bytes_; }

    private:
        friend class MemoryLedger;
        Charge(MemoryLedger* ledger, double bytes) : ledger_(ledger), bytes_(bytes) {}
        MemoryLedger* ledger_ = nullptr;
        double bytes_ = 0;
    };

    /// A ledger with a budget of budget_mb MiB (the max_memory_mb parameter).
    explicit MemoryLedger(int64_t budget_mb);
    MemoryLedger(const MemoryLedger&) = delete;
    MemoryLedger& operator=(const MemoryLedger&) = delete;

    /// Charges `bytes` that stage `stage` is about to allocate for `what`. Throws
    /// Error(KKM_ERR_OUT_OF_MEMORY) naming stage, what, the bytes, the running total and
    /// max_memory_mb when the total would exceed the budget; nothing is charged then.
    [[nodiscard]] Charge charge(const char* stage, const std::string& what, double bytes);

    /// The up-front check of a fit: throws Error(KKM_ERR_OUT_OF_MEMORY) with "needs an
    /// estimated ... MiB (detail)" when what is charged already plus `bytes` exceeds the
    /// budget. `advice` ends the message (what to change besides max_memory_mb).
    void require(const std::string& what, double bytes, const std::string& detail, const std::string& advice) const;

    /// Whether `bytes` more would stay within the budget.
    bool fits(double bytes) const { return total_ + bytes <= budget_; }
    /// Bytes that can still be charged.
    double remaining() const { return budget_ - total_; }
    double budget() const { return budget_; }
    int64_t budget_mb() const { return budget_mb_; }
    /// Bytes charged now.
    double total() const { return total_; }
    /// The largest total so far.
    double peak() const { return peak_; }

private:
    int64_t budget_mb_;
    double budget_;
    double total_ = 0;
    double peak_ = 0;
};

/// Bytes as "12.3 MiB" (three significant digits) for messages.
std::string mib_text(double bytes);

}  // namespace kkm
