#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

namespace kkm::io {
namespace {

[[noreturn]] void fail(const char* what, const std::string& path, int error) {
    throw FileError(std::string(what) + " '" + path + "': " + std::strerror(error));
}

/// An open descriptor, closed on scope exit (the mapping outlives it).
struct Descriptor {
    int fd;
    ~Descriptor() {
        if (fd >= 0) ::close(fd);
    }
};

}  // namespace

MappedFile::MappedFile(const std::string& path) {
    // O_NONBLOCK: a FIFO without a writer is refused below instead of blocking the open.
    const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    if (file.fd < 0) fail("cannot open", path, errno);
    struct stat st {};
    if (::fstat(file.fd, &st) != 0) fail("cannot read", path, errno);
    if (!S_ISREG(st.st_mode)) throw FileError("cannot map '" + path + "': not a regular file");
    if (st.st_size == 0) throw FileError("cannot map '" + path + "': it is empty");
    size_ = static_cast<uint64_t>(st.st_size);
    void* address = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, file.fd, 0);
    if (address == MAP_FAILED) fail("cannot map", path, errno);
    address_ = address;
    ::madvise(address_, size_, MADV_SEQUENTIAL);  // advice only: a refusal changes nothing
}

MappedFile::~MappedFile() {
    if (address_ != nullptr) ::munmap(address_, size_);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : address_(std::exchange(other.address_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
    if (this != &other) {
        if (address_ != nullptr) ::munmap(address_, size_);
        address_ = std::exchange(other.address_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

bool mappable(const std::string& path) {
    if (std::endian::native != std::endian::little || path == "-") return false;
    const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
    struct stat st {};
    if (file.fd < 0 || ::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
    // A gzip header (RFC 1952): 1f 8b, method 8 (deflate), no reserved flag bit. Checking all
    // four bytes keeps raw rows whose first float merely starts with 1f 8b (2.1335 is
    // 1f 8b 08 40: a reserved flag) mappable; only a tiny positive first value below 2^-63
    // with those low bytes can still look like gzip.
    unsigned char magic[4] = {0, 0, 0, 0};
    const ssize_t got = ::pread(file.fd, magic, sizeof magic, 0);
    const bool gzip = got == 4 && magic[0] == 0x1f && magic[1] == 0x8b && magic[2] == 8 && (magic[3] & 0xE0) == 0;
    return !gzip;
}

}  // namespace kkm::io
