/*
 * kkmeans.h — kernel k-means clustering at scale: the whole public C API (C99).
 *
 * Life cycle (zstd style): create → set parameters → fit → assign / query → destroy.
 *
 *   kkm_model *m = NULL;
 *   if (kkm_create(&m) != KKM_OK) ...;
 *   kkm_set_params(m, "k=10 method=nystrom kernel=rbf gamma=auto");
 *   if (kkm_fit(m, X, n, d, NULL) != KKM_OK) fprintf(stderr, "%s\n", kkm_last_error());
 *   kkm_assign(m, Y, n_new, d, labels, NULL);
 *   kkm_destroy(m);
 *
 * Conventions that hold for every function below unless its comment says otherwise:
 *  - Every function returns a kkm_status. On failure a message naming what is wrong
 *    (parameter, row, column, expected range) is stored for the calling thread and can be
 *    read with kkm_last_error().
 *  - Matrices are dense, row-major (C order): element (i, j) of an n×d matrix is X[i*d + j].
 *  - The caller owns every buffer it passes in or out. The library copies what it keeps and
 *    never returns a pointer into its own storage (the only pointers it returns are to
 *    static, immutable strings).
 *  - Thread safety: distinct models may be used from distinct threads freely. On one model,
 *    kkm_assign, kkm_assign_f64, kkm_distances, kkm_distances_f64, kkm_transform, kkm_save,
 *    kkm_save_buffer and every getter may run concurrently (a fitted model is immutable), also
 *    beside the calls that fit it: kkm_fit, kkm_fit_f64, kkm_fit_file, kkm_fit_graph and
 *    kkm_partial_fit (learning while serving) build the new fitted state aside and swap it in
 *    whole when they succeed, so a reader sees the state before or the state after, never a
 *    mix, and what it holds stays valid until its call returns. Such fits on one model take
 *    turns: a second kkm_partial_fit waits for the first and goes on from its state (no batch
 *    is lost). kkm_set_param(s), kkm_set_progress, kkm_set_init_labels/_centres, kkm_load,
 *    kkm_load_buffer, kkm_fit_mpi and kkm_destroy must not run concurrently with any other call
 *    on the same model (they change what the next call reads).
 *  - A failed kkm_fit leaves the model exactly as it was before the call.
 *  - No exception, signal or abort crosses this boundary; no global state is modified
 *    (BLAS/OpenMP thread counts are passed per call).
 */
#ifndef KKMEANS_H
#define KKMEANS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define KKM_API __declspec(dllexport)
#else
#define KKM_API __attribute__((visibility("default")))
#endif

/* Status codes. The numbers are part of the ABI and never change. */
typedef enum kkm_status {
    KKM_OK = 0,
    KKM_ERR_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad size, an unknown key, a value out of range */
    KKM_ERR_INVALID_DATA = 2,     /* NaN/Inf in the data, negative weights, zero-variance data for gamma=auto */
    KKM_ERR_NOT_FITTED = 3,       /* the call needs a fitted model */
    KKM_ERR_OUT_OF_MEMORY = 4,    /* the estimate exceeds max_memory_mb, or an allocation failed */
    KKM_ERR_IO = 5,               /* a file could not be read or written */
    KKM_ERR_FORMAT = 6,           /* a model file or buffer is malformed */
    KKM_ERR_CANCELLED = 7,        /* a progress callback asked to stop */
    KKM_ERR_INTERNAL = 8          /* a bug: please report it with the message */
} kkm_status;

/* Opaque model handle. */
typedef struct kkm_model kkm_model;

/* ---------------------------------------------------------------- library info */

/* Version string "MAJOR.MINOR.PATCH". Static storage; never NULL. Thread-safe. */
KKM_API const char *kkm_version(void);

/* Short English name of a status ("invalid argument", ...). Static storage; never NULL,
 * "unknown status" for numbers not listed above. Thread-safe. */
KKM_API const char *kkm_status_string(kkm_status status);

/* The message of the last failed call made by the calling thread ("" if none).
 * Thread-local storage, valid until the thread's next kkm_* call. Never NULL. */
KKM_API const char *kkm_last_error(void);

/* ---------------------------------------------------------------- create / destroy */

/* Creates a model with every parameter at its default and stores it in *out.
 * The caller owns the model and releases it with kkm_destroy. On failure *out is NULL.
 * Errors: INVALID_ARGUMENT (out is NULL), OUT_OF_MEMORY. Thread-safe. */
