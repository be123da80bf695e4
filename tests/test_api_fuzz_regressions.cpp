// Regression tests for what the libFuzzer targets in fuzz/ found (see fuzz/README.md), through
// the public C API only. Each test names the target and the invariant it broke.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.h"

using namespace kkm_test;

namespace {

/// Offset of the top-level section `tag` (its 4-byte tag; u64 size follows), or SIZE_MAX.
/// Top-level sections start after the 16-byte header: tag, u64 payload size, payload.
size_t find_section(const std::vector<unsigned char>& bytes, const char* tag) {
    size_t pos = 16;
    while (pos + 12 <= bytes.size()) {
        uint64_t size = 0;
        std::memcpy(&size, bytes.data() + pos + 4, 8);
        if (std::memcmp(bytes.data() + pos, tag, 4) == 0) return pos;
        pos += 12 + static_cast<size_t>(size);
    }
    return SIZE_MAX;
}

/// Replaces the payload of the top-level section at `at` by an empty array (u64 count 0).
void empty_array_section(std::vector<unsigned char>& bytes, size_t at) {
    uint64_t size = 0;
    std::memcpy(&size, bytes.data() + at + 4, 8);
    const uint64_t new_size = 8, zero = 0;
    bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at + 12),
                bytes.begin() + static_cast<std::ptrdiff_t>(at + 12 + size));
    bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at + 12), 8, 0);
    std::memcpy(bytes.data() + at + 4, &new_size, 8);
    std::memcpy(bytes.data() + at + 12, &zero, 8);
}

/// Assigns X with distances, checking labels in [0, k) and finite distances.
void assign_checked(const kkm_model* m, const Dataset& ds, int32_t k, std::vector<int32_t>& labels,
                    std::vector<float>& dist) {
    labels.assign(static_cast<size_t>(ds.n), -1);
    dist.assign(static_cast<size_t>(ds.n), -1.0f);
    ASSERT_TRUE(Ok(kkm_assign(m, ds.X.data(), ds.n, ds.d, labels.data(), dist.data())));
    for (size_t i = 0; i < labels.size(); ++i) {
        EXPECT_GE(labels[i], 0);
        EXPECT_LT(labels[i], k);
        EXPECT_TRUE(std::isfinite(dist[i])) << "row " << i << ": " << dist[i];
    }
}

Dataset identical_rows(int64_t n, int64_t d, float value) {
    Dataset ds;
    ds.n = n;
    ds.d = d;
    ds.X.assign(static_cast<size_t>(n * d), value);
    finish(ds);
    return ds;
}

}  // namespace

// fuzz_params: the canonical text of a float parameter kept 15 significant digits, so
// tol=0.9999999999999999 was stored as "1", which [0, 1) refuses: get_param gave back a value
// set_param rejected, and a model fitted with it saved a parameter block its loader refused.
TEST(FuzzRegressions, FloatParameterReadBackSetsAgain) {
    for (const char* key : {"tol", "nystrom_rcond"}) {
        for (const char* value : {"0.9999999999999999", "0.99999999999999989", "0.12345678901234567"}) {
            Model m = make_model();
            ASSERT_TRUE(Ok(kkm_set_param(m.get(), key, value))) << key << "=" << value;
            const std::string back = get_param(m.get(), key);
            EXPECT_EQ(std::stod(back), std::stod(value)) << key << "=" << value << " reads back as " << back;
            EXPECT_TRUE(Ok(kkm_set_param(m.get(), key, back.c_str()))) << key << " read back as " << back;
            EXPECT_EQ(get_param(m.get(), key), back);
        }
    }
    // Short values keep their short form.
    Model m = make_model("tol=0.1 gamma=0.5 nystrom_rcond=1e-06");
    EXPECT_EQ(get_param(m.get(), "tol"), "0.1");
    EXPECT_EQ(get_param(m.get(), "gamma"), "0.5");
    EXPECT_EQ(get_param(m.get(), "nystrom_rcond"), "1e-06");
}

TEST(FuzzRegressions, ModelWithToleranceJustBelowOneSavesAndLoads) {
    const Dataset ds = blobs(20, 2, 3, 11);
    Model m = make_model("k=3 method=exact threads=1 tol=0.9999999999999999");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::vector<unsigned char> bytes = save(m.get());
    Model loaded = make_model();
    EXPECT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));
    EXPECT_EQ(get_param(loaded.get(), "tol"), get_param(m.get(), "tol"));
}

