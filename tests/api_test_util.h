// Helpers shared by the GoogleTest suites that go through the public C API only
// (tests/test_api_*.cpp). Nothing here sees the library's internals.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <memory>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "kkmeans.h"

namespace kkm_test {

// ------------------------------------------------------------------ model handle

struct ModelDeleter {
    void operator()(kkm_model* m) const noexcept { kkm_destroy(m); }
};
using Model = std::unique_ptr<kkm_model, ModelDeleter>;

// `params` with n_init=1 added unless they set n_init or a graph kernel (knn, heat: ten restarts
// are their own default): for tests about a method's arithmetic or memory, which n_init=auto's
// ten restarts below 10000 rows would only slow down.
inline std::string one_restart_unless_given(const std::string& params) {
    const bool graph =
        params.find("kernel=knn") != std::string::npos || params.find("kernel=heat") != std::string::npos;
    return params.find("n_init") != std::string::npos || graph ? params : params + " n_init=1";
}

// The engine path a two-point fit with `params` took ("" when the fit fails: a path this CPU
// lacks is refused).
inline std::string fitted_isa(const std::string& params) {
    kkm_model* m = nullptr;
    if (kkm_create(&m) != KKM_OK) return "";
    const float x[2] = {0.0f, 1.0f};
    char isa[64] = "";
    if (kkm_set_params(m, ("k=1 method=exact gamma=1 " + params).c_str()) != KKM_OK ||
        kkm_fit(m, x, 2, 1, nullptr) != KKM_OK || kkm_get_param(m, "isa", isa, sizeof isa, nullptr) != KKM_OK)
        isa[0] = '\0';
    kkm_destroy(m);
    return isa;
}

// True when this CPU runs engine path `isa`.
inline bool isa_runs_here(const std::string& isa) {
    return !fitted_isa("isa=" + isa).empty();
}

// The engine path every model of this test run uses: KKM_TEST_ISA (tests/meson.build runs
// api_methods once per path), unless the parameters name one themselves. A path this CPU
// lacks is reported once and the run uses isa=auto.
inline std::string with_test_isa(const char* params) {
    std::string text = params != nullptr ? params : "";
    static const std::string isa = [] {
        const char* env = std::getenv("KKM_TEST_ISA");
        if (env == nullptr || env[0] == '\0') return std::string();
        if (isa_runs_here(env)) return std::string(env);
        std::fprintf(stderr, "KKM_TEST_ISA=%s: this CPU lacks that path; the tests run with isa=auto\n", env);
        return std::string();
    }();
    if (!isa.empty() && text.find("isa=") == std::string::npos) text += " isa=" + isa;
    return text;
}

// Creates a model and applies `params` (fails the test if either step fails).
inline Model make_model(const char* params = "") {
    kkm_model* raw = nullptr;
    const kkm_status s = kkm_create(&raw);
    EXPECT_EQ(s, KKM_OK) << kkm_last_error();
    Model m(raw);
    const std::string text = with_test_isa(params);
    if (m && !text.empty()) {
        const kkm_status p = kkm_set_params(m.get(), text.c_str());
        EXPECT_EQ(p, KKM_OK) << "set_params(\"" << text << "\"): " << kkm_last_error();
    }
    return m;
}

// Value of a parameter as text ("<error>" if get_param fails).
inline std::string get_param(const kkm_model* m, const char* key) {
    char buf[256];
    if (kkm_get_param(m, key, buf, sizeof buf, nullptr) != KKM_OK) return "<error>";
    return buf;
}

// Why a run under KKM_TEST_ISA would repeat the default run test for test ("" if it would
// not): its path is the one isa=auto takes on this CPU, or one this CPU lacks (which runs as
// auto).
inline std::string test_isa_repeats_auto() {
    const char* env = std::getenv("KKM_TEST_ISA");
    if (env == nullptr || env[0] == '\0') return "";
    if (!isa_runs_here(env)) return std::string("KKM_TEST_ISA=") + env + ": this CPU lacks that path";
    if (fitted_isa("") != env) return "";
    return std::string("KKM_TEST_ISA=") + env + ": isa=auto takes that path on this CPU";
}

// The parameter table's accepted range / default of a key ("" if not found).
inline std::string param_range(const std::string& key) {
    for (int32_t i = 0; i < kkm_param_count(); ++i) {
        const char* name = nullptr;
        const char* range = nullptr;
        if (kkm_param_info(i, &name, nullptr, nullptr, &range, nullptr) == KKM_OK && name != nullptr && key == name) {
            return range != nullptr ? range : "";
        }
    }
    return "";
}
inline std::string param_default(const std::string& key) {
    for (int32_t i = 0; i < kkm_param_count(); ++i) {
        const char* name = nullptr;
        const char* def = nullptr;
        if (kkm_param_info(i, &name, nullptr, &def, nullptr, nullptr) == KKM_OK && name != nullptr && key == name) {
            return def != nullptr ? def : "";
        }
    }
    return "";
}

// ------------------------------------------------------------------ messages

// What an error message must contain.
struct Word {
    enum Kind { substring, whole_word, no_case };
    std::string text;
    Kind kind = substring;
    Word(const char* t) : text(t) {}  // NOLINT: implicit on purpose (plain strings = substrings)
    Word(std::string t, Kind k) : text(std::move(t)), kind(k) {}
};
// `text` delimited by non-alphanumeric characters (or the ends): W("n") matches "n = 0" but not "number".
inline Word W(const std::string& text) {
    return Word(text, Word::whole_word);
}
// Case-insensitive substring: I("null") matches "NULL" and "null".
inline Word I(const std::string& text) {
    return Word(text, Word::no_case);
}
// A substring to find in the message, from a std::string.
inline Word S(const std::string& text) {
    return Word(text, Word::substring);
}
// What a message about a NULL pointer says.
inline const Word kNull = I("null");

inline bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

inline bool contains(const std::string& msg, const Word& w) {
    switch (w.kind) {
        case Word::substring: return msg.find(w.text) != std::string::npos;
        case Word::no_case: {
            std::string a = msg;
            std::string b = w.text;
            for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            return a.find(b) != std::string::npos;
        }
        case Word::whole_word: {
            for (size_t pos = msg.find(w.text); pos != std::string::npos; pos = msg.find(w.text, pos + 1)) {
                const bool left = pos == 0 || !is_word_char(msg[pos - 1]);
                const size_t end = pos + w.text.size();
                const bool right = end >= msg.size() || !is_word_char(msg[end]);
                if (left && right) return true;
            }
            return false;
        }
    }
    return false;
}

// EXPECT_TRUE(Fails(kkm_call(...), KKM_ERR_..., {"word", W("k"), I("null")})):
// the call returned `want` and kkm_last_error() contains every word.
inline ::testing::AssertionResult Fails(kkm_status got, kkm_status want, std::initializer_list<Word> words = {}) {
    const std::string msg = kkm_last_error();  // copy before any other kkm_* call
    if (got != want) {
        return ::testing::AssertionFailure()
               << "status " << static_cast<int>(got) << " (" << kkm_status_string(got) << "), expected "
               << static_cast<int>(want) << " (" << kkm_status_string(want) << "); message: \"" << msg << "\"";
    }
    if (std::getenv("KKM_TEST_VERBOSE") != nullptr) {
        std::printf("    [%s] %s\n", kkm_status_string(got), msg.c_str());
    }
    if (msg.empty()) return ::testing::AssertionFailure() << "status is right but the message is empty";
    for (const Word& w : words) {
        if (!contains(msg, w)) {
            const char* how = w.kind == Word::whole_word ? "the word"
                              : w.kind == Word::no_case  ? "(any case)"
                                                         : "the text";
            return ::testing::AssertionFailure() << "message \"" << msg << "\" lacks " << how << " '" << w.text << "'";
        }
    }
    return ::testing::AssertionSuccess() << "message: \"" << msg << "\"";
}

// EXPECT_TRUE(Ok(kkm_call(...))) with the message on failure.
inline ::testing::AssertionResult Ok(kkm_status got) {
    if (got == KKM_OK) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "status " << static_cast<int>(got) << " (" << kkm_status_string(got)
                                         << "): \"" << kkm_last_error() << "\"";
}

// The fitted model's n training labels (kkm_get_labels).
inline std::vector<int32_t> labels_of(const kkm_model* m, int64_t n) {
    std::vector<int32_t> out(static_cast<size_t>(n));
    EXPECT_TRUE(Ok(kkm_get_labels(m, out.data(), n)));
    return out;
}

// ------------------------------------------------------------------ model buffers

// The model's serialised bytes (kkm_save_buffer: a size query, then the copy).
inline std::vector<unsigned char> save(const kkm_model* m) {
    int64_t size = 0;
    EXPECT_TRUE(Ok(kkm_save_buffer(m, nullptr, 0, &size)));
    std::vector<unsigned char> bytes(static_cast<size_t>(size));
    int64_t written = 0;
    EXPECT_TRUE(Ok(kkm_save_buffer(m, bytes.data(), size, &written)));
    EXPECT_EQ(written, size);
    return bytes;
}

// The CRC-32 the model format uses (zlib's polynomial), recomputed here independently of the
// library so that tests can craft buffers that pass the checksum.
inline uint32_t crc32_of(const unsigned char* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        c ^= p[i];
        for (int b = 0; b < 8; ++b) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return c ^ 0xFFFFFFFFu;
}

// The model format's trailer: the last 4 bytes are the CRC-32 of every byte before them.
inline void reseal(std::vector<unsigned char>& bytes) {
    const uint32_t crc = crc32_of(bytes.data(), bytes.size() - 4);
    std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
}

// ------------------------------------------------------------------ data

struct Dataset {
    int64_t n = 0;
    int64_t d = 0;
    std::vector<float> X;     // n × d, row-major
    std::vector<double> X64;  // the same values in double
    std::vector<int32_t> truth;
};

inline void finish(Dataset& ds) {
    ds.X64.assign(ds.X.begin(), ds.X.end());
}

// k Gaussian blobs in d dimensions, centres 10 apart along the diagonal, sd `noise`.
inline Dataset blobs(int64_t n_per, int64_t d, int32_t k, uint32_t seed, double noise = 0.5) {
    Dataset ds;
    ds.n = n_per * k;
    ds.d = d;
    std::mt19937 gen(seed);
    std::normal_distribution<double> N(0.0, noise);
    for (int32_t c = 0; c < k; ++c) {
        for (int64_t i = 0; i < n_per; ++i) {
            for (int64_t j = 0; j < d; ++j) {
                const double centre = 10.0 * c * ((j + c) % 2 == 0 ? 1.0 : -1.0);
                ds.X.push_back(static_cast<float>(centre + N(gen)));
            }
            ds.truth.push_back(c);
        }
    }
    finish(ds);
    return ds;
}

// Two concentric rings in 2-D (radii 1 and 3, Gaussian noise `noise` per coordinate).
inline Dataset rings(int64_t n_per, uint32_t seed, double noise = 0.1) {
    Dataset ds;
    ds.n = 2 * n_per;
    ds.d = 2;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
    std::normal_distribution<double> N(0.0, noise);
    for (int ring = 0; ring < 2; ++ring) {
        const double r = ring == 0 ? 1.0 : 3.0;
        for (int64_t i = 0; i < n_per; ++i) {
            const double a = angle(gen);
            ds.X.push_back(static_cast<float>(r * std::cos(a) + N(gen)));
            ds.X.push_back(static_cast<float>(r * std::sin(a) + N(gen)));
            ds.truth.push_back(ring);
        }
    }
    finish(ds);
    return ds;
}

// Uniform points in [0, 1]^d: no cluster structure, so seeds matter.
inline Dataset uniform(int64_t n, int64_t d, uint32_t seed) {
    Dataset ds;
    ds.n = n;
    ds.d = d;
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> U(0.0, 1.0);
    for (int64_t i = 0; i < n * d; ++i) ds.X.push_back(static_cast<float>(U(gen)));
    ds.truth.assign(static_cast<size_t>(n), 0);
    finish(ds);
    return ds;
}

// ------------------------------------------------------------------ small fitted models
//
// The bad-input tests of every feature fit on the same small data.

// Two blobs of 10 rows in 2-D: n = 20, d = 2.
inline Dataset small_blobs() {
    return blobs(10, 2, 2, 42);
}

// method=nystrom on small_blobs(): a model with an explicit feature map (kkm_transform).
inline constexpr const char* kSmallNystrom = "k=2 method=nystrom kernel=rbf gamma=0.1 m=8 seed=1";

// A model fitted on small_blobs() (method=exact unless `params` say otherwise).
struct SmallFit {
    Dataset ds = small_blobs();
    Model m;
    explicit SmallFit(const char* params = "k=2 method=exact kernel=rbf gamma=0.1 seed=1") {
        m = make_model(params);
        EXPECT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    }
};

// The model is still unfitted (a failed fit must not fit it).
inline void expect_unfitted(const kkm_model* m) {
    int32_t k = 0;
    EXPECT_EQ(kkm_get_k(m, &k), KKM_ERR_NOT_FITTED);
}

// A float NaN, to put in X or the weights.
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// ------------------------------------------------------------------ measures

inline bool verbose() {
    return std::getenv("KKM_TEST_VERBOSE") != nullptr;
}

inline double ari(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    double v = -2.0;
    EXPECT_TRUE(Ok(kkm_adjusted_rand_index(a.data(), b.data(), static_cast<int64_t>(a.size()), &v)));
    if (verbose()) std::printf("    ARI %.6f\n", v);
    return v;
}

inline std::string fmt(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

// The n×n rbf kernel matrix exp(−gamma ‖x_i − x_j‖²) of ds, row-major, summed in double:
// the input of a kernel=precomputed fit.
inline std::vector<float> rbf_gram(const Dataset& ds, double gamma) {
    std::vector<float> K(static_cast<size_t>(ds.n * ds.n));
    for (int64_t i = 0; i < ds.n; ++i) {
        for (int64_t j = 0; j < ds.n; ++j) {
            double s = 0;
            for (int64_t c = 0; c < ds.d; ++c) {
                const double t = ds.X64[i * ds.d + c] - ds.X64[j * ds.d + c];
                s += t * t;
            }
            K[static_cast<size_t>(i * ds.n + j)] = static_cast<float>(std::exp(-gamma * s));
        }
    }
    return K;
}

// Mean squared distance over all ordered pairs (i, j), including i = j:
// 2 (mean |x|^2 - |mean x|^2).
inline double mean_pairwise_sq_dist(const Dataset& ds) {
    std::vector<double> mean(static_cast<size_t>(ds.d), 0.0);
    double sq = 0.0;
    for (int64_t i = 0; i < ds.n; ++i) {
        for (int64_t j = 0; j < ds.d; ++j) {
            const double x = ds.X[i * ds.d + j];
            mean[j] += x;
            sq += x * x;
        }
    }
    double msq = 0.0;
    for (double& m : mean) {
        m /= static_cast<double>(ds.n);
        msq += m * m;
    }
    return 2.0 * (sq / static_cast<double>(ds.n) - msq);
}

// The model's objective (kkm_get_objective; -1, and a test failure, if it has none).
inline double objective_of(const kkm_model* m) {
    double out = -1;
    EXPECT_TRUE(Ok(kkm_get_objective(m, &out)));
    return out;
}

// A parameter's value as kkm_get_param writes it.
inline std::string param_of(const kkm_model* m, const char* key) {
    char buf[128] = {};
    EXPECT_TRUE(Ok(kkm_get_param(m, key, buf, sizeof buf, nullptr)));
    return buf;
}

// ------------------------------------------------------------------ fits on the rings

// A fitted model with its labels, objective and iterations.
struct FitResult {
    Model m;
    std::vector<int32_t> labels;
    double objective = -1.0;
    int32_t iterations = -1;
};

// Fits `params` on ds (optionally weighted) and reads labels, objective and iterations.
inline FitResult fit_and_read(const Dataset& ds, const std::string& params, const float* weights = nullptr) {
    FitResult r;
    r.m = make_model(params.c_str());
    r.labels.assign(static_cast<size_t>(ds.n), -1);
    if (!r.m) return r;
    const kkm_status s = kkm_fit(r.m.get(), ds.X.data(), ds.n, ds.d, weights);
    EXPECT_TRUE(Ok(s)) << "fit with \"" << params << "\"";
    if (s != KKM_OK) return r;
    EXPECT_TRUE(Ok(kkm_get_labels(r.m.get(), r.labels.data(), ds.n)));
    EXPECT_TRUE(Ok(kkm_get_objective(r.m.get(), &r.objective)));
    EXPECT_TRUE(Ok(kkm_get_iterations(r.m.get(), &r.iterations)));
    return r;
}

// The papers' bandwidth (Wang, Gittens & Mahoney): sigma = beta * sqrt(mean pairwise squared
// distance), gamma = 1 / (2 sigma^2). beta = 0.4 makes the kernel local enough that the ring
// partition is the global optimum of the kernel k-means objective on the rings data set
// (with beta = 1, i.e. gamma=auto, a half-plane split wins).
inline double ring_gamma(const Dataset& ds) {
    const double sigma = 0.4 * std::sqrt(mean_pairwise_sq_dist(ds));
    return 1.0 / (2.0 * sigma * sigma);
}

// The rings data set (2 × 1000 points), built once.
inline const Dataset& ring_data() {
    static const Dataset ds = rings(1000, 2024);
    return ds;
}

// A private directory for the files of one test (the test directory's `prefix` and the
// process id), made before it and removed after it.
class FileDir : public ::testing::Test {
protected:
    explicit FileDir(const std::string& prefix) : dir_(::testing::TempDir() + prefix + std::to_string(::getpid())) {}
    void SetUp() override {
        std::filesystem::remove_all(dir_);
        std::filesystem::create_directory(dir_);
    }
    void TearDown() override { std::filesystem::remove_all(dir_); }
    // `values` as raw float32 in the file `name` of the directory; its path.
    std::string write(const std::string& name, const std::vector<float>& values) const {
        const std::string path = dir_ + "/" + name;
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
        return path;
    }
    std::string dir_;
};

}  // namespace kkm_test
