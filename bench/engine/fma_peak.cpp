// Probe of this machine's fp32 FMA peak: independent chains of vector FMAs (enough of them to
// cover the FMA latency on every current core), AVX-512 and AVX2, on one thread and on all.
// The kernel stage of a fit is measured against these numbers (bench/engine/README.md).
#include <immintrin.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "engine/isa.h"

namespace {

constexpr long kIters = 100'000'000;

__attribute__((target("avx512f,fma"))) float chains512(long iters) {
    __m512 acc[16];
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long t = 0; t < iters; ++t) {
#pragma GCC unroll 16
        for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    alignas(64) float out[16];
    __m512 s = acc[0];
    for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
    _mm512_store_ps(out, s);
    return out[0];
}

__attribute__((target("avx2,fma"))) float chains256(long iters) {
    __m256 acc[12];
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (long t = 0; t < iters; ++t) {
#pragma GCC unroll 12
        for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    alignas(32) float out[8];
    __m256 s = acc[0];
    for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
    _mm256_store_ps(out, s);
    return out[0];
}

/// GFLOP/s of `threads` threads each running the chains of one ISA.
double probe(bool avx512, int threads) {
    const long iters = avx512 ? kIters / 2 : kIters;
    const double flops_per_thread = avx512 ? 2.0 * 16 * 16 * iters : 2.0 * 12 * 8 * iters;
    std::vector<float> sink(static_cast<size_t>(threads));
    const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    sink[static_cast<size_t>(omp_get_thread_num())] = avx512 ? chains512(iters) : chains256(iters);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    volatile float keep = sink[0];
    (void)keep;
    return flops_per_thread * threads / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
    const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
    const int all = omp_get_num_procs();
    if (json) std::printf("{");
    bool first = true;
    for (kkm::engine::Isa isa : {kkm::engine::Isa::avx512, kkm::engine::Isa::avx2}) {
        if (!kkm::engine::isa_supported(isa)) continue;
        const bool wide = isa == kkm::engine::Isa::avx512;
        probe(wide, 1);  // warm up (clocks, AVX-512 licence)
        const double one = probe(wide, 1), every = probe(wide, all);
        const char* name = kkm::engine::isa_name(isa);
        if (json) {
            std::printf("%s\"%s\": {\"1\": %.1f, \"%d\": %.1f}", first ? "" : ", ", name, one, all, every);
        } else {
            std::printf("%-7s fp32 FMA peak: %7.1f GFLOP/s on 1 thread, %7.1f on %d threads\n", name, one, every, all);
        }
        first = false;
    }
    if (json) std::printf("}\n");
    return 0;
}
