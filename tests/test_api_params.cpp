// Parameters through the public C API (kkm_set_param, kkm_set_params, kkm_get_param,
// kkm_param_info): unknown keys, malformed pairs and numbers, every parameter's range and every
// enum's choices (the key, the value and the range named; the parameter unchanged), a key given
// twice, kkm_set_params all or nothing, k against the rows of the fit, and which values
// kkm_get_param reports once a fit has resolved the "auto" ones.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "kkmeans.h"

using namespace kkm_test;

// ================================================================== set, get, unknown and malformed

TEST(Params, UnknownKeySetParam) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "bogus_key", "1"), KKM_ERR_INVALID_ARGUMENT, {"bogus_key"}));
}
TEST(Params, UnknownKeySetParams) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=3 bogus_key=1"), KKM_ERR_INVALID_ARGUMENT, {"bogus_key"}));
}
TEST(Params, UnknownKeyGetParam) {
    Model m = make_model();
    char buf[64];
    EXPECT_TRUE(
        Fails(kkm_get_param(m.get(), "bogus_key", buf, sizeof buf, nullptr), KKM_ERR_INVALID_ARGUMENT, {"bogus_key"}));
}
TEST(Params, KeysAreCaseSensitive) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "K", "3"), KKM_ERR_INVALID_ARGUMENT, {W("K")}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "method", "Exact"), KKM_ERR_INVALID_ARGUMENT, {"Exact"}));
}
TEST(Params, MalformedPair) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k10"), KKM_ERR_INVALID_ARGUMENT, {"k10"}));
}
TEST(Params, MalformedPairEmptyKey) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=3 =5"), KKM_ERR_INVALID_ARGUMENT, {"=5"}));
    EXPECT_EQ(get_param(m.get(), "k"), param_default("k"));
}
TEST(Params, EmptyValueInPairs) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k="), KKM_ERR_INVALID_ARGUMENT, {W("k")}));
}
TEST(Params, GammaNegative) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "-1"), KKM_ERR_INVALID_ARGUMENT,
                      {W("gamma"), param_range("gamma").c_str()}));
    EXPECT_EQ(get_param(m.get(), "gamma"), param_default("gamma"));
}
TEST(Params, GammaZeroIsExcluded) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "0"), KKM_ERR_INVALID_ARGUMENT,
                      {W("gamma"), param_range("gamma").c_str()}));
}
TEST(Params, GammaNaN) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "nan"), KKM_ERR_INVALID_ARGUMENT, {W("gamma")}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "gamma", "inf"), KKM_ERR_INVALID_ARGUMENT, {W("gamma")}));
}
TEST(Params, DegreeZero) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "degree", "0"), KKM_ERR_INVALID_ARGUMENT,
                      {W("degree"), param_range("degree").c_str()}));
}
TEST(Params, TolTwo) {
    Model m = make_model();
    EXPECT_TRUE(
        Fails(kkm_set_param(m.get(), "tol", "2"), KKM_ERR_INVALID_ARGUMENT, {W("tol"), param_range("tol").c_str()}));
}
TEST(Params, MethodFoo) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "method", "foo"), KKM_ERR_INVALID_ARGUMENT,
                      {W("method"), W("foo"), W("exact"), W("nystrom")}));
    EXPECT_EQ(get_param(m.get(), "method"), param_default("method"));
}
TEST(Params, KernelFoo) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "kernel=foo"), KKM_ERR_INVALID_ARGUMENT,
                      {W("kernel"), W("rbf"), W("linear"), W("precomputed")}));
}
TEST(Params, SetParamsAllOrNothing) {
    Model m = make_model();
    const std::string k0 = get_param(m.get(), "k");
    const std::string n_init0 = get_param(m.get(), "n_init");
    const std::string method0 = get_param(m.get(), "method");
    ASSERT_NE(k0, "3");
    ASSERT_NE(n_init0, "2");
    EXPECT_TRUE(
        Fails(kkm_set_params(m.get(), "k=3 n_init=2 method=exact gamma=-1"), KKM_ERR_INVALID_ARGUMENT, {W("gamma")}));
    EXPECT_EQ(get_param(m.get(), "k"), k0);
    EXPECT_EQ(get_param(m.get(), "n_init"), n_init0);
    EXPECT_EQ(get_param(m.get(), "method"), method0);
}
TEST(Params, SetParamsAllOrNothingMalformedLast) {
    Model m = make_model();
    const std::string k0 = get_param(m.get(), "k");
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=3,tol=0.5,oops"), KKM_ERR_INVALID_ARGUMENT, {"oops"}));
    EXPECT_EQ(get_param(m.get(), "k"), k0);
    EXPECT_EQ(get_param(m.get(), "tol"), param_default("tol"));
}

