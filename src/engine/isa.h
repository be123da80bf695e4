// Which instruction-set path the kernel-block engine runs: chosen once per process from the
// CPU's feature bits (CPUID and the OS's saved register state, never the vendor or brand
// string), or forced by the `isa` parameter.
#pragma once

namespace kkm::engine {

/// The engine's code paths, narrowest first.
enum class Isa { portable, avx2, avx512 };

/// True when this CPU (and the OS) can run `isa`: avx512 needs AVX-512F and AVX-512DQ,
/// avx2 needs AVX2, FMA and F16C (half-precision conversion; every AVX2 CPU has it);
/// portable runs anywhere.
bool isa_supported(Isa isa);

/// The widest path this CPU supports.
Isa best_isa();

/// The parameter-table spelling ("portable", "avx2", "avx512").
const char* isa_name(Isa isa);

}  // namespace kkm::engine
