#include "core/zeroed_buffer.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace kkm {
namespace {

float* allocate_zeroed(size_t bytes) {
    if (bytes == 0) return nullptr;
    if (bytes < ZeroedBuffer::kHugeBytes) {
        void* p = std::calloc(bytes, 1);
        if (p == nullptr) throw std::bad_alloc();
        return static_cast<float*>(p);
    }
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);  // advice only: without THP the pages stay 4 KiB
#endif
    return static_cast<float*>(p);
}

}  // namespace

void ZeroedRelease::operator()(float* p) const noexcept {
    if (p == nullptr) return;
    if (bytes < ZeroedBuffer::kHugeBytes) {
        std::free(p);
    } else {
        munmap(p, bytes);
    }
}

ZeroedBuffer::ZeroedBuffer(size_t count)
    : data_(allocate_zeroed(count * sizeof(float)), ZeroedRelease{count * sizeof(float)}), size_(count) {}

ZeroedBuffer::ZeroedBuffer(const ZeroedBuffer& other) : ZeroedBuffer(other.size_) {
    if (size_ > 0) std::memcpy(data(), other.data(), size_ * sizeof(float));
}

ZeroedBuffer& ZeroedBuffer::operator=(const ZeroedBuffer& other) {
    if (this != &other) *this = ZeroedBuffer(other);
    return *this;
}

}  // namespace kkm
