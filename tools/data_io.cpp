// Raw float32 input, label files in and out.
#include "data_io.h"

#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>

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

Matrix read_raw_f32(const std::string& path, int64_t dims) {
    if (dims <= 0) throw UsageError("--dims must be positive");
    const std::vector<char> bytes = read_file_bytes(path);
    const auto row_bytes = static_cast<size_t>(dims) * 4;
    if (bytes.empty() || bytes.size() % row_bytes != 0) {
        throw ToolError(path + ": " + std::to_string(bytes.size()) + " bytes is not a positive multiple of 4*" +
                        std::to_string(dims) + " = " + std::to_string(row_bytes) +
                        " (raw float32 rows of --dims values)");
    }
    Matrix out;
    out.rows = static_cast<int64_t>(bytes.size() / row_bytes);
    out.cols = dims;
    out.values.resize(bytes.size() / 4);
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out.values.data(), bytes.data(), bytes.size());
    } else {
        for (size_t i = 0; i < out.values.size(); ++i) out.values[i] = from_little_endian(&bytes[4 * i]);
    }
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
        throw ToolError(path + ": " + std::to_string(truth.size()) + " labels, but the input has " +
                        std::to_string(n) + " rows");
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

void write_labels_csv(const std::string& path, const std::vector<int32_t>& labels) {
    std::string text = "label\n";
    for (const int32_t label : labels) {
        text += std::to_string(label);
        text += '\n';
    }
    if (path == "-") {
        std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
        std::cout.flush();
        if (!std::cout) throw ToolError("cannot write labels to standard output");
        return;
    }
    std::ofstream out(path, std::ios::binary);
    if (!out) throw ToolError("cannot open '" + path + "' for writing: " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) throw ToolError("cannot write labels to '" + path + "'");
}

}  // namespace kkm_tool
