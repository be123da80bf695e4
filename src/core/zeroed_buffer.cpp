#include "core/zeroed_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace kkm {

void* allocate_zeroed(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (bytes < kHugeBytes) {
        void* p = std::calloc(bytes, 1);
        if (p == nullptr) throw std::bad_alloc();
        return p;
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
#endif
    return p;
}

void release_zeroed(void* p, size_t bytes) noexcept {
    if (p == nullptr) return;
    if (bytes < kHugeBytes) {
        std::free(p);
    } else {
        munmap(p, bytes);
    }
}

}  // namespace kkm
