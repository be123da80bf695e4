// CSV of numbers: header detection, separator detection, errors naming file, line, column.
// A UTF-8 byte-order mark is skipped (UTF-16 refused); lines end at LF, CRLF or a lone CR.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "cli.h"
#include "data_io.h"

namespace kkm_tool {
namespace {

constexpr std::string_view kBlanks = " \t";

std::string_view trim(std::string_view s) {
    const size_t first = s.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const size_t last = s.find_last_not_of(" \t\r");
    s = s.substr(first, last - first + 1);
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
    return s;
}

enum class NumberParse { ok, not_a_number, out_of_range };

/// Parses a float32; values too small for float32 become subnormal or zero, too large fail.
NumberParse parse_float(std::string_view text, float& out) {
    if (!text.empty() && text.front() == '+') {
        text.remove_prefix(1);
        if (!text.empty() && text.front() == '-') return NumberParse::not_a_number;  // "+-7"
    }
    const char* end = text.data() + text.size();
    double wide = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), end, wide);
    if (ptr != end || text.empty()) return NumberParse::not_a_number;
    if (ec == std::errc::result_out_of_range) {
        if (std::abs(std::strtod(std::string(text).c_str(), nullptr)) >= 1.0) return NumberParse::out_of_range;
        wide = 0;  // underflow
    } else if (ec != std::errc()) {
        return NumberParse::not_a_number;
    }
    if (std::isfinite(wide) && std::abs(wide) > static_cast<double>(std::numeric_limits<float>::max())) {
        return NumberParse::out_of_range;
    }
    out = static_cast<float>(wide);
    return NumberParse::ok;
}

char detect_separator(std::string_view line) {
    for (const char c : {';', ',', '\t'}) {
        if (line.find(c) != std::string_view::npos) return c;
    }
    return ' ';
}

/// Splits one line into trimmed fields (reusing `fields`).
void split(std::string_view line, char sep, std::vector<std::string_view>& fields) {
    fields.clear();
    if (sep == ' ') {
        size_t pos = line.find_first_not_of(kBlanks);
        while (pos != std::string_view::npos) {
            const size_t end = line.find_first_of(kBlanks, pos);
            fields.push_back(trim(line.substr(pos, end - pos)));
            pos = end == std::string_view::npos ? end : line.find_first_not_of(kBlanks, end);
        }
        return;
    }
    size_t pos = 0;
    for (;;) {
        const size_t end = line.find(sep, pos);
        fields.push_back(trim(line.substr(pos, end - pos)));
        if (end == std::string_view::npos) return;
        pos = end + 1;
    }
}

/// Cuts text that arrives in pieces into lines, numbered from 1. A line ends at "\n", "\r\n" or
/// a lone "\r" (old Mac files, some spreadsheet exports), also where a piece ends between the
/// "\r" and the "\n". Each line that is neither blank nor a '#' comment goes to `line(text,
/// number)`; a line cut by the end of a piece is carried (copied) into the next.
class LineSplitter {
public:
    template <class Line>
    void feed(std::string_view piece, Line&& line) {
        if (after_cr_ && !piece.empty()) {
            if (piece.front() == '\n') piece.remove_prefix(1);
            after_cr_ = false;
        }
        while (!piece.empty()) {
            const size_t end = piece.find_first_of("\r\n");
            if (end == std::string_view::npos) {
                carry_.append(piece);
                return;
            }
            const bool cr = piece[end] == '\r';
            emit(piece.substr(0, end), line);
            after_cr_ = cr && end + 1 == piece.size();
            piece.remove_prefix(end + (piece.substr(end, 2) == "\r\n" ? 2 : 1));
        }
    }

    /// The last line, when the text does not end with a line break.
    template <class Line>
    void finish(Line&& line) {
        if (!carry_.empty()) emit({}, line);
    }

private:
    template <class Line>
    void emit(std::string_view rest, Line& line) {
        std::string_view text = rest;
        if (!carry_.empty()) {
            carry_.append(rest);
            text = carry_;
        }
        ++number_;
        const std::string_view content = trim(text);
        if (!content.empty() && content.front() != '#') line(text, number_);
        carry_.clear();
    }

    std::string carry_;
    bool after_cr_ = false;
    size_t number_ = 0;
};

/// The text without a leading UTF-8 byte-order mark (spreadsheet programs write one); UTF-16
/// (its byte-order mark) is refused by name.
std::string_view without_bom(std::string_view text, const std::string& path) {
    if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
        throw ToolError(path + ": UTF-16 text (a UTF-16 byte-order mark); save it as UTF-8 or ASCII");
    }
    return text;
}

/// A field as an error message quotes it: control bytes as \xNN (a NUL would end the
/// message), UTF-8 text as it is, at most 40 bytes.
std::string quoted(std::string_view field) {
    constexpr size_t kMost = 40;
    size_t cut = std::min(field.size(), kMost);  // not inside a UTF-8 character
    while (cut > 0 && cut < field.size() && (static_cast<unsigned char>(field[cut]) & 0xC0) == 0x80) --cut;
    std::string out = "'";
    for (const char c : field.substr(0, cut)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7F) {
            out += c;
        } else {
            constexpr std::string_view kHex = "0123456789ABCDEF";
            out += "\\x";
            out += kHex[byte >> 4];
            out += kHex[byte & 15];
        }
    }
    if (cut < field.size()) out += "...";
    return out + "'";
}

