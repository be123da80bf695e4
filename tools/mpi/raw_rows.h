// This rank's rows of a raw float32 file: the rows are split over the ranks as evenly as
// possible, in rank order, and each rank reads only its own slice of the file (mapped, or pread).
#pragma once

#include <cstdint>
#include <string>

#include "data_io.h"

namespace kkm_tool {

/// Rows [first, first + count) of `total`, for one rank of `ranks`: the first total % ranks
/// ranks hold one row more than the others.
struct RowSlice {
    int64_t first = 0;
    int64_t count = 0;
    int64_t total = 0;
};
RowSlice slice_rows(int64_t total, int rank, int ranks);

/// Rows of the raw little-endian float32 file at path with `dims` columns, from its size.
/// Errors as read_raw_f32: UsageError for a bad --dims, ToolError naming the file.
int64_t raw_file_rows(const std::string& path, int64_t dims);

/// The rows of `slice` of that file, and only them: mapped read-only where the file can be
/// (kkm::io::mappable: the whole file is mapped, only the slice's pages are ever read, never
/// copied), else read (pread of the slice).
InputMatrix open_raw_slice(const std::string& path, int64_t dims, const RowSlice& slice);

}  // namespace kkm_tool