// fuzz_fit: nystrom_rcond=0 kept eigenvalues of K_LL at float64 round-off (1e-65 for
// duplicate landmarks); 1/sqrt of them overflowed the float32 projection, and with rank=
// LAPACK then failed on Inf: KKM_ERR_INTERNAL ("eigen-decomposition ... failed, info=8").
TEST(FuzzRegressions, NystromRcondZeroOnDuplicatePoints) {
    const Dataset ds = identical_rows(28, 1, -4.0f);
    for (const char* extra : {"rank=1", "", "rank=1 solver=minibatch batch_size=1", "sampling=kmeanspp"}) {
        Model m =
            make_model((std::string("k=3 method=nystrom gamma=1 nystrom_rcond=0 threads=1 seed=0 ") + extra).c_str());
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr))) << extra;
        double objective = -1;
        ASSERT_TRUE(Ok(kkm_get_objective(m.get(), &objective)));
        EXPECT_TRUE(std::isfinite(objective)) << extra << ": " << objective;
        EXPECT_NEAR(objective, 0.0, 1e-3) << extra;  // identical points: zero spread
        std::vector<int32_t> labels;
        std::vector<float> dist;
        assign_checked(m.get(), ds, 3, labels, dist);
    }
}

// fuzz_fit: kernel values beyond float32 reached LAPACK as Inf and came back as
// KKM_ERR_INTERNAL. Whatever catches them first, it must be a documented data/argument error.
TEST(FuzzRegressions, OverflowingKernelIsNotAnInternalError) {
    const Dataset ds = identical_rows(35, 6, -4.0f);
    Model m = make_model(
        "k=4 method=nystrom kernel=polynomial gamma=1e30 degree=4 coef0=-1 rank=1 "
        "nystrom_rcond=0 threads=1");
    const kkm_status s = kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr);
    EXPECT_TRUE(s == KKM_ERR_INVALID_DATA || s == KKM_ERR_INVALID_ARGUMENT)
        << kkm_status_string(s) << ": " << kkm_last_error();
    EXPECT_STRNE(kkm_last_error(), "");
}

// fuzz_load: an array section with zero elements (valid: e.g. no stage timings) passed
// memcpy(NULL, ..., 0) (undefined behaviour, reported by UBSan). Such a model loads and
// assigns like the original.
TEST(FuzzRegressions, EmptyArraySectionsLoad) {
    const Dataset ds = blobs(15, 2, 3, 5);
    Model m = make_model("k=3 method=exact threads=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    std::vector<unsigned char> bytes = save(m.get());
    for (const char* tag : {"TIMN", "TIMS"}) {
        const size_t at = find_section(bytes, tag);
        ASSERT_NE(at, SIZE_MAX) << tag;
        empty_array_section(bytes, at);
    }
    reseal(bytes);
    Model loaded = make_model();
    ASSERT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));
    char before[256] = "", after[256] = "";
    EXPECT_TRUE(Ok(kkm_get_timings(m.get(), before, sizeof before, nullptr)));
    EXPECT_TRUE(Ok(kkm_get_timings(loaded.get(), after, sizeof after, nullptr)));
    EXPECT_NE(std::string(before).find("gamma="), std::string::npos) << before;
    EXPECT_EQ(std::string(after).find("gamma="), std::string::npos) << after;  // no stages came back
    std::vector<int32_t> a, b;
    std::vector<float> da, db;
    assign_checked(m.get(), ds, 3, a, da);
    assign_checked(loaded.get(), ds, 3, b, db);
    EXPECT_EQ(a, b);
    EXPECT_EQ(da, db);
}

