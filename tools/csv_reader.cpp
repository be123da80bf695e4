// CSV of numbers: header detection, separator detection, errors naming file, line, column.
// A UTF-8 byte-order mark is skipped (UTF-16 refused); lines end at LF, CRLF or a lone CR.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
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

/// Iterates over the lines of a buffer, counting line numbers from 1. A line ends at "\n",
/// "\r\n" or a lone "\r" (old Mac files, some spreadsheet exports).
class LineReader {
public:
    explicit LineReader(std::string_view text) : text_(text) {}
    /// Next line that is neither blank nor a '#' comment; false at the end.
    bool next(std::string_view& line) {
        while (pos_ < text_.size()) {
            const size_t end = std::min(text_.find_first_of("\r\n", pos_), text_.size());
            line = text_.substr(pos_, end - pos_);
            pos_ = end + (text_.substr(end, 2) == "\r\n" ? 2 : 1);
            ++number_;
            const std::string_view content = trim(line);
            if (!content.empty() && content.front() != '#') return true;
        }
        return false;
    }
    size_t number() const { return number_; }

private:
    std::string_view text_;
    size_t pos_ = 0;
    size_t number_ = 0;
};

/// The text without a leading UTF-8 byte-order mark (spreadsheet programs write one); UTF-16
/// (its byte-order mark) is refused by name.
std::string_view without_bom(const std::vector<char>& bytes, const std::string& path) {
    std::string_view text(bytes.data(), bytes.size());
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

class CsvParser {
public:
    explicit CsvParser(std::string path) : path_(std::move(path)) {}

    CsvTable parse(const std::vector<char>& bytes) {
        LineReader lines(without_bom(bytes, path_));
        std::string_view line;
        if (!lines.next(line)) throw ToolError(path_ + ": no data (the file is empty)");
        table_.separator = detect_separator(line);
        split(line, table_.separator, fields_);
        table_.matrix.cols = static_cast<int64_t>(fields_.size());
        table_.has_header = is_header(lines.number());
        if (!table_.has_header) add_row(lines.number());
        while (lines.next(line)) {
            split(line, table_.separator, fields_);
            add_row(lines.number());
        }
        if (table_.matrix.rows == 0) throw ToolError(path_ + ": no data rows after the header");
        return std::move(table_);
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
        const auto cols = static_cast<size_t>(table_.matrix.cols);
        if (fields_.size() != cols) {
            fail(line, "expected " + std::to_string(cols) + " fields, found " + std::to_string(fields_.size()));
        }
        for (size_t j = 0; j < cols; ++j) add_value(line, j);
        ++table_.matrix.rows;
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
        table_.matrix.values.push_back(value);
    }

    std::string path_;
    CsvTable table_;
    std::vector<std::string_view> fields_;
};

}  // namespace

CsvTable read_csv(const std::string& path, uint64_t max_bytes) {
    return CsvParser(path).parse(read_file_bytes(path, max_bytes));
}

}  // namespace kkm_tool
