/*
 * Five cycles of dlopen -> a threaded fit -> dlclose in one process, with a pause after each
 * dlclose. The library path is argv[1].
 *
 * A threaded fit leaves libgomp's worker threads parked in the process. If dlclose unmapped
 * libkkmeans and, with it, libgomp, those threads would wake up in unmapped code: the host
 * crashed (SIGSEGV or SIGBUS) in most runs (24 of 24 here) before libkkmeans was linked with
 * -z nodelete (src/meson.build). The pause gives the parked threads time to run into it;
 * tests/test_dlopen.c (tiny data, exits at once) never saw it.
 *
 * Each cycle checks that the labels are sane: in range, one label per blob, every cluster
 * used, and the same labels as the first cycle (the fit is deterministic).
 */
#define _POSIX_C_SOURCE 200809L

#include "kkmeans.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef kkm_status (*create_fn)(kkm_model **);
typedef kkm_status (*set_params_fn)(kkm_model *, const char *);
typedef kkm_status (*fit_fn)(kkm_model *, const float *, int64_t, int64_t, const float *);
typedef kkm_status (*get_labels_fn)(const kkm_model *, int32_t *, int64_t);
typedef void (*destroy_fn)(kkm_model *);
typedef const char *(*last_error_fn)(void);

typedef struct {
    create_fn create;
    set_params_fn set_params;
    fit_fn fit;
    get_labels_fn get_labels;
    destroy_fn destroy;
    last_error_fn last_error;
} api;

#define CYCLES 5
#define N 20000
#define D 8
#define K 4
#define PARAMS "k=4 method=nystrom m=300 threads=2 seed=7"

static int failures = 0;

static void check(int cond, int cycle, const char *what) {
    printf("%s cycle %d: %s\n", cond ? "ok  " : "FAIL", cycle, what);
    if (!cond) ++failures;
}

/* dlsym returns an object pointer; ISO C has no conversion to a function pointer, so copy
 * the bits (POSIX guarantees they have the same representation). */
static int lookup(void *lib, const char *name, void *fn, size_t size) {
    void *sym = dlsym(lib, name);
    if (sym == NULL || size != sizeof sym) {
        printf("FAIL dlsym(%s)\n", name);
        return 0;
    }
    memcpy(fn, &sym, size);
    return 1;
}

static int load_api(void *lib, api *a) {
    int ok = lookup(lib, "kkm_create", &a->create, sizeof a->create);
    ok &= lookup(lib, "kkm_set_params", &a->set_params, sizeof a->set_params);
    ok &= lookup(lib, "kkm_fit", &a->fit, sizeof a->fit);
    ok &= lookup(lib, "kkm_get_labels", &a->get_labels, sizeof a->get_labels);
    ok &= lookup(lib, "kkm_destroy", &a->destroy, sizeof a->destroy);
    ok &= lookup(lib, "kkm_last_error", &a->last_error, sizeof a->last_error);
    return ok;
}

static unsigned long lcg_state = 2024UL;
/* Uniform in [-1, 1), deterministic. */
static float lcg_uniform(void) {
    lcg_state = (lcg_state * 1103515245UL + 12345UL) % 2147483648UL;
    return (float)((double)lcg_state / 1073741824.0 - 1.0);
}

/* K blobs of uniform noise in D dimensions; row i belongs to blob i % K, whose centre is 6
 * along axis (i % K). */
static void make_blobs(float *X) {
    int i, j;
    for (i = 0; i < N; ++i) {
        for (j = 0; j < D; ++j) X[i * D + j] = lcg_uniform() + (j == i % K ? 6.0f : 0.0f);
    }
}

/* In range, one label per blob, K distinct labels. */
static int labels_sane(const int32_t *labels) {
    int32_t of_blob[K];
    int used[K] = {0};
    int i, c;
    for (c = 0; c < K; ++c) of_blob[c] = labels[c];
    for (i = 0; i < N; ++i) {
        if (labels[i] < 0 || labels[i] >= K || labels[i] != of_blob[i % K]) return 0;
        used[labels[i]] = 1;
    }
    for (c = 0; c < K; ++c) {
        if (!used[c]) return 0;
    }
    return 1;
}

static void pause_ms(long ms) {
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* One cycle: dlopen, fit on two threads, dlclose, pause. Returns 0 when the library could
 * not be used at all. */
static int cycle(const char *path, int index, const float *X, int32_t *labels) {
    api a = {NULL, NULL, NULL, NULL, NULL, NULL};
    kkm_model *m = NULL;
    kkm_status s;
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("FAIL dlopen(%s): %s\n", path, dlerror());
        return 0;
    }
    if (!load_api(lib, &a) || a.create(&m) != KKM_OK) {
        dlclose(lib);
        return 0;
    }
    s = a.set_params(m, PARAMS);
    if (s == KKM_OK) s = a.fit(m, X, N, D, NULL);
    if (s == KKM_OK) s = a.get_labels(m, labels, N);
    if (s != KKM_OK) printf("     %s\n", a.last_error());
    check(s == KKM_OK, index, "threaded fit (" PARAMS ")");
    a.destroy(m);
    check(dlclose(lib) == 0, index, "dlclose");
    pause_ms(100); /* parked OpenMP threads wake up meanwhile */
    return s == KKM_OK;
}

int main(int argc, char **argv) {
    float *X;
    int32_t *labels, *first;
    int i;
    if (argc < 2) {
        fprintf(stderr, "usage: %s path/to/libkkmeans.so\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* a crash must not swallow the lines before it */
    X = malloc(sizeof(float) * N * D);
    labels = malloc(sizeof(int32_t) * N);
    first = malloc(sizeof(int32_t) * N);
    if (X == NULL || labels == NULL || first == NULL) return 2;
    make_blobs(X);
    for (i = 0; i < CYCLES; ++i) {
        if (!cycle(argv[1], i, X, labels)) {
            ++failures;
            break;
        }
        check(labels_sane(labels), i, "labels: in range, one per blob, every cluster used");
        if (i == 0) memcpy(first, labels, sizeof(int32_t) * N);
        check(memcmp(first, labels, sizeof(int32_t) * N) == 0, i, "labels equal the first cycle's");
    }
    free(X);
    free(labels);
    free(first);
    printf("%s\n", failures == 0 ? "all dlclose cycle checks passed" : "dlclose cycle checks FAILED");
    return failures == 0 ? 0 : 1;
}