// fuzz_load: a damaged (resealed) file whose values a fit would refuse — a gamma or a basis
// point beyond float32 — must be refused as FORMAT (kkm_load_buffer's contract), not with the
// fit's INVALID_ARGUMENT / INVALID_DATA; and the model stays unfitted.
TEST(FuzzRegressions, LoadRefusesOutOfRangeValuesAsFormat) {
    const Dataset ds = blobs(15, 2, 3, 6);
    for (const char* params : {"k=3 method=exact kernel=rbf gamma=0.5", "k=3 method=exact kernel=polynomial degree=3",
                               "k=3 method=nystrom kernel=linear m=10"}) {
        Model m = make_model((std::string(params) + " threads=1").c_str());
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
        const std::vector<unsigned char> bytes = save(m.get());
        // REPT payload: f64 objective, i64 iterations, f64 gamma, ...; BASE payload: u32 kind,
        // then the BPTS section (tag, u64 size, u64 rows, u64 cols, floats).
        const size_t rept = find_section(bytes, "REPT");
        const size_t body = find_section(bytes, "BODY");
        ASSERT_NE(rept, SIZE_MAX);
        ASSERT_NE(body, SIZE_MAX);
        std::vector<std::vector<unsigned char>> damaged;
        for (const double gamma : {1e300, 1e-300}) {
            std::vector<unsigned char> g = bytes;
            std::memcpy(g.data() + rept + 12 + 16, &gamma, 8);
            damaged.push_back(g);
        }
        size_t bpts = SIZE_MAX;
        for (size_t i = body; i + 4 <= bytes.size(); ++i) {
            if (std::memcmp(bytes.data() + i, "BPTS", 4) == 0) {
                bpts = i;
                break;
            }
        }
        ASSERT_NE(bpts, SIZE_MAX);
        for (const float huge : {3e38f, -3e38f}) {
            std::vector<unsigned char> p = bytes;
            std::memcpy(p.data() + bpts + 12 + 16, &huge, 4);  // first coordinate of the first point
            damaged.push_back(p);
        }
        for (auto& d : damaged) {
            reseal(d);
            Model loaded = make_model();
            const kkm_status s = kkm_load_buffer(loaded.get(), d.data(), static_cast<int64_t>(d.size()));
            EXPECT_TRUE(s == KKM_OK || s == KKM_ERR_FORMAT)
                << params << ": " << kkm_status_string(s) << ": " << kkm_last_error();
            int32_t k = 0;
            if (s != KKM_OK) {
                EXPECT_EQ(kkm_get_k(loaded.get(), &k), KKM_ERR_NOT_FITTED);
            }
        }
    }
}

// fuzz_load: stage names "gamma kernel seeding  loyd" (a space for a letter) with 4 times loaded
// (4 names taken, one of them empty, "loyd" dropped) but saved as "gamma kernel seeding " —
// which the loader then refused: save(load(x)) did not load. Whatever the loader accepts must
// save to bytes that load again.
TEST(FuzzRegressions, AcceptedStageNamesSurviveTheNextSave) {
    const Dataset ds = blobs(15, 2, 3, 7);
    Model m = make_model("k=3 method=exact threads=1");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr)));
    const std::vector<unsigned char> bytes = save(m.get());
    const size_t timn = find_section(bytes, "TIMN");
    ASSERT_NE(timn, SIZE_MAX);
    uint64_t count = 0;
    std::memcpy(&count, bytes.data() + timn + 12, 8);
    const size_t text = timn + 20;  // the names, separated by single spaces
    ASSERT_GE(count, 4u);
    // Damage every position of the names in turn: a letter becomes a space, a space a letter.
    for (size_t i = 0; i < count; ++i) {
        std::vector<unsigned char> d = bytes;
        d[text + i] = d[text + i] == ' ' ? 'x' : ' ';
        reseal(d);
        Model loaded = make_model();
        const kkm_status s = kkm_load_buffer(loaded.get(), d.data(), static_cast<int64_t>(d.size()));
        ASSERT_TRUE(s == KKM_OK || s == KKM_ERR_FORMAT) << kkm_status_string(s) << ": " << kkm_last_error();
        if (s != KKM_OK) continue;
        const std::vector<unsigned char> again = save(loaded.get());
        Model reloaded = make_model();
        EXPECT_TRUE(Ok(kkm_load_buffer(reloaded.get(), again.data(), static_cast<int64_t>(again.size()))))
            << "names damaged at " << i;
        EXPECT_EQ(save(reloaded.get()), again) << "names damaged at " << i;
    }
}

