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
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli.h"
#include "mapped_guard.h"

namespace kkm_tool {
namespace {

[[maybe_unused]] float from_little_endian(const char* p) {  // big-endian hosts only
    uint32_t bits = 0;
    for (int i = 3; i >= 0; --i) bits = (bits << 8) | static_cast<unsigned char>(p[i]);
    return std::bit_cast<float>(bits);
}

/// A label read as a float32 number: a whole number below 2^24 in magnitude, where every
/// integer is exact (2^24 itself may be 2^24 + 1 rounded, which would merge two classes).
int32_t to_label(const std::string& path, int64_t row, float value) {
    constexpr float kExact = 16777216.0F;
    if (value != std::floor(value) || !(std::abs(value) < kExact)) {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
        throw ToolError(path + ": label " + std::to_string(row + 1) + " (" + text +
                        ") is not a whole number between -16777215 and 16777215 (labels are read as float32, "
                        "exact only below 2^24)");
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

Matrix read_raw_f32(const std::string& path, int64_t dims, uint64_t max_bytes) {
    raw_row_bytes(dims);  // a bad --dims is a usage error before the file is read
    Matrix out;
    uint64_t bytes = 0;
    // Pieces of 64 KiB (whole floats but for a short last piece, refused below): the floats
    // are the only copy held.
    read_file_pieces(path, max_bytes, [&](std::span<const char> piece) {
        const size_t have = out.values.size(), count = piece.size() / 4;
        out.values.resize(have + count);
        floats_from_little_endian(piece.data(), count, out.values.data() + have);
        bytes += piece.size();
    });
    out.rows = raw_row_count(path, bytes, dims);
    out.cols = dims;
    return out;
}

std::vector<int32_t> read_label_file(const std::string& path, uint64_t max_bytes, int64_t expected_rows) {
    std::vector<int32_t> labels;
    labels.reserve(static_cast<size_t>(std::max<int64_t>(expected_rows, 0)));
    read_csv_rows(path, max_bytes, [&](std::span<const float> row) {
        labels.push_back(to_label(path, static_cast<int64_t>(labels.size()), row.back()));
    });
    return labels;
}

std::vector<int32_t> read_truth(const std::string& path, int64_t n, uint64_t max_bytes) {
    std::vector<int32_t> truth = read_label_file(path, max_bytes, n);
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

Rows InputMatrix::view() const {
    if (mapped) return {reinterpret_cast<const float*>(mapped->data() + first_byte), rows, cols};
    return read.view();
}

InputMatrix open_matrix(const std::string& path, int64_t dims, std::string& format, uint64_t max_bytes) {
    InputMatrix in;
    if (dims > 0 && kkm::io::mappable(path)) {
        raw_row_bytes(dims);  // a bad --dims is a usage error before the file is mapped
        guard_mapped_input("kkmeans", path);
        try {
            in.mapped.emplace(path);
        } catch (const kkm::io::FileError& e) {
            throw ToolError(e.what());
        }
        in.rows = raw_row_count(path, in.mapped->size(), dims);
        in.cols = dims;
        format = "raw float32, mapped";
        return in;
    }
    if (dims > 0) {
        format = "raw float32";
        in.read = read_raw_f32(path, dims, max_bytes);
    } else {
        CsvTable table = read_csv(path, max_bytes);
        format = std::string("csv, ") + (table.has_header ? "header" : "no header") + ", separator " +
                 separator_name(table.separator);
        in.read = std::move(table.matrix);
    }
    in.rows = in.read.rows;
    in.cols = in.read.cols;
    return in;
}

namespace {

/// An output that cannot share standard output with the summary (CommandFile::not_stdout):
/// "-", or a path to the file, pipe or socket standard output goes to (/dev/stdout, or the very
/// file it is redirected to: the summary, printed after, would overwrite the model's first
/// bytes or follow them down the pipe). A terminal or /dev/null as both is left alone.
void refuse_standard_output(const CommandFile& f) {
    if (!f.not_stdout) return;
    if (f.path == "-") {
        throw ToolError(f.role +
                        " '-': this output cannot go to standard output (the summary goes there); name a "
                        "file");
    }
    struct stat st {};
    if (::stat(f.path.c_str(), &st) != 0 || !(kkm::io::identify(f.path) == kkm::io::identify_descriptor(1))) return;
    if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
        throw ToolError(f.role + " '" + f.path +
                        "' is the file standard output goes to, where the summary is "
                        "printed; name another file");
    }
}

kkm::io::FileIdentity identify_file(const CommandFile& f) {
    if (f.path == "-") return kkm::io::identify_descriptor(f.output ? 1 : 0);
    if (f.output) kkm::io::output_target(f.path);  // a directory or socket is refused here
    return kkm::io::identify(f.path);
}

}  // namespace

void check_files(const std::vector<CommandFile>& files) {
    std::vector<std::optional<kkm::io::FileIdentity>> ids(files.size());
    try {
        for (size_t i = 0; i < files.size(); ++i) {
            refuse_standard_output(files[i]);
            // An input that does not exist is reported by its reader, with its reason.
            if (files[i].output || files[i].path == "-" || std::filesystem::exists(files[i].path)) {
                ids[i] = identify_file(files[i]);
            }
        }
    } catch (const kkm::io::FileError& e) {
        throw ToolError(e.what());
    }
    for (size_t i = 0; i < files.size(); ++i) {
        for (size_t j = 0; j < i; ++j) {
            const CommandFile& a = files[j];
            const CommandFile& b = files[i];
            if (!ids[i] || !ids[j] || !(*ids[i] == *ids[j]) || (!a.output && !b.output)) continue;
            if (!ids[i]->regular) continue;  // /dev/null twice, a terminal as input and output
            const std::string both = a.role + " '" + a.path + "' and " + b.role + " '" + b.path + "'";
            throw ToolError(both + " are the same file: " +
                            (a.output && b.output ? "the second output would replace the first"
                                                  : "the output would destroy the input") +
                            "; name another file");
        }
    }
}

StagedOutput::StagedOutput(std::string path) : path_(std::move(path)) {
    if (path_ == "-") return;
    try {
        // A path to this process's standard output (/dev/stdout, or the file it is redirected
        // to) is written through std::cout, in order with the rest of what the command prints.
        if (std::filesystem::exists(path_) && kkm::io::identify(path_) == kkm::io::identify_descriptor(1)) return;
        file_.emplace(path_);
    } catch (const kkm::io::FileError& e) {
        throw ToolError(e.what());
    }
}

void StagedOutput::write(const std::string& text) {
    if (!file_) {
        text_ += text;
        return;
    }
    try {
        file_->append(text);
    } catch (const kkm::io::FileError& e) {
        throw ToolError(e.what());
    }
}

void StagedOutput::commit() {
    if (!file_) {
        std::cout.write(text_.data(), static_cast<std::streamsize>(text_.size()));
        std::cout.flush();
        if (!std::cout) throw ToolError("cannot write to standard output");
        return;
    }
    try {
        file_->commit();
    } catch (const kkm::io::FileError& e) {
        throw ToolError(e.what());
    }
}

namespace {

std::string csv_lines(const std::vector<int32_t>& labels, bool header) {
    std::string text = header ? "label\n" : "";
    for (const int32_t label : labels) {
        text += std::to_string(label);
        text += '\n';
    }
    return text;
}

}  // namespace

std::string labels_csv(const std::vector<int32_t>& labels) {
    return csv_lines(labels, true);
}

std::string labels_i32(const std::vector<int32_t>& labels) {
    std::string bytes(labels.size() * 4, '\0');
    for (size_t i = 0; i < labels.size(); ++i) {
        const auto v = static_cast<uint32_t>(labels[i]);
        for (int b = 0; b < 4; ++b) bytes[4 * i + static_cast<size_t>(b)] = static_cast<char>((v >> (8 * b)) & 0xFF);
    }
    return bytes;
}

std::string labels_text(const std::string& path, const std::vector<int32_t>& labels, bool header) {
    return path.ends_with(".i32") ? labels_i32(labels) : csv_lines(labels, header);
}

void write_labels(const std::string& path, const std::vector<int32_t>& labels) {
    StagedOutput out(path);
    out.write(labels_text(path, labels));
    out.commit();
}

}  // namespace kkm_tool
