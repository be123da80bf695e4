#include "core/zeroed_buffer.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace kkm {

namespace {

size_t round_up(size_t bytes, size_t unit) {
    return (bytes + unit - 1) / unit * unit;
}

/// The length mapped for `bytes` (maps_huge_pages): whole huge pages.
size_t mapped_length(size_t bytes) {
    return round_up(bytes, kHugePageBytes);
}

/// An anonymous mapping of `bytes` (whole huge pages: mapped_length) that starts on a
/// huge-page boundary: one huge page more is mapped, and what lies before the boundary and
/// after the buffer is unmapped again (mmap itself aligns only to 4 KiB, and a buffer that
/// starts mid-way through a huge page gets 4 KiB pages up to the next boundary).
void* map_aligned(size_t bytes) {
    if (bytes > SIZE_MAX - 2 * kHugePageBytes) throw std::bad_alloc();
    const size_t length = mapped_length(bytes), span = length + kHugePageBytes;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto first = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t start = (first + kHugePageBytes - 1) & ~(uintptr_t{kHugePageBytes} - 1);
    const uintptr_t end = start + length;
    if (start > first) munmap(raw, start - first);
    if (first + span > end) munmap(reinterpret_cast<void*>(end), first + span - end);
    void* p = reinterpret_cast<void*>(start);
#ifdef MADV_HUGEPAGE
    madvise(p, end - start, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
#endif
    return p;
}

}  // namespace

bool maps_huge_pages(size_t bytes) {
    if (bytes < kMappedBytes) return false;
    if (bytes > SIZE_MAX - 2 * kHugePageBytes) return true;  // map_aligned refuses it
    return mapped_length(bytes) - bytes <= bytes / 16;
}

void* allocate_zeroed(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (!maps_huge_pages(bytes)) {
        void* p = std::calloc(bytes, 1);
        if (p == nullptr) throw std::bad_alloc();
        return p;
    }
    return map_aligned(bytes);
}

void release_zeroed(void* p, size_t bytes) noexcept {
    if (p == nullptr) return;
    if (!maps_huge_pages(bytes)) {
        std::free(p);
    } else {
        munmap(p, mapped_length(bytes));
    }
}

}  // namespace kkm