// fuzz_fit: a sketch squares kernel values; polynomial values near 1e35 overflowed the
// objective to +inf (and distances to inf, every label 0) while the fit returned OK. Now the
// fit refuses with INVALID_DATA naming the overflow, and the model stays unfitted.
TEST(FuzzRegression, SketchOfHugeKernelValuesIsRefusedNotInfinite) {
    std::vector<float> X;
    for (int i = 0; i < 12; ++i) {
        for (int j = 0; j < 6; ++j) X.push_back(((i * 7 + j * 3) % 5 < 2) ? -4000.0f : 4000.0f);
    }
    Model m = make_model("k=2 method=sketch m=6 kernel=polynomial degree=4 gamma=10 coef0=1 threads=1");
    const kkm_status s = kkm_fit(m.get(), X.data(), 12, 6, nullptr);
    if (s == KKM_OK) {
        double objective = 0;
        ASSERT_TRUE(Ok(kkm_get_objective(m.get(), &objective)));
        EXPECT_TRUE(std::isfinite(objective));
    } else {
        EXPECT_TRUE(Fails(s, KKM_ERR_INVALID_DATA, {"overflow"}));
        int32_t k = 0;
        EXPECT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED);
    }
}

// fuzz_fit (issue 26): features near float32's denormals (data at 1e-6, a degree-2 polynomial
// sketch) round a feature-space distance of about 0 to a value below 0 that is large against
// the tiny terms. The rule that turns a distance far below 0 into an error (a damaged model)
// allows 1e-30 for that: the training rows assign, with finite distances >= 0.
TEST(FuzzRegression, DistancesNearDenormalsAreNotErrors) {
    const std::vector<float> X = {
        -3.99999999e-06f, -1.84374994e-06f, -1.84374994e-06f, -3.99999999e-06f, -1.84374994e-06f, -1.84374994e-06f,
        -3.99999999e-06f, -1.84374994e-06f, -3.75000013e-07f, -3.99999999e-06f, -3.75000013e-07f, -9.68749987e-07f,
        -3.99999999e-06f, -9.37499976e-07f, -1.84374994e-06f, -3.99999999e-06f, -1.84374994e-06f, -1.84374994e-06f,
        -3.99999999e-06f, -5.31250009e-07f, 3.96875021e-06f,  -3.99999999e-06f, 3.96875021e-06f,  3.96875021e-06f,
        -3.99999999e-06f, 3.96875021e-06f,  -1.84374994e-06f, -3.99999999e-06f, -1.84374994e-06f, -1.84374994e-06f,
        -3.99999999e-06f, -1.84374994e-06f, -1.62499998e-06f, -3.99999999e-06f, -1.62499998e-06f, -1.62499998e-06f,
        -3.99999999e-06f, -1.62499998e-06f, -1.62499998e-06f, -3.99999999e-06f, -1.62499998e-06f, -1.62499998e-06f,
        -3.99999999e-06f, -1.62499998e-06f, -1.84374994e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.87499995e-06f,
        -3.99999999e-06f, -3.99999999e-06f, -3.74999991e-06f, -3.99999999e-06f, 3.12499999e-08f,  2.37499989e-06f,
        -3.99999999e-06f, -3.21874995e-06f, -1.84374994e-06f, -3.99999999e-06f, -3.00000011e-06f, 0.0f,
        -3.99999999e-06f, 3.12499999e-08f,  1.50000005e-06f,  -3.99999999e-06f, 4.99999999e-07f,  3.43750003e-06f,
        -3.99999999e-06f, 3.43750003e-06f,  2.25000008e-06f,  -3.99999999e-06f, 2.87500006e-06f,  -1.96874998e-06f,
        -3.99999999e-06f, 2.12500004e-06f,  -3.18749994e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f,
        -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f,
        -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f,
        -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f,
        -3.99999999e-06f, -3.99999999e-06f, -3.99999999e-06f};
    Model m = make_model(
        "threads=1 k=8 method=sketch kernel=polynomial max_iter=3 n_init=1 seed=44042 sketch=ros "
        "bandwidth_scale=100 degree=2 coef0=0 m=33 sampling=uniform nystrom_rcond=1e-06 batch_size=34 tau=200 "
        "epsilon=0 learning_rate=sklearn init=random tol=0");
    ASSERT_TRUE(Ok(kkm_fit(m.get(), X.data(), 33, 3, nullptr)));
    std::vector<int32_t> labels(33);
    std::vector<float> dist(33);
    ASSERT_TRUE(Ok(kkm_assign(m.get(), X.data(), 33, 3, labels.data(), dist.data())));
    for (const float v : dist) EXPECT_TRUE(std::isfinite(v) && v >= 0) << v;
}