KKM_API kkm_status kkm_create(kkm_model **out);

/* Releases a model and everything it holds. NULL is a no-op. */
KKM_API void kkm_destroy(kkm_model *model);

/* ---------------------------------------------------------------- parameters */

/* Sets one parameter from its text value, e.g. ("k", "10"), ("gamma", "auto").
 * Keys and enumerated values are case-sensitive; see the parameter table (README or
 * kkm_param_info). Errors: INVALID_ARGUMENT naming the key and its accepted range for an
 * unknown key, a malformed or out-of-range value; the parameter is unchanged then.
 * Takes effect at the next kkm_fit; a fitted model keeps assigning with the parameters it
 * was fitted with. */
KKM_API kkm_status kkm_set_param(kkm_model *model, const char *key, const char *value);

/* Sets several parameters from "key=value key=value ..." (separated by spaces, tabs,
 * newlines or commas). All-or-nothing: if any pair is invalid, none is applied. A parameter
 * given twice, under its name or an alias ("k=10 k=11", "k=10 n_clusters=11"), is
 * INVALID_ARGUMENT naming it. */
KKM_API kkm_status kkm_set_params(kkm_model *model, const char *params);

/* Writes the value of one parameter, NUL-terminated, into buf (capacity len bytes).
 * On a fitted model whose parameters are still those of its fit, a parameter set to "auto"
 * (gamma, m, k, ...) or "search" (gamma) reports the value the fit resolved it to, e.g.
 * "0.0123"; once kkm_set_param(s)
 * has changed any parameter, it reports "auto" again (the next fit resolves it anew). If out_len is not NULL it receives the length the value
 * needs, excluding the NUL. Errors: INVALID_ARGUMENT for an unknown key, or when len is too
 * small (then buf holds a truncated, NUL-terminated prefix if len > 0). */
KKM_API kkm_status kkm_get_param(const kkm_model *model, const char *key, char *buf, size_t len, size_t *out_len);

/* Number of parameters in the table. Thread-safe. */
KKM_API int32_t kkm_param_count(void);

/* Describes parameter number index (0 ≤ index < kkm_param_count()). Each non-NULL output
 * receives a pointer to a static string: name, type ("int", "float", "enum", "int|auto",
 * "float|auto", "float|auto|search", "int|none"), default value, accepted range or values, and a one-line description.
 * Pass NULL for outputs you do not need. Errors: INVALID_ARGUMENT (index out of range).
 * Thread-safe. */
KKM_API kkm_status kkm_param_info(int32_t index, const char **name, const char **type, const char **default_value,
                                  const char **range, const char **doc);

/* The other keys the library accepts for parameter number index (0 ≤ index <
 * kkm_param_count()), e.g. "n_clusters centers" for k: *aliases receives a pointer to a
 * static string of space-separated keys, "" when there are none. kkm_set_param,
 * kkm_set_params and kkm_get_param take an alias wherever they take the name. Errors:
 * INVALID_ARGUMENT (index out of range, aliases NULL). Thread-safe. */
KKM_API kkm_status kkm_param_aliases(int32_t index, const char **aliases);

/* ---------------------------------------------------------------- progress and cancellation */

/* Progress callback: stage is a static string naming the running stage ("gamma",
 * "landmarks", "kernel", "kernel+eigen", "rank", "features", "seeding", "lloyd", "minibatch",
 * "assign", "search" for gamma=search / k=auto; for kernel=knn and heat also "graph" (the
 * neighbour graph), "eigen" (its spectrum) and "ncut" (knn's normalized-cut Lloyd), and "done" once at the end of a successful fit); fraction is the part of that
 * stage done, in [0, 1] (stages repeat per restart when n_init > 1). Return 0 to go on, any
 * other value to cancel the fit. The callback must return: it must not throw a C++
 * exception (one that does is caught and the fit ends with CANCELLED, the model unchanged)
 * and must not longjmp or otherwise leave the fit (that skips the fit's cleanup: its memory
 * is lost, and when it happens during a parallel stage the worker threads wait forever; the
 * library keeps no pointer to the abandoned fit, so later calls on that thread work, and the
 * next fit, partial fit or load of that model on that thread takes the abandoned fit's turn;
 * on other threads they wait until that one ends). It may
 * call the library (other models, or getters of this one: they do not see the running fit). */
