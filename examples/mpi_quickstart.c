/* The README's MPI example: the ranks of MPI_COMM_WORLD cluster 12 points together, each rank
 * holding some of them (rank r holds points r, r + P, r + 2P, ...: any split works), with
 * Nystrom kernel k-means. Run: mpirun -np 3 ./mpi_quickstart */
#include <kkmeans_mpi.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    /* 12 points, 2 columns: six near (0, 0), six near (5, 5). */
    static const float all[12][2] = {{0, 0},    {0.1f, 0}, {0, 0.1f}, {0.1f, 0.1f}, {0.2f, 0}, {0, 0.2f},
                                     {5, 5},    {5.1f, 5}, {5, 5.1f}, {5.1f, 5.1f}, {5.2f, 5}, {5, 5.2f}};
    float mine[12][2];
    int32_t labels[12], truth[12];
    int rank = 0, ranks = 1, provided = 0, ok = 1;
    int64_t n = 0, i;
    kkm_model *m = NULL;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    for (i = rank; i < 12; i += ranks, ++n) {
        mine[n][0] = all[i][0];
        mine[n][1] = all[i][1];
        truth[n] = i < 6 ? 0 : 1;
    }
    /* Collective: every rank calls it with the same parameters; errors are the same on all. */
    if (kkm_create(&m) != KKM_OK ||
        kkm_set_params(m, "k=2 method=nystrom m=6 kernel=rbf gamma=0.5 seed=1") != KKM_OK ||
        kkm_fit_mpi(m, MPI_COMM_WORLD, n > 0 ? &mine[0][0] : NULL, n, 2, NULL) != KKM_OK ||
        kkm_get_labels(m, labels, n) != KKM_OK) {
        if (rank == 0) fprintf(stderr, "kkmeans: %s\n", kkm_last_error());
        ok = 0;
    }
    for (i = 0; ok && i < n; ++i) printf("rank %d: point (%g, %g) -> cluster %d\n", rank, mine[i][0], mine[i][1], labels[i]);
    /* Points of one group share a label on every rank (checked by comparing with rank 0's
     * label of each group: gathered with one Allreduce per group). */
    if (ok) {
        int32_t first[2] = {-1, -1}, agreed[2];
        for (i = 0; i < n; ++i)
            if (first[truth[i]] < 0) first[truth[i]] = labels[i];
        MPI_Allreduce(first, agreed, 2, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
        for (i = 0; i < n; ++i) ok = ok && labels[i] == agreed[truth[i]];
        ok = ok && agreed[0] != agreed[1];
    }
    kkm_destroy(m);
    MPI_Finalize();
    return ok ? 0 : 1;
}
