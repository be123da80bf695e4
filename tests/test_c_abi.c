/*
 * Pure C99 test of the public API: includes only kkmeans.h and exercises every function.
 * Built twice by meson: against the shared library (c_abi) and the static one
 * (c_abi_static). Prints one "ok"/"FAIL" line per check and exits non-zero on any failure.
 */
#include "kkmeans.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n_checks = 0;
static int n_failed = 0;

static void check_at(int cond, const char *what, int line) {
    ++n_checks;
    if (cond) {
        printf("ok   %3d - %s\n", n_checks, what);
    } else {
        ++n_failed;
        printf("FAIL %3d - %s (line %d; last error: \"%s\")\n", n_checks, what, line,
               kkm_last_error());
    }
}
#define CHECK(cond, what) check_at((cond) ? 1 : 0, (what), __LINE__)

/* Status check that prints the status and message on failure. */
static void check_status_at(kkm_status got, kkm_status want, const char *what, int line) {
    ++n_checks;
    if (got == want) {
        printf("ok   %3d - %s\n", n_checks, what);
    } else {
        ++n_failed;
        printf("FAIL %3d - %s (line %d; status %d \"%s\", expected %d \"%s\"; last error: \"%s\")\n",
               n_checks, what, line, (int)got, kkm_status_string(got), (int)want,
               kkm_status_string(want), kkm_last_error());
    }
}
#define CHECK_STATUS(call, want, what) check_status_at((call), (want), (what), __LINE__)

/* ------------------------------------------------------------------ data */

#define N_PER 20
#define N (2 * N_PER)
#define D 2

static unsigned long lcg_state = 12345UL;
/* Uniform in [-1, 1), deterministic. */
static double lcg_uniform(void) {
    lcg_state = (lcg_state * 1103515245UL + 12345UL) % 2147483648UL;
    return (double)lcg_state / 1073741824.0 - 1.0;
}

/* Two well separated blobs: rows 0..N_PER-1 around (0, 0), the rest around (8, 8). */
static void make_blobs(float *X, double *X64, int32_t *truth) {
    int i, j;
    for (i = 0; i < N; ++i) {
        const double centre = i < N_PER ? 0.0 : 8.0;
        truth[i] = i < N_PER ? 0 : 1;
        for (j = 0; j < D; ++j) {
            const double v = centre + lcg_uniform();
            X64[i * D + j] = v;
            X[i * D + j] = (float)v;
        }
    }
}

static int same_labels(const int32_t *a, const int32_t *b, int64_t n) {
    int64_t i;
    for (i = 0; i < n; ++i) {
        if (a[i] != b[i]) return 0;
    }
    return 1;
}

static int labels_in_range(const int32_t *a, int64_t n, int32_t k) {
    int64_t i;
    for (i = 0; i < n; ++i) {
        if (a[i] < 0 || a[i] >= k) return 0;
    }
    return 1;
}

/* Is `text` a complete, finite, positive number? */
static int is_positive_number(const char *text) {
    char *end = NULL;
    double v = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(v) && v > 0.0;
}

static double ari(const int32_t *a, const int32_t *b, int64_t n) {
    double v = -2.0;
    if (kkm_adjusted_rand_index(a, b, n, &v) != KKM_OK) return -2.0;
    return v;
}

/* ------------------------------------------------------------------ sections */

