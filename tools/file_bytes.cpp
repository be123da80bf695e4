// Reading whole files through zlib: gzread passes plain files through unchanged.
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "cli.h"
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
    gzbuffer(raw, 1U << 17);
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

}  // namespace

std::vector<char> read_file_bytes(const std::string& path, uint64_t max_bytes) {
    const GzFile file = open_gz(path);
    std::vector<char> bytes;
    bytes.reserve(std::min<uint64_t>(size_hint(path), max_bytes) + (1U << 20));
    constexpr size_t kChunk = 1U << 20;
    for (;;) {
        const size_t old_size = bytes.size();
        if (old_size > max_bytes) {
            throw ToolError("cannot read '" + path + "': it holds more than max_memory_mb=" +
                            std::to_string(max_bytes >> 20) + " MiB (decompressed); raise max_memory_mb to read it");
        }
        bytes.resize(old_size + kChunk);
        const int got = gzread(file.get(), bytes.data() + old_size, static_cast<unsigned>(kChunk));
        bytes.resize(old_size + static_cast<size_t>(std::max(got, 0)));
        if (got <= 0) break;
    }
    throw_if_failed(file.get(), path);  // also catches a truncated gzip stream
    return bytes;
}

}  // namespace kkm_tool
