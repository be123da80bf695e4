#include "engine/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/blocking.h"
#include "core/error.h"

namespace kkm::engine {
namespace {

constexpr int64_t kAlignFloats = 16;         // 64 bytes
constexpr int64_t kPanelBytes = 120 * 1024;  // packed X rows per pass

int64_t round_up(int64_t v, int64_t to) {
    return (v + to - 1) / to * to;
}

/// Floats from p to the next 64-byte boundary.
size_t align_offset(const float* p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    return static_cast<size_t>(((64 - address % 64) % 64) / sizeof(float));
}

void run_tiles(Isa isa, const TileJob& job) {
    switch (isa) {
        case Isa::avx512: run_tiles_avx512(job); return;
        case Isa::avx2: run_tiles_avx2(job); return;
        case Isa::portable: run_tiles_portable(job); return;
    }
}

constexpr int64_t kWholeDepth = 2048;  // rows this long or shorter: the whole reduction at once
constexpr int64_t kDepthBlock = 256;   // longer ones: blocks of about this many values

/// X rows per packed pass: whole register panels whose packed copy (of one depth block, d
/// values when the reduction runs whole) stays within kPanelBytes.
int64_t rows_per_pass(int64_t d, int64_t mr) {
    const int64_t panels = std::max<int64_t>(1, kPanelBytes / (4 * mr * std::max<int64_t>(d, 1)));
    return panels * mr;
}

/// Rows of each packed pass of a left side of `rows` rows: whole register panels, no more than
/// the rows need, at least one panel.
int64_t pass_rows(int64_t depth, int64_t mr, int64_t rows) {
    return std::max<int64_t>(mr, std::min(rows_per_pass(depth, mr), round_up(rows, mr)));
}

/// pack_panels by the AVX2 transposes where the CPU has them (the same floats).
void pack_panels_on(Isa isa, const float* X, int64_t rows, int64_t d, int64_t ld, int64_t width, float* dst) {
    if (streams_dots(isa)) {
        pack_panels_avx2(X, rows, d, ld, width, dst);
    } else {
        pack_panels(X, rows, d, ld, width, dst);
    }
}

/// Packs left rows [begin, begin + count) of X as one pass for path isa: panels at `a`; where
/// X has aux (x_aux not NULL), their aux at `aux`, zero-padded to `step` values.
void pack_pass(Isa isa, ConstMatrix X, const float* x_aux, int64_t begin, int64_t count, int64_t step, float* a,
               float* aux) {
    pack_panels_on(isa, X.row(begin), count, X.cols, X.cols, geometry(isa).mr, a);
    if (x_aux == nullptr) return;
    std::copy(x_aux + begin, x_aux + begin + count, aux);
    std::fill(aux + count, aux + step, 0.0f);
}

/// The columns of A as panels of `width`: panel p holds, at depth t (each row of A), A's row t
/// from column p·width on (zero past the last column).
void pack_columns(ConstMatrix A, int64_t width, float* dst) {
    const int64_t panels = (A.cols + width - 1) / width;
    for (int64_t p = 0; p < panels; ++p) {
        const int64_t begin = p * width, valid = std::min(width, A.cols - begin);
        float* out = dst + p * A.rows * width;
        for (int64_t t = 0; t < A.rows; ++t, out += width) {
            std::copy(A.row(t) + begin, A.row(t) + begin + valid, out);
            std::fill(out + valid, out + width, 0.0f);
        }
    }
}

}  // namespace

int64_t depth_block(int64_t d) {
    if (d <= kWholeDepth) return d;
    const int64_t blocks = (d + kDepthBlock - 1) / kDepthBlock;
    return (d + blocks - 1) / blocks;  // equal blocks, the last no longer than the others
}

// Row blocks of the streaming passes end on whole register tiles on every path.
static_assert(kRowBlock % 14 == 0 && kRowBlock % 6 == 0 && kRowBlock % 4 == 0,
              "kRowBlock must be a multiple of every path's register rows (geometry below)");

Geometry geometry(Isa isa) {
    switch (isa) {
        case Isa::avx512: return {14, 32};
        case Isa::avx2: return {6, 16};
        case Isa::portable: return {4, 8};
    }
    return {4, 8};
}

void pack_panels(const float* X, int64_t rows, int64_t d, int64_t ld, int64_t width, float* dst) {
    const int64_t panels = (rows + width - 1) / width;
    for (int64_t p = 0; p < panels; ++p) {
        float* out = dst + p * d * width;
        const float* in = X + p * width * ld;
        const int64_t valid = std::min(width, rows - p * width);
        // The output in order (a panel, d × width floats, outgrows L1 when written row by row);
        // the `valid` rows read at t each stay in L1 from one t to the next.
        for (int64_t t = 0; t < d; ++t, out += width) {
            for (int64_t i = 0; i < valid; ++i) out[i] = in[i * ld + t];
            std::fill(out + valid, out + width, 0.0f);
        }
    }
}

double left_pack_footprint(double rows, double d) {
    const double padded = std::ceil(std::max(rows, 1.0)) + static_cast<double>(kWidestLeftPanel - 1);
    const double q8 = padded * 4 * std::ceil(d / 4) + 2 * 4 * padded;  // words, terms (q8.cpp)
    return 4 * (padded * d + kAlignFloats) + 4 * padded + q8;
}

double PackedRows::footprint(double rows, double d) {
    const double padded = std::ceil(std::max(rows, 1.0) / kWidestPanel) * kWidestPanel;
    const double q8 = padded * 4 * std::ceil(d / 4) + 2 * 4 * padded;  // the 8-bit copy (q8.h)
    return 4 * (padded * d + kAlignFloats) + 4 * padded + q8;
}

void PackedRows::assign(Isa isa, ConstMatrix Y, const std::vector<float>& aux) {
    isa_ = isa;
    q8_scale_ = 0.0f;  // assign_q8 packs the 8-bit copy afresh
    rows_ = Y.rows;
    d_ = Y.cols;
    has_aux_ = !aux.empty();
    has_floats_ = true;
    const int64_t nr = geometry(isa).nr, padded = round_up(std::max<int64_t>(rows_, 1), nr);
    // pack_panels writes every float of the panels the tiles read, padding lanes included, so
    // storage kept from an earlier pack needs no clearing.
    const auto need = static_cast<size_t>(padded * d_ + kAlignFloats);
    // A first pack takes what it needs; a repack that must grow takes half as much again, so
    // that sizes creeping up from call to call reallocate a few times, not every time.
    if (panels_.size() < need) panels_ = ZeroedBuffer(panels_.size() == 0 ? need : need + need / 2);
    offset_ = align_offset(panels_.data());
    pack_panels_on(isa, Y.data, rows_, d_, Y.cols, nr, panels_.data() + offset_);
    if (has_aux_) {
        aux_.assign(static_cast<size_t>(padded), 0.0f);
        std::copy(aux.begin(), aux.end(), aux_.begin());
    }
}

void PackedRows::assign_columns(Isa isa, ConstMatrix A) {
    isa_ = isa;
    q8_scale_ = 0.0f;
    rows_ = A.cols;
    d_ = A.rows;
    has_aux_ = false;
    has_floats_ = true;
    const int64_t nr = geometry(isa).nr, padded = round_up(std::max<int64_t>(rows_, 1), nr);
    const auto need = static_cast<size_t>(padded * d_ + kAlignFloats);
    if (panels_.size() < need) panels_ = ZeroedBuffer(panels_.size() == 0 ? need : need + need / 2);
    offset_ = align_offset(panels_.data());
    pack_columns(A, nr, panels_.data() + offset_);
}

void kernel_block(ConstMatrix X, const float* x_aux, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo,
                  BlockScratch* scratch, int64_t depth) {
    kernel_block_cols(X, x_aux, Y, 0, Y.rows(), op, out, ldo, scratch, depth);
}

namespace {

/// Left rows of d columns against Y's columns [col_begin, col_begin + cols).
void check_block(int64_t d, const PackedRows& Y, int64_t col_begin, int64_t cols) {
    if (!Y.has_floats()) fail(KKM_ERR_INTERNAL, "kernel block: float32 tiles against rows packed as 8-bit only");
    if (d != Y.dim()) {
        fail(KKM_ERR_INTERNAL, "kernel block: rows of " + std::to_string(d) + " columns against packed rows of " +
                                   std::to_string(Y.dim()));
    }
    const int64_t nr = geometry(Y.isa()).nr;
    if (col_begin < 0 || col_begin % nr != 0 || cols > Y.rows() - col_begin) {
        fail(KKM_ERR_INTERNAL, "kernel block: columns [" + std::to_string(col_begin) + ", " +
                                   std::to_string(col_begin + cols) + ") of " + std::to_string(Y.rows()) +
                                   " packed rows do not start on a panel or run past the end");
    }
}

/// The tiles of one pass: `count` left rows packed in panels at `a` (their aux, whole panels
/// zero-padded, or NULL) against Y's columns [col_begin, col_begin + cols).
void run_pass(const float* a, const float* a_aux, int64_t count, const PackedRows& Y, int64_t col_begin, int64_t cols,
              const TileOp& op, int64_t depth, float* out, int64_t ldo) {
    TileJob job;
    job.a = a;
    job.rows = count;
    job.b = Y.panels() + col_begin * Y.dim();
    job.cols = cols;
    job.d = Y.dim();
    job.x_aux = a_aux;
    job.y_aux = Y.aux() != nullptr ? Y.aux() + col_begin : nullptr;
    job.op = op;
    job.depth = depth;
    job.out = out;
    job.ldo = ldo;
    run_tiles(Y.isa(), job);
}

}  // namespace

void kernel_block_cols(ConstMatrix X, const float* x_aux, const PackedRows& Y, int64_t col_begin, int64_t cols,
                       const TileOp& op, float* out, int64_t ldo, BlockScratch* scratch, int64_t depth) {
    if (X.rows <= 0 || cols <= 0) return;
    check_block(X.cols, Y, col_begin, cols);
    const int64_t mr = geometry(Y.isa()).mr, d = X.cols;
    if (depth <= 0 || depth > d) depth = depth_block(d);
    const int64_t step = pass_rows(depth, mr, X.rows);
    BlockScratch local;
    BlockScratch& s = scratch != nullptr ? *scratch : local;
    // pack_panels writes every float the tiles read, so kept storage needs no clearing.
    const auto need = static_cast<size_t>(step * d + kAlignFloats);
    if (s.packed.size() < need) s.packed = ZeroedBuffer(need);
    float* a = s.packed.data() + align_offset(s.packed.data());
    std::vector<float>& aux = s.aux;
    aux.resize(static_cast<size_t>(x_aux != nullptr ? step : 0));
    for (int64_t begin = 0; begin < X.rows; begin += step) {
        const int64_t count = std::min(step, X.rows - begin);
        pack_pass(Y.isa(), X, x_aux, begin, count, step, a, aux.data());
        run_pass(a, x_aux != nullptr ? aux.data() : nullptr, count, Y, col_begin, cols, op, depth, out + begin * ldo,
                 ldo);
    }
}

void column_gram(ConstMatrix A, const PackedRows& Y, float* out, int64_t ldo, BlockScratch* scratch) {
    const int64_t l = A.cols;
    if (A.rows <= 0 || l <= 0) return;
    check_block(A.rows, Y, 0, l);
    if (Y.rows() != l) fail(KKM_ERR_INTERNAL, "column_gram: the packed columns are not A's");
    const int64_t mr = geometry(Y.isa()).mr, nr = geometry(Y.isa()).nr, panels = (l + mr - 1) / mr;
    BlockScratch local;
    BlockScratch& s = scratch != nullptr ? *scratch : local;
    const auto need = static_cast<size_t>(panels * mr * A.rows + kAlignFloats);
    if (s.packed.size() < need) s.packed = ZeroedBuffer(need);
    float* a = s.packed.data() + align_offset(s.packed.data());
    pack_columns(A, mr, a);
    const TileOp dot{{}, TileFn::dot};
    const int64_t depth = depth_block(A.rows);
    // Left panel q (columns q·mr on) against the right-hand panels from the one holding its
    // first column: every value on or above the diagonal, few below it.
    for (int64_t q = 0; q < panels; ++q) {
        const int64_t row = q * mr, col = row / nr * nr;
        run_pass(a + q * mr * A.rows, nullptr, std::min(mr, l - row), Y, col, l - col, dot, depth,
                 out + row * ldo + col, ldo);
    }
    for (int64_t i = 1; i < l; ++i) {
        for (int64_t j = 0; j < i; ++j) out[i * ldo + j] = out[j * ldo + i];
    }
}

bool streams_dots(Isa isa) {
    // The AVX2 transposes on the vector paths (an AVX-512 CPU has AVX2; checked all the same).
    return isa != Isa::portable && isa_supported(Isa::avx2);
}

void stream_dots(Isa isa, ConstMatrix X, ConstMatrix Y, float* out, int64_t ldo) {
    if (!streams_dots(isa)) fail(KKM_ERR_INTERNAL, "stream_dots: not on this path or CPU");
    if (X.cols != Y.cols) {
        fail(KKM_ERR_INTERNAL,
             "stream_dots: rows of " + std::to_string(X.cols) + " columns against rows of " + std::to_string(Y.cols));
    }
    if (X.rows <= 0 || Y.rows <= 0) return;
    stream_dots_avx2(X.data, X.rows, X.cols, Y.data, Y.rows, Y.cols, X.cols, out, ldo);
}

void LeftRows::pack(Isa isa, ConstMatrix X, const float* x_aux) {
    isa_ = isa;
    rows_ = X.rows;
    d_ = X.cols;
    const int64_t mr = geometry(isa).mr;
    depth_ = depth_block(std::max<int64_t>(d_, 1));
    step_ = pass_rows(depth_, mr, rows_);
    stride_ = round_up(step_ * d_, kAlignFloats);  // every pass on a 64-byte boundary
    const int64_t passes = (rows_ + step_ - 1) / step_;
    const auto need = static_cast<size_t>(passes * stride_ + kAlignFloats);
    if (packed_.size() < need) packed_ = ZeroedBuffer(need);
    aux_.resize(static_cast<size_t>(x_aux != nullptr ? passes * step_ : 0));
    for (int64_t p = 0; p < passes; ++p) {
        const int64_t begin = p * step_, count = std::min(step_, rows_ - begin);
        pack_pass(isa, X, x_aux, begin, count, step_, first() + p * stride_, aux_.data() + begin);
    }
}

const float* LeftRows::first() const {
    return packed_.data() + align_offset(packed_.data());
}

float* LeftRows::first() {
    return packed_.data() + align_offset(packed_.data());
}

double LeftRows::footprint(double rows, double d) {
    // Whole passes (at most kPanelBytes of floats each, 64-byte aligned) and their aux.
    const double slack = static_cast<double>(kPanelBytes) / (4 * std::max(d, 1.0)) + static_cast<double>(kWidestPanel);
    return 4 * (rows + slack) * (d + 1) + 4 * static_cast<double>(kAlignFloats) * (rows / 4 + 2);
}

void kernel_block(const LeftRows& X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo) {
    if (X.rows() <= 0 || Y.rows() <= 0) return;
    check_block(X.dim(), Y, 0, Y.rows());
    if (X.isa() != Y.isa()) fail(KKM_ERR_INTERNAL, "kernel block: left and right rows packed for different paths");
    for (int64_t begin = 0, p = 0; begin < X.rows(); begin += X.step_, ++p) {
        run_pass(X.first() + p * X.stride_, X.aux_.empty() ? nullptr : X.aux_.data() + begin,
                 std::min(X.step_, X.rows() - begin), Y, 0, Y.rows(), op, X.depth_, out + begin * ldo, ldo);
    }
}

float engine_exp(float x) {
    if (!(x >= -87.336544f)) return 0.0f;  // below the smallest normal float32 (and NaN)
    x = std::min(x, 88.0f);                // 2^127 at most: a normal float32
    const float n = std::nearbyint(x * 1.44269504088896341f);
    float r = x - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * (r * r) + r + 1.0f;
    const auto e = static_cast<int32_t>(n) + 127;
    uint32_t bits = static_cast<uint32_t>(e) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return y * scale;
}

}  // namespace kkm::engine