static void test_library_info(void) {
    const char *v = kkm_version();
    int major = -1, minor = -1, patch = -1;
    char tail = 0;
    int s;
    const char *names[9];

    CHECK(v != NULL, "kkm_version is not NULL");
    if (v != NULL) {
        CHECK(sscanf(v, "%d.%d.%d%c", &major, &minor, &patch, &tail) == 3 && major >= 0 &&
                  minor >= 0 && patch >= 0,
              "kkm_version is MAJOR.MINOR.PATCH");
    }

    for (s = 0; s <= 8; ++s) {
        names[s] = kkm_status_string((kkm_status)s);
        CHECK(names[s] != NULL && names[s][0] != '\0', "kkm_status_string is a non-empty string");
        CHECK(names[s] != NULL && strcmp(names[s], "unknown status") != 0,
              "kkm_status_string knows every listed status");
    }
    {
        int a, b, distinct = 1;
        for (a = 0; a <= 8; ++a) {
            for (b = a + 1; b <= 8; ++b) {
                if (names[a] && names[b] && strcmp(names[a], names[b]) == 0) distinct = 0;
            }
        }
        CHECK(distinct, "kkm_status_string gives distinct names");
    }
    CHECK(strcmp(kkm_status_string((kkm_status)9), "unknown status") == 0,
          "kkm_status_string(9) is \"unknown status\"");
    CHECK(strcmp(kkm_status_string((kkm_status)100), "unknown status") == 0,
          "kkm_status_string(100) is \"unknown status\"");
    CHECK(strcmp(kkm_status_string((kkm_status)-1), "unknown status") == 0,
          "kkm_status_string(-1) is \"unknown status\"");

    CHECK(kkm_last_error() != NULL, "kkm_last_error is never NULL");

    kkm_destroy(NULL);
    CHECK(1, "kkm_destroy(NULL) is a no-op");

    CHECK_STATUS(kkm_create(NULL), KKM_ERR_INVALID_ARGUMENT, "kkm_create(NULL) fails");
    CHECK(kkm_last_error()[0] != '\0', "failed call leaves a message");
}

