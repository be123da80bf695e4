#include "engine/q8.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cmath>

#include "engine/engine.h"
#include "engine/tiles.h"

namespace kkm::engine {
namespace {

constexpr float kScales[] = {1.0f, 255.0f, 256.0f};
constexpr int64_t kGroup = 4;               // values per 32-bit word
constexpr int64_t kPassBytes = 120 * 1024;  // packed X rows per pass, as the float32 tiles'
constexpr int64_t kQ8Pieces = 16;           // pieces of a pack whose caller runs them (PieceRunner)

int64_t groups(int64_t d) {
    return (d + kGroup - 1) / kGroup;
}

/// The path's packing (pack_q8_avx512 / pack_q8_avx2, tiles.h).
bool pack_q8(Isa isa, const float* X, int64_t rows, int64_t d, int64_t ld, float c, int64_t width, bool signed_bytes,
             int32_t* dst, int32_t* sq, int32_t* sum, const int64_t* idx = nullptr) {
    return isa == Isa::avx512 ? pack_q8_avx512(X, rows, d, ld, c, width, signed_bytes, dst, sq, sum, idx)
                              : pack_q8_avx2(X, rows, d, ld, c, width, signed_bytes, dst, sq, sum, idx);
}

/// Wraps to int32 as the tiles' integer lanes do; the tiles' final sums are exact.
int32_t wrap(int64_t v) {
    return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));
}

bool fits(ConstMatrix X, float c) {
    for (int64_t i = 0; i < X.rows; ++i) {
        const float* x = X.row(i);
        for (int64_t t = 0; t < X.cols; ++t) {
            if (q8_value(x[t], c) < 0) return false;
        }
    }
    return true;
}

bool probe_q8(Isa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (!isa_supported(isa)) return false;
    __builtin_cpu_init();
    switch (isa) {
        case Isa::avx512: return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni");
        case Isa::avx2: {
            // AVX-VNNI: CPUID leaf 7, sub-leaf 1, EAX bit 4 (clang 14's __builtin_cpu_supports
            // does not know it); the YMM state is checked with avx2.
            unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
            if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
            return (eax & (1u << 4)) != 0;
        }
        case Isa::portable: return false;
    }
    return false;
#else
    (void)isa;
    return false;
#endif
}

}  // namespace

bool q8_supported(Isa isa) {
    // Read once per process (thread-safe static initialisation), as isa_supported.
    static const bool avx512 = probe_q8(Isa::avx512), avx2 = probe_q8(Isa::avx2);
    return isa == Isa::avx512 ? avx512 : isa == Isa::avx2 && avx2;
}

int q8_value(float x, float c) {
    // The packer (pack_q8_avx512) tests the same: x·c in float32, rounded to the nearest
    // integer (ties to even), in [0, 255] and within the slack of it.
    const float r = x * c;
    if (!(r >= -0.5f && r <= 255.5f)) return -1;  // also NaN
    const float q = (r + 0x1.8p23f) - 0x1.8p23f;  // round to nearest even (|r| < 2^22)
    // q/255 is rounded to float32 (relative error 2^-24) and x·255 again: |x·255 − q| stays
    // below q·2^-23, so a slack relative to q (none at q = 0: only 0 itself is 0/255; an
    // absolute slack once packed values below 1.2e-7 as 0); q and q/256 are exact.
    const float slack = c == 255.0f ? q * 0x1p-22f : 0.0f;
    if (!(q >= 0.0f && q <= 255.0f && std::fabs(r - q) <= slack)) return -1;
    return static_cast<int>(q);
}

float q8_scale(ConstMatrix X) {
    if (X.rows <= 0 || X.cols <= 0 || X.cols > kQ8MaxDim) return 0.0f;
    for (const float c : kScales) {
        if (fits(X, c)) return c;
    }
    return 0.0f;
}

void PackedRows::assign_q8(ConstMatrix Y) {
    q8_scale_ = 0.0f;
    if (Y.rows != rows_ || Y.cols != d_) return;
    pack_q8_copy(Y.data, Y.cols, nullptr, nullptr);
}

