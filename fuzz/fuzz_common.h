// Helpers shared by the libFuzzer targets in fuzz/. Everything goes through the public C API
// (kkmeans.h); nothing here sees the library's internals.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "kkmeans.h"

namespace kkm_fuzz {

/// A broken invariant: print what and abort, which libFuzzer reports as a crash (and saves
/// the input as crash-<sha1>).
[[noreturn]] inline void die(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::fputs("FUZZ INVARIANT VIOLATED: ", stderr);
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
    std::abort();
}

#define FUZZ_CHECK(cond, ...)                                                                                     \
    do {                                                                                                          \
        if (!(cond))                                                                                              \
            ::kkm_fuzz::die("%s:%d: %s: %s", __FILE__, __LINE__, #cond, ::kkm_fuzz::format(__VA_ARGS__).c_str()); \
    } while (0)

inline std::string format(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char buf[2048];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return buf;
}

/// Every status is one of the documented codes; a failure carries a message; KKM_ERR_INTERNAL
/// (a bug by the header's own definition) is never acceptable.
inline void check_status(kkm_status s, const char* call) {
    FUZZ_CHECK(s >= KKM_OK && s <= KKM_ERR_INTERNAL, "%s returned unknown status %d", call, static_cast<int>(s));
    FUZZ_CHECK(std::strcmp(kkm_status_string(s), "unknown status") != 0, "%s: status %d has no name", call,
               static_cast<int>(s));
    if (s != KKM_OK) {
        FUZZ_CHECK(kkm_last_error()[0] != '\0', "%s failed (%s) with an empty message", call, kkm_status_string(s));
    }
    FUZZ_CHECK(s != KKM_ERR_INTERNAL, "%s: internal error: %s", call, kkm_last_error());
}

struct Model {
    kkm_model* m = nullptr;
    Model() {
        const kkm_status s = kkm_create(&m);
        if (s != KKM_OK || m == nullptr) die("kkm_create failed: %s", kkm_last_error());
    }
    ~Model() { kkm_destroy(m); }
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;
    operator kkm_model*() const { return m; }
};

/// The value of a parameter; dies if the key is not readable.
inline std::string get_param(const kkm_model* m, const char* key) {
    size_t need = 0;
    kkm_status s = kkm_get_param(m, key, nullptr, 0, &need);
    // len = 0 is "too small" unless the value is empty (it never is).
    FUZZ_CHECK(s == KKM_ERR_INVALID_ARGUMENT || s == KKM_OK, "get_param(%s) size query: %s", key, kkm_last_error());
    std::string value(need + 1, '\0');
    s = kkm_get_param(m, key, value.data(), value.size(), nullptr);
    FUZZ_CHECK(s == KKM_OK, "get_param(%s) with %zu bytes: %s", key, value.size(), kkm_last_error());
    FUZZ_CHECK(std::strlen(value.c_str()) == need, "get_param(%s): out_len %zu but value '%s'", key, need,
               value.c_str());
    value.resize(need);
    return value;
}

inline std::vector<std::string> param_names() {
    std::vector<std::string> names;
    for (int32_t i = 0; i < kkm_param_count(); ++i) {
        const char* name = nullptr;
        if (kkm_param_info(i, &name, nullptr, nullptr, nullptr, nullptr) != KKM_OK || name == nullptr) {
            die("kkm_param_info(%d) failed", static_cast<int>(i));
        }
        names.emplace_back(name);
    }
    return names;
}

/// Every parameter's value, in table order.
inline std::vector<std::string> all_params(const kkm_model* m) {
    static const std::vector<std::string> names = param_names();
    std::vector<std::string> values;
    for (const auto& name : names) values.push_back(get_param(m, name.c_str()));
    return values;
}

/// "name=value name=value ..." of all parameters.
inline std::string params_text(const std::vector<std::string>& values) {
    static const std::vector<std::string> names = param_names();
    std::string text;
    for (size_t i = 0; i < names.size(); ++i) text += (i ? " " : "") + names[i] + "=" + values[i];
    return text;
}

/// CRC-32 with the zlib polynomial, as the model format's trailer (last 4 bytes) stores it.
inline uint32_t crc32(const unsigned char* p, size_t n) {
    static uint32_t table[256];
    static bool ready = false;
    if (!ready) {
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int b = 0; b < 8; ++b) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) c = table[(c ^ p[i]) & 0xFFu] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

/// Rewrites the last 4 bytes with the CRC-32 of every byte before them (little-endian).
inline void reseal(std::vector<unsigned char>& bytes) {
    if (bytes.size() < 4) return;
    const uint32_t c = crc32(bytes.data(), bytes.size() - 4);
    for (int i = 0; i < 4; ++i)
        bytes[bytes.size() - 4 + static_cast<size_t>(i)] = static_cast<unsigned char>(c >> (8 * i));
}

/// A saved model whose parameter text (the PARM section, the file's first after its 16-byte
/// header: tag, u64 section size, u64 length, text) has `key=value` in place of the key's saved
/// value, resealed. The loader runs a model on the engine path its saved isa names
/// (serialize.cpp), so with_param(bytes, "isa", "portable") is the same fitted state on the
/// float32 tiles: what the q8-versus-float32 oracle of fuzz_fit compares. Dies if the bytes do
/// not hold the key.
inline std::vector<unsigned char> with_param(const std::vector<unsigned char>& bytes, const std::string& key,
                                             const std::string& value) {
    constexpr size_t kText = 16 + 4 + 8 + 8;
    FUZZ_CHECK(bytes.size() > kText + 4 && std::memcmp(bytes.data() + 16, "PARM", 4) == 0, "no PARM section");
    uint64_t length = 0;
    std::memcpy(&length, bytes.data() + 28, sizeof length);
    FUZZ_CHECK(length <= bytes.size() - kText - 4, "PARM length %llu", static_cast<unsigned long long>(length));
    std::string text(reinterpret_cast<const char*>(bytes.data() + kText), static_cast<size_t>(length));
    const std::string token = key + "=";
    size_t at = text.rfind(token, 0) == 0 ? 0 : text.find(" " + token);
    if (at != 0 && at != std::string::npos) ++at;
    FUZZ_CHECK(at != std::string::npos, "the saved parameters hold no %s: %s", key.c_str(), text.c_str());
    const size_t begin = at + token.size(), end = std::min(text.find(' ', begin), text.size());
    text.replace(begin, end - begin, value);
    std::vector<unsigned char> out(bytes.begin(), bytes.begin() + 20);
    const uint64_t new_length = text.size(), section = 8 + new_length;
    const auto* s = reinterpret_cast<const unsigned char*>(&section);
    const auto* l = reinterpret_cast<const unsigned char*>(&new_length);
    out.insert(out.end(), s, s + 8);
    out.insert(out.end(), l, l + 8);
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(kText + length), bytes.end());
    reseal(out);
    return out;
}

inline std::vector<unsigned char> save(const kkm_model* m) {
    int64_t size = 0;
    kkm_status s = kkm_save_buffer(m, nullptr, 0, &size);
    FUZZ_CHECK(s == KKM_OK && size > 0, "save_buffer size query: %s", kkm_last_error());
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    int64_t written = 0;
    s = kkm_save_buffer(m, bytes.data(), size, &written);
    FUZZ_CHECK(s == KKM_OK && written == size, "save_buffer: %s", kkm_last_error());
    return bytes;
}

// ---------------------------------------------------------------- seed models

/// Small deterministic data: n rows, d columns, three blobs (LCG, no <random> so that the
/// values are the same with every standard library).
inline std::vector<float> blobs(int n, int d, uint32_t seed) {
    std::vector<float> X(static_cast<size_t>(n) * static_cast<size_t>(d));
    uint32_t s = seed * 2654435761u + 1;
    auto next = [&s] {
        s = s * 1664525u + 1013904223u;
        return static_cast<float>(s >> 8) / 16777216.0f - 0.5f;
    };
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < d; ++j) X[static_cast<size_t>(i * d + j)] = 4.0f * static_cast<float>(i % 3) + next();
    }
    return X;
}

