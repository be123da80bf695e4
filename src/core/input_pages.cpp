#include "core/input_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/system_memory.h"

namespace kkm {
namespace {

uintptr_t page_size() {
    const long page = ::sysconf(_SC_PAGE_SIZE);
    return page > 0 ? static_cast<uintptr_t>(page) : 4096;
}

/// Whether `address` lies in a file mapping without write permission (/proc/self/maps:
/// "start-end perms offset dev inode path", inode 0 for anonymous memory).
bool read_only_file_mapping(uintptr_t address) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        uintptr_t start = 0, end = 0;
        char perms[5] = {};
        unsigned long long offset = 0, inode = 0;
        char dev[32] = {};
        if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s %llx %31s %llu", &start, &end, perms, &offset, dev,
                        &inode) != 6) {
            continue;
        }
        if (address < start || address >= end) continue;
        return inode != 0 && perms[1] != 'w';
    }
    return false;
}

}  // namespace

InputPages::InputPages(const void* begin, size_t bytes) {
    if (begin == nullptr || bytes == 0) return;
    file_ = read_only_file_mapping(reinterpret_cast<uintptr_t>(begin));
    drop_ = file_ && static_cast<double>(bytes) > 0.5 * static_cast<double>(memory_limit_bytes());
}

void InputPages::passed(const void* base, size_t total, size_t begin, size_t end) const {
    if (!file_ || end <= begin) return;
    const char* b = static_cast<const char*>(base);
    const size_t first = begin / kRegionBytes, last = (end - 1) / kRegionBytes;
    const auto request = [&](size_t r) {  // region r, if the range reaches it
        if (r * kRegionBytes < total) ahead(b + r * kRegionBytes, std::min(kRegionBytes, total - r * kRegionBytes));
    };
    if (begin == 0) {
        for (size_t r = 1; r <= kAheadRegions; ++r) request(r);
    }
    for (size_t r = first + 1; r <= last; ++r) {  // each region boundary the block crossed
        request(r + kAheadRegions);
        if (r >= kBehindRegions) behind(b + (r - kBehindRegions) * kRegionBytes, kRegionBytes);
    }
}

void InputPages::ahead(const char* p, size_t bytes) const {
    if (!file_ || bytes == 0) return;
    const uintptr_t page = page_size(), a = reinterpret_cast<uintptr_t>(p);
    const uintptr_t start = a & ~(page - 1);
    ::madvise(reinterpret_cast<void*>(start), a + bytes - start, MADV_WILLNEED);  // advice: errors change nothing
}

void InputPages::behind(const char* p, size_t bytes) const {
#ifdef MADV_PAGEOUT
    if (!drop_) return;
    const uintptr_t page = page_size(), a = reinterpret_cast<uintptr_t>(p);
    const uintptr_t start = (a + page - 1) & ~(page - 1), end = (a + bytes) & ~(page - 1);  // whole pages only
    if (end > start) ::madvise(reinterpret_cast<void*>(start), end - start, MADV_PAGEOUT);
#else
    (void)p;
    (void)bytes;
#endif
}

}  // namespace kkm
