#include "core/archive.h"

#include <array>

#include "core/error.h"

namespace kkm {
namespace {

constexpr std::array<uint32_t, 256> make_crc_table() {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
        uint32_t c = i;
        for (int b = 0; b < 8; ++b) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    return table;
}

constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

}  // namespace

void fail_format(size_t offset, const std::string& message) {
    fail(KKM_ERR_FORMAT, "corrupted model: " + message + " (at byte " + std::to_string(offset) + ")");
}

uint32_t crc32(std::span<const unsigned char> bytes) {
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : bytes) c = kCrcTable[(c ^ b) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::string tag_name(uint32_t t) {
    std::string name;
    for (int i = 0; i < 4; ++i) {
        const auto ch = static_cast<char>((t >> (8 * i)) & 0xFFu);
        name += (ch >= 0x20 && ch < 0x7F) ? ch : '?';
    }
    return name;
}

void Writer::matrix(uint32_t section_tag, const Matrix& m) {
    section(section_tag, [&] {
        scalar<uint64_t>(static_cast<uint64_t>(m.rows));
        scalar<uint64_t>(static_cast<uint64_t>(m.cols));
        append(m.data(), static_cast<size_t>(m.rows * m.cols) * sizeof(float));
    });
}

void Writer::text(uint32_t section_tag, const std::string& s) {
    array<char>(section_tag, std::span<const char>(s.data(), s.size()));
}

const unsigned char* Reader::take(size_t size, const char* what) {
    if (size > left()) {
        fail_format(offset(), std::string(what) + (tag_ ? " of section " + tag_name(tag_) : std::string()) + " needs " +
                                  std::to_string(size) + " bytes but only " + std::to_string(left()) +
                                  " are left (truncated?)");
    }
    const unsigned char* p = bytes_.data() + pos_;
    pos_ += size;
    return p;
}

uint32_t Reader::peek_tag() const {
    if (left() < sizeof(uint32_t)) return 0;
    uint32_t t;
    std::memcpy(&t, bytes_.data() + pos_, sizeof t);
    return t;
}

Reader Reader::section(uint32_t section_tag) {
    const size_t at = offset();
    const auto t = scalar<uint32_t>("section tag");
    if (t != section_tag) {
        fail_format(at, "expected section " + tag_name(section_tag) + " but found " + tag_name(t));
    }
    const auto size = scalar<uint64_t>("section size");
    if (size > left()) {
        fail_format(at, "section " + tag_name(t) + " says it holds " + std::to_string(size) + " bytes but only " +
                            std::to_string(left()) + " are left (truncated?)");
    }
    Reader payload(bytes_.subspan(pos_, static_cast<size_t>(size)), offset());
    payload.tag_ = t;
    pos_ += static_cast<size_t>(size);
    return payload;
}

uint64_t Reader::count(size_t size) {
    const auto n = scalar<uint64_t>("element count");
    if (n > left() / size) {
        fail_format(offset(), "section " + tag_name(tag_) + " claims " + std::to_string(n) + " elements of " +
                                  std::to_string(size) + " bytes but holds only " + std::to_string(left()) + " bytes");
    }
    return n;
}

Matrix Reader::matrix(uint32_t section_tag) {
    Reader r = section(section_tag);
    const auto rows = r.scalar<uint64_t>("rows");
    const auto cols = r.scalar<uint64_t>("cols");
    const uint64_t room = r.left() / sizeof(float);
    if (rows == 0 || cols == 0 || rows > room / cols || rows * cols != room) {
        fail_format(r.offset(), "section " + tag_name(section_tag) + " claims a " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + " matrix but holds " + std::to_string(room) + " floats");
    }
    Matrix m(static_cast<int64_t>(rows), static_cast<int64_t>(cols));
    std::memcpy(m.data(), r.take(static_cast<size_t>(rows * cols) * sizeof(float), "matrix"),
                static_cast<size_t>(rows * cols) * sizeof(float));
    r.require_finite(m.data(), static_cast<size_t>(rows * cols), section_tag);
    return m;
}

std::string Reader::text(uint32_t section_tag) {
    const std::vector<char> chars = array<char>(section_tag);
    return std::string(chars.begin(), chars.end());
}

void Reader::finish() const {
    if (left() != 0) {
        fail_format(offset(), std::to_string(left()) + " unexpected bytes at the end of " +
                                  (tag_ ? "section " + tag_name(tag_) : std::string("the model")));
    }
}

}  // namespace kkm