void PackedRows::pack_q8_copy(const float* X, int64_t ld, const int64_t* idx, const PieceRunner* run) {
    q8_scale_ = 0.0f;
    if (rows_ <= 0 || d_ <= 0 || d_ > kQ8MaxDim || !q8_supported(isa_)) return;
    const int64_t nr = geometry(isa_).nr, padded = (rows_ + nr - 1) / nr * nr, d4 = groups(d_);
    const auto words = static_cast<size_t>(padded * d4);
    // Grown by half as much again, as the float panels are (repacks of creeping sizes).
    if (q8_panels_.size() < words)
        q8_panels_ = ZeroedArray<int32_t>(q8_panels_.size() == 0 ? words : words + words / 2);
    q8_norms_.assign(static_cast<size_t>(padded), 0);
    std::vector<int32_t> sums(static_cast<size_t>(padded));
    // Pieces of whole panels; the bytes do not depend on how the rows are cut.
    const int64_t per = run == nullptr ? padded : std::max<int64_t>(1, padded / nr / kQ8Pieces) * nr;
    const int64_t pieces = (rows_ + per - 1) / per;
    std::vector<char> packed(static_cast<size_t>(pieces));
    // q8_scale without a scan of its own: the packer tests every value as q8_value does and
    // stops at the first that is not q/c, so the first scale it packs all rows at is that one.
    for (const float c : kScales) {
        const auto piece = [&](int64_t p) {
            const int64_t r0 = p * per, count = std::min(per, rows_ - r0);
            packed[static_cast<size_t>(p)] =
                pack_q8(isa_, idx != nullptr ? X : X + r0 * ld, count, d_, ld, c, nr, true, q8_panels_.data() + r0 * d4,
                        q8_norms_.data() + r0, sums.data() + r0, idx != nullptr ? idx + r0 : nullptr)
                    ? 1
                    : 0;
        };
        if (run != nullptr) {
            (*run)(pieces, piece);
        } else {
            for (int64_t p = 0; p < pieces; ++p) piece(p);
        }
        if (std::find(packed.begin(), packed.end(), 0) != packed.end()) continue;
        q8_scale_ = c;
        return;
    }
}

bool PackedRows::assign_q8_only(Isa isa, ConstMatrix X, const std::vector<int64_t>& idx, const PieceRunner& run) {
    isa_ = isa;
    rows_ = static_cast<int64_t>(idx.size());
    d_ = X.cols;
    has_aux_ = false;
    has_floats_ = false;
    pack_q8_copy(X.data, X.cols, idx.data(), &run);
    if (q8_scale_ != 0.0f) return true;
    rows_ = 0;
    return false;
}

namespace {

/// Rows per pass of the 8-bit left rows: about kPassBytes of packed words, whole panels.
int64_t q8_pass_rows(Isa isa, int64_t d, int64_t rows) {
    const int64_t mr = geometry(isa).mr, d4 = groups(d);
    return std::min(std::max<int64_t>(1, kPassBytes / (4 * mr * d4)) * mr, (rows + mr - 1) / mr * mr);
}

/// Packs `count` left rows (from `first`, or by index) at scale c into a pass: `step` rows
/// of words and of terms Σq² − 256·Σq (sum: `step` ints of scratch). False when a value is
/// not 8-bit at c.
bool pack_q8_pass(Isa isa, const float* first, int64_t count, int64_t d, const int64_t* idx, float c, int64_t step,
                  int32_t* words, int32_t* terms, int32_t* sum) {
    if (!pack_q8(isa, first, count, d, d, c, geometry(isa).mr, false, words, terms, sum, idx)) return false;
    for (int64_t i = 0; i < step; ++i) terms[i] = wrap(int64_t{terms[i]} - int64_t{256} * sum[i]);
    return true;
}

/// The tiles of one packed pass of `count` left rows against Y's 8-bit copy.
void run_q8_pass(const PackedRows& Y, const int32_t* words, const int32_t* terms, int64_t count, const TileOp& op,
                 float* out, int64_t ldo) {
    const float c = Y.q8_scale();
    Q8Job job;
    job.a = words;
    job.rows = count;
    job.b = Y.q8_panels();
    job.cols = Y.rows();
    job.d4 = groups(Y.dim());
    job.x_terms = terms;
    job.y_norms = Y.q8_norms();
    job.scale = static_cast<float>(-static_cast<double>(op.gamma) / (static_cast<double>(c) * c));
    job.out = out;
    job.ldo = ldo;
    if (Y.isa() == Isa::avx512) {
        run_q8_tiles_avx512(job);
    } else {
        run_q8_tiles_avx2(job);
    }
}

bool runs_q8(const PackedRows& Y, const TileOp& op, int64_t d, int64_t rows) {
    return op.fn == TileFn::rbf && Y.q8_scale() != 0.0f && d == Y.dim() && rows > 0;
}

}  // namespace