static void test_params(void) {
    kkm_model *m = NULL;
    char buf[256];
    size_t len = 0;
    int32_t count, i;
    const char *name, *type, *def, *range, *doc;

    CHECK_STATUS(kkm_create(&m), KKM_OK, "kkm_create");
    CHECK(m != NULL, "kkm_create stores a handle");
    if (m == NULL) return;

    count = kkm_param_count();
    CHECK(count >= 10, "kkm_param_count >= 10");
    for (i = 0; i < count; ++i) {
        name = type = def = range = doc = NULL;
        CHECK_STATUS(kkm_param_info(i, &name, &type, &def, &range, &doc), KKM_OK, "kkm_param_info");
        CHECK(name != NULL && name[0] != '\0', "param_info: name");
        CHECK(type != NULL &&
                  (strcmp(type, "int") == 0 || strcmp(type, "float") == 0 ||
                   strcmp(type, "enum") == 0 || strcmp(type, "int|auto") == 0 ||
                   strcmp(type, "float|auto") == 0 || strcmp(type, "float|auto|search") == 0 ||
                   strcmp(type, "int|none") == 0),
              "param_info: type is int|float|enum|int|auto|float|auto|int|none");
        CHECK(def != NULL, "param_info: default");
        CHECK(range != NULL && range[0] != '\0', "param_info: range");
        CHECK(doc != NULL && doc[0] != '\0', "param_info: doc");
        if (name == NULL || def == NULL) continue;
        len = 0;
        CHECK_STATUS(kkm_get_param(m, name, buf, sizeof buf, &len), KKM_OK,
                     "get_param of every listed parameter");
        CHECK(strcmp(buf, def) == 0, "fresh model reports the default value");
        CHECK(len == strlen(def), "get_param out_len is the value length");
        /* Setting the default back is accepted. */
        CHECK_STATUS(kkm_set_param(m, name, def), KKM_OK, "set_param(name, default)");
    }
    CHECK_STATUS(kkm_param_info(count, &name, NULL, NULL, NULL, NULL), KKM_ERR_INVALID_ARGUMENT,
                 "param_info(count) fails");
    CHECK_STATUS(kkm_param_info(-1, &name, NULL, NULL, NULL, NULL), KKM_ERR_INVALID_ARGUMENT,
                 "param_info(-1) fails");
    name = NULL;
    CHECK_STATUS(kkm_param_info(0, &name, NULL, NULL, NULL, NULL), KKM_OK,
                 "param_info with NULL outputs");
    CHECK(name != NULL, "param_info fills the requested output");

    /* kkm_param_aliases: k's are scikit-learn's and R's names; every alias of every
     * parameter is a key kkm_set_param and kkm_get_param take. */
    {
        const char *aliases = NULL;
        CHECK_STATUS(kkm_param_aliases(0, &aliases), KKM_OK, "kkm_param_aliases(0)");
        CHECK(aliases != NULL && strcmp(aliases, "n_clusters centers") == 0, "k's aliases are n_clusters and centers");
        for (i = 0; i < count; ++i) {
            char key[64];
            const char *p;
            aliases = NULL;
            CHECK_STATUS(kkm_param_info(i, &name, NULL, &def, NULL, NULL), KKM_OK, "param_info for aliases");
            CHECK_STATUS(kkm_param_aliases(i, &aliases), KKM_OK, "kkm_param_aliases(i)");
            CHECK(aliases != NULL, "kkm_param_aliases stores a string");
            for (p = aliases; p != NULL && *p != '\0';) {
                size_t n = strcspn(p, " ");
                CHECK(n > 0 && n < sizeof key, "an alias is a non-empty word");
                if (n == 0 || n >= sizeof key) break;
                memcpy(key, p, n);
                key[n] = '\0';
                CHECK_STATUS(kkm_set_param(m, key, def), KKM_OK, "set_param(alias, default)");
                CHECK_STATUS(kkm_get_param(m, key, buf, sizeof buf, &len), KKM_OK, "get_param(alias)");
                CHECK(strcmp(buf, def) == 0, "an alias reads its parameter's value");
                p += n;
                while (*p == ' ') ++p;
            }
        }
        CHECK_STATUS(kkm_param_aliases(count, &aliases), KKM_ERR_INVALID_ARGUMENT, "param_aliases(count) fails");
        CHECK_STATUS(kkm_param_aliases(-1, &aliases), KKM_ERR_INVALID_ARGUMENT, "param_aliases(-1) fails");
        CHECK_STATUS(kkm_param_aliases(0, NULL), KKM_ERR_INVALID_ARGUMENT, "param_aliases(0, NULL) fails");
    }

    /* set_params / set_param / get_param */
    CHECK_STATUS(kkm_set_params(m, "k=3 method=exact,\tkernel=rbf\ngamma=0.5"), KKM_OK,
                 "set_params with space, comma, tab and newline separators");
    CHECK_STATUS(kkm_get_param(m, "k", buf, sizeof buf, NULL), KKM_OK, "get_param k");
    CHECK(strcmp(buf, "3") == 0, "k reads back as 3");
    CHECK_STATUS(kkm_get_param(m, "method", buf, sizeof buf, NULL), KKM_OK, "get_param method");
    CHECK(strcmp(buf, "exact") == 0, "method reads back as exact");
    CHECK_STATUS(kkm_get_param(m, "gamma", buf, sizeof buf, NULL), KKM_OK, "get_param gamma");
    CHECK(strtod(buf, NULL) == 0.5, "gamma reads back as 0.5");
    CHECK_STATUS(kkm_set_param(m, "k", "4"), KKM_OK, "set_param k=4");
    CHECK_STATUS(kkm_get_param(m, "k", buf, sizeof buf, NULL), KKM_OK, "get_param k");
    CHECK(strcmp(buf, "4") == 0, "k reads back as 4");
    CHECK_STATUS(kkm_set_param(m, "gamma", "auto"), KKM_OK, "set_param gamma=auto");
    CHECK_STATUS(kkm_get_param(m, "gamma", buf, sizeof buf, NULL), KKM_OK, "get_param gamma");
    CHECK(strcmp(buf, "auto") == 0, "gamma reads back as auto before a fit");

    /* get_param with a buffer that is too small */
    memset(buf, 'x', sizeof buf);
    len = 0;
    CHECK_STATUS(kkm_get_param(m, "method", buf, 3, &len), KKM_ERR_INVALID_ARGUMENT,
                 "get_param with a 3-byte buffer for \"exact\" fails");
    CHECK(len == 5, "get_param reports the needed length (5) when the buffer is too small");
    CHECK(buf[2] == '\0' && strncmp(buf, "ex", 2) == 0,
          "too-small buffer holds a truncated NUL-terminated prefix");
    CHECK(kkm_last_error()[0] != '\0', "too-small buffer sets a message");
    len = 0;
    CHECK_STATUS(kkm_get_param(m, "method", buf, 5, &len), KKM_ERR_INVALID_ARGUMENT,
                 "get_param with no room for the NUL fails");
    CHECK(len == 5, "out_len is 5 again");
    len = 0;
    CHECK_STATUS(kkm_get_param(m, "method", buf, 6, &len), KKM_OK,
                 "get_param with exactly enough room succeeds");
    CHECK(len == 5 && strcmp(buf, "exact") == 0, "value and out_len with exact room");
    CHECK_STATUS(kkm_get_param(m, "no_such_key", buf, sizeof buf, NULL), KKM_ERR_INVALID_ARGUMENT,
                 "get_param of an unknown key fails");
    CHECK(strstr(kkm_last_error(), "no_such_key") != NULL, "message names the unknown key");

    kkm_destroy(m);
}

