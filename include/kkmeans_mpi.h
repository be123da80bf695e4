/*
 * kkmeans_mpi.h — distributed fit over MPI (libkkmeans_mpi, built when MPI is found).
 *
 * One call, kkm_fit_mpi, fits a model on rows spread over the processes of an MPI
 * communicator. Everything else (kkm_create, kkm_set_params, kkm_get_labels, kkm_assign,
 * kkm_save, kkm_last_error, ...) is the API of kkmeans.h, unchanged. Link with
 * -lkkmeans_mpi -lkkmeans and compile with your MPI's wrapper (mpicc / mpicxx).
 *
 *   MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
 *   kkm_model *m = NULL;
 *   kkm_create(&m);
 *   kkm_set_params(m, "k=10 method=nystrom m=1000 seed=0");   same text on every rank
 *   if (kkm_fit_mpi(m, MPI_COMM_WORLD, my_rows, my_n, d, NULL) != KKM_OK)
 *       if (rank == 0) fprintf(stderr, "%s\n", kkm_last_error());  same message on every rank
 *   kkm_get_labels(m, my_labels, my_n);                        this rank's rows' labels
 *   if (rank == 0) kkm_save(m, "model.kkm");
 *   kkm_destroy(m);
 *   MPI_Finalize();
 */
#ifndef KKMEANS_MPI_H
#define KKMEANS_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "kkmeans.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fits the model on the rows of every rank of comm. Collective: every rank of comm must call
 * it, with its own model, the same parameters (kkm_set_params; only `threads` may differ from
 * rank to rank) and the same d.
 *
 * Data: each rank passes its own rows, n_local rows of d float32 features (row-major), and
 * the fit sees the rows of all ranks concatenated in rank order (rank 0's first): global row
 * i is row i - offset of the rank holding it, offset being the number of rows of the ranks
 * before it. Any split is allowed; a rank may hold no rows (n_local = 0; X and weights may
 * then be NULL), as long as one rank holds some. weights: n_local non-negative finite sample
 * weights of this rank's rows, or NULL on every rank that holds rows for all ones (weights on
 * some of those ranks and NULL on others is an error). X and weights are only read, and may
 * be freed after the call.
 *
 * Result: on success every rank holds the same fitted model (centres, feature map, gamma
 * and m resolved by "auto"), except for the training labels, which are the rank's own.
 * The getters of kkmeans.h then mean, on each rank:
 *  - kkm_get_n_train: n_local, this rank's rows;
 *  - kkm_get_labels: the labels of this rank's rows, in their order (len >= n_local);
 *  - kkm_get_objective: the objective over all rows of all ranks (the same on every rank);
 *  - kkm_get_iterations, kkm_get_k, kkm_get_n_features (d), kkm_get_feature_dim,
 *    kkm_get_cluster_sizes (the total weight of each cluster over all ranks): global, the
 *    same on every rank;
 *  - kkm_get_param: the parameters; "auto" values (gamma, m, reg_rank) resolve to the same
 *    value on every rank, the engine path (isa) and kernel_rows to what this rank ran;
 *  - kkm_get_timings: this rank's wall-clock seconds per stage (waits for other ranks
 *    included).
 * kkm_assign and kkm_transform give the same answer on every rank. kkm_save / kkm_save_buffer
 * on any rank write the whole model with that rank's training labels (a model loaded from it
 * reports n_train = that rank's n_local); save it from one rank.
 * The result does not depend on the number of ranks or the split beyond float64 rounding:
 * the same labels, and the same objective to about 1e-6 relative, as kkm_fit on the
 * concatenated rows in one process; with the same ranks and split, runs are bit-identical
 * (reductions add the ranks' partial results in rank order, never in MPI_SUM's order).
 *
 * Methods: method=nystrom (sampling=uniform, kmeanspp or rls, with or without the rank
 * restriction), method=sketch and method=rff, with solver=lloyd or solver=minibatch (batches
 * drawn from the global rows); method=minibatch (truncated: tau > 0); method=exact (a 1D row
 * partition: every rank receives all n training rows and keeps the kernel of all rows against
 * its own). With more than one rank, method=minibatch with tau=0, kernel=precomputed,
 * kernel=laplacian with gamma=auto and refine=hartigan are refused (INVALID_ARGUMENT naming
 * the parameter); on a
 * communicator of one rank kkm_fit_mpi is kkm_fit and accepts all of them.
 *
 * Errors are collective: when any rank's arguments, data or parameters are wrong, every rank
 * returns the same status with the same kkm_last_error() message (that of the lowest-numbered
 * failing rank), and no rank is left waiting. Messages name the rank and, for data, the
 * global row: INVALID_ARGUMENT (NULL model; X NULL with n_local > 0; n_local < 0; d <= 0; d
 * differing between ranks, with both values and their ranks; parameters differing between
 * ranks; no rows on any rank; k larger than the global row count; sizes overflowing 64 bits;
 * a method or option not available distributed; weights given on some ranks holding rows and
 * NULL on others), INVALID_DATA (NaN/Inf in X at a global row and column; a negative,
 * non-finite or too large weight at a global row; all weights zero over all ranks; zero
 * variance with gamma=auto), OUT_OF_MEMORY (max_memory_mb is a per-process budget: a rank
 * whose share of the fit exceeds it refuses, and then every rank does; an allocation that
 * fails on one rank in the middle of a stage is an OUT_OF_MEMORY on every rank too, naming
 * the rank that gave up: every collective step starts with a status word from each rank, so
 * a rank that cannot go on tells the others at their next step), INTERNAL (a failed MPI call,
 * with MPI's reason). Checked by each rank alone, before any communication, and so
 * not collective unless every rank passes the same: MPI not initialised or already finalized,
 * comm = MPI_COMM_NULL or an intercommunicator (INVALID_ARGUMENT). On any error the model is
 * unchanged on every rank.
 *
 * Progress: the callback of kkm_set_progress is called on each rank with that rank's progress
 * (on the calling thread). Its return value is ignored: a distributed fit cannot be cancelled
 * (a rank stopping alone would leave the others waiting).
 *
 * Communication: over a duplicate of comm (MPI_Comm_dup at the start, freed before the call
 * returns), so the fit's messages never mix with the caller's; gathers only (MPI_Allgather,
 * MPI_Allgatherv), messages larger than INT_MAX bytes split into rounds. With the environment
 * variable KKMEANS_MPI_STATS set (not "0"), each rank prints its traffic to stderr at the end
 * of the call: "kkm_fit_mpi: rank R of P: collectives C, bytes sent S, bytes received B,
 * status checks T" (T: the status words, one small MPI_Allgather per collective step).
 *
 * Thread safety: MPI calls are made only on the thread that calls kkm_fit_mpi (the library's
 * OpenMP threads make none), so MPI_THREAD_FUNNELED is enough when that is the thread that
 * initialised MPI; from another thread, MPI_THREAD_SERIALIZED with no other MPI call running
 * meanwhile. Two kkm_fit_mpi calls on the same communicator must not run at once (their
 * MPI_Comm_dup would interleave); on distinct communicators they may, with
 * MPI_THREAD_MULTIPLE. As for kkm_fit, nothing else may use the same model during the call. */
KKM_API kkm_status kkm_fit_mpi(kkm_model *model, MPI_Comm comm, const float *X, int64_t n_local, int64_t d,
                               const float *weights);

#ifdef __cplusplus
}
#endif

#endif /* KKMEANS_MPI_H */
