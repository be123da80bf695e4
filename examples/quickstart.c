/* The README's example: cluster four points into two groups with exact kernel k-means. */
#include <kkmeans.h>
#include <stdio.h>

int main(void) {
    float X[] = {0, 0,  0.1f, 0,  5, 5,  5.1f, 5};     /* 4 points, 2 columns, row-major */
    int32_t labels[4];
    kkm_model *m = NULL;
    if (kkm_create(&m) != KKM_OK ||
        kkm_set_params(m, "k=2 method=exact kernel=rbf gamma=0.5") != KKM_OK ||
        kkm_fit(m, X, 4, 2, NULL) != KKM_OK ||
        kkm_get_labels(m, labels, 4) != KKM_OK) {
        fprintf(stderr, "kkmeans: %s\n", kkm_last_error());
        kkm_destroy(m);
        return 1;
    }
    printf("%d %d %d %d\n", labels[0], labels[1], labels[2], labels[3]);
    kkm_destroy(m);
    /* The two near points share a label, and the two groups differ. */
    return (labels[0] == labels[1] && labels[2] == labels[3] && labels[0] != labels[2]) ? 0 : 1;
}
