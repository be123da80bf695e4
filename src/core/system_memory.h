// The machine's memory as max_memory_mb=auto sees it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kkm {

/// The share of the memory limit max_memory_mb=auto grants a fit: the rest is left to the
/// host process, the operating system and the page cache (a mapped input file is read
/// through it).
inline constexpr double kAutoMemoryShare = 0.75;

/// The memory this process may use, in bytes: the smallest of the physical memory, the
/// cgroup limit (cgroup v2 memory.max, or v1 memory.limit_in_bytes, of this process's cgroup
/// and each of its parents) and the room its address-space limits leave (address_space_room);
/// the physical memory where no limit is set or readable (v1's "no limit" is a number near
/// 2^63, larger than any physical memory).
uint64_t memory_limit_bytes();

/// The number after `key` ("VmSize:", "Threads:") in /proc/self/status (kB for the memory
/// fields); 0 when the file or the key cannot be read.
uint64_t process_status_field(const std::string& key);

/// What the soft limits RLIMIT_AS (ulimit -v) and RLIMIT_DATA (ulimit -d) leave beyond the
/// process's current address space (VmSize) and data segment (VmData); UINT64_MAX without
/// either limit.
uint64_t address_space_room();

/// max_memory_mb=auto: kAutoMemoryShare of memory_limit_bytes(), in MiB, at least 1.
int64_t auto_memory_mb();

/// A cgroup limit file's value in bytes; empty for "max", an unreadable file or a value that
/// is not a number (exposed for tests).
std::optional<uint64_t> cgroup_limit(const std::string& path);

}  // namespace kkm
