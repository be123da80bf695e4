/* A C host whose progress callback leaves the fit by longjmp (its error handling), which
 * kkmeans.h forbids but a host may still do. The fit's thread-local progress pointer was
 * left at the abandoned frame, so the next kkm_assign on that thread read a dead stack frame
 * (UBSan; a segfault in release). Now the callback runs with no progress installed: later
 * calls on the thread work. The abandoned fit's memory is lost by design: under ASan the test
 * runs without the leak check (tests/meson.build). */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "kkmeans.h"

static jmp_buf escape;
static int escapes = 0;

static int leave_by_longjmp(const char *stage, double fraction, void *user_data) {
    (void)stage;
    (void)fraction;
    (void)user_data;
    ++escapes;
    longjmp(escape, 1);
}

static int failures = 0;
static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) {
        printf("     last error: %s\n", kkm_last_error());
        ++failures;
    }
}

int main(void) {
    enum { N = 300, D = 2 };
    static float X[N * D];
    int32_t labels[N];
    volatile int i;
    kkm_model *fitted = NULL, *escaping = NULL;
    for (i = 0; i < N; ++i) {
        X[2 * i] = (float)(i % 3) * 10.0f + (float)(i % 7) * 0.1f;
        X[2 * i + 1] = (float)(i % 5) * 0.1f;
    }
    check(kkm_create(&fitted) == KKM_OK && kkm_set_params(fitted, "k=3 method=nystrom m=30") == KKM_OK &&
              kkm_fit(fitted, X, N, D, NULL) == KKM_OK,
          "a model fitted without a callback");
    check(kkm_create(&escaping) == KKM_OK && kkm_set_params(escaping, "k=3 method=nystrom m=30") == KKM_OK &&
              kkm_set_progress(escaping, leave_by_longjmp, NULL) == KKM_OK,
          "a model whose callback longjmps");
    for (i = 0; i < 3; ++i) {
        if (setjmp(escape) == 0) {
            kkm_fit(escaping, X, N, D, NULL);
            check(0, "the callback left the fit");
        }
        /* The same thread, after the abandoned fit: assign and distances through the library. */
        check(kkm_assign(fitted, X, N, D, labels, NULL) == KKM_OK, "kkm_assign after the escape");
        check(labels[0] != labels[1] && labels[0] == labels[3], "its labels");
    }
    check(escapes == 3, "the callback ran once per fit");
    check(kkm_set_progress(escaping, NULL, NULL) == KKM_OK && kkm_fit(escaping, X, N, D, NULL) == KKM_OK,
          "the escaping model fits once its callback is removed");
    kkm_destroy(fitted);
    kkm_destroy(escaping);
    printf("%d failed\n", failures);
    return failures == 0 ? 0 : 1;
}
