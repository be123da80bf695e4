/*
 * Loads libkkmeans.so at run time with dlopen(), looks the API up with dlsym(), fits a small
 * two-blob dataset and checks the labels, then dlclose()s. The library path is argv[1].
 * kkmeans.h is included for its types only: nothing here links against the library.
 */
#define _POSIX_C_SOURCE 200809L

#include "kkmeans.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef kkm_status (*create_fn)(kkm_model **);
typedef kkm_status (*set_params_fn)(kkm_model *, const char *);
typedef kkm_status (*fit_fn)(kkm_model *, const float *, int64_t, int64_t, const float *);
typedef kkm_status (*assign_fn)(const kkm_model *, const float *, int64_t, int64_t, int32_t *,
                                float *);
typedef kkm_status (*get_labels_fn)(const kkm_model *, int32_t *, int64_t);
typedef void (*destroy_fn)(kkm_model *);
typedef const char *(*last_error_fn)(void);

static int failures = 0;

static void check(int cond, const char *what) {
    printf("%s %s\n", cond ? "ok  " : "FAIL", what);
    if (!cond) ++failures;
}

/* dlsym returns an object pointer; ISO C has no conversion to a function pointer, so copy
 * the bits (POSIX guarantees they have the same representation). */
static int lookup(void *lib, const char *name, void *fn, size_t size) {
    void *sym;
    dlerror();
    sym = dlsym(lib, name);
    if (sym == NULL) {
        const char *e = dlerror();
        printf("FAIL dlsym(%s): %s\n", name, e ? e : "NULL");
        ++failures;
        return 0;
    }
    if (size != sizeof sym) return 0;
    memcpy(fn, &sym, size);
    return 1;
}

#define N_PER 15
#define N (2 * N_PER)

int main(int argc, char **argv) {
    void *lib;
    create_fn create = NULL;
    set_params_fn set_params = NULL;
    fit_fn fit = NULL;
    assign_fn assign = NULL;
    get_labels_fn get_labels = NULL;
    destroy_fn destroy = NULL;
    last_error_fn last_error = NULL;
    kkm_model *m = NULL;
    float X[N * 2];
    int32_t labels[N], assigned[N];
    int i, ok;
    kkm_status s;

    if (argc < 2) {
        fprintf(stderr, "usage: %s path/to/libkkmeans.so\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("FAIL dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }
    check(1, "dlopen");

    ok = lookup(lib, "kkm_create", &create, sizeof create);
    ok &= lookup(lib, "kkm_set_params", &set_params, sizeof set_params);
    ok &= lookup(lib, "kkm_fit", &fit, sizeof fit);
    ok &= lookup(lib, "kkm_assign", &assign, sizeof assign);
    ok &= lookup(lib, "kkm_get_labels", &get_labels, sizeof get_labels);
    ok &= lookup(lib, "kkm_destroy", &destroy, sizeof destroy);
    ok &= lookup(lib, "kkm_last_error", &last_error, sizeof last_error);
    check(ok, "dlsym of every needed function");
    check(dlsym(lib, "kkm_no_such_function") == NULL, "dlsym of a missing name fails");
    if (!ok) {
        dlclose(lib);
        return 1;
    }

    /* Two blobs on a small deterministic grid: rows 0..14 near (0, 0), rows 15..29 near (10, 10). */
    for (i = 0; i < N; ++i) {
        const float c = i < N_PER ? 0.0f : 10.0f;
        X[2 * i] = c + 0.1f * (float)(i % 5);
        X[2 * i + 1] = c + 0.1f * (float)((i / 5) % 3);
    }

    s = create(&m);
    check(s == KKM_OK && m != NULL, "kkm_create");
    if (m == NULL) {
        dlclose(lib);
        return 1;
    }
    s = set_params(m, "k=2 method=exact kernel=rbf gamma=auto seed=1");
    check(s == KKM_OK, "kkm_set_params");
    if (s != KKM_OK) printf("     %s\n", last_error());
    s = fit(m, X, N, 2, NULL);
    check(s == KKM_OK, "kkm_fit");
    if (s != KKM_OK) printf("     %s\n", last_error());
    s = get_labels(m, labels, N);
    check(s == KKM_OK, "kkm_get_labels");

    ok = s == KKM_OK && labels[0] != labels[N_PER];
    for (i = 0; ok && i < N; ++i) {
        if (labels[i] != (i < N_PER ? labels[0] : labels[N_PER])) ok = 0;
    }
    check(ok, "labels separate the two blobs");

    s = assign(m, X, N, 2, assigned, NULL);
    check(s == KKM_OK, "kkm_assign");
    ok = s == KKM_OK;
    for (i = 0; ok && i < N; ++i) {
        if (assigned[i] != labels[i]) ok = 0;
    }
    check(ok, "assign(train) == training labels");

    s = fit(NULL, X, N, 2, NULL);
    check(s == KKM_ERR_INVALID_ARGUMENT, "kkm_fit(NULL, ...) fails");
    check(last_error()[0] != '\0', "kkm_last_error has a message");

    destroy(m);
    destroy(NULL);
    check(dlclose(lib) == 0, "dlclose");

    printf("%s\n", failures == 0 ? "all dlopen checks passed" : "dlopen checks FAILED");
    return failures == 0 ? 0 : 1;
}
