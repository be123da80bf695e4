#include "engine/isa.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

namespace kkm::engine {
namespace {

#if defined(__x86_64__) && defined(__GNUC__)
/// F16C from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports does not know it.
bool has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return false;
    return (ecx & bit_F16C) != 0;
}
#endif

/// What the CPU and the OS support, read once per process: the answers cannot change while it
/// runs, and the engine asks for every block it packs.
struct Supported {
    bool avx512 = false;
    bool avx2 = false;
};

Supported probe() {
    Supported s;
#if defined(__x86_64__) && defined(__GNUC__)
    // __builtin_cpu_supports reads CPUID feature bits and checks XGETBV for the OS-enabled
    // register state; it never looks at the vendor or brand string. __builtin_cpu_init makes
    // it safe before libgcc's constructor has run (a host calling us from its own constructor).
    __builtin_cpu_init();
    s.avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
    s.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c();
#endif
    return s;
}

const Supported& supported() {
    static const Supported s = probe();  // initialised once, thread-safe (C++11 statics)
    return s;
}

}  // namespace

bool isa_supported(Isa isa) {
    switch (isa) {
        case Isa::avx512: return supported().avx512;
        case Isa::avx2: return supported().avx2;
        case Isa::portable: return true;
    }
    return false;
}

Isa best_isa() {
    if (isa_supported(Isa::avx512)) return Isa::avx512;
    if (isa_supported(Isa::avx2)) return Isa::avx2;
    return Isa::portable;
}

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::avx512: return "avx512";
        case Isa::avx2: return "avx2";
        case Isa::portable: return "portable";
    }
    return "portable";
}

}  // namespace kkm::engine