// fuzz_fit: 37 rows with many duplicates, kernel=laplacian at gamma 0.0187604919661516 (what
// bandwidth_scale=0.01 gave), m = 37: LAPACK 3.11's dsyevd did not converge on K_LL (info=75,
// Debian bookworm's LAPACK and BLIS) and the fit failed with KKM_ERR_INTERNAL. dsyevd's steps
// now run again with dsteqr in place of dstedc (tests/unit_linalg.cpp checks the
// decomposition); the fit succeeds and assigns its own rows.
TEST(FuzzRegression, EigenDecompositionThatDivideAndConquerCannotFinish) {
    const float values[74] = {
        -1937.5f,  -843.75f,  -281.25f,  468.75f,   3031.25f,  -1812.5f,  -875.f,    1687.5f,   1031.25f,  3968.75f,
        3968.75f,  3968.75f,  3968.75f,  3968.75f,  3968.75f,  3968.75f,  3968.75f,  531.25f,   1343.75f,  3562.5f,
        2187.5f,   -187.5f,   -2468.75f, -1500.f,   -812.5f,   -4000.f,   -4000.f,   -4000.f,   -4000.f,   -4000.f,
        -4000.f,   -4000.f,   -4000.f,   -3156.25f, 812.5f,    -3406.25f, 2250.f,    -1937.5f,  531.25f,   1343.75f,
        3562.5f,   2187.5f,   -1937.5f,  531.25f,   1343.75f,  3562.5f,   2187.5f,   -187.5f,   -2468.75f, -843.75f,
        -875.f,    -1500.f,   -812.5f,   -3156.25f, 812.5f,    -968.75f,  -2437.5f,  -1218.75f, -1218.75f, -1218.75f,
        -1218.75f, -1218.75f, -1218.75f, -1218.75f, -1218.75f, -1218.75f, -1218.75f, -1218.75f, -1218.75f, -1218.75f,
        -1218.75f, -1218.75f, -1218.75f, -1218.75f};
    Dataset ds;
    ds.n = 37;
    ds.d = 2;
    ds.X.assign(values, values + 74);
    finish(ds);
    for (const char* params :
         {"k=7 method=nystrom kernel=laplacian gamma=0.01876049196615163 m=37 init=random n_init=2 max_iter=3 "
          "seed=29303 threads=1",
          "k=7 method=nystrom kernel=laplacian bandwidth_scale=0.01 sampling=rls rls_lambda=1e9 nystrom_rcond=0.1 "
          "m=37 init=random n_init=2 max_iter=3 seed=29303 threads=1"}) {
        Model m = make_model(params);
        ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, nullptr))) << params << ": " << kkm_last_error();
        double objective = -1;
        ASSERT_TRUE(Ok(kkm_get_objective(m.get(), &objective)));
        EXPECT_TRUE(std::isfinite(objective) && objective >= 0) << objective;
        std::vector<int32_t> labels;
        std::vector<float> dist;
        assign_checked(m.get(), ds, 7, labels, dist);
    }
}

namespace {

/// The saved model with its PARM text's isa=<value> replaced (the section rebuilt, resealed):
/// the loader runs a model on the path its saved isa names, so this is the same fitted state
/// on another engine path, as a machine without the saving one's instructions loads it.
std::vector<unsigned char> with_isa(const std::vector<unsigned char>& bytes, const std::string& isa) {
    const size_t text_at = 16 + 4 + 8 + 8;
    uint64_t length = 0;
    std::memcpy(&length, bytes.data() + 28, sizeof length);
    std::string text(reinterpret_cast<const char*>(bytes.data() + text_at), static_cast<size_t>(length));
    const size_t at = text.find(" isa=") + 5, end = std::min(text.find(' ', at), text.size());
    text.replace(at, end - at, isa);
    std::vector<unsigned char> out(bytes.begin(), bytes.begin() + 20);
    const uint64_t new_length = text.size(), section = 8 + new_length;
    out.insert(out.end(), reinterpret_cast<const unsigned char*>(&section),
               reinterpret_cast<const unsigned char*>(&section) + 8);
    out.insert(out.end(), reinterpret_cast<const unsigned char*>(&new_length),
               reinterpret_cast<const unsigned char*>(&new_length) + 8);
    out.insert(out.end(), text.begin(), text.end());
    out.insert(out.end(), bytes.begin() + static_cast<std::ptrdiff_t>(text_at + length), bytes.end());
    reseal(out);
    return out;
}

}  // namespace