typedef int (*kkm_progress_fn)(const char *stage, double fraction, void *user_data);

/* Installs (or, with callback = NULL, removes) the model's progress callback for its
 * following kkm_fit / kkm_fit_f64 calls. During a fit the callback runs on the thread that
 * called kkm_fit (never on a worker thread), at each stage start and then about every 0.1 s
 * between blocks of work (the m x m eigen-decomposition of the landmark kernel too: it polls
 * between pieces of at most 0.04 s at m = 2000, 0.11 s at m = 4000). When it returns non-zero
 * the fit stops within about one poll interval plus one block of work and returns
 * KKM_ERR_CANCELLED; the model is exactly as before the fit and nothing is leaked. The
 * callback must not call kkm_* functions on the same model. user_data is passed through
 * untouched. Errors: INVALID_ARGUMENT (model is NULL). */
KKM_API kkm_status kkm_set_progress(kkm_model *model, kkm_progress_fn callback, void *user_data);

/* ---------------------------------------------------------------- fit */

/* Fits the model on n rows of d float32 features (row-major). weights: n non-negative
 * finite sample weights, or NULL for all ones (at least one must be positive).
 * Before anything reads X or weights, the sizes are checked: n·d, n·k and, for the landmark
 * and feature methods, n·m must fit in int64 and in size_t as element and byte counts
 * (INVALID_ARGUMENT naming both sizes otherwise).
 * With kernel=precomputed, X is the n×n kernel matrix (d must equal n).
 * The data are copied where the fitted model needs them (exact keeps the training rows,
 * nystrom keeps the landmarks); X may be freed after the call.
 * Errors: INVALID_ARGUMENT (NULL model or X, n or d ≤ 0, k > n, parameters that conflict),
 * INVALID_DATA (NaN/Inf in X, naming row and column; bad weights; zero variance with
 * gamma=auto), OUT_OF_MEMORY (the method's estimated peak exceeds max_memory_mb; the
 * message gives both), CANCELLED (the progress callback asked to stop), INTERNAL. On any
 * error the model is unchanged. */
KKM_API kkm_status kkm_fit(kkm_model *model, const float *X, int64_t n, int64_t d, const float *weights);

/* As kkm_fit for float64 input. Computation runs in float32 (kernel blocks and GEMMs) with
 * float64 eigen-decompositions and reductions. The whole input is first copied to float32
 * (n x d floats, charged to max_memory_mb with the fit's own estimate before it is made). */
KKM_API kkm_status kkm_fit_f64(kkm_model *model, const double *X, int64_t n, int64_t d, const double *weights);

/* As kkm_fit on a file of raw little-endian float32 rows of d values (n = its size / 4d):
 * the file is mapped read-only (MADV_SEQUENTIAL) and read in place, never copied, so a file
 * larger than the memory can be fitted (its pages come and go through the page cache; they
 * are not charged to max_memory_mb). For bindings that cannot map memory themselves (R,
 * Java, C#). weights: n_weights = n values, or NULL (n_weights ignored). The file must not
 * be truncated or rewritten while the fit runs: the library reads the mapping in place, so
 * new values are read as they are (a NaN written meanwhile is found by no check that already
 * passed), and on Linux a read of a page beyond a new end raises SIGBUS in the calling process,
 * which ends it unless the host handles the signal (the library installs no handler: signals
 * are the host's; the kkmeans CLI ends with a message naming the file). Copy a file that may
 * change, or read it yourself and call kkm_fit.
 * Errors: as kkm_fit, and INVALID_ARGUMENT (NULL path, d <= 0, a size that is not a
 * multiple of 4d, n_weights != n, a big-endian machine), IO (the file cannot be opened or
 * mapped, is empty, or is not a regular file: a FIFO or device must be read and passed to
 * kkm_fit). */
KKM_API kkm_status kkm_fit_file(kkm_model *model, const char *path, int64_t d, const float *weights, int64_t n_weights);

