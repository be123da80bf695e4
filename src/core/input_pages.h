// Read-ahead and drop-behind for the passes over a caller's rows that live in a read-only
// file mapping (kkm_fit_file, the programs' mapped input, a numpy memmap). A file larger than
// the memory is read from the disk at the disk's pace only if the reads are issued ahead of
// the pass (MADV_WILLNEED) and the pages already used make room (MADV_PAGEOUT) instead of
// filling the page cache until the kernel reclaims it page by page on the fit's own threads.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kkm {

class InputPages {
public:
    /// No advice at all (rows in the caller's own memory, or unknown).
    InputPages() = default;
    /// Looks [begin, begin + bytes) up in /proc/self/maps: rows in a file mapping without
    /// write permission are read ahead; if they are also larger than half of the memory this
    /// process may use (memory_limit_bytes), the pages behind a pass are dropped (they would
    /// not survive until the next pass anyway). Anonymous memory gets no advice: nothing here
    /// ever moves a caller's own data to swap.
    InputPages(const void* begin, size_t bytes);

    bool file() const { return file_; }
    bool drops() const { return drop_; }
    /// A pass over the `total` bytes from `base`, in order (or in blocks handed out in order to
    /// several threads), finished its block [begin, end). Advice comes in regions of
    /// kRegionBytes, once per region, from the block that crosses into a new region: the
    /// regions up to kAheadRegions ahead are requested (MADV_WILLNEED; at the pass's first
    /// block too), the region kBehindRegions behind is dropped (MADV_PAGEOUT, large files
    /// only). Few, large calls: each is a system call and each drop a TLB shootdown.
    void passed(const void* base, size_t total, size_t begin, size_t end) const;

    static constexpr size_t kRegionBytes = size_t{32} << 20;
    static constexpr size_t kAheadRegions = 2;
    static constexpr size_t kBehindRegions = 2;

private:
    void ahead(const char* p, size_t bytes) const;
    void behind(const char* p, size_t bytes) const;

    bool file_ = false;
    bool drop_ = false;
};

}  // namespace kkm
