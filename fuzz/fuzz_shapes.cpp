// fuzz_shapes: every entry point that takes a shape, with sizes whose products overflow
// 64-bit sizes, passed with small buffers.
//
// The bytes (FuzzedDataProvider) choose the call — kkm_fit, kkm_fit_f64 (with or without
// weights), kkm_assign, kkm_assign_f64 (with or without distances), kkm_transform — and its
// sizes: n and d (and for a fit k, m and the method; for transform out_len) from edge values
// (0, negatives, small sizes, powers of two and their neighbours up to 2^63 - 1, values near
// INT64_MAX / 4 and / 8) or raw 64-bit values. The buffers hold kBuffer values. The target
// decides on its own, with 128-bit arithmetic, whether the library can address the shape:
// n·d values of 4 bytes (8 for the float64 entry points), and for a fit n·k·8 bytes (the
// cluster sums) and, for nystrom, sketch and rff, n·m·4 bytes (m resolved as the library
// resolves m=auto), and for transform n·feature_dim·4 bytes, each at most 2^63 - 1.
//
// Invariants:
//  - n ≤ 0 or d ≤ 0: INVALID_ARGUMENT;
//  - a shape that cannot be addressed: INVALID_ARGUMENT with a message holding "overflows"
//    and the value of n, and the model left as it was (a fresh model stays unfitted, a fitted
//    one keeps its k and n_train);
//  - a shape within the buffers: any documented status with a message, never INTERNAL;
//  - a shape that can be addressed but is larger than the buffers is not passed: the library
//    cannot know the size of a caller's buffer (that would be the caller's bug), except where
//    the library must refuse before reading (a wrong d at assign, out_len too small).
// Every fit runs with threads=1, max_iter=2 and max_memory_mb=64 on at most kBuffer values;
// fits that would run with k·m above 2^16 are skipped (see fuzz_fit below).
// KKM_FUZZ_VERBOSE=1 prints every call made.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "fuzz_common.h"

using namespace kkm_fuzz;