/* Streaming (scikit-learn's partial_fit): fits one batch of n rows, going on from the
 * model's fitted state when it was fitted (by kkm_fit or kkm_partial_fit) with the current
 * parameters, else starting a new stream. For the methods whose fitted state needs no past
 * rows: the feature methods (method=nystrom, sketch, rff; method=auto resolves to one of them
 * for rbf, laplacian, linear, cosine, polynomial) and the truncated mini-batch kernel k-means
 * (method=minibatch with tau > 0, the default). What differs from one kkm_fit of all the rows:
 *  - the first batch is fitted as kkm_fit fits it, and its landmarks (nystrom, sketch: the
 *    first batch must hold at least m rows; m=auto is resolved for its size), random
 *    features, gamma=auto and centring shift stay for the whole stream;
 *  - feature methods: every later batch moves the centres by Sculley's mini-batch update in
 *    that feature space: each centre becomes the running mean of every point assigned to it
 *    so far (weighted), starting from the first fit's cluster masses; no restarts, no Lloyd
 *    passes;
 *  - method=minibatch: every later batch runs min(max_iter, ceil(n / batch_size)) more
 *    iterations of the truncated algorithm (one pass over the batch in expectation; no early
 *    stopping, no restarts) from the model's centres, their batch histories and the learning
 *    rate's counts, drawing its mini-batches (of batch_size rows, with replacement, in
 *    proportion to weight) from this batch's rows alone. Truncation keeps at most tau +
 *    batch_size points per centre: the model holds copies of at most k (tau + batch_size)
 *    rows, however long the stream. Its centres are those of the newest rows, as in a kkm_fit
 *    (whose centres are its last iterations' too), not the running mean of the stream;
 *  - afterwards the model holds the last batch: kkm_get_labels gives its labels (assigned
 *    after the update), kkm_get_objective its objective, kkm_get_cluster_sizes the weight
 *    each centre has received over the stream (the first fit's cluster sizes plus each later
 *    row's weight), kkm_get_iterations the first fit's iterations plus one per later batch
 *    (feature methods) or plus the iterations each later batch ran (minibatch). kkm_assign
 *    labels any rows with the current centres (label the whole data after the stream that
 *    way). A saved model (format 6) goes on identically after kkm_load_*; a minibatch model
 *    saved before format 6 assigns but cannot go on (INVALID_ARGUMENT).
 * Changing a parameter's value (kkm_set_param) starts a new stream at the next call; setting
 * the value it has goes on. The progress callback sees the first batch's stages; a later
 * batch reports "features" while its rows are transformed (feature methods) or "minibatch"
 * while it iterates, where a cancel stops it (the stream stays as it was), then "done".
 * Memory: a later batch is checked against max_memory_mb (the stream's) before its rows are
 * read, and transforms them chunk by chunk: it holds a few MiB of features and 8 bytes per
 * row (labels and distances) whatever its size (method=minibatch: what a fit of its rows
 * would hold).
 * Errors: as kkm_fit; INVALID_ARGUMENT for method=exact, method=minibatch with tau=0,
 * kernel=knn, heat or precomputed, refine=hartigan, a first batch of fewer than m rows
 * (nystrom, sketch) or k rows, a batch whose d differs from the stream's, a starting
 * partition set (kkm_set_init_labels / kkm_set_init_centres). */
KKM_API kkm_status kkm_partial_fit(kkm_model *model, const float *X, int64_t n, int64_t d, const float *weights);

/* Starting partitions (scikit-learn's init=array, R's centers=matrix). The next fits start
 * their first restart (restart 0) from the given partition instead of a k-means++ seeding;
 * restarts 1 .. n_init-1 seed as usual and the lowest objective wins (n_init=1, and
 * n_init=auto, the default: the given start only). The values are copied; they stay until
 * replaced, cleared (labels or centres NULL) or the model is loaded. Setting one kind clears
 * the other.
 * kkm_set_init_labels: labels[i] in [0, k) is training row i's cluster (n must equal the fit's
 *   row count; with kkm_fit_mpi, this rank's rows); k is the parameter k at the fit (a label
 *   >= k is INVALID_ARGUMENT naming the row then). An empty cluster gets the point farthest
 *   from its centre, as in Lloyd. With max_iter=1 the fit labels every row by its nearest
 *   mean of these labels, and those means are the model's centres.
 * kkm_set_init_centres: k rows of d floats in the input space (row-major); each training row
 *   starts in the cluster of the nearest centre in the kernel's feature space, that is the
 *   largest 2 k(x, c_j) - k(c_j, c_j) (for rbf and laplacian: the nearest centre in input
 *   space); k and d must equal the fit's k and d.
 * Refused at the fit (INVALID_ARGUMENT naming both options): gamma=search or k=auto,
 * method=minibatch, solver=minibatch, kernel=knn or heat, kkm_fit_graph, a kkm_fit_mpi over
 * several ranks; centres also with kernel=precomputed.
 * Errors here: INVALID_ARGUMENT (NULL model; n, k or d <= 0 with data; a label < 0, naming
 * it), INVALID_DATA (a centre value that is not finite, naming its row and column). */
