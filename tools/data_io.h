// Reading data sets and writing labels. Every reader goes through zlib, so each input may
// also be gzip-compressed. Errors are ToolErrors naming the file (and the line for CSV).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kkm_tool {

/// A dense row-major float32 matrix: element (i, j) is values[i * cols + j].
struct Matrix {
    std::vector<float> values;
    int64_t rows = 0;
    int64_t cols = 0;
};

/// Whole file content, decompressed if it is gzip. "-" reads standard input.
std::vector<char> read_file_bytes(const std::string& path);

/// Result of read_csv: the matrix and whether a header line was found.
struct CsvTable {
    Matrix matrix;
    bool has_header = false;
    char separator = ',';  ///< ',', ';', '\t', or ' ' for runs of blanks
};

/// CSV of numbers. The first line is a header if any of its fields is not a number. The
/// separator is the first of ';' ',' TAB found on the first line, else runs of blanks.
/// Blank lines and lines starting with '#' are skipped. Values must be finite float32.
CsvTable read_csv(const std::string& path);

/// Raw little-endian float32, `dims` columns: rows = bytes / (4 * dims), which must divide.
Matrix read_raw_f32(const std::string& path, int64_t dims);

/// A data matrix: raw float32 with `dims` columns when dims > 0, else a CSV. `format`
/// receives a short description ("csv, header, separator ','" / "raw float32").
Matrix read_matrix(const std::string& path, int64_t dims, std::string& format);

/// IDX images (magic 0x00000803: n, rows, cols, then n*rows*cols uint8), each image one row
/// of rows*cols pixels scaled by 1/255.
Matrix read_idx_images(const std::string& path);

/// IDX labels (magic 0x00000801: n, then n uint8).
std::vector<int32_t> read_idx_labels(const std::string& path);

/// Integer labels from a CSV (optional header) or one-per-line file; with several columns
/// the last one is used.
std::vector<int32_t> read_label_file(const std::string& path);

/// read_label_file, which must give one label per input row (n); throws ToolError otherwise.
std::vector<int32_t> read_truth(const std::string& path, int64_t n);

/// Writes labels as CSV: header "label", then one label per line. "-" writes standard output.
void write_labels_csv(const std::string& path, const std::vector<int32_t>& labels);

}  // namespace kkm_tool
