#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace kkm::io {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
    throw FileError("cannot " + what + " '" + path + "': " + std::strerror(error));
}

std::string directory_of(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_in_directory(const std::string& path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// A path with every symbolic link at its end followed.
struct Followed {
    std::string path;           ///< a dangling link gives the file it would create
    bool through_proc = false;  ///< a link on the way is one of /proc's (/dev/stdout)
};

/// `path` with every symbolic link at its end followed. Directories on the way are not
/// resolved: rename(2) only needs the last component.
Followed follow_links(std::string path) {
    bool through_proc = false;
    for (int hops = 0; hops < 40; ++hops) {
        through_proc = through_proc || path.starts_with("/proc/");
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return {path, through_proc};
        std::vector<char> text(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 2);
        const ssize_t got = ::readlink(path.c_str(), text.data(), text.size() - 1);
        if (got < 0) fail("read the symbolic link", path, errno);
        const std::string link(text.data(), static_cast<size_t>(got));
        path = link.starts_with('/') ? link : directory_of(path) + "/" + link;
    }
    fail("follow", path, ELOOP);
}

const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

/// Writes every byte to fd; returns 0 or the errno of the failure.
int write_all(int fd, std::string_view bytes) {
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t wrote = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return wrote == 0 ? EIO : errno;
        done += static_cast<size_t>(wrote);
    }
    return 0;
}

/// Opens an in-place target for writing (appending, should it be a regular file reached
/// through /proc): a FIFO without a reader is an error at once, not a hang.
int open_in_place(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENXIO) throw FileError("cannot write '" + path + "': it is a FIFO with no reader");
        fail("open for writing", path, errno);
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        const int error = errno;
        ::close(fd);
        fail("open for writing", path, error);
    }
    return fd;
}

}  // namespace

OutputTarget output_target(const std::string& path) {
    if (path.empty()) throw FileError("cannot write to an empty path");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
            throw FileError("cannot write '" + path + "': it is " + kind_of(st.st_mode));
        }
        if (!S_ISREG(st.st_mode)) return {path, true};  // a device, FIFO or terminal
        const Followed file = follow_links(path);
        struct stat fs {};
        // A regular file reached through /proc (/dev/stdout redirected to a file) or by a
        // path that does not lead back to it (a deleted file) is appended to, not replaced:
        // another descriptor of this process writes it.
        if (file.through_proc || ::stat(file.path.c_str(), &fs) != 0 || fs.st_dev != st.st_dev ||
            fs.st_ino != st.st_ino) {
            return {path, true};
        }
        return {file.path, false};
    }
    if (errno != ENOENT) fail("write", path, errno);
    return {follow_links(path).path, false};
}

FileIdentity identify_descriptor(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail("inspect descriptor", std::to_string(fd), errno);
    return {st.st_dev, st.st_ino, "", S_ISREG(st.st_mode)};
}

FileIdentity identify(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) return {st.st_dev, st.st_ino, "", S_ISREG(st.st_mode)};
    if (errno != ENOENT) fail("inspect", path, errno);
    const std::string file = follow_links(path).path;
    const std::string directory = directory_of(file);
    if (::stat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        throw FileError("cannot write '" + path + "': directory '" + directory + "' does not exist");
    }
    return {st.st_dev, st.st_ino, name_in_directory(file), true};
}

std::string temporary_beside(const std::string& file, const std::string& tag) {
    constexpr size_t kNameMax = 255;
    const std::string suffix = ".tmp-" + tag;
    const size_t slash = file.rfind('/');
    const size_t base = slash == std::string::npos ? 0 : slash + 1;
    const size_t keep = std::min(file.size() - base, kNameMax - std::min(kNameMax, suffix.size()));
    return file.substr(0, base + keep) + suffix;
}

StagedFile::StagedFile(std::string path) : path_(std::move(path)), target_(output_target(path_)) {}

StagedFile::~StagedFile() {
    discard();
}

void StagedFile::discard() noexcept {
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
}

void StagedFile::write(std::string_view bytes) {
    if (target_.in_place) {
        staged_.assign(bytes);
        return;
    }
    discard();  // a second write replaces the first
    static std::atomic<unsigned> counter{0};
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        temp_ = temporary_beside(target_.file, std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
        fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt >= 100)) {
            const int error = errno;
            temp_.clear();
            fail("open for writing", path_, error);
        }
    }
    struct stat st {};
    if (::stat(target_.file.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fd, st.st_mode & 07777);
    finish(fd, bytes);
}

void StagedFile::append(std::string_view bytes) {
    if (target_.in_place) {
        staged_.append(bytes);
        return;
    }
    if (temp_.empty()) return write(bytes);
    const int fd = ::open(temp_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) abandon(errno);
    finish(fd, bytes);
}

void StagedFile::finish(int fd, std::string_view bytes) {
    int error = write_all(fd, bytes);
    if (error == 0 && ::fsync(fd) != 0) error = errno;
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error != 0) abandon(error);
}

void StagedFile::abandon(int error) {
    discard();
    throw FileError("cannot write '" + path_ + "': " + std::strerror(error) + " (an existing file is left unchanged)");
}

void StagedFile::commit() {
    if (target_.in_place) {
        const int fd = open_in_place(target_.file);
        const int error = write_all(fd, staged_);
        ::close(fd);
        if (error != 0) fail("write", path_, error);
        staged_.clear();
        return;
    }
    if (temp_.empty()) write("");
    if (::rename(temp_.c_str(), target_.file.c_str()) != 0) {
        const int error = errno;
        discard();
        throw FileError("cannot replace '" + path_ + "': " + std::strerror(error) +
                        " (an existing file is left unchanged)");
    }
    temp_.clear();
}

void write_file_safely(const std::string& path, std::string_view bytes) {
    StagedFile file(path);
    file.write(bytes);
    file.commit();
}

}  // namespace kkm::io