bool kernel_block_q8(ConstMatrix X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo,
                     BlockScratch* scratch, std::span<const int64_t> idx) {
    const int64_t rows = idx.empty() ? X.rows : std::ssize(idx);
    if (!runs_q8(Y, op, X.cols, rows)) return false;
    const int64_t step = q8_pass_rows(Y.isa(), X.cols, rows), d4 = groups(X.cols);
    BlockScratch local;
    BlockScratch& s = scratch != nullptr ? *scratch : local;
    if (s.q8.size() < static_cast<size_t>(step * d4)) s.q8 = ZeroedArray<int32_t>(static_cast<size_t>(step * d4));
    s.q8_terms.resize(static_cast<size_t>(2 * step));
    for (int64_t begin = 0; begin < rows; begin += step) {
        const int64_t count = std::min(step, rows - begin);
        const float* first = idx.empty() ? X.row(begin) : X.data;  // rows from here, or by index from X
        if (!pack_q8_pass(Y.isa(), first, count, X.cols, idx.empty() ? nullptr : idx.data() + begin, Y.q8_scale(), step,
                          s.q8.data(), s.q8_terms.data(), s.q8_terms.data() + step))
            return false;
        run_q8_pass(Y, s.q8.data(), s.q8_terms.data(), count, op, out + begin * ldo, ldo);
    }
    return true;
}

bool Q8LeftRows::pack(Isa isa, ConstMatrix X, std::span<const int64_t> idx, float c) {
    isa_ = isa;
    scale_ = 0.0f;
    rows_ = std::ssize(idx);
    d_ = X.cols;
    if (rows_ <= 0 || d_ <= 0 || d_ > kQ8MaxDim || c == 0.0f || !q8_supported(isa)) return false;
    step_ = q8_pass_rows(isa, d_, rows_);
    const int64_t passes = (rows_ + step_ - 1) / step_, d4 = groups(d_);
    const auto words = static_cast<size_t>(passes * step_ * d4);
    if (words_.size() < words) words_ = ZeroedArray<int32_t>(words);
    terms_.resize(static_cast<size_t>(passes * step_));
    std::vector<int32_t> sum(static_cast<size_t>(step_));
    for (int64_t p = 0; p < passes; ++p) {
        const int64_t begin = p * step_, count = std::min(step_, rows_ - begin);
        if (!pack_q8_pass(isa, X.data, count, d_, idx.data() + begin, c, step_, words_.data() + begin * d4,
                          terms_.data() + begin, sum.data()))
            return false;
    }
    scale_ = c;
    return true;
}

bool kernel_block_q8(const Q8LeftRows& X, const PackedRows& Y, const TileOp& op, float* out, int64_t ldo) {
    if (!runs_q8(Y, op, X.dim(), X.rows()) || X.scale() != Y.q8_scale() || X.isa() != Y.isa()) return false;
    const int64_t step = X.step_, d4 = groups(X.dim());
    for (int64_t begin = 0; begin < X.rows(); begin += step) {
        run_q8_pass(Y, X.words_.data() + begin * d4, X.terms_.data() + begin, std::min(step, X.rows() - begin), op,
                    out + begin * ldo, ldo);
    }
    return true;
}

}  // namespace kkm::engine