TEST(Sizes, GetParamBufferTooSmall) {
    Model m = make_model("method=nystrom");
    char buf[4];
    size_t len = 0;
    EXPECT_TRUE(Fails(kkm_get_param(m.get(), "method", buf, sizeof buf, &len), KKM_ERR_INVALID_ARGUMENT,
                      {W("4"), W("8")}));  // the capacity and the bytes needed (with the NUL)
    EXPECT_EQ(len, std::strlen("nystrom"));
    EXPECT_STREQ(buf, "nys");
}
TEST(Sizes, ParamInfoIndexOutOfRange) {
    const char* name = nullptr;
    EXPECT_TRUE(Fails(kkm_param_info(kkm_param_count(), &name, nullptr, nullptr, nullptr, nullptr),
                      KKM_ERR_INVALID_ARGUMENT, {W("index")}));
    EXPECT_TRUE(
        Fails(kkm_param_info(-1, &name, nullptr, nullptr, nullptr, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("index")}));
}

// ================================================================== every parameter, every enum

namespace {
struct BadValue {
    const char* key;
    const char* value;
    const char* why;  // the words of the message after the value
};

// kkm_set_param(key, value) on a fresh model fails with INVALID_ARGUMENT naming the key, the
// quoted value, `why` and (with_range) the key's accepted range, and leaves the parameter as
// it was.
void expect_refused(const BadValue& c, bool with_range) {
    Model m = make_model();
    const std::string before = get_param(m.get(), c.key);
    const Word range = S(with_range ? param_range(c.key) : "");  // "" is in every message
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), c.key, c.value), KKM_ERR_INVALID_ARGUMENT,
                      {W(c.key), S(std::string("'") + c.value + "'"), c.why, range}))
        << c.key << "=" << c.value;
    EXPECT_EQ(get_param(m.get(), c.key), before) << c.key;
}
}  // namespace

// Every parameter rejects a value outside its range, names itself, the value and its range,
// and keeps its previous value.
TEST(BadInputParams, EveryParameterRejectsOutOfRange) {
    const BadValue cases[] = {
        {"k", "0", "out of range"},
        {"gamma", "0", "out of range"},
        {"bandwidth_scale", "0", "out of range"},
        {"bandwidth_scale", "-1", "out of range"},
        {"degree", "21", "out of range"},
        {"m", "0", "out of range"},
        {"nystrom_rcond", "1", "out of range"},
        {"nystrom_rcond", "-0.1", "out of range"},
        {"rank", "0", "out of range"},
        {"reg_rank", "0", "out of range"},
        {"rls_lambda", "0", "out of range"},
        {"batch_size", "0", "out of range"},
        {"tau", "-1", "out of range"},
        {"epsilon", "-0.5", "out of range"},
        {"n_init", "0", "out of range"},
        {"n_init", "1001", "out of range"},
        {"max_iter", "0", "out of range"},
        {"max_iter", "1000001", "out of range"},
        {"tol", "1", "out of range"},
        {"tol", "-1e-9", "out of range"},
        {"seed", "-1", "out of range"},
        {"seed", "9007199254740992", "out of range"},
        {"threads", "-1", "out of range"},
        {"threads", "1025", "out of range"},
        {"max_memory_mb", "0", "out of range"},
    };
    for (const BadValue& c : cases) expect_refused(c, true);
}

TEST(BadInputParams, EveryEnumRejectsAnUnknownValue) {
    for (const char* key : {"method", "kernel", "sampling", "sketch", "solver", "learning_rate", "init"}) {
        Model m = make_model();
        const std::string before = get_param(m.get(), key);
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), key, "bogus"), KKM_ERR_INVALID_ARGUMENT,
                          {W(key), "'bogus'", "not one of the choices", S(param_range(key))}))
            << key;
        EXPECT_TRUE(Fails(kkm_set_param(m.get(), key, ""), KKM_ERR_INVALID_ARGUMENT, {W(key)})) << key;
        EXPECT_EQ(get_param(m.get(), key), before) << key;
    }
}

