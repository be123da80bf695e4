// Read-ahead and drop-behind for the passes over a caller's rows that live in a read-only
// file mapping (kkm_fit_file, the programs' mapped input, a numpy memmap). A file larger than
// the memory is read from the disk at the disk's pace only if the reads are issued ahead of
// the pass (MADV_WILLNEED) and the pages already used make room (MADV_PAGEOUT) instead of
// filling the page cache until the kernel reclaims it page by page on the fit's own threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace kkm {

/// The file under a read-only mapping, opened again with O_DIRECT: reads that bypass the page
/// cache (row_stream.h). `offset` is the file offset of the first byte of the rows.
struct DirectFile {
    DirectFile(int descriptor, uint64_t file_offset) : fd(descriptor), offset(file_offset) {}
    DirectFile(const DirectFile&) = delete;
    DirectFile& operator=(const DirectFile&) = delete;
    ~DirectFile();
    const int fd;
    const uint64_t offset;
};

/// When the passes read a mapped file with O_DIRECT instead of through the mapping: `automatic`
/// for files larger than half the memory (whose pages would not survive from one pass to the
/// next); the environment variable KKMEANS_DIRECT_READS=never|always|auto overrides it.
enum class DirectReads { automatic, never, always };

class InputPages {
public:
    /// No advice at all (rows in the caller's own memory, or unknown).
    InputPages() = default;
    /// Looks [begin, begin + bytes) up in /proc/self/maps: rows in a file mapping without
    /// write permission are read ahead; if they are also larger than half of the memory this
    /// process may use (memory_limit_bytes), the pages behind a pass are dropped (they would
    /// not survive until the next pass anyway). Anonymous memory gets no advice: nothing here
    /// ever moves a caller's own data to swap.
    /// Direct reads (`direct()`) where `mode` (or KKMEANS_DIRECT_READS, which wins) asks for
    /// them, the rows lie in one read-only mapping of a regular file and the file opens with
    /// O_DIRECT (tmpfs and some network file systems refuse it: the mapping is read then).
    InputPages(const void* begin, size_t bytes, DirectReads mode = DirectReads::automatic);

    bool file() const { return file_; }
    bool drops() const { return drop_; }
    /// The file opened for direct reads, or NULL (read the mapping).
    const DirectFile* direct() const { return direct_.get(); }
    /// A pass over the `total` bytes from `base`, in order (or in blocks handed out in order to
    /// several threads), finished its block [begin, end). Advice comes in regions of
    /// kRegionBytes, once per region, from the block that crosses into a new region: the
    /// regions up to kAheadRegions ahead are requested (MADV_WILLNEED; at the pass's first
    /// block too), the region kBehindRegions behind is dropped (MADV_PAGEOUT, large files
    /// only). Few, large calls: each is a system call and each drop a TLB shootdown.
    void passed(const void* base, size_t total, size_t begin, size_t end) const;

    /// Requests [p, p + bytes) of a file mapping now (MADV_WILLNEED; nothing for the caller's
    /// memory): rows read out of order, e.g. the landmarks, are asked for all at once, so that
    /// the disk reads them together instead of one page fault after another.
    void request(const void* p, size_t bytes) const { ahead(static_cast<const char*>(p), bytes); }

    static constexpr size_t kRegionBytes = size_t{32} << 20;
    static constexpr size_t kAheadRegions = 2;
    static constexpr size_t kBehindRegions = 2;

private:
    void ahead(const char* p, size_t bytes) const;
    void behind(const char* p, size_t bytes) const;

    bool file_ = false;
    bool drop_ = false;
    std::shared_ptr<const DirectFile> direct_;
};

}  // namespace kkm