KKM_API kkm_status kkm_set_init_labels(kkm_model *model, const int32_t *labels, int64_t n);
KKM_API kkm_status kkm_set_init_centres(kkm_model *model, const float *centres, int64_t k, int64_t d);

/* Fits kernel=knn or kernel=heat on a graph instead of points: the n x n affinity matrix A of
 * n nodes in compressed sparse rows (scipy.sparse.csr_matrix's layout): node i's entries are
 * indices[indptr[i] .. indptr[i+1]) with weights values[...] (values NULL: every weight 1).
 * indptr holds n + 1 offsets from 0; indices and values hold indptr[n] entries. A must be
 * symmetric (A[i,j] == A[j,i] exactly; pass (A + A^T)/2 for a directed graph), its weights
 * finite and >= 0, and every node needs an edge (a self-loop counts); repeated entries of one
 * (i, j) are summed (in ascending order of weight, in float64, then rounded to float32) and
 * zeros dropped, so the same graph in any order fits the same. The graph is copied, counted
 * with the fit's estimate against max_memory_mb (16 bytes per entry while it is checked, 8
 * while it is held); the caller's arrays may be freed after the call. The parameters neighbors and
 * graph do not apply (the graph is given). The fitted model assigns affinity rows: kkm_assign
 * and kkm_distances take rows of n values (d = n), each new node's weights to the training
 * nodes (>= 0, at least one positive); a row equal to a training node's row of A is that node
 * and gets its training label. Fitting the graph kkm_fit builds from points (the symmetrised
 * neighbors-NN graph, weights 1 and 0.5) gives the same labels as kkm_fit.
 * Errors: INVALID_ARGUMENT (NULL model or indptr, NULL indices with entries, n < 1 or above
 * 2^31 - 1, indptr not starting at 0 or decreasing, a column outside [0, n), a kernel other
 * than knn or heat, k > n, parameters that conflict; the message names the offset or entry),
 * INVALID_DATA (a negative or non-finite weight, an asymmetric pair naming both entries,
 * repeated entries whose sum exceeds float32, a node without edges), OUT_OF_MEMORY, CANCELLED. On any error the model is unchanged. */
KKM_API kkm_status kkm_fit_graph(kkm_model *model, int64_t n, const int64_t *indptr, const int64_t *indices,
                                 const float *values);

/* ---------------------------------------------------------------- assign */

/* Assigns n new rows (d must equal the training d; with kernel=precomputed X holds the
 * n×n_train kernel values against the training points) to the nearest fitted centre.
 * labels: n int32 outputs in [0, k). distances: NULL, or n outputs receiving the squared
 * distance to that centre: for exact, the kernel-space distance ‖φ(x) − c‖² to the cluster's
 * mean; for nystrom, c lies in the span of the landmarks and the distance is the kernel-space
 * K(x,x) − 2 f(x)·c + ‖c‖² (the feature-space distance plus the part of φ(x) the landmarks
 * cannot represent); for sketch and rff, the feature-space distance ‖f(x) − c‖²; for
 * kernel=heat, the distance between heat features (a new row is placed by its q nearest
 * training rows, or by its affinity row for a model of kkm_fit_graph); for kernel=knn, the
 * normalized-cut kernel distance of the placed row. With kernel=precomputed K(x,x) is not given, so exact, minibatch and nystrom need
 * distances=NULL there. Safe to call concurrently on one fitted model. kkm_distances gives
 * the distance to every centre.
 * Errors: INVALID_ARGUMENT (NULL pointers, n ≤ 0, wrong d, n·d overflowing 64-bit sizes),
 * INVALID_DATA (NaN/Inf in X; a distance that is not finite, or a feature-space distance
 * below 0 beyond rounding, to any live centre, naming the row: the model's values overflow
 * float32 against that row, or the model is damaged; checked even when distances is NULL,
 * where the model can measure them), NOT_FITTED. */
