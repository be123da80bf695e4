/*
 * fork() after threaded work: libgomp's thread pool does not survive fork, so an OpenMP region
 * with more than one thread in the child waits forever for workers that do not exist there
 * (R's parallel::mclapply, Python multiprocessing). The library notices that it runs in a
 * forked child (pthread_atfork, src/core/parallel.cpp) and runs single-threaded there; these
 * checks make a child's fit and assign with threads=2 return the parent's labels:
 *
 *   host_pool   the host ran its own OpenMP region (the pool exists, the library never ran
 *               one) before it forked; the child fits
 *   child       the parent fitted on two threads; the child fits and assigns
 *   grandchild  the same, one fork further down (a child that fitted forks again)
 *
 * Every child sets alarm(60), so a hang ends in SIGALRM and a failed check here, not a stuck
 * test run. Prints one "ok"/"FAIL" line per check; exits non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L

#include "kkmeans.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 2000
#define D 8
#define K 4
#define CHILD_SECONDS 60

static const char *const methods[] = {
    "k=4 method=nystrom m=200 threads=2 seed=3",
    "k=4 method=exact threads=2 seed=3",
    "k=4 method=rff m=128 threads=2 seed=3",
};
#define N_METHODS ((int)(sizeof methods / sizeof methods[0]))

static int n_failed = 0;

static void check(int cond, const char *what, const char *detail) {
    printf("%s %s%s%s\n", cond ? "ok  " : "FAIL", what, detail[0] ? ": " : "", detail);
    fflush(stdout); /* before any fork, or the child prints the parent's lines again */
    if (!cond) ++n_failed;
}

static unsigned long lcg_state = 99UL;
/* Uniform in [-1, 1), deterministic. */
static float lcg_uniform(void) {
    lcg_state = (lcg_state * 1103515245UL + 12345UL) % 2147483648UL;
    return (float)((double)lcg_state / 1073741824.0 - 1.0);
}

/* K blobs of uniform noise; row i belongs to blob i % K, centred at 6 along axis i % K. */
static void make_blobs(float *X) {
    int i, j;
    for (i = 0; i < N; ++i) {
        for (j = 0; j < D; ++j) X[i * D + j] = lcg_uniform() + (j == i % K ? 6.0f : 0.0f);
    }
}

/* Fits `params` on X into a new model (NULL on failure) and its labels. */
static kkm_model *fit(const char *params, const float *X, int32_t *labels) {
    kkm_model *m = NULL;
    if (kkm_create(&m) != KKM_OK) return NULL;
    if (kkm_set_params(m, params) != KKM_OK || kkm_fit(m, X, N, D, NULL) != KKM_OK ||
        kkm_get_labels(m, labels, N) != KKM_OK) {
        printf("     %s: %s\n", params, kkm_last_error());
        kkm_destroy(m);
        return NULL;
    }
    return m;
}

static int same(const int32_t *a, const int32_t *b) { return memcmp(a, b, sizeof(int32_t) * N) == 0; }

/* One label per blob, K distinct labels. */
static int blobs_found(const int32_t *labels) {
    int used[K] = {0};
    int i, c, distinct = 0;
    for (i = 0; i < N; ++i) {
        if (labels[i] < 0 || labels[i] >= K || labels[i] != labels[i % K]) return 0;
        used[labels[i]] = 1;
    }
    for (c = 0; c < K; ++c) distinct += used[c];
    return distinct == K;
}

/* Forks; the child sets its alarm, runs body(arg) and exits with its status; the parent
 * waits and checks that the child exited normally with status 0. */
