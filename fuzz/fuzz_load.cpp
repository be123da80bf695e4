// fuzz_load: model loading from bytes (kkm_load_buffer).
//
// The first input byte selects a mode (byte % 4); the rest is the payload:
//   0  raw:      the payload as is (almost always refused early: magic, version, CRC-32).
//   1  resealed: the payload is a model file (the seed corpus holds one of every method)
//                whose last 4 bytes are rewritten with the CRC-32 of the bytes before them,
//                so that libFuzzer's mutations reach the structural validation.
//   2  patched:  payload[0] picks one of the models fitted at start-up (every method, see
//                seed_params()), the rest is a list of 4-byte patches (u16 offset, u8 op,
//                u8 value: set / xor / add a byte, overwrite 8 bytes from there with an
//                interesting u64 (0, 1, -1, 2^31, 2^62, ...) or the u64 there plus a small
//                delta, or overwrite 4 bytes with an edge float32 (NaN, ±Inf, FLT_MAX,
//                denormal, -0)); then resealed.
//   3  values:   the red team's mutation: payload[0] picks a seed model, then 4-byte patches
//                (u8 section, u8 element, u8 width, u8 value) each overwrite one element of
//                a named array section (centre coefficients and norms, alive flags, masses,
//                projections, signs, frequencies, the report's gamma, ...) with a value a
//                valid model never holds there (3e38, -1, 7, -2, 2^31, a denormal, ...), as a
//                float32, float64, byte or int64; then resealed.
// Invariants: a refused buffer gives FORMAT with a message and leaves the model unchanged
// (still not fitted, parameters at their defaults); an accepted one assigns a few fixed rows
// with labels in [0, k) and, where the model reports them, finite distances >= 0 whose
// kkm_distances row minimum is the same, or refuses both with INVALID_DATA (values that
// overflow float32: never a NaN turned into a distance); it saves to bytes that load again and save to the same bytes (a fixed point), and
// the reloaded model assigns identically.
// KKM_FUZZ_DUMP=path writes the bytes that were loaded (after resealing/patching) to path.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"

using namespace kkm_fuzz;

namespace {

std::vector<std::vector<unsigned char>>& seed_models() {
    static std::vector<std::vector<unsigned char>> models;
    return models;
}

void apply_patches(std::vector<unsigned char>& bytes, const uint8_t* p, size_t n) {
    static const uint64_t interesting[] = {0,          1,          2,          3,          0xFFFFFFFFFFFFFFFFull,
                                           0x7FFFFFFF, 0x80000000, 1ull << 32, 1ull << 62, 0x7FFFFFFFFFFFFFFFull,
                                           4,          8,          16,         1ull << 20, 0xFFFFFFFFull};
    const size_t body = bytes.size() > 4 ? bytes.size() - 4 : 0;  // the CRC is resealed afterwards
    for (size_t i = 0; i + 4 <= n && body > 0; i += 4) {
        const size_t at = (static_cast<size_t>(p[i]) | static_cast<size_t>(p[i + 1]) << 8) % body;
        const uint8_t op = p[i + 2], v = p[i + 3];
        switch (op % 5) {
            case 0: bytes[at] = v; break;
            case 1: bytes[at] ^= v; break;
            case 2: bytes[at] = static_cast<unsigned char>(bytes[at] + static_cast<int8_t>(v)); break;
            case 3: {  // an interesting u64, or the little-endian value there plus a small delta
                uint64_t x = interesting[v % (sizeof interesting / sizeof interesting[0])];
                if (v >= 128) {
                    x = 0;
                    for (size_t b = 0; b < 8 && at + b < body; ++b)
                        x |= static_cast<uint64_t>(bytes[at + b]) << (8 * b);
                    x += static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(v << 1) >> 1));
                }
                for (size_t b = 0; b < 8 && at + b < body; ++b)
                    bytes[at + b] = static_cast<unsigned char>(x >> (8 * b));
                break;
            }
            case 4: {  // a float32 there: NaN, Inf, huge, tiny, negative zero
                static const uint32_t floats[] = {0x7FC00000u, 0x7F800000u, 0xFF800000u, 0x7F7FFFFFu,
                                                  0x00000001u, 0x80000000u, 0x3F800000u, 0xBF800000u};
                const uint32_t f = floats[v % 8];
                for (size_t b = 0; b < 4 && at + b < body; ++b)
                    bytes[at + b] = static_cast<unsigned char>(f >> (8 * b));
                break;
            }
        }
    }
}