namespace {

constexpr int64_t kBuffer = 256;  ///< values in every buffer passed
constexpr __int128 kMaxBytes = INT64_MAX;

/// KKM_FUZZ_VERBOSE=1: print every call passed to the library.
bool verbose() {
    static const bool on = std::getenv("KKM_FUZZ_VERBOSE") != nullptr;
    return on;
}

/// A size: an edge value or raw bytes.
int64_t pick_size(FuzzedDataProvider& fdp) {
    static const int64_t edges[] = {
        1,
        2,
        3,
        4,
        7,
        8,
        16,
        0,
        -1,
        INT64_MIN,
        INT64_MAX,
        INT64_MAX - 1,
        int64_t{1} << 31,
        (int64_t{1} << 31) - 1,
        int64_t{1} << 32,
        (int64_t{1} << 32) + 1,
        int64_t{1} << 33,
        int64_t{1} << 40,
        int64_t{1} << 58,
        int64_t{1} << 59,
        int64_t{1} << 60,
        (int64_t{1} << 60) - 1,
        int64_t{1} << 61,
        (int64_t{1} << 61) + 1,
        int64_t{1} << 62,
        (int64_t{1} << 62) + 1,
        INT64_MAX / 4,
        INT64_MAX / 4 + 1,
        INT64_MAX / 8,
        INT64_MAX / 8 + 1,
        INT64_MAX / 2,
        INT64_MAX / 3,
        3037000499,
        3037000500,  // ⌊√(2^63)⌋ and one more
    };
    switch (fdp.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: return fdp.ConsumeIntegralInRange<int64_t>(1, 16);
        case 1: return fdp.ConsumeIntegral<int64_t>();
        default: return edges[fdp.ConsumeIntegralInRange<size_t>(0, sizeof edges / sizeof edges[0] - 1)];
    }
}

/// a·b values of `bytes` bytes fit in 2^63 - 1 bytes (a, b > 0; a·b < 2^126 fits in __int128).
bool addressable(int64_t a, int64_t b, int bytes) {
    return static_cast<__int128>(a) * b <= kMaxBytes / bytes;
}

/// m as the library resolves it (src/model/fit_common.cpp resolve_landmarks), m = 0 for auto.
int64_t resolved_m(int64_t m, int64_t n, int64_t k) {
    if (m > 0) return m;
    const auto root = static_cast<int64_t>(std::ceil(4.0 * std::sqrt(static_cast<double>(n))));
    return std::min(n, std::max(k, root));
}

/// Must be the refusal of an overflowing shape: INVALID_ARGUMENT naming n, with "overflows".
void expect_overflow(kkm_status s, const char* call, int64_t n, int64_t d) {
    check_status(s, call);
    const std::string message = kkm_last_error();
    FUZZ_CHECK(s == KKM_ERR_INVALID_ARGUMENT, "%s(n=%lld, d=%lld) overflows but returned %s: %s", call,
               static_cast<long long>(n), static_cast<long long>(d), kkm_status_string(s), message.c_str());
    FUZZ_CHECK(
        message.find("overflows") != std::string::npos && message.find("n=" + std::to_string(n)) != std::string::npos,
        "%s(n=%lld, d=%lld): the message does not name the overflow and n: %s", call, static_cast<long long>(n),
        static_cast<long long>(d), message.c_str());
}

/// The models assign and transform run on: nystrom (feature_dim <= 8) and rff (16 features),
/// both on d = 2, fitted once.
struct Fitted {
    Model nystrom, rff;
    int64_t nystrom_dim = 0, rff_dim = 0;
    Fitted() {
        const std::vector<float> X = blobs(24, 2, 5);
        for (auto [model, params, dim] :
             {std::tuple{&nystrom, "k=2 method=nystrom m=8 gamma=0.5 threads=1", &nystrom_dim},
              std::tuple{&rff, "k=2 method=rff m=16 gamma=0.5 threads=1", &rff_dim}}) {
            FUZZ_CHECK(kkm_set_params(model->m, params) == KKM_OK, "%s", kkm_last_error());
            FUZZ_CHECK(kkm_fit(model->m, X.data(), 24, 2, nullptr) == KKM_OK, "%s", kkm_last_error());
            FUZZ_CHECK(kkm_get_feature_dim(model->m, dim) == KKM_OK, "%s", kkm_last_error());
        }
    }
};

const Fitted& fitted() {
    static const Fitted f;
    return f;
}

/// The fitted model answers as before the call.
void expect_intact(const kkm_model* m) {
    int32_t k = 0;
    int64_t n = 0;
    FUZZ_CHECK(kkm_get_k(m, &k) == KKM_OK && k == 2, "a refused call changed the fitted model (k=%d)", k);
    FUZZ_CHECK(kkm_get_n_train(m, &n) == KKM_OK && n == 24, "a refused call changed the fitted model (n=%lld)",
               static_cast<long long>(n));
}

void fuzz_fit(FuzzedDataProvider& fdp, bool f64) {
    static const char* const methods[] = {"exact", "nystrom", "sketch", "rff", "minibatch"};
    const std::string method = methods[fdp.ConsumeIntegralInRange<size_t>(0, 4)];
    static const int64_t ks[] = {2, 1, 3, 64, 1 << 20, 2147483647};
    const int64_t k = ks[fdp.ConsumeIntegralInRange<size_t>(0, 5)];
    static const int64_t ms[] = {
        0, 8, 1, 1 << 20, int64_t{1} << 30, int64_t{1} << 31, int64_t{1} << 40, 9000000000000000000};
    const int64_t m_param = ms[fdp.ConsumeIntegralInRange<size_t>(0, 7)];
    const bool weighted = fdp.ConsumeBool();
    const int64_t n = pick_size(fdp);
    const int64_t d = pick_size(fdp);

    Model model;
    // max_memory_mb=64: a fit within the buffers may still ask for m = 2^20 random features,
    // refused by the budget instead of allocating past libFuzzer's -malloc_limit_mb.
    std::string params = "threads=1 max_iter=2 max_memory_mb=64 gamma=0.5 method=" + method + " k=" + std::to_string(k);
    if (m_param > 0) params += " m=" + std::to_string(m_param);
    FUZZ_CHECK(kkm_set_params(model.m, params.c_str()) == KKM_OK, "set_params('%s'): %s", params.c_str(),
               kkm_last_error());

    const int bytes = f64 ? 8 : 4;
    bool overflow = n > 0 && d > 0 && (!addressable(n, d, bytes) || !addressable(n, k, 8));
    const bool landmarks = method == "nystrom" || method == "sketch" || method == "rff";
    if (n > 0 && d > 0 && !overflow && landmarks && !(m_param > n && method != "rff")) {
        overflow = !addressable(n, resolved_m(m_param, n, k), 4);
    }
    // Within the buffers, or refused before any read: else the call would read past them.
    const bool in_buffer = n > 0 && d > 0 && static_cast<__int128>(n) * d <= kBuffer;
    if (n > 0 && d > 0 && !overflow && !in_buffer) return;
    // A fit that runs, with k·m in the millions (m = 2^20 random features), is the memory
    // budget's matter, not a size check's: Lloyd's 32 partial k x m sums are not charged to
    // max_memory_mb (issue 13, item 7), and they would pass libFuzzer's -malloc_limit_mb.
    if (n > 0 && d > 0 && !overflow && landmarks && static_cast<__int128>(resolved_m(m_param, n, k)) * k > (1 << 16)) {
        return;
    }
    if (verbose()) {
        std::fprintf(stderr, "%s n=%lld d=%lld weights=%d params: %s\n", f64 ? "kkm_fit_f64" : "kkm_fit",
                     static_cast<long long>(n), static_cast<long long>(d), weighted ? 1 : 0, params.c_str());
    }

    std::vector<float> X(kBuffer);
    std::vector<double> X64(kBuffer);
    for (int64_t i = 0; i < kBuffer; ++i) {
        X[static_cast<size_t>(i)] = static_cast<float>((i * 37) % 11) * 0.25f;
        X64[static_cast<size_t>(i)] = X[static_cast<size_t>(i)];
    }
    std::vector<float> w(kBuffer, 1.0f);
    std::vector<double> w64(kBuffer, 1.0);
    const kkm_status s = f64 ? kkm_fit_f64(model.m, X64.data(), n, d, weighted ? w64.data() : nullptr)
                             : kkm_fit(model.m, X.data(), n, d, weighted ? w.data() : nullptr);
    const char* call = f64 ? "kkm_fit_f64" : "kkm_fit";
    if (n <= 0 || d <= 0) {
        check_status(s, call);
        FUZZ_CHECK(s == KKM_ERR_INVALID_ARGUMENT, "%s(n=%lld, d=%lld) gave %s", call, static_cast<long long>(n),
                   static_cast<long long>(d), kkm_status_string(s));
    } else if (overflow) {
        expect_overflow(s, call, n, d);
    } else {
        check_status(s, call);
    }
    if (s != KKM_OK) {
        int32_t got = 0;
        FUZZ_CHECK(kkm_get_k(model.m, &got) == KKM_ERR_NOT_FITTED, "a failed %s fitted the model", call);
    }
}

void fuzz_assign(FuzzedDataProvider& fdp, bool f64, bool transform) {
    const bool use_rff = fdp.ConsumeBool();
    const kkm_model* m = use_rff ? fitted().rff.m : fitted().nystrom.m;
    const int64_t dim = use_rff ? fitted().rff_dim : fitted().nystrom_dim;
    const bool with_distances = fdp.ConsumeBool();
    const int64_t n = pick_size(fdp);
    const int64_t d = fdp.ConsumeIntegralInRange<int>(0, 3) == 0 ? 2 : pick_size(fdp);
    const int64_t out_len = fdp.ConsumeBool() ? pick_size(fdp) : kBuffer;

    const int bytes = f64 ? 8 : 4;
    const bool positive = n > 0 && d > 0;
    bool overflow = positive && !addressable(n, d, bytes);
    if (transform && positive && !overflow && d == 2) overflow = !addressable(n, dim, 4);
    // Refused before a read: a wrong d; for transform an out_len below n·dim.
    const bool refused = positive && !overflow &&
                         (d != 2 || (transform && static_cast<__int128>(out_len) < static_cast<__int128>(n) * dim));
    const bool in_buffer = positive && static_cast<__int128>(n) * d <= kBuffer &&
                           (!transform || (static_cast<__int128>(n) * dim <= kBuffer && out_len <= kBuffer)) &&
                           n <= kBuffer;
    if (positive && !overflow && !refused && !in_buffer) return;
    if (verbose()) {
        std::fprintf(stderr, "%s (%s model) n=%lld d=%lld out_len=%lld\n",
                     transform ? "kkm_transform"
                     : f64     ? "kkm_assign_f64"
                               : "kkm_assign",
                     use_rff ? "rff" : "nystrom", static_cast<long long>(n), static_cast<long long>(d),
                     static_cast<long long>(out_len));
    }

    std::vector<float> X(kBuffer, 0.5f);
    std::vector<double> X64(kBuffer, 0.5);
    std::vector<int32_t> labels(kBuffer);
    std::vector<float> dist(kBuffer);
    std::vector<double> dist64(kBuffer);
    std::vector<float> out(kBuffer);
    kkm_status s;
    const char* call;
    if (transform) {
        call = "kkm_transform";
        s = kkm_transform(m, X.data(), n, d, out.data(), out_len);
    } else if (f64) {
        call = "kkm_assign_f64";
        s = kkm_assign_f64(m, X64.data(), n, d, labels.data(), with_distances ? dist64.data() : nullptr);
    } else {
        call = "kkm_assign";
        s = kkm_assign(m, X.data(), n, d, labels.data(), with_distances ? dist.data() : nullptr);
    }
    if (!positive || refused) {
        check_status(s, call);
        FUZZ_CHECK(s == KKM_ERR_INVALID_ARGUMENT, "%s(n=%lld, d=%lld, out_len=%lld) gave %s: %s", call,
                   static_cast<long long>(n), static_cast<long long>(d), static_cast<long long>(out_len),
                   kkm_status_string(s), kkm_last_error());
    } else if (overflow) {
        expect_overflow(s, call, n, d);
    } else {
        check_status(s, call);
        if (s == KKM_OK && !transform) {
            for (int64_t i = 0; i < n; ++i) {
                FUZZ_CHECK(labels[static_cast<size_t>(i)] >= 0 && labels[static_cast<size_t>(i)] < 2,
                           "%s: label %d out of range", call, labels[static_cast<size_t>(i)]);
            }
        }
    }
    expect_intact(m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    switch (fdp.ConsumeIntegralInRange<int>(0, 4)) {
        case 0: fuzz_fit(fdp, false); break;
        case 1: fuzz_fit(fdp, true); break;
        case 2: fuzz_assign(fdp, false, false); break;
        case 3: fuzz_assign(fdp, true, false); break;
        default: fuzz_assign(fdp, false, true); break;
    }
    return 0;
}
