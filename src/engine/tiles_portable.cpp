// Portable path: 4×8 tile in plain C++ (the compiler vectorises it for the baseline ISA);
// the same algorithm and the same exp as the vector paths.
#include <algorithm>
#include <cmath>

#include "engine/tiles.h"

namespace kkm::engine {
namespace {

constexpr int64_t MR = 4;
constexpr int64_t NR = 8;

float finish(float v, float xa, float ya, const TileOp& op) {
    switch (op.fn) {
        case TileFn::dot: return v;
        case TileFn::rbf: return engine_exp(-op.gamma * std::max(xa + ya - 2.0f * v, 0.0f));
        case TileFn::polynomial: {
            const float base = op.gamma * v + op.coef0;
            float p = base;
            for (int64_t t = 1; t < op.degree; ++t) p *= base;
            return p;
        }
        case TileFn::cosine: return v * (xa * ya);  // symmetric in x, y
        case TileFn::laplacian: return engine_exp(-op.gamma * v);
    }
    return v;
}

template <bool L1>
void tile(const float* a, const float* b, int64_t d, TileSpan span, const float* xaux, const float* yaux,
          const TileOp& op, float* dst, int64_t ld) {
    float acc[MR][NR] = {};
    for (int64_t i = 0; i < MR && span.resume; ++i) std::copy(dst + i * ld, dst + i * ld + NR, acc[i]);
    for (int64_t t = 0; t < d; ++t) {
        const float* at = a + t * MR;
        const float* bt = b + t * NR;
        for (int64_t i = 0; i < MR; ++i) {
            for (int64_t j = 0; j < NR; ++j) {
                if constexpr (L1) {
                    acc[i][j] += std::fabs(at[i] - bt[j]);
                } else {
                    acc[i][j] += at[i] * bt[j];
                }
            }
        }
    }
    if (span.partial) {
        for (int64_t i = 0; i < MR; ++i) std::copy(acc[i], acc[i] + NR, dst + i * ld);
        return;
    }
    for (int64_t i = 0; i < MR; ++i) {
        const float xa = xaux != nullptr ? xaux[i] : 0.0f;
        for (int64_t j = 0; j < NR; ++j) dst[i * ld + j] = finish(acc[i][j], xa, yaux != nullptr ? yaux[j] : 0.0f, op);
    }
}

}  // namespace

void run_tiles_portable(const TileJob& job) {
    if (job.op.fn == TileFn::laplacian) {
        for_each_tile<MR, NR>(job, tile<true>);
    } else {
        for_each_tile<MR, NR>(job, tile<false>);
    }
}

}  // namespace kkm::engine
