// IDX files (the MNIST / Fashion-MNIST format), optionally gzip-compressed.
#include <cstdint>
#include <string>
#include <vector>

#include "cli.h"
#include "data_io.h"

namespace kkm_tool {
namespace {

constexpr uint32_t kImagesMagic = 0x00000803;  // uint8, 3 dimensions
constexpr uint32_t kLabelsMagic = 0x00000801;  // uint8, 1 dimension

uint32_t big_endian_u32(const std::vector<char>& bytes, size_t offset) {
    uint32_t value = 0;
    for (size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
    return value;
}

std::string hex(uint32_t value) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) out += kDigits[(value >> shift) & 0xFU];
    return out;
}

/// The dimensions of an IDX file after checking its magic and its exact size.
std::vector<uint64_t> idx_dims(const std::string& path, const std::vector<char>& bytes, uint32_t magic) {
    const size_t ndims = magic & 0xFFU;
    const size_t header = 4 * (1 + ndims);
    if (bytes.size() < header) {
        throw ToolError(path + ": not an IDX file (only " + std::to_string(bytes.size()) + " bytes)");
    }
    const uint32_t found = big_endian_u32(bytes, 0);
    if (found != magic) {
        throw ToolError(path + ": bad IDX magic " + hex(found) + ", expected " + hex(magic) +
                        (ndims == 3 ? " (uint8 images)" : " (uint8 labels)"));
    }
    std::vector<uint64_t> dims;
    uint64_t payload = 1;
    for (size_t i = 0; i < ndims; ++i) {
        dims.push_back(big_endian_u32(bytes, 4 * (1 + i)));
        // Three u32 sizes can overflow 64 bits and wrap to the file's size: check the product.
        if (__builtin_mul_overflow(payload, dims.back(), &payload) || payload > static_cast<uint64_t>(INT64_MAX)) {
            throw ToolError(path + ": IDX header sizes overflow 64-bit sizes (dimension " + std::to_string(i + 1) +
                            " is " + std::to_string(dims.back()) + ")");
        }
    }
    if (bytes.size() - header != payload) {
        throw ToolError(path + ": IDX header announces " + std::to_string(payload) + " data bytes, file has " +
                        std::to_string(bytes.size() - header));
    }
    if (payload == 0) throw ToolError(path + ": IDX file holds no data");
    return dims;
}

}  // namespace

Matrix read_idx_images(const std::string& path, uint64_t max_bytes) {
    const std::vector<char> bytes = read_file_bytes(path, max_bytes);
    const std::vector<uint64_t> dims = idx_dims(path, bytes, kImagesMagic);
    Matrix out;
    out.rows = static_cast<int64_t>(dims[0]);
    out.cols = static_cast<int64_t>(dims[1] * dims[2]);
    out.values.resize(bytes.size() - 16);
    for (size_t i = 0; i < out.values.size(); ++i) {
        out.values[i] = static_cast<float>(static_cast<unsigned char>(bytes[16 + i])) / 255.0F;
    }
    return out;
}

std::vector<int32_t> read_idx_labels(const std::string& path, uint64_t max_bytes) {
    const std::vector<char> bytes = read_file_bytes(path, max_bytes);
    idx_dims(path, bytes, kLabelsMagic);
    std::vector<int32_t> out(bytes.size() - 8);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(bytes[8 + i]);
    return out;
}

}  // namespace kkm_tool