KKM_API kkm_status kkm_assign(const kkm_model *model, const float *X, int64_t n, int64_t d, int32_t *labels,
                              float *distances);

/* As kkm_assign for float64 input and distances. */
KKM_API kkm_status kkm_assign_f64(const kkm_model *model, const double *X, int64_t n, int64_t d, int32_t *labels,
                                  double *distances);

/* Squared distance of each of n new rows to every fitted centre: writes n × k float32 values
 * (row-major: out[i*k + j] is row i's distance to centre j) into out, whose capacity is
 * out_len floats. X as for kkm_assign. Each distance is measured as kkm_assign measures its
 * distances (exact and minibatch: kernel-space ‖φ(x) − c‖²; nystrom: kernel-space
 * K(x,x) − 2 f(x)·c + ‖c‖²; sketch and rff: feature-space ‖f(x) − c‖²), clamped at 0; a
 * centre that lost every point is at +inf. Each row's minimum equals the distance kkm_assign
 * reports and its first minimum (lowest index) is at the label kkm_assign gives: should two
 * centres' distances round to the same float, the one before kkm_assign's choice is reported
 * one float step above it. With kernel=precomputed, K(x,x) is not given, so exact, minibatch
 * and nystrom cannot measure distances (sketch and rff can). Safe to call concurrently on one
 * fitted model. The caller owns out; nothing is kept.
 * Errors: INVALID_ARGUMENT (NULL model, X or out, naming it; n ≤ 0; wrong d; n·d or n·k
 * overflowing 64-bit sizes; out_len smaller than n*k, naming both; kernel=precomputed with
 * method exact, minibatch or nystrom), INVALID_DATA (NaN/Inf in X, naming row and column; a
 * distance that is NaN, as kkm_assign), NOT_FITTED. Nothing is read from X before the sizes
 * are checked. */
KKM_API kkm_status kkm_distances(const kkm_model *model, const float *X, int64_t n, int64_t d, float *out,
                                 int64_t out_len);

/* As kkm_distances for float64 input and output: the rows are converted to float32 (a value
 * beyond the float32 range is INVALID_DATA naming row and column), the distances computed
 * in float32 and widened. */
KKM_API kkm_status kkm_distances_f64(const kkm_model *model, const double *X, int64_t n, int64_t d, double *out,
                                     int64_t out_len);

/* Feature map of an approximate method: writes n × feature_dim float32 features (row-major)
 * of the rows of X into out, whose capacity is out_len floats: nystrom f(x) = Pᵀ k_L(x) with
 * P = U Λ^-½ (or its rank restriction), sketch S k_Q(x), rff √(2/m) cos(Wx + b), kernel=heat
 * the heat features e^{-t(1-λ)/2} u of the placed row (heat_rank columns). k-means on
 * these features is what the fit solved: the fit's assignments are nearest centroids in this
 * space.
 * Errors: NOT_FITTED, INVALID_ARGUMENT (method=exact with a kernel other than heat, and
 * kernel=knn, have no explicit features; out_len smaller than n*feature_dim; wrong d; n·d or
 * n·feature_dim overflowing 64-bit sizes), INVALID_DATA (NaN/Inf in X; a feature that is not
 * finite, naming the row: the map overflows float32 there, or the model is damaged). */
KKM_API kkm_status kkm_transform(const kkm_model *model, const float *X, int64_t n, int64_t d, float *out,
                                 int64_t out_len);

/* ---------------------------------------------------------------- fitted results */

/* Number of training rows of the last fit. Errors: NOT_FITTED. */
KKM_API kkm_status kkm_get_n_train(const kkm_model *model, int64_t *n);

/* Number of input columns d the model was fitted on. Errors: NOT_FITTED. */
KKM_API kkm_status kkm_get_n_features(const kkm_model *model, int64_t *d);

/* Number of clusters k of the fitted model. Errors: NOT_FITTED. */
KKM_API kkm_status kkm_get_k(const kkm_model *model, int32_t *k);