/// Where the value patches of mode 3 land: array sections whose values feed distances, and
/// how many bytes precede their elements (an array's count; a matrix's rows and columns).
struct ValueSection {
    const char* tag;
    size_t skip;
};
constexpr ValueSection kValueSections[] = {
    {"DUAZ", 16}, {"DUAW", 8}, {"DUAC", 8}, {"NYSH", 16}, {"NYSC", 8}, {"NYSA", 8}, {"FEAC", 16},
    {"FEAA", 8},  {"PDNS", 16}, {"PSGN", 8}, {"PVAL", 8}, {"RFFW", 16}, {"RFFB", 8}, {"BPTS", 16},
    {"MASS", 8},  {"SHFT", 8},  {"REPT", 0}, {"BCOL", 8}, {"LABL", 8},
};

/// Offset of the first section `tag` (its tag bytes), or SIZE_MAX. Byte comparisons, not
/// memcmp: libFuzzer hooks every memcmp, which made this scan most of an execution.
size_t find_section(const std::vector<unsigned char>& b, const char* tag) {
    for (size_t i = 16; i + 12 <= b.size(); ++i) {
        if (b[i] == static_cast<unsigned char>(tag[0]) && b[i + 1] == static_cast<unsigned char>(tag[1]) &&
            b[i + 2] == static_cast<unsigned char>(tag[2]) && b[i + 3] == static_cast<unsigned char>(tag[3])) {
            return i;
        }
    }
    return SIZE_MAX;
}

/// Where each of kValueSections starts in each seed model (found once, at start-up: the
/// patches overwrite values in place, so the sections do not move).
std::vector<std::vector<size_t>>& seed_sections() {
    static std::vector<std::vector<size_t>> sections;
    return sections;
}

void apply_value_patches(std::vector<unsigned char>& bytes, const std::vector<size_t>& sections, const uint8_t* p,
                         size_t n) {
    static const float floats[] = {3e38f, -3e38f, -1.0f, -2.0f, 7.0f, 2.0f, 1e-38f, 0.0f, 0.5f, -0.0f, 1e30f, 1e-30f};
    static const double doubles[] = {3e38, -3e38, -1.0, -2.0, 7.0, 2.0, 1e-300, 0.0, 0.5, 1e300, -1e-9, 1e10};
    static const int64_t integers[] = {-1, 7, 2, 0, 1, 1ll << 31, -(1ll << 31), 1ll << 40, 255, 128, -2, 3};
    const size_t body = bytes.size() > 4 ? bytes.size() - 4 : 0;  // the CRC is resealed afterwards
    for (size_t i = 0; i + 4 <= n; i += 4) {
        const size_t which = p[i] % std::size(kValueSections);
        const ValueSection& section = kValueSections[which];
        const size_t at = sections[which];
        if (at == SIZE_MAX) continue;
        const unsigned width_code = p[i + 2] % 4, v = p[i + 3] % 12;
        const size_t width = width_code == 0 ? 4 : width_code == 1 ? 8 : width_code == 2 ? 1 : 8;
        const size_t where = at + 12 + section.skip + static_cast<size_t>(p[i + 1]) * width;
        if (where + width > body) continue;
        unsigned char raw[8] = {};
        if (width_code == 0) std::memcpy(raw, &floats[v], 4);
        if (width_code == 1) std::memcpy(raw, &doubles[v], 8);
        if (width_code == 2) raw[0] = static_cast<unsigned char>(integers[v]);
        if (width_code == 3) std::memcpy(raw, &integers[v], 8);
        std::memcpy(bytes.data() + where, raw, width);
    }
}

struct Assigned {
    kkm_status status = KKM_OK;
    std::vector<int32_t> labels;
    std::vector<float> distances;  // empty when the model cannot report them (precomputed exact/nystrom)
};