static void test_fit_exact(void) {
    float X[N * D];
    double X64[N * D];
    int32_t truth[N], labels[N], labels2[N];
    float dist[N];
    double dist64[N];
    double sizes[2], objective = -1.0, objective64 = -1.0, sum;
    int64_t n_train = 0, n_features = 0, dim = -1;
    int32_t k = 0, iters = 0;
    char buf[256];
    size_t len = 0;
    kkm_model *m = NULL;
    float weights[N];
    double weights64[N];
    int i, ok;

    make_blobs(X, X64, truth);
    CHECK_STATUS(kkm_create(&m), KKM_OK, "kkm_create");
    if (m == NULL) return;

    /* Before a fit. */
    CHECK_STATUS(kkm_get_labels(m, labels, N), KKM_ERR_NOT_FITTED, "get_labels before fit");
    CHECK_STATUS(kkm_get_objective(m, &objective), KKM_ERR_NOT_FITTED, "get_objective before fit");
    CHECK_STATUS(kkm_assign(m, X, N, D, labels, NULL), KKM_ERR_NOT_FITTED, "assign before fit");

    CHECK_STATUS(kkm_set_params(m, "k=2 method=exact kernel=rbf gamma=auto seed=7"), KKM_OK,
                 "set_params for exact");
    CHECK_STATUS(kkm_set_param(m, "n_init", "3"), KKM_OK, "set_param n_init=3");
    CHECK_STATUS(kkm_fit(m, X, N, D, NULL), KKM_OK, "fit (float, exact)");

    CHECK_STATUS(kkm_get_n_train(m, &n_train), KKM_OK, "get_n_train");
    CHECK(n_train == N, "n_train == 40");
    CHECK_STATUS(kkm_get_n_features(m, &n_features), KKM_OK, "get_n_features");
    CHECK(n_features == D, "n_features == 2");
    CHECK_STATUS(kkm_get_k(m, &k), KKM_OK, "get_k");
    CHECK(k == 2, "k == 2");
    CHECK_STATUS(kkm_get_feature_dim(m, &dim), KKM_OK, "get_feature_dim");
    CHECK(dim == 0, "feature_dim == 0 for exact");
    CHECK_STATUS(kkm_get_iterations(m, &iters), KKM_OK, "get_iterations");
    CHECK(iters >= 1, "iterations >= 1");
    CHECK_STATUS(kkm_get_objective(m, &objective), KKM_OK, "get_objective");
    CHECK(isfinite(objective) && objective >= 0.0, "objective finite and >= 0");

    CHECK_STATUS(kkm_get_labels(m, labels, N), KKM_OK, "get_labels");
    CHECK(labels_in_range(labels, N, 2), "labels in [0, k)");
    CHECK(ari(labels, truth, N) == 1.0, "labels recover the two blobs (ARI == 1)");
    CHECK_STATUS(kkm_get_labels(m, labels2, N - 1), KKM_ERR_INVALID_ARGUMENT,
                 "get_labels with len < n_train fails");

    CHECK_STATUS(kkm_get_cluster_sizes(m, sizes, 2), KKM_OK, "get_cluster_sizes");
    CHECK(sizes[0] == (double)N_PER && sizes[1] == (double)N_PER, "cluster sizes are 20 and 20");
    CHECK_STATUS(kkm_get_cluster_sizes(m, sizes, 1), KKM_ERR_INVALID_ARGUMENT,
                 "get_cluster_sizes with len < k fails");

    /* gamma=auto resolves to a number on a fitted model. */
    CHECK_STATUS(kkm_get_param(m, "gamma", buf, sizeof buf, NULL), KKM_OK, "get_param gamma after fit");
    CHECK(is_positive_number(buf), "gamma=auto reports the resolved positive number after fit");

    /* timings */
    len = 0;
    CHECK_STATUS(kkm_get_timings(m, buf, 1, &len), KKM_ERR_INVALID_ARGUMENT,
                 "get_timings with a 1-byte buffer fails");
    CHECK(len > 0 && len < sizeof buf, "get_timings reports the needed length");
    CHECK(buf[0] == '\0', "1-byte buffer holds the empty prefix");
    {
        size_t need = len;
        len = 0;
        CHECK_STATUS(kkm_get_timings(m, buf, sizeof buf, &len), KKM_OK, "get_timings");
        CHECK(len == need && strlen(buf) == len, "timings length matches out_len");
        CHECK(strchr(buf, '=') != NULL, "timings are stage=seconds pairs");
    }

    /* assign on the training data, float */
    for (i = 0; i < N; ++i) dist[i] = -1.0f;
    CHECK_STATUS(kkm_assign(m, X, N, D, labels2, NULL), KKM_OK, "assign without distances");
    CHECK(same_labels(labels, labels2, N), "assign(train) == training labels");
    CHECK_STATUS(kkm_assign(m, X, N, D, labels2, dist), KKM_OK, "assign with distances");
    CHECK(same_labels(labels, labels2, N), "assign(train) with distances == training labels");
    ok = 1;
    sum = 0.0;
    for (i = 0; i < N; ++i) {
        if (!isfinite(dist[i]) || dist[i] < -1e-4f) ok = 0;
        sum += dist[i];
    }
    CHECK(ok, "distances finite and >= 0");
    CHECK(fabs(sum - objective) <= 1e-3 * (objective + 1.0),
          "sum of training distances equals the objective");

    /* assign, f64 */
    for (i = 0; i < N; ++i) dist64[i] = -1.0;
    CHECK_STATUS(kkm_assign_f64(m, X64, N, D, labels2, NULL), KKM_OK, "assign_f64 without distances");
    CHECK(same_labels(labels, labels2, N), "assign_f64(train) == training labels");
    CHECK_STATUS(kkm_assign_f64(m, X64, N, D, labels2, dist64), KKM_OK, "assign_f64 with distances");
    CHECK(same_labels(labels, labels2, N), "assign_f64 with distances == training labels");
    ok = 1;
    for (i = 0; i < N; ++i) {
        if (!isfinite(dist64[i]) || dist64[i] < -1e-4) ok = 0;
        if (fabs(dist64[i] - (double)dist[i]) > 1e-3) ok = 0;
    }
    CHECK(ok, "f64 distances finite, >= 0 and close to the float ones");

    /* distances to every centre (k = 2): each row's first minimum is assign's label and distance */
    {
        float all[N * 2];
        double all64[N * 2];
        CHECK_STATUS(kkm_distances(m, X, N, D, all, N * 2), KKM_OK, "distances");
        CHECK_STATUS(kkm_distances_f64(m, X64, N, D, all64, N * 2), KKM_OK, "distances_f64");
        ok = 1;
        for (i = 0; i < N; ++i) {
            const int first = all[2 * i + 1] < all[2 * i] ? 1 : 0;
            if (first != labels[i] || all[2 * i + first] != dist[i]) ok = 0;
            if (all64[2 * i] != (double)all[2 * i] || all64[2 * i + 1] != (double)all[2 * i + 1]) ok = 0;
        }
        CHECK(ok, "distances: first minimum at assign's label and distance; f64 widens the float values");
        CHECK_STATUS(kkm_distances(m, X, N, D, all, N * 2 - 1), KKM_ERR_INVALID_ARGUMENT,
                     "distances with out_len < n*k fails");
    }

    /* transform is for approximate methods only */
    {
        float out[N * 4];
        CHECK_STATUS(kkm_transform(m, X, N, D, out, N * 4), KKM_ERR_INVALID_ARGUMENT,
                     "transform on method=exact fails");
    }

    /* fit_f64 on the same data */
    CHECK_STATUS(kkm_fit_f64(m, X64, N, D, NULL), KKM_OK, "fit_f64 (exact)");
    CHECK_STATUS(kkm_get_labels(m, labels2, N), KKM_OK, "get_labels after fit_f64");
    CHECK(ari(labels2, truth, N) == 1.0, "fit_f64 recovers the two blobs");
    CHECK_STATUS(kkm_get_objective(m, &objective64), KKM_OK, "get_objective after fit_f64");
    CHECK(fabs(objective64 - objective) <= 1e-4 * (objective + 1.0),
          "fit_f64 objective equals the float fit's");

    /* weights: all 2 doubles the cluster sizes and the objective */
    for (i = 0; i < N; ++i) {
        weights[i] = 2.0f;
        weights64[i] = 2.0;
    }
    CHECK_STATUS(kkm_fit(m, X, N, D, weights), KKM_OK, "fit with weights");
    CHECK_STATUS(kkm_get_cluster_sizes(m, sizes, 2), KKM_OK, "get_cluster_sizes (weighted)");
    CHECK(sizes[0] == 2.0 * N_PER && sizes[1] == 2.0 * N_PER, "weighted cluster sizes are 40 and 40");
    CHECK_STATUS(kkm_get_objective(m, &objective64), KKM_OK, "get_objective (weighted)");
    CHECK(fabs(objective64 - 2.0 * objective) <= 1e-4 * (objective + 1.0),
          "weights of 2 double the objective");
    CHECK_STATUS(kkm_fit_f64(m, X64, N, D, weights64), KKM_OK, "fit_f64 with weights");
    CHECK_STATUS(kkm_get_labels(m, labels2, N), KKM_OK, "get_labels (weighted f64)");
    CHECK(ari(labels2, truth, N) == 1.0, "weighted fit_f64 recovers the blobs");

    kkm_destroy(m);
}