/* Copies the n_train training labels (0-based) into labels (capacity len): each training row's
 * nearest centre, what kkm_assign gives it (as scikit-learn's KMeans labels_; a Nyström model that
 * clustered its half kernel rows, kernel_rows=f16, rounds the rows it assigns to half alike; one
 * clustered on features of them, rank= or fewer features than landmarks, up to that rounding at
 * near-ties, which the features magnify along the landmarks' small eigenvalues: 8-20 of 4000 rows
 * moved on ill-conditioned landmarks; kernel_rows=f32 avoids it). A Lloyd stopped by tol or
 * max_iter before a fixed point keeps the centres its last reassignment measured, the means
 * of the labels before it; at a fixed point (tol=0) they are the means of these labels.
 * refine=hartigan: the centres are the means of these labels, which need not all be nearest.
 * labels may be NULL when n_train is 0 (a rank that held no rows in kkm_fit_mpi). Errors:
 * NOT_FITTED, INVALID_ARGUMENT (labels NULL, len < n_train). */
KKM_API kkm_status kkm_get_labels(const kkm_model *model, int32_t *labels, int64_t len);

/* Objective of the fit: Σ_i w_i · (squared distance of training row i to its centre), the
 * distances as kkm_assign reports them (scikit-learn's inertia_; R's tot.withinss at a fixed
 * point, see kkm_get_labels). For exact
 * it is the kernel k-means objective; for nystrom it is the kernel k-means objective of the
 * Nyström centres (Calandriello & Rosasco 2018, Algorithm 1), measured with the exact kernel:
 * Σ_i w_i (K_ii − 2 f_i·c + ‖c‖²), the feature-space objective plus Σ_i w_i (K_ii − ‖f_i‖²);
 * for sketch and rff it is the k-means objective in their feature space; for kernel=knn each
 * row's weight w_i is its degree in the neighbour graph (the weighted kernel k-means whose
 * objective is σ(n − k) − k + ncut(A), see README), not 1. Divide by the total weight for the
 * papers' mean. Errors: NOT_FITTED. */
KKM_API kkm_status kkm_get_objective(const kkm_model *model, double *objective);

/* Lloyd iterations run by the best restart. Errors: NOT_FITTED. */
KKM_API kkm_status kkm_get_iterations(const kkm_model *model, int32_t *iterations);

/* Dimension of the feature space of an approximate method (0 for exact). Errors:
 * NOT_FITTED. */
KKM_API kkm_status kkm_get_feature_dim(const kkm_model *model, int64_t *dim);

/* Cluster weights (number of training rows, or sum of their weights) per cluster: k
 * doubles into sizes (capacity len). A size can be 0: Lloyd gives an emptied cluster the
 * point farthest from its centre, but never ends on such a move (its labels would not be the
 * rows' nearest centres, which kkm_get_labels promises), so with fewer distinct points than k
 * (in the kernel's feature space) a cluster can end empty, as scikit-learn's KMeans leaves it.
 * Errors: NOT_FITTED, INVALID_ARGUMENT (len < k). */
KKM_API kkm_status kkm_get_cluster_sizes(const kkm_model *model, double *sizes, int64_t len);

/* The k centres in the feature space of kkm_transform (nystrom, sketch, rff, kernel=heat):
 * k x feature_dim float32 values, row-major, into centres (capacity len); the fit's
 * assignments are the nearest of them. A loaded Nystrom model recomputes them from what the
 * file keeps (H K_LL P: equal to float32 rounding). Errors: NOT_FITTED, INVALID_ARGUMENT
 * (centres NULL; len < k*feature_dim; a model without explicit centres: method=exact,
 * minibatch, kernel=knn, whose centres are weighted sums of training points - use
 * kkm_distances; a loaded Nystrom model of kernel=precomputed). */
KKM_API kkm_status kkm_get_centres(const kkm_model *model, float *centres, int64_t len);

/* Wall-clock seconds of the last fit's stages, as "stage=seconds" pairs separated by
 * spaces (e.g. "gamma=0.01 landmarks=0.00 features=1.20 cluster=0.80"), NUL-terminated into
 * buf (capacity len); out_len as in kkm_get_param. Errors: NOT_FITTED, INVALID_ARGUMENT. */
KKM_API kkm_status kkm_get_timings(const kkm_model *model, char *buf, size_t len, size_t *out_len);

/* Criteria a kkm_get_search entry was scored by (the numbers are part of the ABI). */
#define KKM_SEARCH_STABILITY 0 /* mean adjusted Rand index of fits on two halves, in [-1, 1] */
#define KKM_SEARCH_MATR 1      /* trace of a reference kernel projected on the clusters (> 0) */

