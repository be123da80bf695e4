#include "core/system_memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace kkm {
namespace {

uint64_t physical_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || page <= 0) return UINT64_MAX;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

/// The smallest limit in `file` on the way from the cgroup `path` under `root` up to root.
uint64_t smallest_on_path(const std::string& root, std::string path, const char* file) {
    uint64_t limit = UINT64_MAX;
    for (;;) {
        if (const auto v = cgroup_limit(root + (path == "/" ? std::string() : path) + "/" + file)) {
            limit = std::min(limit, *v);
        }
        if (path.empty() || path == "/") return limit;
        const size_t slash = path.rfind('/');
        path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
    }
}

/// The limit of this process's memory cgroup: from /proc/self/cgroup, "0::/p" (v2: memory.max,
/// at /sys/fs/cgroup or, in a hybrid layout, /sys/fs/cgroup/unified) and "N:memory:/p" (v1:
/// memory.limit_in_bytes), each cgroup and its parents.
uint64_t cgroup_memory_limit() {
    std::ifstream in("/proc/self/cgroup");
    std::string line;
    uint64_t limit = UINT64_MAX;
    while (std::getline(in, line)) {
        const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (controllers.empty()) {
            limit = std::min({limit, smallest_on_path("/sys/fs/cgroup", path, "memory.max"),
                              smallest_on_path("/sys/fs/cgroup/unified", path, "memory.max")});
        } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
            limit = std::min(limit, smallest_on_path("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes"));
        }
    }
    return limit;
}

/// A /proc/self/status field in kB ("VmSize:", "VmData:"), in bytes; 0 when unreadable.
uint64_t status_bytes(const std::string& field) {
    return process_status_field(field) * 1024;
}

/// What a soft resource limit (RLIMIT_AS, RLIMIT_DATA) leaves beyond `used`: UINT64_MAX
/// without a limit.
uint64_t room_under(int resource, uint64_t used) {
    rlimit r{};
    if (::getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
    const auto limit = static_cast<uint64_t>(r.rlim_cur);
    return limit > used ? limit - used : 0;
}

}  // namespace

uint64_t process_status_field(const std::string& key) {
    std::ifstream in("/proc/self/status");
    std::string word;
    while (in >> word) {
        if (word == key) {
            uint64_t value = 0;
            in >> value;
            return value;
        }
        in.ignore(1 << 16, '\n');
    }
    return 0;
}

uint64_t address_space_room() {
    return std::min(room_under(RLIMIT_AS, status_bytes("VmSize:")), room_under(RLIMIT_DATA, status_bytes("VmData:")));
}

std::optional<uint64_t> cgroup_limit(const std::string& path) {
    std::ifstream in(path);
    std::string text;
    if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return {};
    try {
        return std::stoull(text);
    } catch (const std::exception&) {
        return {};
    }
}

uint64_t memory_limit_bytes() {
    return std::min({physical_bytes(), cgroup_memory_limit(), address_space_room()});
}

int64_t auto_memory_mb() {
    const double mib = std::floor(kAutoMemoryShare * static_cast<double>(memory_limit_bytes()) / 1048576.0);
    return static_cast<int64_t>(std::clamp(mib, 1.0, 1073741824.0));
}

}  // namespace kkm
