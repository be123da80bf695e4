#include "mpi/raw_rows.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "cli.h"
#include "mapped_guard.h"

namespace kkm_tool {
namespace {

/// An open file descriptor, closed on scope exit.
class ReadOnlyFile {
public:
    explicit ReadOnlyFile(const std::string& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
        if (fd_ < 0) fail("cannot open");
    }
    ~ReadOnlyFile() { ::close(fd_); }
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

    uint64_t size() const {
        struct stat st {};
        if (::fstat(fd_, &st) != 0) fail("cannot read");
        if (!S_ISREG(st.st_mode)) {
            throw ToolError("cannot read '" + path_ + "': not a regular file (each rank reads its own slice of it)");
        }
        return static_cast<uint64_t>(st.st_size);
    }

    void read_at(uint64_t offset, char* out, size_t bytes) const {
        for (size_t done = 0; done < bytes;) {
            const ssize_t got = ::pread(fd_, out + done, bytes - done, static_cast<off_t>(offset + done));
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail("cannot read");
            if (got == 0) throw ToolError("cannot read '" + path_ + "': it ended early (changed while being read?)");
            done += static_cast<size_t>(got);
        }
    }

private:
    [[noreturn]] void fail(const char* what) const {
        throw ToolError(std::string(what) + " '" + path_ + "': " + std::strerror(errno));
    }
    std::string path_;
    int fd_;
};

}  // namespace

RowSlice slice_rows(int64_t total, int rank, int ranks) {
    const int64_t base = total / ranks, extra = total % ranks;
    RowSlice s;
    s.total = total;
    s.count = base + (rank < extra ? 1 : 0);
    s.first = base * rank + std::min<int64_t>(rank, extra);
    return s;
}

int64_t raw_file_rows(const std::string& path, int64_t dims) {
    raw_row_bytes(dims);  // a bad --dims is a usage error before the file is opened
    return raw_row_count(path, ReadOnlyFile(path).size(), dims);
}

InputMatrix open_raw_slice(const std::string& path, int64_t dims, const RowSlice& slice) {
    const size_t row_bytes = raw_row_bytes(dims);
    InputMatrix out;
    out.rows = slice.count;
    out.cols = dims;
    if (kkm::io::mappable(path)) {
        guard_mapped_input("kkmeans-mpi", path);
        try {
            out.mapped.emplace(path);
        } catch (const kkm::io::FileError& e) {
            throw ToolError(e.what());
        }
        out.first_byte = static_cast<uint64_t>(slice.first) * row_bytes;
        if (out.first_byte + static_cast<uint64_t>(slice.count) * row_bytes > out.mapped->size()) {
            throw ToolError("cannot read '" + path + "': it ended early (changed while being read?)");
        }
        return out;
    }
    std::vector<char> bytes(static_cast<size_t>(slice.count) * row_bytes);
    ReadOnlyFile(path).read_at(static_cast<uint64_t>(slice.first) * row_bytes, bytes.data(), bytes.size());
    out.read.rows = slice.count;
    out.read.cols = dims;
    out.read.values.resize(bytes.size() / 4);
    floats_from_little_endian(bytes.data(), out.read.values.size(), out.read.values.data());
    return out;
}

}  // namespace kkm_tool
