// ZeroedArray<T>: an owning array of trivially copyable values that starts out zero without
// writing a byte where it can. Large arrays (maps_huge_pages: kMappedBytes and up, whole huge
// pages rounding them up by at most a sixteenth) are anonymous mappings that start on a
// huge-page boundary, which the kernel hands out zeroed, page by page, to whichever thread
// first writes them, and which are asked for transparent huge pages (MADV_HUGEPAGE) where the
// system allows. A 4 GB kernel block then costs no single-threaded memset and about 2000 page
// faults instead of a million; its pages are faulted in by the threads that fill it. A page
// fault is the cost of a fresh buffer, and in a virtual machine it can be dear (11 µs per
// 4 KiB page on the KVM guests this project is measured on, so 3 ms per MB: the 16 MB
// workspace of a 1000×1000 eigen-decomposition took 45 ms to fault in, against 1 ms in huge
// pages). Every other array comes from calloc: small ones, and those whose last huge page
// would be mostly empty (a 3.9 MB kernel matrix mapped with its second half in 4 KiB pages
// faulted 470 of them in at every fit; the C library keeps such a block from one fit to the
// next, so a process fitting again and again faults it in once: 5 ms -> 0.5 ms for the
// kernel stage of a 990-point exact fit).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace kkm {

/// The transparent huge page of x86-64 (a PMD): mappings start on a multiple of it.
inline constexpr size_t kHugePageBytes = size_t{2} << 20;
/// Allocations below this many bytes are calloc'ed.
inline constexpr size_t kMappedBytes = kHugePageBytes;

/// Whether allocate_zeroed(bytes) maps whole huge pages: from kMappedBytes on, when rounding
/// up to whole huge pages adds at most bytes/16 (what the memory estimates allow for).
bool maps_huge_pages(size_t bytes);

/// `bytes` zero bytes: an anonymous mapping of whole huge pages aligned to kHugePageBytes
/// (maps_huge_pages), else calloc; throws std::bad_alloc.
void* allocate_zeroed(size_t bytes);
/// Frees what allocate_zeroed(bytes) returned.
void release_zeroed(void* p, size_t bytes) noexcept;

template <class T>
struct ZeroedRelease {
    size_t bytes = 0;
    void operator()(T* p) const noexcept { release_zeroed(p, bytes); }
};

template <class T>
class ZeroedArray {
    static_assert(std::is_trivially_copyable_v<T>, "ZeroedArray holds plain values");

public:
    ZeroedArray() = default;
    /// `count` zero values; throws std::bad_alloc when the memory cannot be had.
    explicit ZeroedArray(size_t count)
        : data_(static_cast<T*>(allocate_zeroed(checked_bytes(count))), ZeroedRelease<T>{count * sizeof(T)}),
          size_(count) {}
    ZeroedArray(const ZeroedArray& other) : ZeroedArray(other.size_) {
        if (size_ > 0) std::memcpy(data(), other.data(), size_ * sizeof(T));
    }
    ZeroedArray& operator=(const ZeroedArray& other) {
        if (this != &other) *this = ZeroedArray(other);
        return *this;
    }
    /// A moved-from array is empty (size 0), so that code sizing it again (Matrix::reshape)
    /// never takes its old size for storage it no longer has.
    ZeroedArray(ZeroedArray&& other) noexcept : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)) {}
    ZeroedArray& operator=(ZeroedArray&& other) noexcept {
        data_ = std::move(other.data_);
        size_ = std::exchange(other.size_, 0);
        return *this;
    }
    ~ZeroedArray() = default;

    /// count·sizeof(T), or std::bad_array_new_length when that overflows size_t.
    static size_t checked_bytes(size_t count) {
        if (count > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
        return count * sizeof(T);
    }

    T* data() { return data_.get(); }
    const T* data() const { return data_.get(); }
    size_t size() const { return size_; }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }
    T* begin() { return data(); }
    T* end() { return data() + size_; }
    const T* begin() const { return data(); }
    const T* end() const { return data() + size_; }

private:
    std::unique_ptr<T[], ZeroedRelease<T>> data_;
    size_t size_ = 0;
};

using ZeroedBuffer = ZeroedArray<float>;

}  // namespace kkm
