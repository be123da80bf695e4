// Reading data sets and writing labels. Every reader goes through zlib, so each input may
// also be gzip-compressed. Errors are ToolErrors naming the file (and the line for CSV).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "io/mapped_file.h"
#include "io/output_file.h"

namespace kkm_tool {

/// Rows the programs pass to the library: rows x cols float32 values, row-major, not owned.
struct Rows {
    const float* data = nullptr;
    int64_t rows = 0;
    int64_t cols = 0;
};

/// A dense row-major float32 matrix: element (i, j) is values[i * cols + j].
struct Matrix {
    std::vector<float> values;
    int64_t rows = 0;
    int64_t cols = 0;
    Rows view() const { return {values.data(), rows, cols}; }
};

/// An input matrix as the programs hold it: raw float32 in a regular, uncompressed file is
/// mapped read-only (kkm::io::MappedFile: never copied, read from the page cache as the fit
/// goes, so a file larger than memory can be clustered and it does not count against
/// max_memory_mb); a CSV, a gzip file, standard input or a FIFO is read into memory.
struct InputMatrix {
    Matrix read;                                ///< the values, when read
    std::optional<kkm::io::MappedFile> mapped;  ///< the file, when mapped
    uint64_t first_byte = 0;                    ///< where the rows start in the mapping
    int64_t rows = 0;
    int64_t cols = 0;
    Rows view() const;
};

/// Whole file content, decompressed if it is gzip. "-" reads standard input. Content beyond
/// max_bytes (decompressed; an endless stream such as /dev/zero) is a ToolError naming the
/// limit: the programs pass max_memory_mb. Every reader below takes the same limit.
std::vector<char> read_file_bytes(const std::string& path, uint64_t max_bytes);

/// The same content passed to `piece` in order, 64 KiB at a time (every piece but the last is
/// full), never held whole; read_file_bytes's limit and errors.
void read_file_pieces(const std::string& path, uint64_t max_bytes,
                      const std::function<void(std::span<const char>)>& piece);

/// Result of read_csv: the matrix and whether a header line was found.
struct CsvTable {
    Matrix matrix;
    bool has_header = false;
    char separator = ',';  ///< ',', ';', '\t', or ' ' for runs of blanks
};

/// What read_csv_rows found besides the rows.
struct CsvShape {
    int64_t rows = 0;
    int64_t cols = 0;
    bool has_header = false;
    char separator = ',';
};

/// read_csv's parsing and errors, each data row's values passed to `row` as it is parsed: the
/// file is read in pieces (read_file_pieces), never held whole.
CsvShape read_csv_rows(const std::string& path, uint64_t max_bytes,
                       const std::function<void(std::span<const float>)>& row);

/// CSV of numbers. A UTF-8 byte-order mark is skipped; lines end at LF, CRLF or CR. The first
/// line is a header if none of its fields is a number, data if all of its non-empty fields
/// are; a first line with both is an error naming its line and the two columns. The
/// separator is the first of ';' ',' TAB found on the first line, else runs of blanks.
/// Blank lines and lines starting with '#' are skipped. Values must be finite float32.
CsvTable read_csv(const std::string& path, uint64_t max_bytes);

/// Raw little-endian float32, `dims` columns: rows = bytes / (4 * dims), which must divide.
/// A dims whose row of 4·dims bytes overflows 64-bit sizes is a UsageError.
Matrix read_raw_f32(const std::string& path, int64_t dims, uint64_t max_bytes);

/// Bytes of one raw float32 row of `dims` values; a dims ≤ 0, or one whose row overflows
/// 64-bit sizes, is a UsageError naming --dims.
size_t raw_row_bytes(int64_t dims);

/// Rows of a raw float32 input of `bytes` bytes with `dims` columns; a ToolError naming path
/// unless bytes is a positive multiple of the row size.
int64_t raw_row_count(const std::string& path, uint64_t bytes, int64_t dims);

/// count little-endian float32 values from bytes into out.
void floats_from_little_endian(const char* bytes, size_t count, float* out);

/// A data matrix: raw float32 with `dims` columns when dims > 0 (mapped where InputMatrix
/// says), else a CSV. `format` receives a short description ("csv, header, separator ','" /
/// "raw float32" / "raw float32, mapped").
InputMatrix open_matrix(const std::string& path, int64_t dims, std::string& format, uint64_t max_bytes);

/// IDX images (magic 0x00000803: n, rows, cols, then n*rows*cols uint8), each image one row
/// of rows*cols pixels scaled by 1/255.
Matrix read_idx_images(const std::string& path, uint64_t max_bytes);

/// IDX labels (magic 0x00000801: n, then n uint8).
std::vector<int32_t> read_idx_labels(const std::string& path, uint64_t max_bytes);

/// Integer labels from a CSV (optional header) or one-per-line file; with several columns
/// the last one is used. Read as float32 numbers: a label must be a whole number below 2^24
/// in magnitude (else a ToolError naming it), where float32 holds every integer exactly.
/// The file is read row by row into a vector that reserves `expected_rows` labels: a label file
/// as long as the input is one allocation, kept.
std::vector<int32_t> read_label_file(const std::string& path, uint64_t max_bytes, int64_t expected_rows);

/// read_label_file, which must give one label per input row (n); throws ToolError otherwise.
std::vector<int32_t> read_truth(const std::string& path, int64_t n, uint64_t max_bytes);

/// A file a command reads or writes, named as the user named it.
struct CommandFile {
    std::string role;  ///< "the input", "-o (the model)", ...
    std::string path;  ///< "-": standard input (an input) or output (an output)
    bool output = false;
    /// An output written to its file directly (a model; kkmeans-mpi's labels), beside the
    /// summary printed on standard output: "-" or a path to standard output's file is refused.
    bool not_stdout = false;
};

/// Before any (long) work: throws ToolError when an output cannot be created at all (its
/// directory does not exist, it is a directory), when two outputs are one regular file
/// (the second would replace the first), or when an output is one of the inputs (it would
/// be destroyed). Files are compared by device and inode, so links and other spellings of
/// one file are caught, and an output marked not_stdout must not be standard output ("-" or
/// its file). Only regular files (and files still to be created) can clash: /dev/null
/// twice, or one terminal as standard input and output, is allowed.
void check_files(const std::vector<CommandFile>& files);

/// An output file that only ever appears complete (kkm::io::StagedFile: a temporary file
/// renamed over a regular target at commit(); a device or FIFO written through at commit()).
/// "-", or any path to the file standard output goes to (/dev/stdout), is written to standard
/// output at commit(). write() appends: a file grows in its staged copy piece by piece while
/// the program works. Errors are ToolErrors naming the path.
class StagedOutput {
public:
    explicit StagedOutput(std::string path);
    void write(const std::string& text);
    void commit();

private:
    std::string path_;
    std::optional<kkm::io::StagedFile> file_;  ///< empty for standard output
    std::string text_;                         ///< for standard output
};

/// Labels as CSV text: header "label", then one label per line.
std::string labels_csv(const std::vector<int32_t>& labels);

/// Labels as raw little-endian int32, 4 bytes a row, no header (kkmeans-mpi's -l, and -l x.i32).
std::string labels_i32(const std::vector<int32_t>& labels);

/// Labels as a path asks for them: labels_i32 when the path ends in ".i32", else labels_csv
/// (without its header line when `header` is false: a later piece of the same output).
std::string labels_text(const std::string& path, const std::vector<int32_t>& labels, bool header = true);

/// Writes labels_text(path, labels) to path through a StagedOutput. "-" writes standard output.
void write_labels(const std::string& path, const std::vector<int32_t>& labels);

}  // namespace kkm_tool
