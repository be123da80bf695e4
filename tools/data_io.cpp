// Raw float32 input, label files in and out.
#include "data_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli.h"

namespace kkm_tool {
namespace {

float from_little_endian(const char* p) {
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<unsigned char>(p[i]);
    return std::bit_cast<float>(bits);
}

int32_t to_label(const std::string& path, int64_t row, float value) {
    if (value != std::floor(value) || std::abs(value) > 16777216.0F) {
        throw ToolError(path + ": label " + std::to_string(row + 1) + " (" + std::to_string(value) +
                        ") is not an integer");
    }
    return static_cast<int32_t>(value);
}

}  // namespace

size_t raw_row_bytes(int64_t dims) {
    if (dims <= 0) throw UsageError("--dims must be positive");
    if (static_cast<uint64_t>(dims) > std::min<uint64_t>(INT64_MAX, SIZE_MAX) / 4) {
        throw UsageError("option '--dims': " + std::to_string(dims) +
                         " columns overflow 64-bit sizes: one row of 4-byte float32 values would need more than " +
                         std::to_string(std::min<uint64_t>(INT64_MAX, SIZE_MAX)) + " bytes");
    }
    return static_cast<size_t>(dims) * 4;
}

int64_t raw_row_count(const std::string& path, uint64_t bytes, int64_t dims) {
    const size_t row_bytes = raw_row_bytes(dims);
    if (bytes == 0 || bytes % row_bytes != 0) {
        throw ToolError(path + ": " + std::to_string(bytes) + " bytes is not a positive multiple of 4*" +
                        std::to_string(dims) + " = " + std::to_string(row_bytes) +
                        " (raw float32 rows of --dims values)");
    }
    return static_cast<int64_t>(bytes / row_bytes);
}

void floats_from_little_endian(const char* bytes, size_t count, float* out) {
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, bytes, count * 4);
    } else {
        for (size_t i = 0; i < count; ++i) out[i] = from_little_endian(bytes + 4 * i);
    }
}

Matrix read_raw_f32(const std::string& path, int64_t dims) {
    raw_row_bytes(dims);  // a bad --dims is a usage error before the file is read
    const std::vector<char> bytes = read_file_bytes(path);
    Matrix out;
    out.rows = raw_row_count(path, bytes.size(), dims);
    out.cols = dims;
    out.values.resize(bytes.size() / 4);
    floats_from_little_endian(bytes.data(), out.values.size(), out.values.data());
    return out;
}

std::vector<int32_t> read_label_file(const std::string& path) {
    const CsvTable table = read_csv(path);
    const Matrix& m = table.matrix;
    std::vector<int32_t> labels(static_cast<size_t>(m.rows));
    for (int64_t i = 0; i < m.rows; ++i) {
        labels[static_cast<size_t>(i)] = to_label(path, i, m.values[static_cast<size_t>(i * m.cols + m.cols - 1)]);
    }
    return labels;
}

std::vector<int32_t> read_truth(const std::string& path, int64_t n) {
    std::vector<int32_t> truth = read_label_file(path);
    if (static_cast<int64_t>(truth.size()) != n) {
        throw ToolError(path + ": " + std::to_string(truth.size()) + " labels, but the input has " + std::to_string(n) +
                        " rows");
    }
    return truth;
}

namespace {

std::string separator_name(char separator) {
    if (separator == '\t') return "TAB";
    if (separator == ' ') return "blanks";
    return std::string{'\'', separator, '\''};
}

}  // namespace

Matrix read_matrix(const std::string& path, int64_t dims, std::string& format) {
    if (dims > 0) {
        format = "raw float32";
        return read_raw_f32(path, dims);
    }
    CsvTable table = read_csv(path);
    format = std::string("csv, ") + (table.has_header ? "header" : "no header") + ", separator " +
             separator_name(table.separator);
    return std::move(table.matrix);
}

std::string output_target(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        std::unique_ptr<char, void (*)(void*)> real(::realpath(path.c_str(), nullptr), std::free);
        if (real) return real.get();
    }
    return path;
}

void check_output_dir(const std::string& path, const char* what) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent)) {
        throw ToolError(std::string("cannot write ") + what + " to '" + path + "': directory '" + parent.string() +
                        "' does not exist");
    }
}

StagedOutput::StagedOutput(std::string path) : path_(std::move(path)) {}

StagedOutput::~StagedOutput() {
    if (!temp_.empty()) ::unlink(temp_.c_str());
}

void StagedOutput::write(const std::string& text) {
    if (path_ == "-") {
        text_ += text;
        return;
    }
    if (!temp_.empty()) ::unlink(temp_.c_str());  // a second write replaces the first
    const std::string target = output_target(path_);
    int fd = -1;
    for (int attempt = 0; fd < 0; ++attempt) {
        temp_ = target + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
        fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && (errno != EEXIST || attempt >= 100)) {
            const std::string why = std::strerror(errno);
            temp_.clear();
            throw ToolError("cannot open '" + path_ + "' for writing: " + why);
        }
    }
    struct stat st {};
    if (::stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fd, st.st_mode & 07777);
    for (size_t done = 0; done < text.size();) {
        const ssize_t wrote = ::write(fd, text.data() + done, text.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            const std::string why = wrote == 0 ? "no progress" : std::strerror(errno);
            ::close(fd);
            throw ToolError("cannot write '" + path_ + "': " + why);
        }
        done += static_cast<size_t>(wrote);
    }
    const bool synced = ::fsync(fd) == 0;
    const int sync_error = errno;
    if (::close(fd) != 0 || !synced) {
        throw ToolError("cannot write '" + path_ + "': " + std::strerror(synced ? errno : sync_error));
    }
}

void StagedOutput::commit() {
    if (path_ == "-") {
        std::cout.write(text_.data(), static_cast<std::streamsize>(text_.size()));
        std::cout.flush();
        if (!std::cout) throw ToolError("cannot write to standard output");
        return;
    }
    if (temp_.empty()) write("");
    if (::rename(temp_.c_str(), output_target(path_).c_str()) != 0) {
        throw ToolError("cannot replace '" + path_ + "': " + std::strerror(errno));
    }
    temp_.clear();
}

std::string labels_csv(const std::vector<int32_t>& labels) {
    std::string text = "label\n";
    for (const int32_t label : labels) {
        text += std::to_string(label);
        text += '\n';
    }
    return text;
}

void write_labels_csv(const std::string& path, const std::vector<int32_t>& labels) {
    StagedOutput out(path);
    out.write(labels_csv(labels));
    out.commit();
}

}  // namespace kkm_tool