TEST(BadInputParams, MalformedNumbers) {
    const BadValue cases[] = {
        {"k", "10abc", "is not an integer"},          {"k", " 3", "is not an integer"},
        {"k", "0x10", "is not an integer"},           {"k", "1e3", "is not an integer"},
        {"tol", "0.5.5", "is not a finite number"},   {"gamma", "1e", "is not a finite number"},
        {"gamma", "1e999", "is not a finite number"},  // overflows a double
        {"gamma", "0,5", "is not a finite number"},   {"coef0", "nan", "is not a finite number"},
        {"coef0", "-inf", "is not a finite number"},  {"m", "auto2", "is not an integer"},
        {"rank", "None", "is not an integer"},  // the keyword is "none"
    };
    for (const BadValue& c : cases) expect_refused(c, false);
}

TEST(BadInputParams, NumbersBeyondTheirTypeSayOutOfRange) {
    // A well-formed number that a double or an int64 cannot hold is out of range, not "not a
    // number": 1e-400 underflows, 1e999 overflows, 10^23 is beyond int64.
    const BadValue cases[] = {
        {"gamma", "1e-400", "underflows"},
        {"rls_lambda", "2e-324", "underflows"},
        {"gamma", "1e999", "overflows a double"},
        {"seed", "99999999999999999999999", "is out of range"},
        {"k", "-99999999999999999999999", "is out of range"},
    };
    for (const BadValue& c : cases) expect_refused(c, true);
    // Subnormal doubles are numbers (and then within the range of gamma, (0, inf)).
    Model m = make_model();
    EXPECT_TRUE(Ok(kkm_set_param(m.get(), "gamma", "1e-310")));
}

TEST(BadInputParams, RepeatedKey) {
    // "k=10 k=11" kept the last value silently; an alias is the same parameter.
    Model m = make_model("k=3");
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=10 k=11"), KKM_ERR_INVALID_ARGUMENT,
                      {"parameter 'k'", "twice", "'k=10'", "'k=11'"}));
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=10 method=exact n_clusters=11"), KKM_ERR_INVALID_ARGUMENT,
                      {"parameter 'k'", "twice", "'k=10'", "'n_clusters=11'", "n_clusters"}));
    EXPECT_TRUE(
        Fails(kkm_set_params(m.get(), "gamma=1,gamma=1"), KKM_ERR_INVALID_ARGUMENT, {"parameter 'gamma'", "twice"}))
        << "even with the same value";
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "seed=1 random_state=2"), KKM_ERR_INVALID_ARGUMENT,
                      {"parameter 'seed'", "twice"}));
    EXPECT_EQ(get_param(m.get(), "k"), "3") << "nothing applied";
    EXPECT_EQ(get_param(m.get(), "method"), param_default("method"));
    // Separate calls still override each other.
    EXPECT_TRUE(Ok(kkm_set_params(m.get(), "k=10")));
    EXPECT_TRUE(Ok(kkm_set_params(m.get(), "k=11")));
    EXPECT_EQ(get_param(m.get(), "k"), "11");
}

// ================================================================== k

TEST(ParamK, ZeroIsOutOfRange) {
    Model m = make_model();
    const std::string before = get_param(m.get(), "k");
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "0"), KKM_ERR_INVALID_ARGUMENT, {W("k"), param_range("k").c_str()}));
    EXPECT_EQ(get_param(m.get(), "k"), before) << "a rejected value must leave the parameter unchanged";
}
TEST(ParamK, NotAnInteger) {
    Model m = make_model();
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "2.5"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "2.5"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "abc"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "abc"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", ""), KKM_ERR_INVALID_ARGUMENT, {W("k")}));
}
TEST(ParamK, LargerThanN) {
    Model m = make_model("k=5 method=exact gamma=1");
    const std::vector<float> X = {0, 0, 1, 1, 2, 2};  // n = 3, d = 2
    EXPECT_TRUE(
        Fails(kkm_fit(m.get(), X.data(), 3, 2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("k"), W("n"), W("5"), W("3")}));
    int32_t k = 0;
    EXPECT_EQ(kkm_get_k(m.get(), &k), KKM_ERR_NOT_FITTED) << "a failed fit must not fit the model";
}
TEST(ParamK, LargerThanNNystrom) {
    Model m = make_model("k=5 method=nystrom gamma=1");
    const std::vector<float> X = {0, 0, 1, 1, 2, 2};  // n = 3, d = 2
    EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), 3, 2, nullptr), KKM_ERR_INVALID_ARGUMENT, {W("k"), W("n")}));
}