static void test_fit_nystrom(void) {
    float X[N * D];
    double X64[N * D];
    int32_t truth[N], labels[N], labels2[N];
    int64_t dim = 0;
    float *features = NULL;
    kkm_model *m = NULL;
    char buf[64];
    int64_t i;
    int ok;

    make_blobs(X, X64, truth);
    CHECK_STATUS(kkm_create(&m), KKM_OK, "kkm_create");
    if (m == NULL) return;
    CHECK_STATUS(kkm_set_params(m, "k=2 method=nystrom kernel=rbf gamma=auto m=10 seed=3 n_init=2"),
                 KKM_OK, "set_params for nystrom");
    CHECK_STATUS(kkm_fit(m, X, N, D, NULL), KKM_OK, "fit (nystrom)");
    CHECK_STATUS(kkm_get_labels(m, labels, N), KKM_OK, "get_labels (nystrom)");
    CHECK(ari(labels, truth, N) == 1.0, "nystrom recovers the two blobs");
    CHECK_STATUS(kkm_get_param(m, "m", buf, sizeof buf, NULL), KKM_OK, "get_param m");
    CHECK(strcmp(buf, "10") == 0, "m reads back as 10");
    CHECK_STATUS(kkm_get_feature_dim(m, &dim), KKM_OK, "get_feature_dim (nystrom)");
    CHECK(dim >= 1 && dim <= 10, "1 <= feature_dim <= m");
    CHECK_STATUS(kkm_assign(m, X, N, D, labels2, NULL), KKM_OK, "assign (nystrom)");
    CHECK(same_labels(labels, labels2, N), "nystrom assign(train) == training labels");

    if (dim >= 1 && dim <= 10) {
        features = (float *)malloc((size_t)(N * dim) * sizeof(float));
        CHECK(features != NULL, "malloc");
        if (features != NULL) {
            for (i = 0; i < N * dim; ++i) features[i] = NAN;
            CHECK_STATUS(kkm_transform(m, X, N, D, features, N * dim), KKM_OK, "transform");
            ok = 1;
            for (i = 0; i < N * dim; ++i) {
                if (!isfinite(features[i])) ok = 0;
            }
            CHECK(ok, "transform writes n * feature_dim finite values");
            CHECK_STATUS(kkm_transform(m, X, N, D, features, N * dim - 1), KKM_ERR_INVALID_ARGUMENT,
                         "transform with out_len < n * feature_dim fails");
            CHECK_STATUS(kkm_transform(m, X, N, D + 1, features, N * dim), KKM_ERR_INVALID_ARGUMENT,
                         "transform with the wrong d fails");
            free(features);
        }
    }
    kkm_destroy(m);
}