/// Assigns a few fixed rows (d columns each) and checks labels and distances. With
/// kernel=precomputed, K(x, x) of new rows is unknown: the methods that measure distances in
/// kernel space (exact, nystrom, minibatch) refuse distances with INVALID_ARGUMENT ("pass
/// distances=NULL"); then the rows are assigned again without them.
Assigned assign_rows(const kkm_model* m, int64_t d, int32_t k, bool precomputed, const std::string& method) {
    constexpr int64_t rows = 3;
    std::vector<float> X(static_cast<size_t>(rows * d));
    for (size_t i = 0; i < X.size(); ++i) X[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.7f;
    Assigned a;
    a.labels.assign(rows, -1);
    a.distances.assign(rows, -1.0f);
    kkm_status s = kkm_assign(m, X.data(), rows, d, a.labels.data(), a.distances.data());
    check_status(s, "kkm_assign");
    if (s == KKM_ERR_INVALID_ARGUMENT && precomputed && std::strstr(kkm_last_error(), "distances=NULL") != nullptr) {
        FUZZ_CHECK(method == "exact" || method == "nystrom" || method == "minibatch",
                   "method=%s with kernel=precomputed refuses distances", method.c_str());
        a.distances.clear();
        s = kkm_assign(m, X.data(), rows, d, a.labels.data(), nullptr);
        check_status(s, "kkm_assign(distances=NULL)");
    }
    // A loaded model may hold finite values so large that assigning overflows float32 (e.g.
    // damaged rff frequencies): INVALID_DATA then, with a message, as a fit on such data.
    a.status = s;
    std::vector<float> all(static_cast<size_t>(rows * k));
    const kkm_status sd = a.distances.empty() ? KKM_OK : kkm_distances(m, X.data(), rows, d, all.data(), rows * k);
    if (s == KKM_ERR_INVALID_DATA) {
        // Distances fail alike (assign's nearest distance is one of them).
        FUZZ_CHECK(a.distances.empty() || sd == KKM_ERR_INVALID_DATA, "assign refused the rows but distances gave %s",
                   kkm_status_string(sd));
        a.labels.clear();
        a.distances.clear();
        return a;
    }
    FUZZ_CHECK(s == KKM_OK, "assign on a loaded model (d=%lld): %s", static_cast<long long>(d), kkm_last_error());
    for (int32_t l : a.labels) FUZZ_CHECK(l >= 0 && l < k, "label %d outside [0, %d)", l, k);
    // A distance is finite and >= 0, never a NaN turned into 0 or +inf (the C API refuses).
    for (float v : a.distances) FUZZ_CHECK(std::isfinite(v) && v >= 0, "distance %g", static_cast<double>(v));
    if (!a.distances.empty()) {
        FUZZ_CHECK(sd == KKM_OK, "assign gave distances but kkm_distances refused: %s", kkm_last_error());
        for (int64_t i = 0; i < rows; ++i) {
            const float* row = all.data() + i * k;
            const float low = *std::min_element(row, row + k);
            FUZZ_CHECK(low == a.distances[static_cast<size_t>(i)], "row %lld: assign %g, distances' minimum %g",
                       static_cast<long long>(i), static_cast<double>(a.distances[static_cast<size_t>(i)]),
                       static_cast<double>(low));
        }
    }
    return a;
}

bool same(const Assigned& a, const Assigned& b) {
    return a.status == b.status && a.labels == b.labels && a.distances.size() == b.distances.size() &&
           (a.distances.empty() ||
            std::memcmp(a.distances.data(), b.distances.data(), a.distances.size() * sizeof(float)) == 0);
}

void check_loaded(const kkm_model* m, const std::vector<unsigned char>& input) {
    int64_t d = 0, n_train = 0;
    int32_t k = 0;
    FUZZ_CHECK(kkm_get_n_features(m, &d) == KKM_OK && d >= 1, "n_features: %s", kkm_last_error());
    FUZZ_CHECK(kkm_get_n_train(m, &n_train) == KKM_OK && n_train >= 1, "n_train: %s", kkm_last_error());
    FUZZ_CHECK(kkm_get_k(m, &k) == KKM_OK && k >= 1 && k <= n_train, "k=%d, n_train=%lld", k,
               static_cast<long long>(n_train));
    std::vector<int32_t> labels(static_cast<size_t>(n_train));
    FUZZ_CHECK(kkm_get_labels(m, labels.data(), n_train) == KKM_OK, "get_labels: %s", kkm_last_error());
    for (int32_t l : labels) FUZZ_CHECK(l >= 0 && l < k, "training label %d outside [0, %d)", l, k);
    std::vector<double> sizes(static_cast<size_t>(k));
    FUZZ_CHECK(kkm_get_cluster_sizes(m, sizes.data(), k) == KKM_OK, "cluster sizes: %s", kkm_last_error());
    double objective = 0;
    FUZZ_CHECK(kkm_get_objective(m, &objective) == KKM_OK && std::isfinite(objective), "objective");
    char timings[4096];
    check_status(kkm_get_timings(m, timings, sizeof timings, nullptr), "kkm_get_timings");
    (void)all_params(m);

    // A model whose rows would not fit in a small buffer is still validated above; assigning
    // it would only allocate (precomputed: d = n_train columns).
    if (d > (1 << 16)) return;
    const std::string kernel = get_param(m, "kernel");
    const std::string method = get_param(m, "method");
    const bool precomputed = kernel == "precomputed";
    const Assigned first = assign_rows(m, d, k, precomputed, method);

    // Save → load → save is a fixed point and the reloaded model assigns identically.
    const std::vector<unsigned char> saved = save(m);
    Model again;
    const kkm_status s = kkm_load_buffer(again, saved.data(), static_cast<int64_t>(saved.size()));
    FUZZ_CHECK(s == KKM_OK, "a saved model (%zu bytes, from a %zu-byte input) does not load: %s", saved.size(),
               input.size(), kkm_last_error());
    FUZZ_CHECK(save(again) == saved, "save(load(save(model))) differs from save(model)");
    FUZZ_CHECK(same(assign_rows(again, d, k, precomputed, method), first), "the reloaded model assigns differently");
    FUZZ_CHECK(all_params(again) == all_params(m), "the reloaded model reports other parameters");
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    for (const char* params : seed_params()) {
        std::vector<unsigned char> bytes = seed_model(params);
        if (bytes.empty()) continue;
        std::vector<size_t> sections;
        for (const ValueSection& section : kValueSections) sections.push_back(find_section(bytes, section.tag));
        seed_sections().push_back(std::move(sections));
        seed_models().push_back(std::move(bytes));
    }
    if (seed_models().empty()) die("no seed model could be fitted");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    const int mode = data[0] % 4;
    std::vector<unsigned char> bytes;
    if (mode >= 2) {
        if (size < 2) return 0;
        const size_t seed = data[1] % seed_models().size();
        bytes = seed_models()[seed];
        if (mode == 2) apply_patches(bytes, data + 2, size - 2);
        if (mode == 3) apply_value_patches(bytes, seed_sections()[seed], data + 2, size - 2);
        reseal(bytes);
    } else {
        bytes.assign(data + 1, data + size);
        if (mode == 1) reseal(bytes);
    }

    // To reproduce a crash outside the fuzzer: KKM_FUZZ_DUMP=file writes the bytes loaded.
    if (const char* dump = std::getenv("KKM_FUZZ_DUMP")) {
        if (FILE* f = std::fopen(dump, "wb")) {
            std::fwrite(bytes.data(), 1, bytes.size(), f);
            std::fclose(f);
        }
    }

    Model m;
    static const std::vector<std::string> defaults = [] {
        Model d;
        return all_params(d);
    }();
    // bytes.data() of an empty vector may be NULL: pass a valid pointer with size 0 then.
    const unsigned char empty = 0;
    const kkm_status s = kkm_load_buffer(m, bytes.empty() ? &empty : bytes.data(), static_cast<int64_t>(bytes.size()));
    check_status(s, "kkm_load_buffer");
    if (s != KKM_OK) {
        FUZZ_CHECK(s == KKM_ERR_FORMAT, "load_buffer refused %zu bytes with %s: %s", bytes.size(), kkm_status_string(s),
                   kkm_last_error());
        int32_t k = 0;
        FUZZ_CHECK(kkm_get_k(m, &k) == KKM_ERR_NOT_FITTED, "a refused load left the model fitted");
        FUZZ_CHECK(all_params(m) == defaults, "a refused load changed the parameters");
        return 0;
    }
    check_loaded(m, bytes);
    return 0;
}
