#include "core/input_pages.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "core/system_memory.h"

namespace kkm {
namespace {

uintptr_t page_size() {
    const long page = ::sysconf(_SC_PAGE_SIZE);
    return page > 0 ? static_cast<uintptr_t>(page) : 4096;
}

/// The /proc/self/maps line of the mapping holding an address ("start-end perms offset
/// major:minor inode path"; inode 0 for anonymous memory).
struct Mapping {
    uintptr_t start = 0, end = 0;
    bool writable = false;
    unsigned long long offset = 0, inode = 0;
    unsigned major = 0, minor = 0;
    std::string path;
};

bool mapping_of(uintptr_t address, Mapping& out) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line)) {
        Mapping m;
        char perms[5] = {};
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%" SCNxPTR "-%" SCNxPTR " %4s %llx %x:%x %llu %n", &m.start, &m.end, perms,
                        &m.offset, &m.major, &m.minor, &m.inode, &path_at) != 7) {
            continue;
        }
        if (address < m.start || address >= m.end) continue;
        m.writable = perms[1] == 'w';
        if (path_at > 0 && static_cast<size_t>(path_at) <= line.size()) m.path = line.substr(static_cast<size_t>(path_at));
        out = std::move(m);
        return true;
    }
    return false;
}

DirectReads mode_from_environment(DirectReads mode) {
    const char* v = std::getenv("KKMEANS_DIRECT_READS");
    if (v == nullptr) return mode;
    if (std::strcmp(v, "never") == 0 || std::strcmp(v, "0") == 0) return DirectReads::never;
    if (std::strcmp(v, "always") == 0 || std::strcmp(v, "1") == 0) return DirectReads::always;
    return DirectReads::automatic;
}

/// The mapped file opened again with O_DIRECT, if it is the same file (device and inode) and
/// the file system allows direct reads; else NULL.
std::shared_ptr<const DirectFile> open_direct(const Mapping& m, uintptr_t begin) {
    if (m.path.empty() || m.path[0] != '/') return nullptr;  // "(deleted)" or a pseudo file
    const int fd = ::open(m.path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return nullptr;
    auto file = std::make_shared<const DirectFile>(fd, m.offset + (begin - m.start));
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != m.inode ||
        st.st_dev != makedev(m.major, m.minor)) {
        return nullptr;
    }
    return file;
}

}  // namespace

DirectFile::~DirectFile() {
    ::close(fd);
}

InputPages::InputPages(const void* begin, size_t bytes, DirectReads mode) {
    if (begin == nullptr || bytes == 0) return;
    const auto address = reinterpret_cast<uintptr_t>(begin);
    Mapping m;
    if (!mapping_of(address, m) || m.inode == 0 || m.writable) return;
    file_ = true;
    drop_ = static_cast<double>(bytes) > 0.5 * static_cast<double>(memory_limit_bytes());
    mode = mode_from_environment(mode);
    const bool wanted = mode == DirectReads::always || (mode == DirectReads::automatic && drop_);
    if (wanted && bytes <= m.end - address) direct_ = open_direct(m, address);  // the rows in one mapping
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