/// RBF kernel matrix (gamma 0.5) of X, for kernel=precomputed.
inline std::vector<float> rbf_matrix(const std::vector<float>& X, int n, int d) {
    std::vector<float> K(static_cast<size_t>(n) * static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double s = 0;
            for (int c = 0; c < d; ++c) {
                const double t = X[static_cast<size_t>(i * d + c)] - X[static_cast<size_t>(j * d + c)];
                s += t * t;
            }
            K[static_cast<size_t>(i * n + j)] = static_cast<float>(std::exp(-0.5 * s));
        }
    }
    return K;
}

/// Parameter strings of the seed models: every method, sketch kind, sampling, kernel and the
/// precomputed variants.
inline const std::vector<const char*>& seed_params() {
    static const std::vector<const char*> list = {
        "k=3 method=exact",
        "k=3 method=exact kernel=laplacian gamma=0.5",
        "k=3 method=exact kernel=polynomial degree=2 coef0=1",
        "k=2 method=exact kernel=cosine",
        "k=3 method=exact kernel=linear",
        "k=3 method=nystrom m=10",
        "k=3 method=nystrom m=12 rank=4 sampling=rls",
        "k=3 method=nystrom m=8 sampling=kmeanspp kernel=laplacian",
        "k=3 method=nystrom m=8 solver=minibatch batch_size=8",
        "k=3 method=sketch sketch=subgaussian m=8",
        "k=3 method=sketch sketch=ros m=8",
        "k=3 method=sketch sketch=gaussian m=8",
        "k=3 method=sketch sketch=identity m=8",
        "k=3 method=rff m=16",
        "k=3 method=rff m=8 kernel=laplacian",
        "k=3 method=minibatch batch_size=8 tau=5",
        "k=3 method=minibatch batch_size=4 tau=0 learning_rate=sklearn",
        "k=3 method=exact kernel=precomputed",
        "k=3 method=nystrom kernel=precomputed m=8",
        "k=3 method=sketch kernel=precomputed m=8",
        "k=3 method=minibatch kernel=precomputed batch_size=8",
    };
    return list;
}

/// Fits one seed model (30 rows, 3 columns, threads=1) and returns its saved bytes, or an
/// empty vector when the library refuses the combination (the message goes to stderr).
inline std::vector<unsigned char> seed_model(const char* params) {
    constexpr int n = 30, d = 3;
    Model m;
    const std::string text = std::string(params) + " threads=1 max_iter=20 seed=1";
    kkm_status s = kkm_set_params(m, text.c_str());
    if (s != KKM_OK) die("seed params '%s': %s", text.c_str(), kkm_last_error());
    const std::vector<float> X = blobs(n, d, 7);
    if (std::strstr(params, "precomputed") != nullptr) {
        const std::vector<float> K = rbf_matrix(X, n, d);
        s = kkm_fit(m, K.data(), n, n, nullptr);
    } else {
        s = kkm_fit(m, X.data(), n, d, nullptr);
    }
    if (s != KKM_OK) {
        std::fprintf(stderr, "seed model '%s' not fitted: %s\n", params, kkm_last_error());
        return {};
    }
    return save(m);
}

}  // namespace kkm_fuzz