static void in_child(int (*body)(const void *), const void *arg, const char *what) {
    int status = 0;
    char detail[96] = "";
    const pid_t pid = fork();
    if (pid == 0) {
        int ok;
        alarm(CHILD_SECONDS);
        ok = body(arg);
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    if (pid < 0) {
        check(0, what, "fork failed");
        return;
    }
    if (waitpid(pid, &status, 0) != pid) {
        check(0, what, "waitpid failed");
        return;
    }
    if (WIFSIGNALED(status)) {
        sprintf(detail, "killed by signal %d%s", WTERMSIG(status),
                WTERMSIG(status) == SIGALRM ? " (hung: still running after the alarm)" : "");
    } else if (WEXITSTATUS(status) != 0) {
        sprintf(detail, "exit status %d", WEXITSTATUS(status));
    }
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, what, detail);
}

/* What a child gets: the data and the parent's model and labels for each method. */
typedef struct {
    const float *X;
    kkm_model *models[N_METHODS];
    const int32_t *labels[N_METHODS];
} parent_state;

/* In a child: for each method, a fit on two threads gives the parent's labels, and the
 * parent's model assigns the training data to them too. */
static int fit_and_assign_like_parent(const void *arg) {
    const parent_state *p = (const parent_state *)arg;
    int32_t *labels = malloc(sizeof(int32_t) * N);
    int i, ok = labels != NULL;
    for (i = 0; ok && i < N_METHODS; ++i) {
        kkm_model *m = fit(methods[i], p->X, labels);
        ok = m != NULL && same(labels, p->labels[i]);
        kkm_destroy(m);
        ok = ok && kkm_assign(p->models[i], p->X, N, D, labels, NULL) == KKM_OK &&
             same(labels, p->labels[i]);
        if (!ok) printf("     in the child: %s differs from the parent\n", methods[i]);
    }
    free(labels);
    return ok;
}

/* In a child: fit and assign, then fork a grandchild that does the same. */
static int fit_then_fork_again(const void *arg) {
    const int before = n_failed;
    if (!fit_and_assign_like_parent(arg)) return 0;
    in_child(fit_and_assign_like_parent, arg, "grandchild: fit and assign (threads=2) equal the parent's");
    return n_failed == before;
}

/* In a child of a host that ran its own OpenMP region: a threaded fit returns the blobs. */
static int fit_after_host_pool(const void *arg) {
    int32_t *labels = malloc(sizeof(int32_t) * N);
    kkm_model *m = labels != NULL ? fit(methods[0], (const float *)arg, labels) : NULL;
    const int ok = m != NULL && blobs_found(labels);
    kkm_destroy(m);
    free(labels);
    return ok;
}

/* The host's own OpenMP work: after it the calling thread owns a libgomp pool of 2 threads,
 * although the library never started one. */
static int host_parallel_region(void) {
    int threads = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp atomic
        ++threads;
    }
    return threads;
}

int main(void) {
    float *X = malloc(sizeof(float) * N * D);
    int32_t *labels = malloc(sizeof(int32_t) * N * N_METHODS);
    parent_state state;
    int i, ok = 1;
    if (X == NULL || labels == NULL) return 2;
    make_blobs(X);
    state.X = X;

    check(host_parallel_region() == 2, "the host's own OpenMP region ran on two threads", "");
    in_child(fit_after_host_pool, X, "host_pool: a child's threaded fit after the host's OpenMP region");

    for (i = 0; i < N_METHODS; ++i) {
        state.labels[i] = labels + (size_t)i * N;
        state.models[i] = fit(methods[i], X, labels + (size_t)i * N);
        ok = ok && state.models[i] != NULL && blobs_found(labels + (size_t)i * N);
    }
    check(ok, "parent: threaded fits (threads=2) find the blobs", "");
    if (ok) {
        in_child(fit_and_assign_like_parent, &state, "child: fit and assign (threads=2) equal the parent's");
        in_child(fit_then_fork_again, &state, "child that fitted, then its grandchild");
    }
    for (i = 0; i < N_METHODS; ++i) kkm_destroy(state.models[i]);
    free(X);
    free(labels);
    printf("%s\n", n_failed == 0 ? "all fork checks passed" : "fork checks FAILED");
    return n_failed == 0 ? 0 : 1;
}
