// memory_probe: runs one fit in a fresh process and reports how much memory it took, for
// test_api_memory.cpp (which runs one probe per method and budget, so that no fit inherits
// another's high-water mark, OpenMP pool or allocator state).
//
//   memory_probe N D INPUT "PARAMS"
//
// Builds the input and touches it. INPUT f32 or f64: N×D rows of three well-separated blobs
// (float32, or float64 through kkm_fit_f64); K: the N×N rbf kernel matrix of N points on a
// line in three groups (for kernel=precomputed; D is ignored); S: N×D rows of blobs streamed,
// a first kkm_partial_fit batch of its first min(N, 2000) rows, then the measured fit is the
// later batch of all N rows; G: a ring lattice of N nodes, each linked to the D nearest on
// either side (CSR, kkm_fit_graph). Then it resets the resident
// set's high-water mark to the resident set (writing 5 to /proc/self/clear_refs), fits with
// PARAMS, and prints one line:
//   status=<int> before_kib=<int> peak_kib=<int> maxrss_kib=<int> message=<kkm_last_error()>
// before_kib: VmRSS before the fit; peak_kib: VmHWM after it (the high-water mark of this
// process's own memory); maxrss_kib: getrusage(RUSAGE_SELF).ru_maxrss, which Linux carries
// over from the parent across vfork + exec (popen), so it is reported but not used. Exits 0
// whenever it got that far (the status is the result), 2 on a usage or setup error.
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "kkmeans.h"

namespace {

long maxrss_kib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;  // KiB on Linux
}

/// A "Key:   123 kB" line of /proc/self/status, in KiB (-1 if missing).
long status_kib(const std::string& key) {
    std::ifstream status("/proc/self/status");
    std::string word;
    while (status >> word) {
        if (word == key + ":") {
            long kib = -1;
            status >> kib;
            return kib;
        }
        status.ignore(1 << 20, '\n');
    }
    return -1;
}

/// Resets VmHWM to VmRSS (Linux 4.0 and later); false when /proc/self/clear_refs refuses.
bool reset_high_water_mark() {
    std::ofstream clear("/proc/self/clear_refs");
    clear << "5";
    clear.flush();
    return static_cast<bool>(clear);
}

/// Three blobs 10 apart in the first coordinate, sd about 1 (a deterministic generator: the
/// probe must allocate nothing but the rows themselves).
template <class T>
void fill_blobs(T* X, int64_t n, int64_t d) {
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < d; ++j) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const double u = static_cast<double>(state >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
            const double centre = j == 0 ? 10.0 * static_cast<double>(i % 3) : 0.0;
            X[i * d + j] = static_cast<T>(centre + 3.4 * (u - 0.5));
        }
    }
}

/// The ring lattice of n nodes: node i linked to i ± 1 .. i ± h (mod n), unit weights.
struct Ring {
    std::vector<int64_t> indptr, indices;
};
Ring ring_lattice(int64_t n, int64_t h) {
    Ring g;
    g.indptr.reserve(static_cast<size_t>(n + 1));
    g.indices.reserve(static_cast<size_t>(2 * n * h));
    for (int64_t i = 0; i < n; ++i) {
        g.indptr.push_back(static_cast<int64_t>(g.indices.size()));
        for (int64_t s = -h; s <= h; ++s) {
            if (s != 0) g.indices.push_back(((i + s) % n + n) % n);
        }
    }
    g.indptr.push_back(static_cast<int64_t>(g.indices.size()));
    return g;
}

/// K_ij = exp(−(x_i − x_j)²) for points x_i in three groups 10 apart on a line: positive
/// semi-definite, symmetric, unit diagonal.
void fill_kernel(float* K, int64_t n) {
    std::vector<double> x(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        x[static_cast<size_t>(i)] = 10.0 * static_cast<double>(i % 3) + 1e-3 * static_cast<double>(i);
    }
    for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            const double diff = x[static_cast<size_t>(i)] - x[static_cast<size_t>(j)];
            K[i * n + j] = static_cast<float>(std::exp(-diff * diff));
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: memory_probe N D f32|f64|K|S|G \"PARAMS\"\n");
        return 2;
    }
    const int64_t n = std::strtoll(argv[1], nullptr, 10);
    const std::string input = argv[3];
    const bool f64 = input == "f64", kernel = input == "K", stream = input == "S", graph = input == "G";
    const int64_t d = kernel ? n : std::strtoll(argv[2], nullptr, 10);
    if (n <= 0 || d <= 0 || (!f64 && !kernel && !stream && !graph && input != "f32") || (graph && 2 * d >= n)) {
        std::fprintf(stderr, "memory_probe: bad N, D or INPUT\n");
        return 2;
    }
    kkm_model* model = nullptr;
    if (kkm_create(&model) != KKM_OK || kkm_set_params(model, argv[4]) != KKM_OK) {
        std::fprintf(stderr, "memory_probe: %s\n", kkm_last_error());
        return 2;
    }
    std::vector<float> X32;
    std::vector<double> X64;
    Ring ring;
    if (graph) {
        ring = ring_lattice(n, d);
    } else if (f64) {
        X64.resize(static_cast<size_t>(n * d));
        fill_blobs(X64.data(), n, d);
    } else if (kernel) {
        X32.resize(static_cast<size_t>(n * n));
        fill_kernel(X32.data(), n);
    } else {
        X32.resize(static_cast<size_t>(n * d));
        fill_blobs(X32.data(), n, d);
    }
    if (stream && kkm_partial_fit(model, X32.data(), std::min<int64_t>(n, 2000), d, nullptr) != KKM_OK) {
        std::printf("status=%d before_kib=0 peak_kib=0 maxrss_kib=0 message=the first batch: %s\n",
                    static_cast<int>(KKM_ERR_OUT_OF_MEMORY), kkm_last_error());  // its refusal, as the fit's
        kkm_destroy(model);
        return 0;
    }
    if (!reset_high_water_mark()) {
        std::fprintf(stderr, "memory_probe: cannot reset the high-water mark (/proc/self/clear_refs)\n");
        return 2;
    }
    const long before = status_kib("VmRSS");
    const kkm_status status = graph    ? kkm_fit_graph(model, n, ring.indptr.data(), ring.indices.data(), nullptr)
                              : stream ? kkm_partial_fit(model, X32.data(), n, d, nullptr)
                              : f64    ? kkm_fit_f64(model, X64.data(), n, d, nullptr)
                                       : kkm_fit(model, X32.data(), n, d, nullptr);
    const long peak = status_kib("VmHWM");
    std::printf("status=%d before_kib=%ld peak_kib=%ld maxrss_kib=%ld message=%s\n", static_cast<int>(status), before,
                peak, maxrss_kib(), status == KKM_OK ? "" : kkm_last_error());
    kkm_destroy(model);
    return 0;
}
