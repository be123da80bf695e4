// Byte-level building blocks of the model format: a Writer that appends tagged sections and
// a Reader that parses them back, checking every count against the bytes that are left
// before anything is allocated. All values are stored in the host's byte order; the model
// header records it (see model/serialize.h). Every Reader failure is Error(KKM_ERR_FORMAT)
// naming the section and the offset.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/matrix.h"

namespace kkm {

/// Name of a tag for messages ("LABL").
std::string tag_name(uint32_t t);

/// Throws Error(KKM_ERR_FORMAT): "corrupted model: <message> (at byte <offset>)".
[[noreturn]] void fail_format(size_t offset, const std::string& message);

/// CRC-32 (IEEE 802.3, the polynomial of zlib and PNG) of bytes.
uint32_t crc32(std::span<const unsigned char> bytes);

/// A four-character section tag, e.g. tag("LABL").
constexpr uint32_t tag(const char (&name)[5]) {
    return static_cast<uint32_t>(static_cast<unsigned char>(name[0])) |
           static_cast<uint32_t>(static_cast<unsigned char>(name[1])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(name[2])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(name[3])) << 24;
}

class Writer {
public:
    template <class T>
    void scalar(T value) {
        static_assert(std::is_arithmetic_v<T>);
        append(&value, sizeof value);
    }
    void raw(const void* data, size_t size) { append(data, size); }

    /// A section: tag, u64 payload size, payload (what body writes).
    template <class Body>
    void section(uint32_t section_tag, Body&& body) {
        scalar(section_tag);
        const size_t size_at = bytes_.size();
        scalar<uint64_t>(0);
        body();
        const uint64_t size = bytes_.size() - size_at - sizeof(uint64_t);
        std::memcpy(bytes_.data() + size_at, &size, sizeof size);
    }
    /// Sections holding one array: u64 count, then the elements.
    template <class T>
    void array(uint32_t section_tag, std::span<const T> values) {
        section(section_tag, [&] {
            scalar<uint64_t>(values.size());
            append(values.data(), values.size_bytes());
        });
    }
    /// u64 rows, u64 cols, then rows·cols floats (no padding).
    void matrix(uint32_t section_tag, const Matrix& m);
    void text(uint32_t section_tag, const std::string& s);

    std::vector<unsigned char>& bytes() { return bytes_; }

private:
    void append(const void* data, size_t size) {
        if (size == 0) return;
        const size_t at = bytes_.size();
        bytes_.resize(at + size);
        std::memcpy(bytes_.data() + at, data, size);
    }
    std::vector<unsigned char> bytes_;
};

class Reader {
public:
    /// bytes: the region to parse; base: its offset in the whole file (for messages).
    explicit Reader(std::span<const unsigned char> bytes, size_t base = 0) : bytes_(bytes), base_(base) {}

    template <class T>
    T scalar(const char* what) {
        static_assert(std::is_arithmetic_v<T>);
        T value;
        std::memcpy(&value, take(sizeof value, what), sizeof value);
        return value;
    }
    const unsigned char* take(size_t size, const char* what);

    /// The next section, which must carry section_tag; returns a Reader over its payload.
    Reader section(uint32_t section_tag);
    /// Tag of the next section without consuming it (0 at the end).
    uint32_t peek_tag() const;

    template <class T>
    std::vector<T> array(uint32_t section_tag) {
        Reader r = section(section_tag);
        const uint64_t count = r.count(sizeof(T));
        std::vector<T> values(static_cast<size_t>(count));
        const unsigned char* elements = r.take(values.size() * sizeof(T), "array elements");
        // An empty array's data() may be NULL, which memcpy must not get even for 0 bytes.
        if (!values.empty()) std::memcpy(values.data(), elements, values.size() * sizeof(T));
        r.finish();
        if constexpr (std::is_floating_point_v<T>) require_finite(values.data(), values.size(), section_tag);
        return values;
    }
    Matrix matrix(uint32_t section_tag);
    std::string text(uint32_t section_tag);

    /// Throws naming the section when a value is NaN or infinite.
    template <class T>
    void require_finite(const T* values, size_t count, uint32_t section_tag) const;
    /// Throws unless every byte has been consumed.
    void finish() const;
    size_t offset() const { return base_ + pos_; }
    size_t left() const { return bytes_.size() - pos_; }

private:
    /// A u64 element count, checked against the bytes left for elements of `size` bytes.
    uint64_t count(size_t size);
    std::span<const unsigned char> bytes_;
    size_t base_;
    size_t pos_ = 0;
    uint32_t tag_ = 0;
};

template <class T>
void Reader::require_finite(const T* values, size_t count, uint32_t section_tag) const {
    for (size_t i = 0; i < count; ++i) {
        if (!std::isfinite(values[i])) {
            fail_format(offset(),
                        "section " + tag_name(section_tag) + " holds a non-finite value at index " + std::to_string(i));
        }
    }
}

}  // namespace kkm
