// ZeroedBuffer: an owning array of floats that starts out zero without writing a byte.
// Small buffers come from calloc; large ones (kHugeBytes and up) are anonymous mappings,
// which the kernel hands out zeroed, page by page, to whichever thread first writes them,
// and which are asked for transparent huge pages (MADV_HUGEPAGE) where the system allows.
// A 4 GB kernel block then costs no single-threaded memset and about 2000 page faults
// instead of a million; its pages are faulted in by the threads that fill it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kkm {

/// Frees what ZeroedBuffer allocated (free or munmap, by size).
struct ZeroedRelease {
    size_t bytes = 0;
    void operator()(float* p) const noexcept;
};

class ZeroedBuffer {
public:
    /// Allocations of at least this many bytes are mapped rather than calloc'ed.
    static constexpr size_t kHugeBytes = size_t{32} << 20;

    ZeroedBuffer() = default;
    /// `count` zero floats; throws std::bad_alloc when the memory cannot be had.
    explicit ZeroedBuffer(size_t count);
    ZeroedBuffer(const ZeroedBuffer& other);
    ZeroedBuffer& operator=(const ZeroedBuffer& other);
    ZeroedBuffer(ZeroedBuffer&& other) noexcept = default;
    ZeroedBuffer& operator=(ZeroedBuffer&& other) noexcept = default;
    ~ZeroedBuffer() = default;

    float* data() { return data_.get(); }
    const float* data() const { return data_.get(); }
    size_t size() const { return size_; }
    float& operator[](size_t i) { return data_[i]; }
    const float& operator[](size_t i) const { return data_[i]; }
    float* begin() { return data(); }
    float* end() { return data() + size_; }
    const float* begin() const { return data(); }
    const float* end() const { return data() + size_; }

private:
    std::unique_ptr<float[], ZeroedRelease> data_;
    size_t size_ = 0;
};

}  // namespace kkm
