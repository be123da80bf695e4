// KKM_HOT: clone a hot loop for AVX-512F, AVX2 and the baseline (chosen by CPU feature, not
// by CPU model name, which virtual machines often do not report); the dynamic loader picks
// the best clone for the CPU at run time (GCC function multi-versioning), so one portable
// binary still runs its inner loops on the widest vectors the machine has.
// Not under ThreadSanitizer: GCC instruments the clones' ifunc resolver, which the dynamic
// loader runs while relocating the library, before the TSan runtime is initialised, and the
// process dies in ld.so (scripts/sanitize.sh).
#pragma once

#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define KKM_HOT __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KKM_HOT
#endif