// fuzz_fit's q8-versus-float32 oracle (issue 60): a Nystrom model of rows of norm ~100 with
// gamma=10, saved on one engine path, did not load on another: its centres' norms, checked
// against the landmark kernel the loading path computes, were "inconsistent" (0.856 against 1:
// equal rows' kernel value is exp(−10 · the rounding of ‖x‖² + ‖y‖² − 2⟨x, y⟩), 0.86 on one
// path, 1 on the other). The check now allows the paths' difference (rbf_path_slack).
TEST(FuzzRegression, NystromModelLoadsOnEveryEnginePath) {
    const float values[] = {
        79.6875f,  54.375f, 79.6875f,  79.6875f,  79.6875f,  79.6875f,  54.375f, -17.8125f, -15.9375f, -27.1875f,
        -25.3125f, 54.375f, -15.f,     -49.6875f, -49.6875f, -49.6875f, 54.375f, 79.6875f,  79.6875f,  79.6875f,
        79.6875f,  54.375f, 79.6875f,  79.6875f,  79.6875f,  -120.f,    54.375f, -120.f,    11.25f,    11.25f,
        15.9375f,  54.375f, -49.6875f, -49.6875f, -49.6875f, -49.6875f, 54.375f, -49.6875f, -48.75f,   -48.75f,
        -40.3125f, 54.375f, -62.8125f, -12.1875f, -25.3125f, -27.1875f, 54.375f, -29.0625f, -11.25f,   -12.1875f,
        -21.5625f, 54.375f, 67.5f,     72.1875f,  -7.5f,     -29.0625f, 54.375f, -112.5f,   -112.5f,   -112.5f,
        -112.5f,   54.375f, -112.5f,   -112.5f,   -112.5f,   -112.5f,   54.375f, -112.5f,   -112.5f,   -112.5f,
        -112.5f,   54.375f, -112.5f,   -112.5f,   -112.5f,   -112.5f,   54.375f, -112.5f,   -112.5f,   -112.5f,
        -112.5f,   54.375f, -112.5f,   -112.5f,   -112.5f,   -17.8125f, 54.375f, 119.0625f, -17.8125f, -50.625f,
        -55.3125f, 54.375f, 119.0625f, 11.25f,    11.25f,    11.25f,    54.375f, 11.25f,    11.25f,    11.25f,
        11.25f,    54.375f, 11.25f,    11.25f,    11.25f,    11.25f,    54.375f, 11.25f,    11.25f,    11.25f,
        11.25f,    54.375f, 11.25f,    11.25f,    11.25f,    11.25f,    54.375f, 11.25f,    11.25f,    11.25f,
        11.25f,    54.375f, 11.25f,    11.25f,    54.375f};
    static_assert(sizeof values / sizeof *values == 125);
    const float w[25] = {0.001f, 0.001f, 0.001f, 0.001f, 0.001f, 0.001f, 0.001f, 0.5f, 0.f, 0.5f, 0.f, 1000.f, 0.001f,
                         0.001f, 3.f,    1.f,    0.f,    1.f,    0.5f,   0.f,    0.f,  1.f, 1.f,  1.f, 0.5f};
    Dataset ds;
    ds.n = 25;
    ds.d = 5;
    ds.X.assign(values, values + 125);
    finish(ds);
    const char* params =
        "threads=1 k=8 method=nystrom kernel=rbf max_iter=2 n_init=2 seed=15228 gamma=10 sampling=uniform "
        "nystrom_rcond=0.1 init=random tol=0";
    Model m = make_model(params);
    ASSERT_TRUE(Ok(kkm_fit(m.get(), ds.X.data(), ds.n, ds.d, w))) << kkm_last_error();
    const std::vector<unsigned char> saved = save(m.get());
    for (const char* isa : {"portable", "avx2", "avx512"}) {
        const std::vector<unsigned char> bytes = with_isa(saved, isa);
        Model loaded = make_model("");
        EXPECT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))))
            << isa << ": " << kkm_last_error();
    }
}
