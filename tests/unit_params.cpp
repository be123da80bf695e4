// The parameter table: defaults, canonical values, aliases and error messages.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/params.h"
#include "core/system_memory.h"

namespace kkm {
namespace {

TEST(Params, TableDefaultsMatchTheTypedStruct) {
    const Params fromTable = ParamSet().typed();
    const Params plain;
    EXPECT_EQ(fromTable.k, plain.k);
    EXPECT_EQ(fromTable.method, plain.method);
    EXPECT_EQ(fromTable.kernel, plain.kernel);
    EXPECT_EQ(fromTable.gamma, plain.gamma);
    EXPECT_EQ(fromTable.degree, plain.degree);
    EXPECT_EQ(fromTable.coef0, plain.coef0);
    EXPECT_EQ(fromTable.m, plain.m);
    EXPECT_EQ(fromTable.nystrom_rcond, plain.nystrom_rcond);
    EXPECT_EQ(fromTable.init, plain.init);
    EXPECT_EQ(fromTable.n_init, plain.n_init);
    EXPECT_EQ(fromTable.max_iter, plain.max_iter);
    EXPECT_EQ(fromTable.tol, plain.tol);
    EXPECT_EQ(fromTable.seed, plain.seed);
    EXPECT_EQ(fromTable.threads, plain.threads);
    // max_memory_mb=auto resolves to this machine's share (the struct's 4096 is a stand-in for
    // Params built without the table, as in tests).
    EXPECT_EQ(fromTable.max_memory_mb, kkm::auto_memory_mb());
    EXPECT_EQ(fromTable.isa, plain.isa);
    EXPECT_EQ(fromTable.bandwidth_scale, plain.bandwidth_scale);
    EXPECT_EQ(fromTable.rank, plain.rank);
    EXPECT_EQ(fromTable.reg_rank, plain.reg_rank);
    EXPECT_EQ(fromTable.sampling, plain.sampling);
    EXPECT_EQ(fromTable.rls_lambda, plain.rls_lambda);
    EXPECT_EQ(fromTable.sketch, plain.sketch);
    EXPECT_EQ(fromTable.batch_size, plain.batch_size);
    EXPECT_EQ(fromTable.tau, plain.tau);
    EXPECT_EQ(fromTable.epsilon, plain.epsilon);
    EXPECT_EQ(fromTable.learning_rate, plain.learning_rate);
    EXPECT_EQ(fromTable.solver, plain.solver);
    EXPECT_EQ(fromTable.refine, plain.refine);
    EXPECT_EQ(fromTable.k_min, plain.k_min);
    EXPECT_EQ(fromTable.k_max, plain.k_max);
    EXPECT_EQ(fromTable.gamma_search, plain.gamma_search);
    EXPECT_EQ(fromTable.search_criterion, plain.search_criterion);
    EXPECT_EQ(fromTable.search_size, plain.search_size);
}

TEST(Params, EveryDefaultIsValidAndCanonical) {
    const auto& table = param_table();
    for (size_t i = 0; i < table.size(); ++i) {
        EXPECT_EQ(canonical_value(static_cast<int>(i), table[i].default_value), table[i].default_value)
            << table[i].name;
    }
}

TEST(Params, ValuesAreCanonicalised) {
    ParamSet p;
    p.set("tol", "1e-3");
    EXPECT_EQ(p.get("tol"), "0.001");
    p.set("gamma", "auto");
    EXPECT_EQ(p.get("gamma"), "auto");
    p.set("gamma", "2.5");
    EXPECT_DOUBLE_EQ(p.typed().gamma, 2.5);
    p.set("gamma", "search");
    EXPECT_EQ(p.get("gamma"), "search");
    EXPECT_TRUE(p.typed().gamma_search);
    EXPECT_EQ(p.typed().gamma, 0.0);
    p.set("k", "auto");
    EXPECT_EQ(p.typed().k, 0);
}

TEST(Params, AliasesReachTheSameParameter) {
    ParamSet p;
    p.set("n_clusters", "5");
    EXPECT_EQ(p.get("k"), "5");
    p.set("random_state", "42");
    EXPECT_EQ(p.typed().seed, 42u);
}

std::string error_of(ParamSet& p, const char* key, const char* value) {
    try {
        p.set(key, value);
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), KKM_ERR_INVALID_ARGUMENT);
        return e.what();
    }
    return "";
}

TEST(Params, BadValuesNameTheKeyAndTheRange) {
    ParamSet p;
    EXPECT_NE(error_of(p, "k", "0").find("[1, 2147483647]"), std::string::npos);
    EXPECT_NE(error_of(p, "k", "2.5").find("'k'"), std::string::npos);
    EXPECT_NE(error_of(p, "gamma", "0").find("(0, inf), auto or search"), std::string::npos);
    EXPECT_NE(error_of(p, "tol", "1").find("[0, 1)"), std::string::npos);
    EXPECT_NE(error_of(p, "method", "magic").find("exact|nystrom"), std::string::npos);
    EXPECT_NE(error_of(p, "gamma", "nan").find("'gamma'"), std::string::npos);
    EXPECT_NE(error_of(p, "bogus", "1").find("unknown parameter 'bogus'"), std::string::npos);
    EXPECT_EQ(p.get("k"), "8");  // unchanged by the failures
}

TEST(Params, SetManyIsAllOrNothing) {
    ParamSet p;
    EXPECT_THROW(p.set_many("k=3 tol=0.5 gamma=-1"), Error);
    EXPECT_EQ(p.get("k"), "8");
    p.set_many("k=3, tol=0.5\tmethod=exact\n");
    EXPECT_EQ(p.get("k"), "3");
    EXPECT_EQ(p.get("method"), "exact");
    EXPECT_THROW(p.set_many("k"), Error);
    EXPECT_THROW(p.set_many("=3"), Error);
}

}  // namespace
}  // namespace kkm
