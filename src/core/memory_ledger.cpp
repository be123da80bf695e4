#include "core/memory_ledger.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.h"

namespace kkm {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace

std::string mib_text(double bytes) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / kMiB);
    return buf;
}

MemoryLedger::Charge::Charge(Charge&& other) noexcept : ledger_(other.ledger_), bytes_(other.bytes_) {
    other.ledger_ = nullptr;
    other.bytes_ = 0;
}

MemoryLedger::Charge& MemoryLedger::Charge::operator=(Charge&& other) noexcept {
    if (this != &other) {
        release();
        ledger_ = other.ledger_;
        bytes_ = other.bytes_;
        other.ledger_ = nullptr;
        other.bytes_ = 0;
    }
    return *this;
}

void MemoryLedger::Charge::release() noexcept {
    if (ledger_ != nullptr) ledger_->total_ = std::max(0.0, ledger_->total_ - bytes_);
    ledger_ = nullptr;
    bytes_ = 0;
}

MemoryLedger::MemoryLedger(int64_t budget_mb) : budget_mb_(budget_mb), budget_(static_cast<double>(budget_mb) * kMiB) {}

MemoryLedger::Charge MemoryLedger::charge(const char* stage, const std::string& what, double bytes) {
    bytes = std::max(0.0, bytes);
    if (total_ + bytes > budget_) {
        fail(KKM_ERR_OUT_OF_MEMORY, std::string("max_memory_mb=") + std::to_string(budget_mb_) +
                                        " would be exceeded: stage '" + stage + "' would allocate " + mib_text(bytes) +
                                        " for " + what + " on top of " + mib_text(total_) +
                                        " already in use (running total " + mib_text(total_ + bytes) + " > budget " +
                                        mib_text(budget_) + "); raise max_memory_mb");
    }
    total_ += bytes;
    peak_ = std::max(peak_, total_);
    return Charge(this, bytes);
}

void MemoryLedger::require(const std::string& what, double bytes, const std::string& detail,
                           const std::string& advice) const {
    if (total_ + bytes <= budget_) return;
    const auto needed = static_cast<long long>(std::ceil((total_ + bytes) / kMiB));
    std::string already;
    if (total_ >= 0.05 * kMiB) already = ", of which " + mib_text(total_) + " are already in use";
    fail(KKM_ERR_OUT_OF_MEMORY, what + " needs an estimated " + std::to_string(needed) + " MiB at its peak (" + detail +
                                    already + ") but max_memory_mb=" + std::to_string(budget_mb_) +
                                    "; raise max_memory_mb" + (advice.empty() ? "" : " or " + advice));
}

}  // namespace kkm
