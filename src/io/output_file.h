// Output files that never destroy what they replace, for the library (kkm_save) and the
// programs (-o, -l). A regular file (or a new one) is written to a temporary file beside it
// and renamed over it only once complete; through a symbolic link, the file the link points
// to is replaced and the link stays a link. An existing device, FIFO or terminal (/dev/null,
// /dev/stdout, a named pipe) is written through, never replaced. A directory is refused.
// The programs compare outputs and inputs by FileIdentity (device and inode), never by name.
// This file depends on nothing else of the library: the programs compile it too.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kkm::io {

/// A failure to write or inspect a file; the message names the path and the reason.
class FileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Where an output path is written.
struct OutputTarget {
    std::string file;       ///< the path written: every symbolic link followed
    bool in_place = false;  ///< an existing non-regular file: opened and written, never replaced
};

/// How `path` is written (see the file comment). Throws FileError for a directory, a socket,
/// a loop of symbolic links or a path that cannot be inspected.
OutputTarget output_target(const std::string& path);

/// The temporary file beside `file` an output is staged in: "<file>.tmp-<tag>", its name cut
/// so that the last component stays within NAME_MAX (255 bytes) for any name `file` may have.
std::string temporary_beside(const std::string& file, const std::string& tag);

/// What a path names, for "is it the same file" checks: an existing file's device and inode;
/// for a file still to be created, its directory's device and inode and its name there.
struct FileIdentity {
    dev_t device = 0;
    ino_t inode = 0;
    std::string name;      ///< "" for an existing file
    bool regular = false;  ///< an existing regular file, or one still to be created
    bool operator==(const FileIdentity& other) const {
        return device == other.device && inode == other.inode && name == other.name;
    }
};

/// The identity of `path` (symbolic links followed). Throws FileError when the directory of
/// a file still to be created does not exist.
FileIdentity identify(const std::string& path);

/// The identity of an open descriptor (standard input or output as "-").
FileIdentity identify_descriptor(int fd);

/// An output that only ever appears complete: write() stages the bytes (a temporary file
/// beside a regular target, flushed to the disk; a copy in memory for an in-place target),
/// commit() renames the temporary file over the target or writes the copy through. Until
/// commit() the target is untouched; destroyed uncommitted, the temporary file is removed.
/// A FIFO without a reader is an error at commit(), not a hang.
class StagedFile {
public:
    explicit StagedFile(std::string path);
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;
    ~StagedFile();

    /// Stages `bytes`, replacing what an earlier write() staged.
    void write(std::string_view bytes);
    /// Stages `bytes` after what is staged already (each piece flushed to the disk as it
    /// comes): an output written while it is produced, still put in place only at commit().
    void append(std::string_view bytes);
    /// Puts the staged bytes in place (an empty file when nothing was staged).
    void commit();
    bool in_place() const { return target_.in_place; }

private:
    void discard() noexcept;
    /// Writes `bytes` to the staged copy open as fd, flushes it to the disk and closes it.
    void finish(int fd, std::string_view bytes);
    /// Removes the staged copy and throws FileError for `error` (errno).
    [[noreturn]] void abandon(int error);

    std::string path_;
    OutputTarget target_;
    std::string temp_;    ///< the temporary file, "" when none is pending
    std::string staged_;  ///< in-place targets: the bytes to write at commit()
};

/// StagedFile write and commit in one call.
void write_file_safely(const std::string& path, std::string_view bytes);

}  // namespace kkm::io
