// AVX2+FMA path: 6×16 register tile (12 ymm accumulators, two Y vectors, one broadcast).
#include "engine/tiles.h"

#include "engine/engine.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#include <algorithm>
#include <cmath>

#include "engine/exp_avx2.h"

namespace kkm::engine {
namespace {

constexpr int64_t MR = 6;
constexpr int64_t NR = 16;

/// The kernel function on 8 accumulators of one X row (xa broadcast) against 8 Y rows (ya).
KKM_AVX2 inline __m256 finish(__m256 v, __m256 xa, __m256 ya, const TileOp& op) {
    switch (op.fn) {
        case TileFn::dot: return v;
        case TileFn::rbf: {
            const __m256 d2 =
                _mm256_max_ps(_mm256_fnmadd_ps(_mm256_set1_ps(2.0f), v, _mm256_add_ps(xa, ya)), _mm256_setzero_ps());
            return exp8(_mm256_mul_ps(_mm256_set1_ps(-op.gamma), d2));
        }
        case TileFn::polynomial: {
            const __m256 base = _mm256_fmadd_ps(_mm256_set1_ps(op.gamma), v, _mm256_set1_ps(op.coef0));
            __m256 p = base;
            for (int64_t t = 1; t < op.degree; ++t) p = _mm256_mul_ps(p, base);
            return p;
        }
        case TileFn::cosine: return _mm256_mul_ps(v, _mm256_mul_ps(xa, ya));  // symmetric in x, y
        case TileFn::laplacian: return exp8(_mm256_mul_ps(_mm256_set1_ps(-op.gamma), v));
    }
    return v;
}

/// One MR×NR tile: the reduction over d (or one depth block of it) in registers, then finish,
/// then one store (or the raw sums stored, when more blocks follow).
template <bool L1>
KKM_AVX2 void tile(const float* a, const float* b, int64_t d, TileSpan span, const float* xaux, const float* yaux,
                   const TileOp& op, float* dst, int64_t ld) {
    __m256 acc[MR][2];
#pragma GCC unroll 6
    for (int64_t i = 0; i < MR; ++i) {
        acc[i][0] = span.resume ? _mm256_loadu_ps(dst + i * ld) : _mm256_setzero_ps();
        acc[i][1] = span.resume ? _mm256_loadu_ps(dst + i * ld + 8) : _mm256_setzero_ps();
    }
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (int64_t t = 0; t < d; ++t) {
        const __m256 b0 = _mm256_loadu_ps(b + t * NR), b1 = _mm256_loadu_ps(b + t * NR + 8);
        const float* at = a + t * MR;
#pragma GCC unroll 6
        for (int64_t i = 0; i < MR; ++i) {
            const __m256 ai = _mm256_set1_ps(at[i]);
            if constexpr (L1) {
                acc[i][0] = _mm256_add_ps(acc[i][0], _mm256_andnot_ps(sign, _mm256_sub_ps(ai, b0)));
                acc[i][1] = _mm256_add_ps(acc[i][1], _mm256_andnot_ps(sign, _mm256_sub_ps(ai, b1)));
            } else {
                acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
                acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
            }
        }
    }
    if (span.partial) {
        for (int64_t i = 0; i < MR; ++i) {
            _mm256_storeu_ps(dst + i * ld, acc[i][0]);
            _mm256_storeu_ps(dst + i * ld + 8, acc[i][1]);
        }
        return;
    }
    const __m256 y0 = yaux != nullptr ? _mm256_loadu_ps(yaux) : _mm256_setzero_ps();
    const __m256 y1 = yaux != nullptr ? _mm256_loadu_ps(yaux + 8) : _mm256_setzero_ps();
    for (int64_t i = 0; i < MR; ++i) {
        const __m256 xa = _mm256_set1_ps(xaux != nullptr ? xaux[i] : 0.0f);
        _mm256_storeu_ps(dst + i * ld, finish(acc[i][0], xa, y0, op));
        _mm256_storeu_ps(dst + i * ld + 8, finish(acc[i][1], xa, y1, op));
    }
}

/// v[t] = (src[0·ld + t], ..., src[7·ld + t]) for t < 8: eight rows' values at 8 depths, one
/// register per depth. Rows from `rows` on (rows ≤ 8) are not read: their lanes are zero.
KKM_AVX2 inline void transpose8(const float* src, int64_t ld, __m256 v[8], int64_t rows = 8) {
    __m256 r[8], u[8];
    for (int i = 0; i < 8; ++i) r[i] = i < rows ? _mm256_loadu_ps(src + i * ld) : _mm256_setzero_ps();
    for (int i = 0; i < 8; i += 2) {
        u[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        u[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
        r[h] = _mm256_shuffle_ps(u[h], u[h + 2], 0x44);
        r[h + 1] = _mm256_shuffle_ps(u[h], u[h + 2], 0xEE);
        r[h + 2] = _mm256_shuffle_ps(u[h + 1], u[h + 3], 0x44);
        r[h + 3] = _mm256_shuffle_ps(u[h + 1], u[h + 3], 0xEE);
    }
    for (int t = 0; t < 4; ++t) {
        v[t] = _mm256_permute2f128_ps(r[t], r[t + 4], 0x20);
        v[t + 4] = _mm256_permute2f128_ps(r[t], r[t + 4], 0x31);
    }
}

/// The first `lanes` (≤ 8) values of v at dst, nothing past them: plain stores for 8, 6 and 4
/// lanes (the register rows of the paths' panels), element by element otherwise.
KKM_AVX2 inline void store_lanes(float* dst, __m256 v, int64_t lanes) {
    if (lanes == 8) return _mm256_storeu_ps(dst, v);
    const __m128 low = _mm256_castps256_ps128(v);
    if (lanes >= 4) {
        _mm_storeu_ps(dst, low);
        if (lanes == 6) return _mm_storel_pi(reinterpret_cast<__m64*>(dst + 4), _mm256_extractf128_ps(v, 1));
    }
    alignas(32) float all[8];
    _mm256_store_ps(all, v);
    for (int64_t i = lanes >= 4 ? 4 : 0; i < lanes; ++i) dst[i] = all[i];
}

/// One panel of `width` rows (`valid` of them in X, the rest zero) over d values, by 8×8
/// register transposes of groups of up to 8 rows; the last d % 8 values one by one.
KKM_AVX2 void pack_panel(const float* in, int64_t valid, int64_t d, int64_t ld, int64_t width, float* out) {
    int64_t t = 0;
    for (; t + 8 <= d; t += 8) {
        for (int64_t i = 0; i < width; i += 8) {
            __m256 v[8];
            transpose8(in + i * ld + t, ld, v, std::clamp<int64_t>(valid - i, 0, 8));
            const int64_t lanes = std::min<int64_t>(8, width - i);
            for (int s = 0; s < 8; ++s) store_lanes(out + (t + s) * width + i, v[s], lanes);
        }
    }
    for (; t < d; ++t) {
        for (int64_t i = 0; i < width; ++i) out[t * width + i] = i < valid ? in[i * ld + t] : 0.0f;
    }
}

/// Rows of Y streamed at once: B blocks of 8 (B <= 4), whose sums are independent chains.
constexpr int64_t kStreamBlocks = 4;

/// Depth of one pass of a group of Y rows past every X row: 8·kStreamBlocks·kStreamDepth
/// floats (128 KiB), which stay in L2 from one X row to the next whatever d is.
constexpr int64_t kStreamDepth = 1024;

/// out[j] = x · Y_j for the 8·B rows Y_j at y + j·ldy: in lane r of block b, one fused
/// multiply-add per term t in order, as each lane of the tiles sums (tile<false>), from zero or
/// (resume) from the sums in out.
template <int64_t B>
KKM_AVX2 void stream_rows(const float* x, const float* y, int64_t ldy, int64_t d, bool resume, float* out) {
    __m256 acc[B];
    for (int64_t b = 0; b < B; ++b) acc[b] = resume ? _mm256_loadu_ps(out + 8 * b) : _mm256_setzero_ps();
    int64_t t = 0;
    for (; t + 8 <= d; t += 8) {
#pragma GCC unroll 4
        for (int64_t b = 0; b < B; ++b) {
            __m256 v[8];
            transpose8(y + 8 * b * ldy + t, ldy, v);
#pragma GCC unroll 8
            for (int s = 0; s < 8; ++s) acc[b] = _mm256_fmadd_ps(_mm256_set1_ps(x[t + s]), v[s], acc[b]);
        }
    }
    for (; t < d; ++t) {
        const __m256 xt = _mm256_set1_ps(x[t]);
        for (int64_t b = 0; b < B; ++b) {
            const float* c = y + 8 * b * ldy + t;
            const __m256 v =
                _mm256_setr_ps(c[0], c[ldy], c[2 * ldy], c[3 * ldy], c[4 * ldy], c[5 * ldy], c[6 * ldy], c[7 * ldy]);
            acc[b] = _mm256_fmadd_ps(xt, v, acc[b]);
        }
    }
    for (int64_t b = 0; b < B; ++b) _mm256_storeu_ps(out + 8 * b, acc[b]);
}

}  // namespace

KKM_AVX2 void pack_panels_avx2(const float* X, int64_t rows, int64_t d, int64_t ld, int64_t width, float* dst) {
    const int64_t panels = (rows + width - 1) / width;
    for (int64_t p = 0; p < panels; ++p) {
        pack_panel(X + p * width * ld, std::min(width, rows - p * width), d, ld, width, dst + p * d * width);
    }
}

KKM_AVX2 void stream_dots_avx2(const float* X, int64_t rows, int64_t ldx, const float* Y, int64_t cols, int64_t ldy,
                               int64_t d, float* out, int64_t ldo) {
    constexpr int64_t group = 8 * kStreamBlocks;
    for (int64_t t0 = 0; t0 < d; t0 += kStreamDepth) {
        const int64_t len = std::min(kStreamDepth, d - t0);
        const bool resume = t0 > 0;
        int64_t j = 0;
        // Each group of Y rows passes every X row before the next group is read.
        for (; j + group <= cols; j += group) {
            for (int64_t i = 0; i < rows; ++i)
                stream_rows<kStreamBlocks>(X + i * ldx + t0, Y + j * ldy + t0, ldy, len, resume, out + i * ldo + j);
        }
        for (; j + 8 <= cols; j += 8) {
            for (int64_t i = 0; i < rows; ++i)
                stream_rows<1>(X + i * ldx + t0, Y + j * ldy + t0, ldy, len, resume, out + i * ldo + j);
        }
        for (; j < cols; ++j) {
            const float* y = Y + j * ldy;
            for (int64_t i = 0; i < rows; ++i) {
                const float* x = X + i * ldx;
                float s = resume ? out[i * ldo + j] : 0.0f;
                for (int64_t t = t0; t < t0 + len; ++t) s = std::fma(x[t], y[t], s);
                out[i * ldo + j] = s;
            }
        }
    }
}

void run_tiles_avx2(const TileJob& job) {
    if (job.op.fn == TileFn::laplacian) {
        for_each_tile<MR, NR>(job, tile<true>);
    } else {
        for_each_tile<MR, NR>(job, tile<false>);
    }
}

}  // namespace kkm::engine

#else

#include "core/error.h"

namespace kkm::engine {
void pack_panels_avx2(const float* X, int64_t rows, int64_t d, int64_t ld, int64_t width, float* dst) {
    pack_panels(X, rows, d, ld, width, dst);
}
void run_tiles_avx2(const TileJob&) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
void stream_dots_avx2(const float*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t, float*, int64_t) {
    fail(KKM_ERR_INTERNAL, "isa=avx2 is not built on this platform");
}
}  // namespace kkm::engine

#endif
