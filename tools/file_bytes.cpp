// Reading whole files through zlib: gzread passes plain files through unchanged.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <string>

#include "cli.h"
#include "core/system_memory.h"
#include "data_io.h"

namespace kkm_tool {
namespace {

struct GzCloser {
    void operator()(gzFile_s* file) const noexcept { gzclose(file); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

GzFile open_gz(const std::string& path) {
    if (path != "-" && std::filesystem::is_directory(path)) {
        throw ToolError("cannot read '" + path + "': it is a directory");
    }
    errno = 0;
    gzFile_s* raw = path == "-" ? gzdopen(0, "rb") : gzopen(path.c_str(), "rb");
    if (raw == nullptr) {
        const std::string why = errno != 0 ? std::strerror(errno) : "out of memory";
        throw ToolError("cannot open '" + path + "': " + why);
    }
    gzbuffer(raw, 1U << 15);  // its two buffers (32 and 64 KiB) below glibc's mmap threshold: see read_file_pieces
    return GzFile(raw);
}

void throw_if_failed(gzFile_s* file, const std::string& path) {
    int code = Z_OK;
    const char* message = gzerror(file, &code);
    if (code == Z_OK) return;
    std::string why = code == Z_ERRNO ? std::strerror(errno) : message;
    if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);  // zlib prefixes the path
    throw ToolError("cannot read '" + path + "': " + why);
}

size_t size_hint(const std::string& path) {
    std::error_code ec;
    const auto size = path == "-" ? 0 : std::filesystem::file_size(path, ec);
    return ec ? 0 : static_cast<size_t>(size);
}

/// The values read so far are held in vectors that grow by doubling, so a process limit
/// (ulimit -v, a cgroup) can end the reading below max_memory_mb: the message names both.
std::string out_of_memory_reading(const std::string& path, uint64_t read, uint64_t max_bytes) {
    const uint64_t room = kkm::address_space_room();
    const std::string limit = room == UINT64_MAX ? "the memory this process may use is"
                                                 : "the address-space limit (ulimit -v/-d; " +
                                                       std::to_string(room >> 20) + " MiB of it free now) is";
    return "cannot read '" + path + "': out of memory after " + std::to_string(read >> 20) +
           " MiB of it, below its limit max_memory_mb=" + std::to_string(max_bytes >> 20) + " MiB: " + limit +
           " reached first (the values read are held in buffers that double); give a lower max_memory_mb to "
           "refuse such input sooner, or raise the limit";
}

}  // namespace

void read_file_pieces(const std::string& path, uint64_t max_bytes,
                      const std::function<void(std::span<const char>)>& piece) {
    const GzFile file = open_gz(path);
    // Below glibc's 128 KiB mmap threshold: a freed mapping would raise the threshold to its
    // size, and the fit's later blocks up to that size would come from the heaps and stay
    // resident (issue 28: reading a 16 MB --truth file held 0.4-0.8 GB more during the fit).
    constexpr size_t kPiece = size_t{1} << 16;
    std::vector<char> buffer(kPiece);
    uint64_t total = 0;
    try {
        for (;;) {
            const int got = gzread(file.get(), buffer.data(), static_cast<unsigned>(kPiece));
            if (got <= 0) break;
            total += static_cast<uint64_t>(got);
            if (total > max_bytes) {
                throw ToolError("cannot read '" + path +
                                "': it holds more than max_memory_mb=" + std::to_string(max_bytes >> 20) +
                                " MiB (decompressed); raise max_memory_mb to read it");
            }
            piece({buffer.data(), static_cast<size_t>(got)});
        }
    } catch (const std::bad_alloc&) {
        throw ToolError(out_of_memory_reading(path, total, max_bytes));
    }
    throw_if_failed(file.get(), path);  // also catches a truncated gzip stream
}

std::vector<char> read_file_bytes(const std::string& path, uint64_t max_bytes) {
    std::vector<char> bytes;
    bytes.reserve(std::min<uint64_t>(size_hint(path), max_bytes));
    read_file_pieces(path, max_bytes, [&](std::span<const char> p) { bytes.insert(bytes.end(), p.begin(), p.end()); });
    return bytes;
}

}  // namespace kkm_tool
