#include "mpi/shared_output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "cli.h"
#include "data_io.h"
#include "mpi/together.h"

namespace kkm_tool {
namespace {

[[noreturn]] void fail(const char* what, const std::string& path) {
    throw ToolError(std::string(what) + " '" + path + "': " + std::strerror(errno));
}

/// Creates a fresh temporary file beside target (with target's permissions when it exists),
/// `bytes` long; returns its name.
std::string create_temporary(const std::string& path, const std::string& target, uint64_t bytes) {
    std::string temp;
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        temp = kkm::io::temporary_beside(target, std::to_string(::getpid()) + "-" + std::to_string(attempt));
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt >= 100)) fail("cannot open for writing", path);
    }
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fd, st.st_mode & 07777);
    const bool sized = ::ftruncate(fd, static_cast<off_t>(bytes)) == 0;
    const int error = errno;
    ::close(fd);
    if (!sized) {
        ::unlink(temp.c_str());
        errno = error;
        fail("cannot write", path);
    }
    return temp;
}

}  // namespace

std::string regular_target(const std::string& path) {
    try {
        const kkm::io::OutputTarget target = kkm::io::output_target(path);
        if (target.in_place) {
            throw ToolError("cannot write '" + path + "': kkmeans-mpi writes each rank's part at its offset, so the "
                            "output must be a regular file (not a device, FIFO or terminal)");
        }
        return target.file;
    } catch (const kkm::io::FileError& e) {
        throw ToolError(e.what());
    }
}

SharedOutput::SharedOutput(MPI_Comm comm, std::string path, uint64_t bytes) : comm_(comm), path_(std::move(path)) {
    std::string created;
    together(comm_, [&] {
        if (rank_of(comm_) == 0) created = create_temporary(path_, regular_target(path_), bytes);
    });
    temp_ = broadcast_text(comm_, created, 0);
}

SharedOutput::~SharedOutput() {
    if (!temp_.empty() && rank_of(comm_) == 0) ::unlink(temp_.c_str());
}

void SharedOutput::write_at(uint64_t offset, const void* data, size_t bytes) {
    together(comm_, [&] {
        const int fd = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0) fail("cannot open for writing", path_);
        const auto* p = static_cast<const char*>(data);
        for (size_t done = 0; done < bytes;) {
            const ssize_t wrote = ::pwrite(fd, p + done, bytes - done, static_cast<off_t>(offset + done));
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) {
                if (wrote == 0) errno = EIO;
                const int error = errno;
                ::close(fd);
                errno = error;
                fail("cannot write", path_);
            }
            done += static_cast<size_t>(wrote);
        }
        const bool synced = ::fsync(fd) == 0;
        const int error = errno;
        if (::close(fd) != 0 || !synced) {
            if (!synced) errno = error;
            fail("cannot write", path_);
        }
    });
}

void SharedOutput::commit() {
    together(comm_, [&] {
        if (rank_of(comm_) == 0 && ::rename(temp_.c_str(), regular_target(path_).c_str()) != 0) {
            fail("cannot replace", path_);
        }
    });
    temp_.clear();
}

}  // namespace kkm_tool