TEST(BadInputK, ZeroNegativeAndOverflowInSetParams) {
    Model m = make_model();
    const std::string before = get_param(m.get(), "k");
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=0"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "out of range", "[1,"}));
    EXPECT_TRUE(Fails(kkm_set_params(m.get(), "k=-3"), KKM_ERR_INVALID_ARGUMENT, {W("k"), "-3", "out of range"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "k", "2147483648"), KKM_ERR_INVALID_ARGUMENT,
                      {W("k"), "2147483648", "out of range"}));
    EXPECT_TRUE(Fails(kkm_set_param(m.get(), "n_clusters", "0"), KKM_ERR_INVALID_ARGUMENT, {W("k")}))
        << "an alias is reported under the parameter's name";
    EXPECT_EQ(get_param(m.get(), "k"), before);
}

TEST(BadInputK, LargerThanNEveryOtherMethod) {
    // exact and nystrom: ParamK.LargerThanN / LargerThanNNystrom.
    const std::vector<float> X = {0, 0, 1, 1, 2, 2, 3, 3};  // n = 4, d = 2
    const std::vector<double> X64(X.begin(), X.end());
    for (const char* method : {"method=sketch", "method=rff", "method=minibatch", "method=nystrom solver=minibatch"}) {
        Model m = make_model((std::string("k=5 gamma=1 ") + method).c_str());
        EXPECT_TRUE(Fails(kkm_fit(m.get(), X.data(), 4, 2, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {W("k"), W("n"), W("5"), W("4")}))
            << method;
        EXPECT_TRUE(Fails(kkm_fit_f64(m.get(), X64.data(), 4, 2, nullptr), KKM_ERR_INVALID_ARGUMENT,
                          {W("k"), W("n"), W("5"), W("4")}))
            << method;
        expect_unfitted(m.get());
    }
}

// ================================================================== after a fit

TEST(BadInputState, ResolvedAutoOnlyWhileParametersAreTheFits) {
    // After kkm_set_params changes k, gamma=auto must not report the old fit's resolved gamma
    // beside the new k (a mix of two configurations).
    SmallFit f("k=2 method=nystrom m=8 gamma=auto seed=1");
    const std::string resolved = get_param(f.m.get(), "gamma");
    ASSERT_NE(resolved, "auto");
    EXPECT_EQ(get_param(f.m.get(), "m"), "8");
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "k=3")));
    EXPECT_EQ(get_param(f.m.get(), "k"), "3");
    EXPECT_EQ(get_param(f.m.get(), "gamma"), "auto");
    EXPECT_EQ(get_param(f.m.get(), "isa"), "auto");
    // The fitted model itself is unchanged: it still has k=2.
    int32_t k = 0;
    ASSERT_TRUE(Ok(kkm_get_k(f.m.get(), &k)));
    EXPECT_EQ(k, 2);
    // Back to the fit's parameters: the resolved values again.
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "k=2")));
    EXPECT_EQ(get_param(f.m.get(), "gamma"), resolved);
    // A loaded model's parameters are those of its fit.
    ASSERT_TRUE(Ok(kkm_set_params(f.m.get(), "tol=0.5")));
    const std::vector<unsigned char> bytes = save(f.m.get());
    Model loaded = make_model();
    ASSERT_TRUE(Ok(kkm_load_buffer(loaded.get(), bytes.data(), static_cast<int64_t>(bytes.size()))));
    EXPECT_EQ(get_param(loaded.get(), "gamma"), resolved);
    EXPECT_EQ(get_param(loaded.get(), "tol"), param_default("tol"));
}
