// Exact rbf kernel blocks of 8-bit rows. Where every value of the rows is q/c with q an
// integer in [0, 255] and c one of 1, 255, 256 (pixels, counts: Fashion-MNIST, MNIST, CIFAR
// and the like, as the bytes they were, or divided by 255 or 256), ‖x − y‖² is an integer
// multiple of 1/c², and the VNNI instructions compute it exactly, four byte products per
// 32-bit lane per instruction: four times the multiply-adds of the float32 tiles per
// instruction. The squared distance is then rounded to float32 once (the float32 tiles round
// every partial sum), scaled by gamma/c² and passed to the engine's exp. Used for rbf on the
// avx512 path of a CPU with AVX-512 VNNI and BW (Zen 4, Zen 5, Intel since Cascade Lake) and
// on the avx2 path of one with AVX-VNNI (Intel since Alder Lake, Zen 5); every other case
// takes the float32 tiles (engine.h). Private to src/engine and Kernel.
#pragma once

#include <cstdint>

#include "core/matrix.h"
#include "engine/isa.h"

namespace kkm::engine {

/// Whether this CPU runs the 8-bit tiles of path `isa`: avx512 with AVX-512 BW and VNNI; avx2
/// with AVX-VNNI (the VEX form: Intel since Alder Lake, AMD Zen 5); never portable.
bool q8_supported(Isa isa);

/// The first c of 1, 255, 256 for which every value of X is q/c with q an integer in [0, 255]
/// (for c = 255 within the float32 rounding of q/255, |x·255 − q| ≤ q·2^-22: only 0 is 0/255), else 0: also for
/// an empty X, NaN or ±Inf, a negative value, or rows longer than kQ8MaxDim. The definition:
/// PackedRows finds the same scale by packing at each c in turn (its packers test every value
/// as q8_value does), which the tests hold to this.
float q8_scale(ConstMatrix X);

/// The longest rows the 8-bit tiles take: their squared distances (≤ d·255²) stay below 2^31.
inline constexpr int64_t kQ8MaxDim = 32768;

/// q of x at scale c (0 ≤ q ≤ 255), or −1 when x is not q/c within q8_scale's slack.
int q8_value(float x, float c);

}  // namespace kkm::engine
