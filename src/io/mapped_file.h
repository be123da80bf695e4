// Input files mapped read-only instead of read: a raw float32 file larger than memory is
// clustered from the page cache, never copied. Like output_file.h, this file depends on
// nothing else of the library: the programs compile it too.
#pragma once

#include <cstdint>
#include <string>

#include "io/output_file.h"

namespace kkm::io {

/// A whole regular file mapped PROT_READ / MAP_SHARED with MADV_SEQUENTIAL (read ahead, pages
/// dropped early), unmapped on destruction. The bytes stay valid while the object lives; a
/// file truncated by another process meanwhile makes reads past its new end fault (SIGBUS),
/// as with any mapping. Throws FileError naming the path: not found, not a regular file (a
/// FIFO, device or directory: read those instead), empty, or the mapping refused.
class MappedFile {
public:
    explicit MappedFile(const std::string& path);
    ~MappedFile();
    MappedFile(MappedFile&& other) noexcept;
    MappedFile& operator=(MappedFile&& other) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const char* data() const { return static_cast<const char*>(address_); }
    uint64_t size() const { return size_; }

private:
    void* address_ = nullptr;
    uint64_t size_ = 0;
};

/// Whether `path` is mapped rather than read: an existing regular file that is not
/// gzip-compressed (does not start with a gzip header: 1f 8b 08, no reserved flag bit), on a
/// little-endian machine (raw float32 is little-endian). False for "-", FIFOs, devices and
/// unreadable paths (their readers report).
bool mappable(const std::string& path);

}  // namespace kkm::io