/// The rows of a CSV, one line at a time (LineSplitter's lines); each data row's values go to
/// `row` as they are parsed.
class CsvParser {
public:
    CsvParser(std::string path, const std::function<void(std::span<const float>)>& row)
        : path_(std::move(path)), row_(row) {}

    void line(std::string_view text, size_t number) {
        if (started_) {
            split(text, shape_.separator, fields_);
            add_row(number);
            return;
        }
        started_ = true;
        shape_.separator = detect_separator(text);
        split(text, shape_.separator, fields_);
        shape_.cols = static_cast<int64_t>(fields_.size());
        shape_.has_header = is_header(number);
        if (!shape_.has_header) add_row(number);
    }

    CsvShape finish() const {
        if (!started_) throw ToolError(path_ + ": no data (the file is empty)");
        if (shape_.rows == 0) throw ToolError(path_ + ": no data rows after the header");
        return shape_;
    }

private:
    [[noreturn]] void fail(size_t line, const std::string& what) const {
        throw ToolError(path_ + ":" + std::to_string(line) + ": " + what);
    }

    /// The first row is a header when none of its fields is a number, data when every
    /// non-empty field is one (an empty field is then reported as missing). A row with both
    /// is neither: a typo in a data row ("2.O") or a header with a numeric name ("2019") —
    /// guessing would silently drop a data row or read names as data, so it is an error.
    bool is_header(size_t line) const {
        const auto number = std::find_if(fields_.begin(), fields_.end(), [](std::string_view f) {
            float ignored = 0;
            return !f.empty() && parse_float(f, ignored) != NumberParse::not_a_number;
        });
        const auto text = std::find_if(fields_.begin(), fields_.end(), [](std::string_view f) {
            float ignored = 0;
            return !f.empty() && parse_float(f, ignored) == NumberParse::not_a_number;
        });
        if (text == fields_.end()) return false;
        if (number == fields_.end()) return true;
        auto column = [this](auto it) { return std::to_string(it - fields_.begin() + 1); };
        fail(line, "the first row is neither a header nor data: column " + column(text) + " " + quoted(*text) +
                       " is not a number but column " + column(number) + " " + quoted(*number) +
                       " is; a header row must hold no number and a data row only numbers (a typo in the "
                       "first data row, or a header field named like a number?)");
    }

    void add_row(size_t line) {
        const auto cols = static_cast<size_t>(shape_.cols);
        if (fields_.size() != cols) {
            fail(line, "expected " + std::to_string(cols) + " fields, found " + std::to_string(fields_.size()));
        }
        values_.clear();
        for (size_t j = 0; j < cols; ++j) add_value(line, j);
        row_(values_);
        ++shape_.rows;
    }

    void add_value(size_t line, size_t column) {
        const std::string_view field = fields_[column];
        const std::string where = "column " + std::to_string(column + 1) + ": ";
        float value = 0;
        if (field.empty()) fail(line, where + "empty field");
        const NumberParse result = parse_float(field, value);
        if (result == NumberParse::out_of_range) {
            fail(line, where + quoted(field) + " is out of float32 range");
        }
        if (result != NumberParse::ok) fail(line, where + quoted(field) + " is not a number");
        if (!std::isfinite(value)) fail(line, where + quoted(field) + " is not finite");
        values_.push_back(value);
    }

    std::string path_;
    const std::function<void(std::span<const float>)>& row_;
    bool started_ = false;
    CsvShape shape_;
    std::vector<std::string_view> fields_;
    std::vector<float> values_;
};

}  // namespace

CsvShape read_csv_rows(const std::string& path, uint64_t max_bytes,
                       const std::function<void(std::span<const float>)>& row) {
    CsvParser parser(path, row);
    LineSplitter lines;
    const auto line = [&parser](std::string_view text, size_t number) { parser.line(text, number); };
    bool first = true;
    read_file_pieces(path, max_bytes, [&](std::span<const char> bytes) {
        std::string_view piece(bytes.data(), bytes.size());
        if (first) piece = without_bom(piece, path);  // pieces but the last are 64 KiB: a BOM is whole
        first = false;
        lines.feed(piece, line);
    });
    lines.finish(line);
    return parser.finish();
}

CsvTable read_csv(const std::string& path, uint64_t max_bytes) {
    CsvTable table;
    std::vector<float>& values = table.matrix.values;
    const CsvShape shape = read_csv_rows(path, max_bytes, [&values](std::span<const float> row) {
        values.insert(values.end(), row.begin(), row.end());
    });
    table.matrix.rows = shape.rows;
    table.matrix.cols = shape.cols;
    table.has_header = shape.has_header;
    table.separator = shape.separator;
    return table;
}

}  // namespace kkm_tool