/* What the last fit's gamma=search / k=auto scored, one entry per candidate in the order
 * scanned: gammas[i] its kernel scale (0 for a kernel without one), ks[i] its number of
 * clusters, scores[i] the criterion's score (higher is better), criteria[i] the criterion
 * (KKM_SEARCH_STABILITY or KKM_SEARCH_MATR). *count receives the number of entries, 0 when
 * the fit did not search. Each of gammas, ks, scores and criteria may be NULL (not wanted);
 * those given need capacity len. The choice itself: kkm_get_param(model, "gamma", ...) and
 * kkm_get_k. A saved and loaded model keeps its entries.
 * Errors: NOT_FITTED, INVALID_ARGUMENT (count is NULL; len < *count with an array given). */
KKM_API kkm_status kkm_get_search(const kkm_model *model, double *gammas, int32_t *ks, double *scores,
                                  int32_t *criteria, int64_t len, int64_t *count);

/* ---------------------------------------------------------------- persistence */

/* A fitted model serialises to a self-contained, versioned byte string: magic "KKMEANS\0",
 * format version, byte order, the parameters, one section per array (with its size), and a
 * CRC-32 over everything. Loading validates every size before allocating, verifies the
 * checksum, and refuses a newer format version. A loaded model assigns exactly as the saved
 * one did; its training labels, objective and timings come back too. */

/* Serialises a fitted model into buffer (capacity bytes). *size receives the number of bytes
 * the model needs. buffer = NULL with capacity = 0 is a size query (returns KKM_OK).
 * Errors: NOT_FITTED, INVALID_ARGUMENT (size is NULL; capacity too small: nothing is
 * written then). Safe to call concurrently with assign on one model. */
KKM_API kkm_status kkm_save_buffer(const kkm_model *model, void *buffer, int64_t capacity, int64_t *size);

/* Replaces the model's parameters and fitted state by those serialised in buffer (size
 * bytes). On any error the model is unchanged.
 * Errors: INVALID_ARGUMENT (NULL pointers, size < 0), FORMAT (bad magic, truncated — with
 * the number of bytes missing —, checksum mismatch, newer format version, inconsistent sizes,
 * a parameter block that contradicts the fitted body, negative cluster sizes; values that
 * feed distances and that no fit writes: dual coefficients below 0 or not summing to their
 * centre's mass, centre norms below 0 or beyond what the coefficients give, alive flags other
 * than 0 and 1 or none alive, ROS signs other than ±1/√p, gamma ≤ 0 for a kernel that uses
 * it; the message says which). */
KKM_API kkm_status kkm_load_buffer(kkm_model *model, const void *buffer, int64_t size);

/* kkm_save_buffer into a file at path: the bytes go to a temporary file in the same directory,
 * which is renamed over path once completely written (through a symbolic link, over the file
 * it points to). On any failure an existing file at path is left unchanged and the temporary
 * file is removed. An existing device, FIFO or terminal (/dev/null, /dev/stdout, a named pipe)
 * is written through and never replaced; a FIFO without a reader is an IO error, not a wait.
 * Errors: as kkm_save_buffer, IO (the file cannot be written, path is a directory or a
 * socket; the message names the path and the reason). */
KKM_API kkm_status kkm_save(const kkm_model *model, const char *path);

/* kkm_load_buffer from a file. At most the model's max_memory_mb parameter (set before the
 * call; 4096 by default) is read: a larger file or an endless stream (/dev/zero) is an IO
 * error naming the limit. Errors: as kkm_load_buffer, IO (cannot be read, too large). */
KKM_API kkm_status kkm_load(kkm_model *model, const char *path);

/* ---------------------------------------------------------------- evaluation */

/* Adjusted Rand index between two labelings of n items (labels are any int32 values).
 * 1 for identical partitions, about 0 for independent ones. Thread-safe. */
KKM_API kkm_status kkm_adjusted_rand_index(const int32_t *a, const int32_t *b, int64_t n, double *out);

/* Normalized mutual information (arithmetic-mean normalisation, as scikit-learn's default)
 * between two labelings of n items. Thread-safe. */
KKM_API kkm_status kkm_normalized_mutual_info(const int32_t *a, const int32_t *b, int64_t n, double *out);

#ifdef __cplusplus
}
#endif

#endif /* KKMEANS_H */
