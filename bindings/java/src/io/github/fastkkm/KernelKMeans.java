package io.github.fastkkm;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Kernel k-means clustering (the kkmeans library, distributed as fastkkm).
 *
 * <pre>{@code
 * try (KernelKMeans km = new KernelKMeans().k(2).method("exact").kernel("rbf").gamma(0.5)) {
 *     km.fit(x);                     // double[n][d], float[n][d], or row-major float[]/double[] with n, d
 *     int[] train = km.labels();     // 0-based cluster of each training row
 *     int[] y = km.predict(newRows); // nearest fitted centre of new rows
 *     int one = km.predict(row);     // ... or of one row (double[d] or float[d])
 *     int k = km.fittedK();          // the number of clusters the fit found
 *     byte[] saved = km.toBytes();   // KernelKMeans.fromBytes(saved) assigns identically
 * }
 * }</pre>
 *
 * <p>Parameters are set with the fluent setters ({@link #k(int)}, {@link #method(String)}, ...),
 * {@link #param(String, String)} or {@link #params(String)} ("k=2 method=nystrom m=100"), and read
 * back with {@link #param(String)} (after a fit, "auto" values read as what the fit chose).
 * They take effect at the next fit. {@code method} and {@code n_init} default to "auto": exact
 * for the graph kernels "knn" and "heat", nystrom otherwise; 10 restarts up to 10000 rows (and
 * always for the graph kernels, but 3 on graph=anchor), 1 beyond and for method "minibatch" with the other kernels (each of its
 * restarts repeats the whole fit).
 *
 * <p>Graph kernels: {@code kernel("knn")} (normalized cut: weighted kernel k-means with
 * K = &sigma;D<sup>-1</sup> + D<sup>-1</sup>AD<sup>-1</sup> and degree weights on the
 * {@link #neighbors(int)}-nearest-neighbour graph A of the rows) and {@code kernel("heat")}
 * (the heat kernel exp(-t L) of that graph, L its normalized Laplacian, through its top
 * {@link #heatRank(int)} eigenpairs) cluster shapes such as nested rings with only k given;
 * they take no sample weights. {@link #fitGraph(long, long[], long[], float[])} fits them on a
 * graph of your own (a sparse affinity matrix); such a model predicts affinity rows.
 *
 * <p>Streams and files: {@link #partialFit(float[], long, long)} fits data that arrive in
 * batches (the feature methods nystrom, sketch and rff: the first batch is fitted as
 * {@code fit} fits it, later batches move the centres by Sculley's mini-batch update; and
 * minibatch with tau &gt; 0, whose later batches run more truncated mini-batch iterations), and
 * {@link #fitFile(String, long)} fits a raw float32 file that the library maps and reads in
 * place, so that its rows never enter the JVM.
 *
 * <p>The number of clusters: {@link #k(int)}, {@link #kAuto()} and {@link #kRange(int, int)}
 * set what the next fit is asked for (the parameter {@code k}); {@link #fittedK()} is what the
 * fitted model has (the chosen k after a {@code k=auto} fit).
 *
 * <p>Choosing gamma and k: {@link #gammaSearch()} and {@link #kAuto()} let the fit pick the
 * kernel scale and the number of clusters (exact kernel k-means on a subsample scores the
 * candidates); {@link #param(String)} and {@link #fittedK()} then report the choice and
 * {@link #search()} every candidate scored.
 *
 * <p>Errors: an invalid argument (unknown key, value out of range, wrong array length, null
 * array) is an {@link IllegalArgumentException} carrying the library's message; other failures
 * are {@link KKMeansException}s with the library's status and message; any use after
 * {@link #close()} is an {@link IllegalStateException}.
 *
 * <p>Progress and cancellation: every fit has an overload taking a {@link ProgressListener}
 * (stage and fraction, about every 0.1 s; returning false cancels), and every fit stops when
 * its thread is interrupted; a cancelled fit throws {@link FitCancelledException} and leaves
 * the model as it was.
 *
 * <p>Threads: {@code predict}, the getters, {@code toBytes} and {@code save} may run
 * concurrently on one model; {@code fit}, the setters and {@code close} wait until they are
 * done (a read-write lock). The native model is freed by {@link #close()} (idempotent) or,
 * if it was never closed, after the object becomes unreachable.
 *
 * <p>The JNI library is loaded on first use, from the jar itself when no system copy is found
 * (see {@link #nativeLibrary()}).
 */
public final class KernelKMeans implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();
    /** Largest Java array length asked of the JVM. */
    private static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Cleaner.Cleanable cleanable;
    private NativeModel model; // guarded by lock; null once closed

    /**
     * A model with every parameter at its default (k=8 method=auto kernel=rbf gamma=auto n_init=auto ...).
     *
     * @throws UnsatisfiedLinkError if the JNI library cannot be loaded (the message names what was tried)
     */
    public KernelKMeans() {
        NativeModel created = new NativeModel();
        this.model = created;
        this.cleanable = CLEANER.register(this, created::delete);
    }

    /**
     * A model with parameters set from "key=value key=value ..." (see {@link #params(String)}).
     *
     * @param params the parameters, e.g. {@code "k=2 method=exact gamma=0.5"}
     * @throws IllegalArgumentException if a pair is invalid
     */
    public KernelKMeans(String params) {
        this();
        try {
            params(params);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    // ------------------------------------------------------------------ life cycle

    /** Frees the native model. Idempotent; any later use throws {@link IllegalStateException}. */
    @Override
    public void close() {
        lock.writeLock().lock();
        try {
            if (model != null) {
                model = null;
                cleanable.clean();
            }
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Whether {@link #close()} has run.
     *
     * @return true once closed
     */
    public boolean isClosed() {
        lock.readLock().lock();
        try {
            return model == null;
        } finally {
            lock.readLock().unlock();
        }
    }

    private NativeModel live() {
        NativeModel m = model;
        if (m == null) {
            throw new IllegalStateException("this KernelKMeans has been closed");
        }
        return m;
    }

    /** Runs a call that may share the model with other readers (predict, getters, save). */
    private <T> T read(Function<NativeModel, T> call) {
        lock.readLock().lock();
        try {
            return call.apply(live());
        } finally {
            lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /** Runs a call that changes the model (parameters, fit, load): exclusive. */
    private KernelKMeans write(Consumer<NativeModel> call) {
        lock.writeLock().lock();
        try {
            call.accept(live());
            return this;
        } finally {
            lock.writeLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * One line describing the model, for logs: the method, kernel and number of clusters
     * parameters, then for a fitted model its number of clusters, training rows and objective,
     * e.g. {@code KernelKMeans[method=exact kernel=rbf k=2 n=400 objective=157.3]}, else
     * {@code KernelKMeans[method=auto kernel=rbf k=8 unfitted]}, or
     * {@code KernelKMeans[closed]}. Never throws.
     *
     * @return the description
     */
    @Override
    public String toString() {
        lock.readLock().lock();
        try {
            NativeModel m = model;
            if (m == null) {
                return "KernelKMeans[closed]";
            }
            StringBuilder s = new StringBuilder("KernelKMeans[method=").append(m.get_param("method"))
                    .append(" kernel=").append(m.get_param("kernel"));
            long n;
            try {
                n = m.n_train();
            } catch (KKMeansException e) {
                return s.append(" k=").append(m.get_param("k")).append(" unfitted]").toString();
            }
            return s.append(" k=").append(m.k()).append(" n=").append(n)
                    .append(" objective=").append(m.objective()).append(']').toString();
        } catch (RuntimeException e) {
            return "KernelKMeans[" + e.getMessage() + "]";
        } finally {
            lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    // ------------------------------------------------------------------ parameters

    /**
     * Sets one parameter from its text value, e.g. {@code param("gamma", "auto")}.
     *
     * @param key the parameter's name (the library's table: {@code kkmeans params})
     * @param value its value as text
     * @return this
     * @throws IllegalArgumentException for an unknown key or a bad value (the message names it)
     */
    public KernelKMeans param(String key, String value) {
        requireNonNull(key, "key");
        requireNonNull(value, "value");
        return write(m -> m.set_param(key, value));
    }

    /**
     * Sets several parameters from "key=value key=value ..." (separated by spaces, tabs,
     * newlines or commas). All or nothing: if one pair is invalid none is applied.
     *
     * @param params the pairs, e.g. {@code "k=2 method=nystrom m=100"}
     * @return this
     * @throws IllegalArgumentException if a pair is invalid (the message names it)
     */
    public KernelKMeans params(String params) {
        requireNonNull(params, "params");
        return write(m -> m.set_params(params));
    }

    /**
     * The value of a parameter as text. On a fitted model, a parameter set to "auto" (gamma,
     * m, k, method, n_init, neighbors, heat_rank) or "search" (gamma) reads as the value the fit
     * resolved it to, until a parameter is changed.
     *
     * @param key the parameter's name
     * @return its value as text
     * @throws IllegalArgumentException for an unknown key
     */
    public String param(String key) {
        requireNonNull(key, "key");
        return read(m -> m.get_param(key));
    }

    /**
     * The number of clusters the next fit is asked for (parameter k, default 8). What a fit
     * found is {@link #fittedK()}.
     *
     * @param k at least 1, at most the number of training rows
     * @return this
     * @throws IllegalArgumentException if k is out of range
     */
    public KernelKMeans k(int k) {
        return param("k", Integer.toString(k));
    }

    /**
     * Asks the next fit to choose the number of clusters (parameter k=auto): the k in
     * [kMin, kMax] (see {@link #kRange(int, int)}) whose fits on two halves of a subsample agree
     * best. {@link #fittedK()} reports the choice and {@link #search()} the scores.
     *
     * @return this
     */
    public KernelKMeans kAuto() {
        return param("k", "auto");
    }

    /**
     * The range {@link #kAuto()} considers (parameters k_min and k_max, default 2 and 10; kMax
     * at most half the search subsample).
     *
     * @param kMin the smallest k scored, at least 2
     * @param kMax the largest k scored, at least kMin
     * @return this
     * @throws IllegalArgumentException for a value out of range (the model is unchanged)
     */
    public KernelKMeans kRange(int kMin, int kMax) {
        return params("k_min=" + kMin + " k_max=" + kMax);
    }

    /**
     * Method: "auto" (default: "exact" for kernel "knn" and "heat", "nystrom" otherwise),
     * "exact", "nystrom", "sketch", "rff" or "minibatch". After a fit {@code param("method")}
     * reads as the method used.
     *
     * @param method the method's name
     * @return this
     * @throws IllegalArgumentException for an unknown method
     */
    public KernelKMeans method(String method) {
        return param("method", method);
    }

    /**
     * Kernel: "rbf" (default), "laplacian", "polynomial", "linear", "cosine", "precomputed"
     * (x is the n &times; n kernel matrix), or a graph kernel on the {@link #neighbors(int)}-nearest-
     * neighbour graph A of the rows (degrees D): "knn" (normalized cut: K = &sigma;D<sup>-1</sup> +
     * D<sup>-1</sup>AD<sup>-1</sup> with degree weights) or "heat" (exp(-t L), L = I -
     * D<sup>-1/2</sup>AD<sup>-1/2</sup>, through its top {@link #heatRank(int)} eigenpairs; see
     * {@link #heatT(double)}). The graph kernels take no sample weights.
     *
     * @param kernel the kernel's name
     * @return this
     * @throws IllegalArgumentException for an unknown kernel
     */
    public KernelKMeans kernel(String kernel) {
        return param("kernel", kernel);
    }

    /**
     * RBF/Laplacian/polynomial kernel scale gamma (default "auto", see {@link #param(String, String)}).
     *
     * @param gamma a positive, finite scale
     * @return this
     * @throws IllegalArgumentException if gamma is not positive and finite
     */
    public KernelKMeans gamma(double gamma) {
        return param("gamma", Double.toString(gamma));
    }

    /**
     * Bandwidth chosen by the fit (parameter gamma=search, rbf and laplacian kernels): the best
     * of a log grid around the data's scale by the search criterion (see
     * {@link #searchCriterion(String)}). After the fit {@code param("gamma")} reports the choice
     * and {@link #search()} the scores.
     *
     * @return this
     */
    public KernelKMeans gammaSearch() {
        return param("gamma", "search");
    }

    /**
     * How {@link #gammaSearch()} scores a gamma: "stability" (default; agreement of fits on two
     * halves of a subsample) or "matr" (trace criterion). k=auto is always scored by stability.
     *
     * @param criterion "stability" or "matr"
     * @return this
     * @throws IllegalArgumentException for another name
     */
    public KernelKMeans searchCriterion(String criterion) {
        return param("search_criterion", criterion);
    }

    /**
     * Rows of the subsample the search fits on (parameter search_size, default 1000).
     *
     * @param rows the subsample's size
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public KernelKMeans searchSize(int rows) {
        return param("search_size", Integer.toString(rows));
    }

    /**
     * Number of landmarks or features of the approximate methods (default "auto").
     *
     * @param m the number of landmarks or features
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public KernelKMeans m(int m) {
        return param("m", Integer.toString(m));
    }

    /**
     * Restarts from independent seedings; the lowest objective wins (parameter n_init, default
     * "auto": 10 up to 10000 rows and always for kernel "knn" and "heat", 1 beyond and for
     * method "minibatch" with the other kernels; see
     * {@link #nInitAuto()}).
     *
     * @param nInit the number of restarts, at least 1
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public KernelKMeans nInit(int nInit) {
        return param("n_init", Integer.toString(nInit));
    }

    /**
     * Restarts chosen by the library (parameter n_init=auto, the default): 10 up to 10000 rows
     * and always for "knn" and "heat", 1 beyond and for method "minibatch" with the other kernels
     * (each of its restarts repeats the whole fit), 1 with a given start. After a fit
     * {@code param("n_init")} reads as the number used.
     *
     * @return this
     */
    public KernelKMeans nInitAuto() {
        return param("n_init", "auto");
    }

    /**
     * Maximum Lloyd iterations per restart.
     *
     * @param maxIter the iteration limit, at least 1
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public KernelKMeans maxIter(int maxIter) {
        return param("max_iter", Integer.toString(maxIter));
    }

    /**
     * Relative objective tolerance of the Lloyd iterations.
     *
     * @param tol a non-negative tolerance
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public KernelKMeans tol(double tol) {
        return param("tol", Double.toString(tol));
    }

    /**
     * Random seed.
     *
     * @param seed the seed; equal seeds and data give equal fits
     * @return this
     * @throws IllegalArgumentException if out of range
     */
    public KernelKMeans seed(long seed) {
        return param("seed", Long.toString(seed));
    }

    /**
     * Threads used by fit and predict (0: all cores).
     *
     * @param threads the number of threads, 0 for all cores
     * @return this
     * @throws IllegalArgumentException if negative
     */
    public KernelKMeans threads(int threads) {
        return param("threads", Integer.toString(threads));
    }

    /**
     * Kernel "knn" and "heat": the neighbours q of each row in the graph (parameter neighbors,
     * alias n_neighbors; the graph is symmetrised, (B + B<sup>T</sup>)/2). Not used by
     * {@link #fitGraph(long, long[], long[], float[])}, whose graph is given.
     *
     * @param neighbors q, in [1, n - 1]
     * @return this
     * @throws IllegalArgumentException if below 1 (above n - 1: at the fit)
     */
    public KernelKMeans neighbors(int neighbors) {
        return param("neighbors", Integer.toString(neighbors));
    }

    /**
     * The neighbours chosen by the fit (parameter neighbors=auto, the default): 10, raised to 15,
     * 20, 30 while a connected component of the graph has fewer than n/(2k) rows. After a fit
     * {@code param("neighbors")} reads as the number used.
     *
     * @return this
     */
    public KernelKMeans neighborsAuto() {
        return param("neighbors", "auto");
    }

    /**
     * Kernel "knn" and "heat": how the neighbour graph is searched (parameter graph): "auto"
     * (default: anchor above 20000 rows for heat and above 60000 for knn, else exact when
     * 2 n<sup>2</sup> d &le; 5e10, else nndescent), "exact" (every distance), "nndescent"
     * (NN-descent, approximate) or "anchor" (each row to its nearest of {@link #anchors(int)}
     * k-means anchors: one pass over the rows, a model without the training rows, MPI).
     *
     * @param graph "auto", "exact", "nndescent" or "anchor"
     * @return this
     * @throws IllegalArgumentException for another name
     */
    public KernelKMeans graph(String graph) {
        return param("graph", graph);
    }

    /**
     * Graph "anchor": the anchors p, k-means centres of a uniform sample of 10p rows (parameter
     * anchors, default "auto": min(n, max(1000, 10k))).
     *
     * @param anchors p, in [2, n]
     * @return this
     * @throws IllegalArgumentException if below 2 (above n: at the fit)
     */
    public KernelKMeans anchors(int anchors) {
        return param("anchors", Integer.toString(anchors));
    }

    /**
     * Graph "anchor": the anchors chosen by the fit (parameter anchors=auto, the default:
     * min(n, max(1000, 10k))).
     *
     * @return this
     */
    public KernelKMeans anchorsAuto() {
        return param("anchors", "auto");
    }

    /**
     * Kernel "heat": the time t of exp(-t L) (parameter heat_t, default 80); a larger t weighs
     * the slowest-varying eigenvectors of the graph more.
     *
     * @param t a positive, finite time
     * @return this
     * @throws IllegalArgumentException if t is not positive and finite
     */
    public KernelKMeans heatT(double t) {
        return param("heat_t", Double.toString(t));
    }

    /**
     * Kernel "heat": the eigenpairs r of D<sup>-1/2</sup>AD<sup>-1/2</sup> kept (parameter
     * heat_rank, default "auto": max(2k, 20) plus one per extra connected component); the features have r dimensions.
     *
     * @param rank r, in [1, n]
     * @return this
     * @throws IllegalArgumentException if below 1 (above n: at the fit)
     */
    public KernelKMeans heatRank(int rank) {
        return param("heat_rank", Integer.toString(rank));
    }

    /**
     * Kernel "heat": the rank chosen by the fit (parameter heat_rank=auto, the default:
     * max(2k, 20) plus one per extra connected component, at most n).
     *
     * @return this
     */
    public KernelKMeans heatRankAuto() {
        return param("heat_rank", "auto");
    }

    /**
     * Kernel "heat": whether each row's features are scaled to length 1 (parameter
     * heat_normalize, default true: the normalised kernel K(x,y)/sqrt(K(x,x)K(y,y))); false
     * uses exp(-t L) itself.
     *
     * @param normalize true for unit-length features
     * @return this
     */
    public KernelKMeans heatNormalize(boolean normalize) {
        return param("heat_normalize", normalize ? "true" : "false");
    }

    // ------------------------------------------------------------------ starting partition

    /**
     * Starts the next fits from these initial centres (scikit-learn's {@code init=array}, R's
     * {@code centers=matrix}) instead of a k-means++ seeding: each training row starts in the
     * cluster of the nearest centre in the kernel's feature space (for rbf and laplacian the
     * nearest in input space), and cluster j of the fit is the one started at centre j. Only
     * the first restart starts there: with {@code nInit(r)}, restarts 2 to r seed as usual and
     * the lowest objective wins, so {@code nInit(1)} runs the given start only (as
     * scikit-learn's {@code init=array} does). The values are copied and kept until replaced
     * ({@link #initLabels(int[])} replaces them too), cleared ({@link #clearInit()}) or the
     * model is loaded. The fit refuses them (IllegalArgumentException naming both) when k or d
     * differ from the fit's, and with gamma search, k=auto, method minibatch, solver
     * minibatch, and the kernels precomputed, knn and heat.
     *
     * @param centres k rows of d values (all rows of one length)
     * @return this
     * @throws IllegalArgumentException if centres or a row is null, or the rows differ in length
     * @throws KKMeansException with status INVALID_DATA if a value is not finite (the message
     *     names the row)
     */
    public KernelKMeans initCentres(float[][] centres) {
        Flat<float[]> f = flatten(centres, "centres");
        return initCentres(f.values, f.n, f.d);
    }

    /**
     * As {@link #initCentres(float[][])} for float64 values (converted to float32, as the fit
     * computes).
     *
     * @param centres k rows of d values (all rows of one length)
     * @return this
     * @throws IllegalArgumentException if centres or a row is null, or the rows differ in length
     * @throws KKMeansException with status INVALID_DATA if a value is not finite
     */
    public KernelKMeans initCentres(double[][] centres) {
        Flat<double[]> f = flatten(centres, "centres");
        float[] single = new float[f.values.length];
        for (int i = 0; i < single.length; i++) {
            single[i] = (float) f.values[i];
        }
        return initCentres(single, f.n, f.d);
    }

    /**
     * As {@link #initCentres(float[][])} for k centres of d values, row-major: centre j's
     * value i at {@code centres[j * d + i]}.
     *
     * @param centres the k * d values, row-major
     * @param k the number of centres (the fit's k)
     * @param d the number of features (the fit's d)
     * @return this
     * @throws IllegalArgumentException if centres is null, its length is not k * d, or k or d
     *     is not positive
     * @throws KKMeansException with status INVALID_DATA if a value is not finite
     */
    public KernelKMeans initCentres(float[] centres, long k, long d) {
        requireNonNull(centres, "centres");
        return write(m -> m.set_init_centres(centres, k, d));
    }

    /**
     * Starts the next fits from this clustering of the training rows instead of a k-means++
     * seeding: {@code labels[i]} in [0, k) is row i's initial cluster (a cluster without rows
     * gets the row farthest from its centre, as in Lloyd). As with {@link #initCentres(float[][])},
     * only the first restart starts there ({@code nInit(1)}: the given start only), the labels
     * are copied and kept until replaced, cleared or the model is loaded, and the fit refuses
     * them with gamma search, k=auto, method minibatch, solver minibatch and the kernels knn
     * and heat (kernel precomputed accepts labels). The fit checks that there is one label per
     * row and each is below k (IllegalArgumentException naming the row).
     *
     * @param labels one 0-based cluster per training row
     * @return this
     * @throws IllegalArgumentException if labels is null or empty, or a label is negative
     */
    public KernelKMeans initLabels(int[] labels) {
        requireNonNull(labels, "labels");
        return write(m -> m.set_init_labels(labels));
    }

    /**
     * Forgets the starting partition of {@link #initCentres(float[][])} or
     * {@link #initLabels(int[])}: the next fits seed with k-means++ (parameter init) again.
     *
     * @return this
     */
    public KernelKMeans clearInit() {
        return write(NativeModel::clear_init);
    }

    // ------------------------------------------------------------------ fit

    /**
     * Fits on n rows of d features, row-major: element (i, j) is {@code x[i * d + j]}.
     * Every fit can be cancelled by interrupting its thread ({@link Thread#interrupt()}): it
     * then stops within about 0.1 s plus one block of work and throws
     * {@link FitCancelledException}; the model is unchanged and the interrupt flag stays set.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @return this
     * @throws IllegalArgumentException if x is null, its length is not n * d, or the
     *     parameters do not fit the data (e.g. k &gt; n)
     * @throws KKMeansException for invalid data (NaN/Inf) or when memory would run out
     * @throws FitCancelledException if the thread was interrupted during the fit
     */
    public KernelKMeans fit(float[] x, long n, long d) {
        return fit(x, n, d, (ProgressListener) null);
    }

    /**
     * As {@link #fit(float[], long, long)}, reporting progress to {@code listener}, which may
     * cancel the fit by returning false.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param listener called on this thread during the fit; may be null
     * @return this
     * @throws FitCancelledException if the listener returned false or the thread was interrupted
     */
    public KernelKMeans fit(float[] x, long n, long d, ProgressListener listener) {
        requireNonNull(x, "x");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_progress(x, n, d, r)));
    }

    /**
     * As {@link #fit(float[], long, long)} with n non-negative sample weights.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @return this
     */
    public KernelKMeans fit(float[] x, long n, long d, float[] weights) {
        return fit(x, n, d, weights, null);
    }

    /**
     * As {@link #fit(float[], long, long, float[])}, reporting progress to {@code listener}.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fit(float[] x, long n, long d, float[] weights, ProgressListener listener) {
        requireNonNull(x, "x");
        requireNonNull(weights, "weights");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_weighted_progress(x, n, d, weights, r)));
    }

    /**
     * As {@link #fit(float[], long, long)} for float64 data.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @return this
     */
    public KernelKMeans fit(double[] x, long n, long d) {
        return fit(x, n, d, (ProgressListener) null);
    }

    /**
     * As {@link #fit(double[], long, long)}, reporting progress to {@code listener}.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fit(double[] x, long n, long d, ProgressListener listener) {
        requireNonNull(x, "x");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_f64_progress(x, n, d, r)));
    }

    /**
     * As {@link #fit(double[], long, long)} with n non-negative sample weights.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @return this
     */
    public KernelKMeans fit(double[] x, long n, long d, double[] weights) {
        return fit(x, n, d, weights, null);
    }

    /**
     * As {@link #fit(double[], long, long, double[])}, reporting progress to {@code listener}.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fit(double[] x, long n, long d, double[] weights, ProgressListener listener) {
        requireNonNull(x, "x");
        requireNonNull(weights, "weights");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_weighted_f64_progress(x, n, d, weights, r)));
    }

    /**
     * Fits on {@code x[i]} = row i (all rows of one length d). Makes one row-major copy.
     *
     * @param x the rows
     * @return this
     * @throws IllegalArgumentException if x or a row is null or the rows differ in length
     */
    public KernelKMeans fit(double[][] x) {
        return fit(x, (ProgressListener) null);
    }

    /**
     * As {@link #fit(double[][])}, reporting progress to {@code listener}:
     * <pre>{@code
     * km.fit(x, (stage, fraction) -> {
     *     System.err.printf("%s %.0f%%%n", stage, 100 * fraction);
     *     return !stopRequested;       // false cancels: FitCancelledException
     * });
     * }</pre>
     *
     * @param x the rows
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fit(double[][] x, ProgressListener listener) {
        Flat<double[]> f = flatten(x);
        return fit(f.values, f.n, f.d, listener);
    }

    /**
     * As {@link #fit(double[][])} with one non-negative weight per row.
     *
     * @param x the rows
     * @param weights one non-negative weight per row
     * @return this
     */
    public KernelKMeans fit(double[][] x, double[] weights) {
        return fit(x, weights, null);
    }

    /**
     * As {@link #fit(double[][], double[])}, reporting progress to {@code listener}.
     *
     * @param x the rows
     * @param weights one non-negative weight per row
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fit(double[][] x, double[] weights, ProgressListener listener) {
        Flat<double[]> f = flatten(x);
        return fit(f.values, f.n, f.d, weights, listener);
    }

    /**
     * Fits on {@code x[i]} = row i (all rows of one length d). Makes one row-major copy.
     *
     * @param x the rows
     * @return this
     */
    public KernelKMeans fit(float[][] x) {
        return fit(x, (ProgressListener) null);
    }

    /**
     * As {@link #fit(float[][])}, reporting progress to {@code listener}.
     *
     * @param x the rows
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fit(float[][] x, ProgressListener listener) {
        Flat<float[]> f = flatten(x);
        return fit(f.values, f.n, f.d, listener);
    }

    /**
     * Fits kernel "knn" or "heat" on a graph instead of points: the symmetric n &times; n
     * affinity matrix A in compressed sparse rows (scipy's csr_matrix layout): node i's
     * neighbours are {@code indices[indptr[i]]} up to {@code indices[indptr[i + 1] - 1]}, with
     * the weights at the same places of {@code values}. A must be symmetric (A[i][j] == A[j][i]
     * exactly; pass (A + A<sup>T</sup>)/2 for a directed graph), its weights finite and &ge; 0,
     * and every node needs an edge (a self-loop counts); repeated entries of one pair are
     * summed. The parameters neighbors and graph do not apply. The graph is copied.
     *
     * <p>The fitted model predicts affinity rows: {@link #predict(double[][])} and
     * {@link #distances(double[][])} take rows of n values (d = n), each new node's weights to
     * the n training nodes; a training node's own row of A gets its training label. Like every
     * fit, it stops when its thread is interrupted ({@link FitCancelledException}).
     *
     * @param n the number of nodes
     * @param indptr n + 1 offsets into indices: 0, then non-decreasing
     * @param indices {@code indptr[n]} column indices in [0, n)
     * @param values {@code indptr[n]} weights, or null for every weight 1
     * @return this
     * @throws IllegalArgumentException if indptr or indices is null, an array's length does not
     *     match n and {@code indptr[n]}, an offset or column is out of range, the kernel is not
     *     knn or heat, or k &gt; n
     * @throws KKMeansException with status INVALID_DATA for a negative or non-finite weight, an
     *     asymmetric pair or a node without edges (the message names it)
     * @throws FitCancelledException if the thread was interrupted during the fit
     */
    public KernelKMeans fitGraph(long n, long[] indptr, long[] indices, float[] values) {
        return fitGraph(n, indptr, indices, values, null);
    }

    /**
     * As {@link #fitGraph(long, long[], long[], float[])}, reporting progress to
     * {@code listener}, which may cancel the fit by returning false.
     *
     * @param n the number of nodes
     * @param indptr n + 1 offsets into indices: 0, then non-decreasing
     * @param indices {@code indptr[n]} column indices in [0, n)
     * @param values {@code indptr[n]} weights, or null for every weight 1
     * @param listener called on this thread during the fit; may be null
     * @return this
     * @throws FitCancelledException if the listener returned false or the thread was interrupted
     */
    public KernelKMeans fitGraph(long n, long[] indptr, long[] indices, float[] values, ProgressListener listener) {
        requireNonNull(indptr, "indptr");
        requireNonNull(indices, "indices");
        float[] weights = values;
        if (weights == null) {
            weights = new float[indices.length];
            Arrays.fill(weights, 1.0f);
        }
        float[] w = weights;
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_graph_progress(n, indptr, indices, w, r)));
    }

    // ------------------------------------------------------------------ streams and files

    /**
     * Fits one batch of a stream (scikit-learn's {@code partial_fit}; the library's
     * {@code kkm_partial_fit}): n rows of d features, row-major. The first batch, or the first
     * after a parameter was set, is fitted as {@link #fit(float[], long, long)} fits it (its
     * landmarks, random features and gamma stay for the whole stream; nystrom and sketch need
     * at least m rows in it); every later batch moves the centres by Sculley's mini-batch
     * update, so that each centre is the running mean of every row assigned to it so far. No
     * past batch is kept. Afterwards {@link #labels()} and {@link #objective()} describe the
     * last batch, {@link #clusterSizes()} the weight each centre has received over the stream,
     * {@link #iterations()} the first fit's iterations plus one per later batch; label all the
     * data with {@link #predict(float[], long, long)}.
     *
     * <p>For the feature methods ({@code method} nystrom, sketch or rff; "auto" resolves to
     * nystrom) and minibatch with tau &gt; 0: its later batches run ceil(n / batch_size) more
     * truncated mini-batch iterations (at most max_iter, no early stopping) drawn from their
     * rows, from the model's centres, which keep at most k (tau + batch_size) rows; iterations()
     * adds those. A first batch stops when its thread is interrupted, as every fit does; a
     * later batch (one pass over its rows) reports no progress before "done" and runs to its end.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features (the stream's d after its first batch)
     * @return this
     * @throws IllegalArgumentException if x is null, its length is not n * d, d differs from
     *     the stream's, the first batch has fewer than m rows, a starting partition is set
     *     ({@link #initCentres(float[][])}), or the method needs every row at once (method
     *     exact, minibatch with tau=0, kernel knn, heat or precomputed, refine hartigan: the message
     *     names kkm_partial_fit)
     * @throws KKMeansException for invalid data (NaN/Inf)
     * @throws FitCancelledException if the thread was interrupted; the model is unchanged
     */
    public KernelKMeans partialFit(float[] x, long n, long d) {
        return partialFit(x, n, d, (ProgressListener) null);
    }

    /**
     * As {@link #partialFit(float[], long, long)}, reporting progress to {@code listener},
     * which may cancel the batch by returning false (the model is then unchanged).
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param listener called on this thread during the fit; may be null
     * @return this
     * @throws FitCancelledException if the listener returned false or the thread was interrupted
     */
    public KernelKMeans partialFit(float[] x, long n, long d, ProgressListener listener) {
        requireNonNull(x, "x");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.partial_fit_progress(x, n, d, r)));
    }

    /**
     * As {@link #partialFit(float[], long, long)} with n non-negative sample weights: a
     * centre's running mean weighs each row by its weight, and {@link #clusterSizes()} sums
     * them.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @return this
     */
    public KernelKMeans partialFit(float[] x, long n, long d, float[] weights) {
        return partialFit(x, n, d, weights, null);
    }

    /**
     * As {@link #partialFit(float[], long, long, float[])}, reporting progress to {@code listener}.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans partialFit(float[] x, long n, long d, float[] weights, ProgressListener listener) {
        requireNonNull(x, "x");
        requireNonNull(weights, "weights");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.partial_fit_weighted_progress(x, n, d, weights, r)));
    }

    /**
     * As {@link #partialFit(float[], long, long)} for float64 data, converted to float32 (one
     * copy; the stream computes in float32).
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @return this
     */
    public KernelKMeans partialFit(double[] x, long n, long d) {
        requireNonNull(x, "x");
        return partialFit(toFloat(x), n, d);
    }

    /**
     * As {@link #partialFit(double[], long, long)} with n non-negative sample weights.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features
     * @param weights one non-negative weight per row
     * @return this
     */
    public KernelKMeans partialFit(double[] x, long n, long d, double[] weights) {
        requireNonNull(x, "x");
        requireNonNull(weights, "weights");
        return partialFit(toFloat(x), n, d, toFloat(weights));
    }

    /**
     * One batch of rows {@code x[i]} (all of one length d; one row-major float32 copy): as
     * {@link #partialFit(float[], long, long)}.
     *
     * @param x the rows
     * @return this
     * @throws IllegalArgumentException if x or a row is null or the rows differ in length
     */
    public KernelKMeans partialFit(double[][] x) {
        Flat<double[]> f = flatten(x);
        return partialFit(toFloat(f.values), f.n, f.d);
    }

    /**
     * As {@link #partialFit(double[][])} with one non-negative weight per row.
     *
     * @param x the rows
     * @param weights one non-negative weight per row
     * @return this
     */
    public KernelKMeans partialFit(double[][] x, double[] weights) {
        requireNonNull(weights, "weights");
        Flat<double[]> f = flatten(x);
        return partialFit(toFloat(f.values), f.n, f.d, toFloat(weights));
    }

    /**
     * One batch of rows {@code x[i]} (all of one length d; one row-major copy): as
     * {@link #partialFit(float[], long, long)}.
     *
     * @param x the rows
     * @return this
     * @throws IllegalArgumentException if x or a row is null or the rows differ in length
     */
    public KernelKMeans partialFit(float[][] x) {
        Flat<float[]> f = flatten(x);
        return partialFit(f.values, f.n, f.d);
    }

    /**
     * Fits the rows of a file of raw little-endian float32 values, d per row (the library's
     * {@code kkm_fit_file}): the library maps the file read-only and reads it in place, so the
     * rows never enter the JVM and a file larger than the memory can be fitted (its pages come
     * and go through the page cache). The result equals {@link #fit(float[], long, long)} on
     * the same values. The file must not be truncated while the fit runs. Like every fit it
     * stops when its thread is interrupted.
     *
     * @param path the file
     * @param d the number of values per row
     * @return this
     * @throws IllegalArgumentException if path is null, d &lt;= 0, the file's size is not a
     *     multiple of 4 * d, or the parameters do not fit the data
     * @throws KKMeansException with status IO if the file cannot be opened or mapped, is empty
     *     or is not a regular file (the message names it); INVALID_DATA for NaN/Inf in it
     * @throws FitCancelledException if the thread was interrupted; the model is unchanged
     */
    public KernelKMeans fitFile(String path, long d) {
        return fitFile(path, d, (ProgressListener) null);
    }

    /**
     * As {@link #fitFile(String, long)}, reporting progress to {@code listener}, which may
     * cancel the fit by returning false.
     *
     * @param path the file
     * @param d the number of values per row
     * @param listener called on this thread during the fit; may be null
     * @return this
     * @throws FitCancelledException if the listener returned false or the thread was interrupted
     */
    public KernelKMeans fitFile(String path, long d, ProgressListener listener) {
        requireNonNull(path, "path");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_file_progress(path, d, r)));
    }

    /**
     * As {@link #fitFile(String, long)} with one non-negative weight per row of the file.
     *
     * @param path the file
     * @param d the number of values per row
     * @param weights one non-negative weight per row of the file
     * @return this
     * @throws IllegalArgumentException also if weights does not hold one value per row
     */
    public KernelKMeans fitFile(String path, long d, float[] weights) {
        return fitFile(path, d, weights, null);
    }

    /**
     * As {@link #fitFile(String, long, float[])}, reporting progress to {@code listener}.
     *
     * @param path the file
     * @param d the number of values per row
     * @param weights one non-negative weight per row of the file
     * @param listener called on this thread during the fit; may be null
     * @return this
     */
    public KernelKMeans fitFile(String path, long d, float[] weights, ProgressListener listener) {
        requireNonNull(path, "path");
        requireNonNull(weights, "weights");
        Reporter r = new Reporter(listener);
        return write(m -> r.check(m.fit_file_weighted_progress(path, d, weights, r)));
    }

    /**
     * The listener the native fit calls (on the fitting thread): it cancels when the thread
     * is interrupted (the flag is only read, never cleared) or the user's listener returns
     * false, and remembers which. An exception from the user's listener passes through: the
     * native side cancels the fit and the exception reaches the caller of fit.
     */
    private static final class Reporter implements ProgressListener {
        private static final int CANCELLED_STATUS = KKMeansException.CANCELLED;

        private final ProgressListener user;
        private boolean interrupted;

        Reporter(ProgressListener user) {
            this.user = user;
        }

        @Override
        public boolean onProgress(String stage, double fraction) {
            if (Thread.currentThread().isInterrupted()) {
                interrupted = true;
                return false;
            }
            return user == null || user.onProgress(stage, fraction);
        }

        /** Turns the native fit's status (OK or CANCELLED) into a return or a FitCancelledException. */
        void check(int status) {
            if (status != CANCELLED_STATUS) {
                return;
            }
            if (interrupted) {
                throw new FitCancelledException("the fit was cancelled: its thread was interrupted; the model is unchanged",
                        true);
            }
            throw new FitCancelledException("the fit was cancelled: the progress listener returned false; the model is unchanged",
                    false);
        }
    }

    // ------------------------------------------------------------------ predict

    /**
     * The nearest fitted centre (0-based) of each of n rows of d features, row-major.
     * Safe to call from many threads at once.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features, the training d
     * @return the n labels
     * @throws IllegalArgumentException if x is null, its length is not n * d, or d differs
     *     from the training d
     * @throws KKMeansException if the model is not fitted (status NOT_FITTED) or x holds NaN/Inf
     */
    public int[] predict(float[] x, long n, long d) {
        requireNonNull(x, "x");
        int[] labels = new int[rows(n)];
        return read(m -> {
            m.assign(x, n, d, labels);
            return labels;
        });
    }

    /**
     * As {@link #predict(float[], long, long)} for float64 data.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features, the training d
     * @return the n labels
     */
    public int[] predict(double[] x, long n, long d) {
        requireNonNull(x, "x");
        int[] labels = new int[rows(n)];
        return read(m -> {
            m.assign_f64(x, n, d, labels);
            return labels;
        });
    }

    /**
     * As {@link #predict(double[], long, long)}, also writing each row's squared distance to
     * its centre into {@code distances}.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features, the training d
     * @param distances receives the n squared distances
     * @return the n labels
     */
    public int[] predict(double[] x, long n, long d, double[] distances) {
        requireNonNull(x, "x");
        requireNonNull(distances, "distances");
        int[] labels = new int[rows(n)];
        return read(m -> {
            m.assign_distances_f64(x, n, d, labels, distances);
            return labels;
        });
    }

    /**
     * The nearest fitted centre of one row.
     *
     * @param row the row's d values (d: the training d)
     * @return its 0-based label
     * @throws IllegalArgumentException if row is null or its length is not the training d
     * @throws KKMeansException if the model is not fitted or row holds NaN/Inf
     */
    public int predict(double[] row) {
        requireNonNull(row, "row");
        return predict(row, 1, row.length)[0];
    }

    /**
     * The nearest fitted centre of one row.
     *
     * @param row the row's d values (d: the training d)
     * @return its 0-based label
     * @throws IllegalArgumentException if row is null or its length is not the training d
     * @throws KKMeansException if the model is not fitted or row holds NaN/Inf
     */
    public int predict(float[] row) {
        requireNonNull(row, "row");
        return predict(row, 1, row.length)[0];
    }

    /**
     * The nearest fitted centre of each row {@code x[i]}.
     *
     * @param x the rows
     * @return one label per row
     */
    public int[] predict(double[][] x) {
        Flat<double[]> f = flatten(x);
        return predict(f.values, f.n, f.d);
    }

    /**
     * The nearest fitted centre of each row {@code x[i]}.
     *
     * @param x the rows
     * @return one label per row
     */
    public int[] predict(float[][] x) {
        Flat<float[]> f = flatten(x);
        return predict(f.values, f.n, f.d);
    }

    // ------------------------------------------------------------------ distances

    /**
     * The squared distance of each of n rows to every fitted centre, measured as the fit
     * measures its objective (kernel-space for exact, minibatch and nystrom, feature-space
     * for sketch and rff). Each row's first minimum is at {@link #predict(double[], long, long)}'s
     * label, and its value is the distance {@link #predict(double[], long, long, double[])}
     * reports. Safe to call from many threads at once.
     *
     * @param x the n * d values, row-major
     * @param n the number of rows
     * @param d the number of features, the training d
     * @return n * k values, row-major: row i's distance to centre j at {@code i * k + j}
     *     (k: {@link #fittedK()})
     * @throws IllegalArgumentException if x is null, its length is not n * d, d differs from
     *     the training d, n * k values do not fit in a Java array, or the model was fitted with
     *     kernel=precomputed and method exact, minibatch or nystrom (the distances need k(x, x))
     * @throws KKMeansException if the model is not fitted (status NOT_FITTED) or x holds NaN/Inf
     */
    public double[] distances(double[] x, long n, long d) {
        requireNonNull(x, "x");
        return read(m -> {
            long k = m.k();
            long values = n > 0 && n <= MAX_ARRAY ? n * k : 0;
            if (values > MAX_ARRAY) {
                throw new IllegalArgumentException(
                        "n x k = " + n + " x " + k + " distances are more than a Java array holds");
            }
            double[] out = new double[(int) values];
            m.distances_f64(x, n, d, out);
            return out;
        });
    }

    /**
     * The squared distance of each row {@code x[i]} to every fitted centre: as
     * {@link #distances(double[], long, long)}, one row of k values per row of x.
     *
     * @param x the rows
     * @return {@code out[i][j]}: row i's squared distance to centre j
     */
    public double[][] distances(double[][] x) {
        Flat<double[]> f = flatten(x);
        double[] flat = distances(f.values, f.n, f.d);
        int n = (int) f.n;
        int k = n == 0 ? 0 : flat.length / n;
        double[][] out = new double[n][];
        for (int i = 0; i < n; i++) {
            out[i] = Arrays.copyOfRange(flat, i * k, (i + 1) * k);
        }
        return out;
    }

    /**
     * Fits on x and returns the training labels.
     *
     * @param x the rows
     * @return one label per row
     */
    public int[] fitPredict(double[][] x) {
        return fit(x).labels();
    }

    // ------------------------------------------------------------------ fitted results

    /**
     * The 0-based cluster of each training row: its nearest centre, what {@link #predict(double[][])}
     * gives it (for nystrom with rank or features of half kernel rows, up to their rounding at
     * near-ties). A fit stopped by tol
     * or max_iter keeps the centres its last step measured, the means of the labels before it;
     * at a fixed point (tol=0) they are the means of these labels (refine=hartigan: always).
     *
     * @return one label per training row
     * @throws KKMeansException if not fitted
     */
    public int[] labels() {
        return read(m -> {
            int[] labels = new int[rows(m.n_train())];
            m.labels(labels);
            return labels;
        });
    }

    /**
     * The number of clusters of the fitted model: the k the fit was asked for
     * ({@link #k(int)}), or the one it chose ({@link #kAuto()}).
     *
     * @return the fitted k
     * @throws KKMeansException if not fitted
     */
    public int fittedK() {
        return read(NativeModel::k);
    }

    /**
     * Objective of the fit: the weighted sum of the training rows' squared distances to their
     * centres (scikit-learn's inertia_; kernel=knn: each row weighted by its degree in the
     * neighbour graph).
     *
     * @return the objective
     * @throws KKMeansException if not fitted
     */
    public double objective() {
        return read(NativeModel::objective);
    }

    /**
     * Lloyd iterations run by the best restart.
     *
     * @return the number of iterations
     * @throws KKMeansException if not fitted
     */
    public int iterations() {
        return read(NativeModel::iterations);
    }

    /**
     * Number of rows (or their total weight) in each cluster.
     *
     * @return one size per cluster
     * @throws KKMeansException if not fitted
     */
    public double[] clusterSizes() {
        return read(m -> {
            double[] sizes = new double[m.k()];
            m.cluster_sizes(sizes);
            return sizes;
        });
    }

    /**
     * Number of training rows.
     *
     * @return n
     * @throws KKMeansException if not fitted
     */
    public long nTrain() {
        return read(NativeModel::n_train);
    }

    /**
     * Number of features d the model was fitted on.
     *
     * @return d
     * @throws KKMeansException if not fitted
     */
    public long nFeatures() {
        return read(NativeModel::n_features);
    }

    /**
     * Dimension of the approximate method's feature space (0 for exact).
     *
     * @return the feature dimension
     * @throws KKMeansException if not fitted
     */
    public long featureDim() {
        return read(NativeModel::feature_dim);
    }

    /**
     * The fitted centres in the explicit feature space of nystrom, sketch, rff and the heat
     * kernel (the space their fit runs k-means in, of dimension {@link #featureDim()}): each
     * training row's label is its nearest centre there. Methods exact and minibatch and the
     * kernel knn have no such centres (theirs are weighted sums of training points in the
     * kernel's space): use {@link #distances(double[][])} for distances to them.
     *
     * @return {@link #fittedK()} rows of {@link #featureDim()} values
     * @throws IllegalArgumentException if the model has no explicit centres
     * @throws KKMeansException if not fitted
     */
    public float[][] centres() {
        return read(m -> {
            int k = m.k();
            long dim = m.feature_dim();
            if (dim <= 0) {
                m.centres(new float[1]);  // throws: the library says why the model has no explicit centres
                throw new IllegalArgumentException("this model has no explicit centres");
            }
            if ((long) k * dim > MAX_ARRAY) {
                throw new IllegalArgumentException("k x featureDim = " + k + " x " + dim
                        + " centre values are more than a Java array holds");
            }
            float[] flat = new float[(int) (k * dim)];
            m.centres(flat);
            float[][] out = new float[k][];
            for (int j = 0; j < k; j++) {
                out[j] = Arrays.copyOfRange(flat, (int) (j * dim), (int) ((j + 1) * dim));
            }
            return out;
        });
    }

    /**
     * What the last fit's {@link #gammaSearch()} / {@link #kAuto()} scored, one entry per
     * candidate in the order scanned; empty when the fit did not search. Kept by
     * {@link #toBytes()} and {@link #save(String)}.
     *
     * @return an unmodifiable list
     * @throws KKMeansException if not fitted
     */
    public List<SearchPoint> search() {
        return read(m -> {
            int count = rows(m.search_count());
            double[] gammas = new double[count];
            int[] ks = new int[count];
            double[] scores = new double[count];
            int[] criteria = new int[count];
            m.search_gammas(gammas);
            m.search_ks(ks);
            m.search_scores(scores);
            m.search_criteria(criteria);
            List<SearchPoint> points = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                points.add(new SearchPoint(gammas[i], ks[i], scores[i], SearchPoint.criterionName(criteria[i])));
            }
            return Collections.unmodifiableList(points);
        });
    }

    /**
     * Seconds of the last fit's stages.
     *
     * @return "stage=seconds ..."
     */
    public String timings() {
        return read(NativeModel::timings);
    }

    // ------------------------------------------------------------------ persistence

    /**
     * The fitted model as a self-contained byte string (the library's versioned format).
     *
     * @return the bytes
     * @throws KKMeansException if the model is not fitted
     */
    public byte[] toBytes() {
        return read(m -> {
            long size = m.save_size();
            if (size > MAX_ARRAY) {
                throw new KKMeansException(KKMeansException.OUT_OF_MEMORY,
                        "the model needs " + size + " bytes, more than a Java array holds");
            }
            byte[] bytes = new byte[(int) size];
            m.save_buffer(bytes);
            return bytes;
        });
    }

    /**
     * A model read from {@link #toBytes()}'s bytes; it assigns exactly as the saved one did.
     *
     * @param bytes what {@link #toBytes()} returned
     * @return a new fitted model (the caller closes it)
     * @throws IllegalArgumentException if bytes is null
     * @throws KKMeansException with status FORMAT if the bytes are not a valid model
     */
    public static KernelKMeans fromBytes(byte[] bytes) {
        requireNonNull(bytes, "bytes");
        KernelKMeans km = new KernelKMeans();
        try {
            km.write(m -> m.load_buffer(bytes));
            return km;
        } catch (RuntimeException e) {
            km.close();
            throw e;
        }
    }

    /**
     * Writes the fitted model to a file (created or truncated).
     *
     * @param path the file
     * @throws KKMeansException with status IO or NOT_FITTED
     */
    public void save(String path) {
        requireNonNull(path, "path");
        read(m -> {
            m.save(path);
            return null;
        });
    }

    /**
     * A model read from a file written by {@link #save(String)}.
     *
     * @param path the file
     * @return a new fitted model (the caller closes it)
     * @throws KKMeansException with status IO or FORMAT
     */
    public static KernelKMeans load(String path) {
        requireNonNull(path, "path");
        KernelKMeans km = new KernelKMeans();
        try {
            km.write(m -> m.load(path));
            return km;
        } catch (RuntimeException e) {
            km.close();
            throw e;
        }
    }

    // ------------------------------------------------------------------ library helpers

    /**
     * The native library's version, the package's version.
     *
     * @return "MAJOR.MINOR.PATCH"
     */
    public static String version() {
        return NativeModel.version();
    }

    /**
     * Where the JNI library was loaded from, loading it if needed: the file named by the
     * system property {@code fastkkm.library.path}, {@code "java.library.path"} (found by
     * {@code System.loadLibrary("fastkkm_jni")}), or {@code "jar:/native/linux-x86_64/..."}
     * with the temporary file it was extracted to (deleted once loaded).
     *
     * @return a description of the origin
     * @throws UnsatisfiedLinkError if the library cannot be loaded (the message names what was tried)
     */
    public static String nativeLibrary() {
        return NativeLibrary.origin();
    }

    /**
     * Adjusted Rand index of two labelings of the same items.
     *
     * @param a one label per item
     * @param b one label per item, as many as a
     * @return the index; 1 for identical partitions
     * @throws IllegalArgumentException if an array is null or their lengths differ
     */
    public static double adjustedRandIndex(int[] a, int[] b) {
        requireNonNull(a, "a");
        requireNonNull(b, "b");
        return NativeModel.adjusted_rand_index(a, b);
    }

    /**
     * Normalized mutual information (arithmetic normalisation) of two labelings.
     *
     * @param a one label per item
     * @param b one label per item, as many as a
     * @return the NMI in [0, 1]
     * @throws IllegalArgumentException if an array is null or their lengths differ
     */
    public static double normalizedMutualInfo(int[] a, int[] b) {
        requireNonNull(a, "a");
        requireNonNull(b, "b");
        return NativeModel.normalized_mutual_info(a, b);
    }

    // ------------------------------------------------------------------ helpers

    private static void requireNonNull(Object value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
    }

    private static float[] toFloat(double[] values) {
        float[] single = new float[values.length];
        for (int i = 0; i < single.length; i++) {
            single[i] = (float) values[i];
        }
        return single;
    }

    private static int rows(long n) {
        if (n < 0 || n > MAX_ARRAY) {
            throw new IllegalArgumentException("n = " + n + " must be in [0, " + MAX_ARRAY + "]");
        }
        return (int) n;
    }

    /** A row-major copy of a rectangular 2-D array. */
    private static final class Flat<A> {
        final A values;
        final long n;
        final long d;

        Flat(A values, long n, long d) {
            this.values = values;
            this.n = n;
            this.d = d;
        }
    }

    private static int width(String name, int row, int length, int d) {
        if (length != d) {
            throw new IllegalArgumentException(name + "[" + row + "] has " + length + " values but " + name + "[0] has "
                    + d + " (rows must have one length)");
        }
        return d;
    }

    private static Flat<double[]> flatten(double[][] x) {
        return flatten(x, "x");
    }

    private static Flat<double[]> flatten(double[][] x, String name) {
        requireNonNull(x, name);
        int n = x.length;
        int d = n == 0 ? 0 : rowOf(x[0], 0, name).length;
        if ((long) n * d > MAX_ARRAY) {
            throw new IllegalArgumentException(n + " x " + d + " values are more than a Java array holds");
        }
        double[] flat = new double[n * d];
        for (int i = 0; i < n; i++) {
            double[] row = rowOf(x[i], i, name);
            System.arraycopy(row, 0, flat, i * d, width(name, i, row.length, d));
        }
        return new Flat<>(flat, n, d);
    }

    private static Flat<float[]> flatten(float[][] x) {
        return flatten(x, "x");
    }

    private static Flat<float[]> flatten(float[][] x, String name) {
        requireNonNull(x, name);
        int n = x.length;
        int d = n == 0 ? 0 : rowOf(x[0], 0, name).length;
        if ((long) n * d > MAX_ARRAY) {
            throw new IllegalArgumentException(n + " x " + d + " values are more than a Java array holds");
        }
        float[] flat = new float[n * d];
        for (int i = 0; i < n; i++) {
            float[] row = rowOf(x[i], i, name);
            System.arraycopy(row, 0, flat, i * d, width(name, i, row.length, d));
        }
        return new Flat<>(flat, n, d);
    }

    private static <A> A rowOf(A row, int i, String name) {
        if (row == null) {
            throw new IllegalArgumentException(name + "[" + i + "] must not be null");
        }
        return row;
    }
}
