#include "engine/isa.h"

namespace kkm::engine {

bool isa_supported(Isa isa) {
#if defined(__x86_64__) && defined(__GNUC__)
    // __builtin_cpu_supports reads CPUID feature bits and checks XGETBV for the OS-enabled
    // register state; it never looks at the vendor or brand string. __builtin_cpu_init makes
    // it safe before libgcc's constructor has run (a host calling us from its own constructor).
    __builtin_cpu_init();
    switch (isa) {
        case Isa::avx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
        case Isa::avx2:
            return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                   __builtin_cpu_supports("f16c");
        case Isa::portable: return true;
    }
    return false;
#else
    return isa == Isa::portable;
#endif
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