static void test_metrics(void) {
    const int32_t a[6] = {0, 0, 0, 1, 1, 1};
    const int32_t b[6] = {0, 0, 1, 1, 2, 2};
    const int32_t c[6] = {7, 7, 7, -3, -3, -3}; /* a relabelled */
    const int32_t p[8] = {0, 0, 1, 1, 2, 2, 2, 3};
    const int32_t q[8] = {5, 5, 5, 7, 7, 9, 9, 9};
    double v = -5.0;

    CHECK_STATUS(kkm_adjusted_rand_index(a, c, 6, &v), KKM_OK, "ARI");
    CHECK(fabs(v - 1.0) < 1e-12, "ARI of a relabelled partition is 1");
    CHECK_STATUS(kkm_normalized_mutual_info(a, c, 6, &v), KKM_OK, "NMI");
    CHECK(fabs(v - 1.0) < 1e-12, "NMI of a relabelled partition is 1");
    CHECK_STATUS(kkm_adjusted_rand_index(a, b, 6, &v), KKM_OK, "ARI");
    CHECK(fabs(v - 0.24242424242424246) < 1e-12, "ARI matches scikit-learn (0.2424...)");
    CHECK_STATUS(kkm_normalized_mutual_info(a, b, 6, &v), KKM_OK, "NMI");
    CHECK(fabs(v - 0.5158037429793888) < 1e-12, "NMI matches scikit-learn (0.5158...)");
    CHECK_STATUS(kkm_adjusted_rand_index(p, q, 8, &v), KKM_OK, "ARI");
    CHECK(fabs(v - 0.15789473684210525) < 1e-12, "ARI matches the reference (0.1578...)");
    CHECK_STATUS(kkm_normalized_mutual_info(p, q, 8, &v), KKM_OK, "NMI");
    CHECK(fabs(v - 0.5577965290899926) < 1e-12, "NMI matches the reference (0.5577...)");
    CHECK_STATUS(kkm_adjusted_rand_index(NULL, b, 6, &v), KKM_ERR_INVALID_ARGUMENT, "ARI NULL a");
    CHECK_STATUS(kkm_normalized_mutual_info(a, b, 6, NULL), KKM_ERR_INVALID_ARGUMENT, "NMI NULL out");
    CHECK_STATUS(kkm_adjusted_rand_index(a, b, -1, &v), KKM_ERR_INVALID_ARGUMENT, "ARI n < 0");
}

int main(void) {
    test_library_info();
    test_params();
    test_fit_exact();
    test_fit_nystrom();
    test_metrics();
    printf("%d checks, %d failed\n", n_checks, n_failed);
    return n_failed == 0 ? 0 : 1;
}
