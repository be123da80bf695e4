// KernelKMeans.cs — the public C# API of kkmeans over the SWIG-generated (internal) NativeModel.
//
// Arrays cross to the library in place: the P/Invoke marshaller pins float[], double[], int[],
// byte[] and rectangular float[,] / double[,] (contiguous, row-major), so nothing is copied.
// Jagged float[][] / double[][] input is copied once into one row-major array (Jagged.cs).

using System;
using System.Globalization;
using System.Threading;

namespace FastKKM
{
    /// <summary>
    /// Kernel k-means clustering (exact, Nyström, sketch, random Fourier features, mini-batch),
    /// including the graph kernels "knn" (normalized cut) and "heat".
    /// </summary>
    /// <example>
    /// <code>
    /// using (var model = new KernelKMeans().K(2).Method("exact").Kernel("rbf").Gamma(0.5))
    /// {
    ///     model.Fit(x);                     // float[,] or double[,], n rows × d columns
    ///     int[] labels = model.Labels;      // 0-based cluster of each training row
    ///     int[] predicted = model.Predict(y);
    /// }
    /// </code>
    /// </example>
    /// <remarks>
    /// Parameters are the library's (see its README: k, method, kernel, gamma, m, seed, ...);
    /// an unknown key or a bad value throws <see cref="ArgumentException"/> with the library's
    /// message. Other failures throw <see cref="KKMeansException"/> with a <see cref="Status"/>.
    /// A fitted model is immutable: Predict, Transform, the getters, ToBytes and Save may run on many
    /// threads at once. Param, Fit, Load and Dispose must not run concurrently with any other
    /// call on the same model. Using a disposed model throws <see cref="ObjectDisposedException"/>.
    /// Every Fit takes an optional <see cref="CancellationToken"/> (a cancelled fit throws
    /// <see cref="OperationCanceledException"/> and leaves the model unchanged) and an
    /// <see cref="IProgress{T}"/> of <see cref="FitProgress"/>.
    /// <see cref="GammaSearch"/> and <see cref="KAuto"/> let the fit choose gamma and k;
    /// <see cref="GetParam"/>("gamma") and <see cref="NumClusters"/> then report the choice and
    /// <see cref="Search"/> every candidate scored.
    /// <para>
    /// Method and NInit default to "auto": exact and 10 restarts for the graph kernels, nystrom
    /// and 1 restart otherwise; <see cref="GetParam"/> reports what a fit resolved them to. The
    /// graph kernels work on the <see cref="Neighbors"/>-nearest-neighbour graph A of the rows
    /// (degrees D): <c>Kernel("knn")</c> is the normalized cut (weighted kernel k-means with
    /// K = σD⁻¹ + D⁻¹AD⁻¹ and degree weights), <c>Kernel("heat")</c> the heat kernel exp(-t L)
    /// of the normalized Laplacian L (<see cref="HeatT"/>), through its top
    /// <see cref="HeatRank"/> eigenpairs. They cluster shapes such as nested rings with only K
    /// given, and take no sample weights. <see cref="FitGraph"/> fits them on a graph of your
    /// own (a sparse affinity matrix); such a model predicts affinity rows.
    /// </para>
    /// <para>
    /// <see cref="PartialFit(float[,], CancellationToken, IProgress{FitProgress})"/> fits data that
    /// arrive in batches (methods nystrom, sketch, rff and minibatch), and <see cref="FitFile(string, long, CancellationToken, IProgress{FitProgress})"/>
    /// a raw float32 file that the library maps and reads in place.
    /// </para>
    /// </remarks>
    public sealed class KernelKMeans : IDisposable
    {
        private NativeModel model;

        /// <summary>A model with every parameter at its default.</summary>
        /// <exception cref="DllNotFoundException">libfastkkm_csharp.so was not found; the message names every place looked.</exception>
        public KernelKMeans()
        {
            NativeLoader.EnsureLoaded();
            model = new NativeModel();
        }

        /// <summary>A model with parameters "key=value key=value ..." applied (all or nothing).</summary>
        public KernelKMeans(string parameters) : this()
        {
            try
            {
                Params(parameters);
            }
            catch
            {
                Dispose();
                throw;
            }
        }

        private NativeModel Model
        {
            get
            {
                NativeModel m = model;
                if (m == null) throw new ObjectDisposedException(nameof(KernelKMeans));
                return m;
            }
        }

        /// <summary>
        /// One line describing the model, for logs: the method, kernel and k parameters, then for a
        /// fitted model its number of clusters, training rows and objective, e.g.
        /// <c>KernelKMeans[method=exact kernel=rbf k=2 n=400 objective=157.3]</c>, else
        /// <c>KernelKMeans[method=auto kernel=rbf k=8 unfitted]</c>, or
        /// <c>KernelKMeans[disposed]</c>. Numbers are written in the invariant culture (a NaN
        /// objective as <c>NaN</c>). Never throws.
        /// </summary>
        public override string ToString()
        {
            NativeModel m = model;
            if (m == null) return "KernelKMeans[disposed]";
            try
            {
                string head = "KernelKMeans[method=" + m.get_param("method") + " kernel=" + m.get_param("kernel");
                long n;
                try
                {
                    n = m.n_train();
                }
                catch (KKMeansException e) when (e.Status == Status.NotFitted)
                {
                    return head + " k=" + m.get_param("k") + " unfitted]";
                }
                return head + string.Format(CultureInfo.InvariantCulture, " k={0} n={1} objective={2}]", m.k(), n,
                                            FormatNumber(m.objective()));
            }
            catch (Exception e) when (e is ArgumentException || e is KKMeansException || e is ObjectDisposedException)
            {
                return "KernelKMeans[" + e.Message + "]";
            }
        }

        // A double as C# readers expect it, whatever the thread's culture: "R" round-trip digits
        // with a '.' decimal point; NaN and the infinities as NaN, Infinity, -Infinity.
        internal static string FormatNumber(double value)
        {
            if (double.IsNaN(value)) return "NaN";
            if (double.IsPositiveInfinity(value)) return "Infinity";
            if (double.IsNegativeInfinity(value)) return "-Infinity";
            return value.ToString("R", CultureInfo.InvariantCulture);
        }

        /// <summary>Releases the native model. Calling it again does nothing.</summary>
        public void Dispose()
        {
            NativeModel m = System.Threading.Interlocked.Exchange(ref model, null);
            if (m != null) m.Dispose();
        }

        /// <summary>Whether <see cref="Dispose"/> has been called.</summary>
        public bool IsDisposed
        {
            get { return model == null; }
        }

        /// <summary>The library's version, "MAJOR.MINOR.PATCH".</summary>
        public static string Version
        {
            get
            {
                NativeLoader.EnsureLoaded();
                return NativeModel.version();
            }
        }

        // ------------------------------------------------------------------ parameters

        /// <summary>Sets one parameter from its text value, e.g. ("gamma", "auto").</summary>
        public KernelKMeans Param(string key, string value)
        {
            if (key == null) throw new ArgumentNullException(nameof(key));
            if (value == null) throw new ArgumentNullException(nameof(value));
            Model.set_param(key, value);
            return this;
        }

        /// <summary>Sets one integer parameter.</summary>
        public KernelKMeans Param(string key, long value)
        {
            return Param(key, value.ToString(CultureInfo.InvariantCulture));
        }

        /// <summary>Sets one floating-point parameter (written with round-trip precision).</summary>
        public KernelKMeans Param(string key, double value)
        {
            return Param(key, value.ToString("R", CultureInfo.InvariantCulture));
        }

        /// <summary>Sets several parameters from "key=value key=value ..." (all or nothing).</summary>
        public KernelKMeans Params(string parameters)
        {
            if (parameters == null) throw new ArgumentNullException(nameof(parameters));
            Model.set_params(parameters);
            return this;
        }

        /// <summary>
        /// The value of a parameter; on a fitted model, "auto" parameters (gamma, m, k, method,
        /// n_init, neighbors, heat_rank) report the value the last fit resolved them to.
        /// </summary>
        public string GetParam(string key)
        {
            if (key == null) throw new ArgumentNullException(nameof(key));
            return Model.get_param(key);
        }

        /// <summary>Number of clusters (k).</summary>
        public KernelKMeans K(int k) { return Param("k", k); }

        /// <summary>
        /// Lets the fit choose the number of clusters (k=auto): the k in [k_min, k_max] (see
        /// <see cref="KRange"/>) whose fits on two halves of a subsample agree best.
        /// <see cref="NumClusters"/> reports the choice and <see cref="Search"/> the scores.
        /// </summary>
        public KernelKMeans KAuto() { return Param("k", "auto"); }

        /// <summary>The range <see cref="KAuto"/> considers (k_min and k_max; default 2 and 10).</summary>
        public KernelKMeans KRange(int min, int max)
        {
            return Params(string.Format(CultureInfo.InvariantCulture, "k_min={0} k_max={1}", min, max));
        }

        /// <summary>
        /// auto (the default: exact for kernel knn and heat, nystrom otherwise), exact, nystrom,
        /// sketch, rff or minibatch (method). After a fit GetParam("method") reports the method used.
        /// </summary>
        public KernelKMeans Method(string method) { return Param("method", method); }

        /// <summary>
        /// rbf (the default), laplacian, polynomial, linear, cosine, precomputed (x is the n × n
        /// kernel matrix), or a graph kernel on the <see cref="Neighbors"/>-nearest-neighbour graph:
        /// knn (normalized cut) or heat (exp(-t L); see <see cref="HeatT"/>, <see cref="HeatRank"/>)
        /// (kernel). The graph kernels take no sample weights.
        /// </summary>
        public KernelKMeans Kernel(string kernel) { return Param("kernel", kernel); }

        /// <summary>Kernel scale (gamma).</summary>
        public KernelKMeans Gamma(double gamma) { return Param("gamma", gamma); }

        /// <summary>Kernel scale as text: a number, "auto" or "search" (gamma).</summary>
        public KernelKMeans Gamma(string gamma) { return Param("gamma", gamma); }

        /// <summary>
        /// Lets the fit choose the kernel scale (gamma=search; rbf and laplacian kernels): the
        /// best of a log grid around the data's scale by <see cref="M:FastKKM.KernelKMeans.SearchCriterion(FastKKM.SearchCriterion)"/>.
        /// <see cref="GetParam"/>("gamma") reports the choice and <see cref="Search"/> the scores.
        /// </summary>
        public KernelKMeans GammaSearch() { return Param("gamma", "search"); }

        /// <summary>How gamma=search scores a gamma (search_criterion; default matr). k=auto is always scored by stability.</summary>
        public KernelKMeans SearchCriterion(SearchCriterion criterion)
        {
            switch (criterion)
            {
                case FastKKM.SearchCriterion.Stability: return Param("search_criterion", "stability");
                case FastKKM.SearchCriterion.Matr: return Param("search_criterion", "matr");
                default: throw new ArgumentOutOfRangeException(nameof(criterion), criterion, "not a SearchCriterion");
            }
        }

        /// <summary>Rows of the subsample that gamma=search and k=auto fit on (search_size; default 1000).</summary>
        public KernelKMeans SearchSize(int rows) { return Param("search_size", rows); }

        /// <summary>Landmarks, sketch size or random features (m).</summary>
        public KernelKMeans M(int m) { return Param("m", m); }

        /// <summary>Seed of every random choice (seed).</summary>
        public KernelKMeans Seed(long seed) { return Param("seed", seed); }

        /// <summary>
        /// Restarts from independent seedings; the lowest objective wins (n_init; default auto:
        /// 10 up to 10000 rows and always for kernel knn and heat, 1 beyond; 1 with a given start).
        /// </summary>
        public KernelKMeans NInit(int restarts) { return Param("n_init", restarts); }

        /// <summary>Restarts chosen by the library (n_init=auto, the default): 10 up to 10000 rows and always for knn and heat, 1 beyond and for method minibatch with the other kernels (each of its restarts repeats the whole fit).</summary>
        public KernelKMeans NInitAuto() { return Param("n_init", "auto"); }

        /// <summary>Maximum Lloyd iterations per restart (max_iter).</summary>
        public KernelKMeans MaxIter(int iterations) { return Param("max_iter", iterations); }

        /// <summary>Relative objective tolerance (tol).</summary>
        public KernelKMeans Tol(double tol) { return Param("tol", tol); }

        /// <summary>Threads; 0 = all cores (threads).</summary>
        public KernelKMeans Threads(int threads) { return Param("threads", threads); }

        /// <summary>
        /// Kernel knn and heat: neighbours q of each row in the graph (neighbors, alias n_neighbors;
        /// in [1, n - 1]; the graph is symmetrised). Not used by <see cref="FitGraph"/>, whose graph is given.
        /// </summary>
        public KernelKMeans Neighbors(int neighbors) { return Param("neighbors", neighbors); }

        /// <summary>
        /// Neighbours chosen by the fit (neighbors=auto, the default): 10, raised to 15, 20, 30
        /// while a connected component of the graph has fewer than n/(2k) rows.
        /// </summary>
        public KernelKMeans NeighborsAuto() { return Param("neighbors", "auto"); }

        /// <summary>
        /// Kernel knn and heat: how the neighbour graph is searched (graph): auto (the default:
        /// anchor above 20000 rows for heat and above 60000 for knn, else exact when
        /// 2 n² d ≤ 5e10, else nndescent), exact, nndescent (NN-descent, approximate) or anchor
        /// (each row to its nearest of <see cref="Anchors"/> k-means anchors: one pass over the
        /// rows, a model without the training rows, MPI).
        /// </summary>
        public KernelKMeans Graph(string graph) { return Param("graph", graph); }

        /// <summary>Graph anchor: the anchors p, k-means centres of a uniform sample of 10p rows (anchors; in [2, n]).</summary>
        public KernelKMeans Anchors(int anchors) { return Param("anchors", anchors); }

        /// <summary>Graph anchor: the anchors chosen by the fit (anchors=auto, the default: min(n, max(1000, 10k))).</summary>
        public KernelKMeans AnchorsAuto() { return Param("anchors", "auto"); }

        /// <summary>Kernel heat: the time t of exp(-t L) (heat_t; default 80; larger t weighs the slowest-varying eigenvectors more).</summary>
        public KernelKMeans HeatT(double t) { return Param("heat_t", t); }

        /// <summary>Kernel heat: eigenpairs r of D^-1/2 A D^-1/2 kept, the features' dimension (heat_rank; in [1, n]).</summary>
        public KernelKMeans HeatRank(int rank) { return Param("heat_rank", rank); }

        /// <summary>Kernel heat: the rank chosen by the fit (heat_rank=auto, the default: max(2k, 20) plus one per connected component beyond the first, at most n).</summary>
        public KernelKMeans HeatRankAuto() { return Param("heat_rank", "auto"); }

        /// <summary>
        /// Kernel heat: whether each row's features are scaled to length 1 (heat_normalize; default
        /// true, the normalised kernel K(x,y)/sqrt(K(x,x)K(y,y))); false uses exp(-t L) itself.
        /// </summary>
        public KernelKMeans HeatNormalize(bool normalize) { return Param("heat_normalize", normalize ? "true" : "false"); }

        // ------------------------------------------------------------------ starting partition
        //
        // The next fits' first restart starts from a given partition instead of a k-means++
        // seeding (scikit-learn's init=array, R's centers=matrix); restarts 2.. seed as usual
        // and the lowest objective wins (NInit(1): the given start only; cluster j is then the
        // one started at centre j). The values are copied and kept until replaced (either kind replaces the
        // other), cleared (ClearInit) or the model is loaded. The fit refuses them
        // (ArgumentException naming both options) with GammaSearch, KAuto, method minibatch,
        // solver minibatch and the kernels knn and heat, and centres also with precomputed.

        /// <summary>
        /// Starts the next fits from these k initial centres (k rows × d columns, the fit's k and
        /// d): each training row starts in the cluster of the nearest centre in the kernel's
        /// feature space (for rbf and laplacian the nearest in input space).
        /// </summary>
        /// <exception cref="ArgumentNullException">centres is null.</exception>
        /// <exception cref="ArgumentException">centres is empty.</exception>
        /// <exception cref="KKMeansException">centres holds a non-finite value (<see cref="Status.InvalidData"/>; the message names the row).</exception>
        public KernelKMeans InitCentres(float[,] centres)
        {
            if (centres == null) throw new ArgumentNullException(nameof(centres));
            var flat = new float[centres.LongLength];
            Buffer.BlockCopy(centres, 0, flat, 0, flat.Length * sizeof(float));
            return InitCentres(flat, centres.GetLongLength(0), centres.GetLongLength(1));
        }

        /// <summary>As <see cref="InitCentres(float[,])"/>; the values are converted to float32, as the fit computes.</summary>
        public KernelKMeans InitCentres(double[,] centres)
        {
            if (centres == null) throw new ArgumentNullException(nameof(centres));
            long k = centres.GetLongLength(0), d = centres.GetLongLength(1);
            var flat = new float[centres.LongLength];
            for (long i = 0; i < k; ++i)
            {
                for (long j = 0; j < d; ++j) flat[i * d + j] = (float)centres[i, j];
            }
            return InitCentres(flat, k, d);
        }

        /// <summary>As <see cref="InitCentres(float[,])"/> for one row per centre (rows of equal length).</summary>
        /// <exception cref="ArgumentNullException">centres or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">centres has no rows, or a row's length differs from row 0's.</exception>
        public KernelKMeans InitCentres(float[][] centres)
        {
            long k, d;
            float[] flat = Jagged.Flatten(centres, nameof(centres), out k, out d);
            return InitCentres(flat, k, d);
        }

        /// <summary>As <see cref="InitCentres(float[][])"/>; the values are converted to float32.</summary>
        public KernelKMeans InitCentres(double[][] centres)
        {
            long k, d;
            double[] flat = Jagged.Flatten(centres, nameof(centres), out k, out d);
            var single = new float[flat.LongLength];
            for (long i = 0; i < flat.LongLength; ++i) single[i] = (float)flat[i];
            return InitCentres(single, k, d);
        }

        /// <summary>
        /// As <see cref="InitCentres(float[,])"/> for k centres of d values, row-major (centre j's
        /// value i at rowMajor[j * d + i]).
        /// </summary>
        /// <exception cref="ArgumentNullException">rowMajor is null.</exception>
        /// <exception cref="ArgumentException">Its length is not k × d, or k or d is not positive.</exception>
        /// <exception cref="KKMeansException">A value is not finite (<see cref="Status.InvalidData"/>).</exception>
        public KernelKMeans InitCentres(float[] rowMajor, long k, long d)
        {
            NativeModel m = Model;
            if (rowMajor == null) throw new ArgumentNullException(nameof(rowMajor));
            m.set_init_centres(rowMajor, k, d);
            return this;
        }

        /// <summary>
        /// Starts the next fits from this clustering of the training rows: labels[i] in [0, k) is
        /// row i's initial cluster (a cluster without rows gets the row farthest from its centre,
        /// as in Lloyd). The fit checks that there is one label per training row and each is
        /// below k (ArgumentException naming the row). Kernel precomputed accepts labels.
        /// </summary>
        /// <exception cref="ArgumentNullException">labels is null.</exception>
        /// <exception cref="ArgumentException">labels is empty or a label is negative (the message names it).</exception>
        public KernelKMeans InitLabels(int[] labels)
        {
            NativeModel m = Model;
            if (labels == null) throw new ArgumentNullException(nameof(labels));
            m.set_init_labels(labels);
            return this;
        }

        /// <summary>Forgets the starting partition: the next fits seed with k-means++ (parameter init) again.</summary>
        public KernelKMeans ClearInit()
        {
            Model.clear_init();
            return this;
        }

        // ------------------------------------------------------------------ fit
        //
        // Every Fit takes an optional CancellationToken and IProgress<FitProgress>. With
        // either, the library calls back on the fitting thread at each stage start and about
        // every 0.1 s: the report goes to progress.Report (Progress<T> forwards it to its
        // SynchronizationContext, or the thread pool), and a cancelled token stops the fit
        // within about 0.1 s plus one block of work with OperationCanceledException; the model
        // is then as it was before the fit. An exception thrown by progress.Report also stops
        // the fit and is rethrown (after the final "done" report the model is already fitted).

        /// <summary>Fits on the rows of x (n × d).</summary>
        /// <param name="x">n rows × d columns.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        public KernelKMeans Fit(float[,] x, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit(x);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_progress(x, reporter.Callback));
            return this;
        }

        /// <summary>Fits on the rows of x (n × d) with n non-negative sample weights.</summary>
        public KernelKMeans Fit(float[,] x, float[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_weighted(x, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_weighted_progress(x, weights, reporter.Callback));
            return this;
        }

        /// <summary>Fits on n rows of d values stored row-major in rowMajor (length n·d).</summary>
        public KernelKMeans Fit(float[] rowMajor, long n, long d, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit(rowMajor, n, d);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_progress(rowMajor, n, d, reporter.Callback));
            return this;
        }

        /// <summary>As <see cref="Fit(float[], long, long, CancellationToken, IProgress{FitProgress})"/> with n sample weights.</summary>
        public KernelKMeans Fit(float[] rowMajor, long n, long d, float[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_weighted(rowMajor, n, d, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_weighted_progress(rowMajor, n, d, weights, reporter.Callback));
            return this;
        }

        /// <summary>Fits on the rows of x (n × d); computation runs in float32.</summary>
        public KernelKMeans Fit(double[,] x, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_f64(x);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_f64_progress(x, reporter.Callback));
            return this;
        }

        /// <summary>Fits on the rows of x (n × d) with n non-negative sample weights.</summary>
        public KernelKMeans Fit(double[,] x, double[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_weighted_f64(x, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_weighted_f64_progress(x, weights, reporter.Callback));
            return this;
        }

        /// <summary>Fits on n rows of d values stored row-major in rowMajor (length n·d).</summary>
        public KernelKMeans Fit(double[] rowMajor, long n, long d, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_f64(rowMajor, n, d);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_f64_progress(rowMajor, n, d, reporter.Callback));
            return this;
        }

        /// <summary>As <see cref="Fit(double[], long, long, CancellationToken, IProgress{FitProgress})"/> with n sample weights.</summary>
        public KernelKMeans Fit(double[] rowMajor, long n, long d, double[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_weighted_f64(rowMajor, n, d, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_weighted_f64_progress(rowMajor, n, d, weights, reporter.Callback));
            return this;
        }

        /// <summary>Fits on the rows of a jagged array (n rows of d values each; copied once into one row-major array).</summary>
        /// <param name="x">n rows, each of the same length d.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public KernelKMeans Fit(float[][] x, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            long n, d;
            float[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Fit(flat, n, d, cancellationToken, progress);
        }

        /// <summary>As <see cref="Fit(float[][], CancellationToken, IProgress{FitProgress})"/> with n sample weights.</summary>
        /// <param name="x">n rows, each of the same length d.</param>
        /// <param name="weights">n non-negative sample weights.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        public KernelKMeans Fit(float[][] x, float[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            long n, d;
            float[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Fit(flat, n, d, weights, cancellationToken, progress);
        }

        /// <summary>
        /// Fits on the rows of a jagged array (n rows of d values each; copied once into one
        /// row-major array); computation runs in float32.
        /// </summary>
        /// <param name="x">n rows, each of the same length d.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public KernelKMeans Fit(double[][] x, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Fit(flat, n, d, cancellationToken, progress);
        }

        /// <summary>As <see cref="Fit(double[][], CancellationToken, IProgress{FitProgress})"/> with n sample weights.</summary>
        /// <param name="x">n rows, each of the same length d.</param>
        /// <param name="weights">n non-negative sample weights.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        public KernelKMeans Fit(double[][] x, double[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                IProgress<FitProgress> progress = null)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Fit(flat, n, d, weights, cancellationToken, progress);
        }

        /// <summary>
        /// Fits kernel knn or heat on a graph instead of points: the symmetric n × n affinity
        /// matrix A in compressed sparse rows (scipy's csr_matrix layout): node i's neighbours
        /// are indices[indptr[i]] to indices[indptr[i + 1] - 1], with the weights at the same
        /// places of values. A must be symmetric (A[i, j] == A[j, i] exactly; pass (A + Aᵀ)/2 for
        /// a directed graph), its weights finite and ≥ 0, and every node needs an edge (a
        /// self-loop counts); repeated entries of one pair are summed. The parameters neighbors
        /// and graph do not apply. The graph is copied.
        /// </summary>
        /// <remarks>
        /// The fitted model predicts affinity rows: <see cref="Predict(double[,])"/> and
        /// <see cref="Distances(double[,])"/> take rows of n values (<see cref="NumFeatures"/> is n),
        /// each new node's weights to the n training nodes; a training node's own row of A gets
        /// its training label.
        /// </remarks>
        /// <param name="n">The number of nodes.</param>
        /// <param name="indptr">n + 1 offsets into indices: 0, then non-decreasing.</param>
        /// <param name="indices">indptr[n] column indices in [0, n).</param>
        /// <param name="values">indptr[n] weights, or null for every weight 1.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        /// <exception cref="ArgumentNullException">indptr or indices is null.</exception>
        /// <exception cref="ArgumentException">An array's length does not match n and indptr[n], an offset or column is out of range, the kernel is not knn or heat, or k &gt; n.</exception>
        /// <exception cref="KKMeansException">A negative or non-finite weight, an asymmetric pair or a node without edges (<see cref="Status.InvalidData"/>; the message names it).</exception>
        public KernelKMeans FitGraph(long n, long[] indptr, long[] indices, float[] values = null,
                                     CancellationToken cancellationToken = default(CancellationToken),
                                     IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (indptr == null) throw new ArgumentNullException(nameof(indptr));
            if (indices == null) throw new ArgumentNullException(nameof(indices));
            if (values == null)
            {
                values = new float[indices.LongLength];
                for (long i = 0; i < values.LongLength; ++i) values[i] = 1.0f;
            }
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_graph(n, indptr, indices, values);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_graph_progress(n, indptr, indices, values, reporter.Callback));
            return this;
        }

        // ------------------------------------------------------------------ streams and files
        //
        // PartialFit fits data that arrive in batches (scikit-learn's partial_fit; the library's
        // kkm_partial_fit), for the feature methods nystrom, sketch and rff and for minibatch with
        // tau > 0 (its later batches run ceil(n / batch_size) more truncated mini-batch iterations,
        // at most max_iter, drawn from their rows; at most k (tau + batch_size) rows kept). The first batch (or
        // the first after a parameter was set) is fitted as Fit fits it: its landmarks, random
        // features and gamma stay for the whole stream (nystrom and sketch need at least m rows
        // in it). Every later batch moves the centres by Sculley's mini-batch update, so that
        // each centre is the running mean of every row assigned to it so far; no past batch is
        // kept. Afterwards Labels and Objective describe the last batch, ClusterSizes the weight
        // each centre has received over the stream, Iterations the first fit's iterations plus
        // one per later batch (minibatch: its iterations); Predict labels any rows with the current
        // centres. Methods that need every row at once (exact, minibatch with tau=0, kernels knn, heat, precomputed, refine
        // hartigan) are refused with an ArgumentException naming kkm_partial_fit, as is a batch
        // of another width, a first batch of fewer than m rows and a starting partition
        // (InitCentres, InitLabels). A failed or cancelled batch leaves the stream as it was; a
        // later batch (one pass over its rows) reports no progress before "done", so a token
        // cancels it only before it starts.

        /// <summary>Fits one batch of a stream: the rows of x (n × d). See the section comment above.</summary>
        /// <param name="x">n rows × d columns (d: the stream's, after its first batch).</param>
        /// <param name="cancellationToken">Cancels the batch: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the batch.</param>
        /// <exception cref="ArgumentException">The method needs every row at once (the message names kkm_partial_fit), d differs from the stream's, or the first batch has fewer than m rows.</exception>
        /// <exception cref="KKMeansException">x holds NaN/Inf (<see cref="Status.InvalidData"/>).</exception>
        public KernelKMeans PartialFit(float[,] x, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.partial_fit(x);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.partial_fit_progress(x, reporter.Callback));
            return this;
        }

        /// <summary>
        /// As <see cref="PartialFit(float[,], CancellationToken, IProgress{FitProgress})"/> with n non-negative
        /// sample weights (a centre's running mean weighs each row by its weight; ClusterSizes sums them).
        /// </summary>
        public KernelKMeans PartialFit(float[,] x, float[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.partial_fit_weighted(x, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.partial_fit_weighted_progress(x, weights, reporter.Callback));
            return this;
        }

        /// <summary>As <see cref="PartialFit(float[,], CancellationToken, IProgress{FitProgress})"/>; x is converted to float32 (one copy).</summary>
        public KernelKMeans PartialFit(double[,] x, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            return PartialFit(Single(x), cancellationToken, progress);
        }

        /// <summary>As <see cref="PartialFit(float[,], float[], CancellationToken, IProgress{FitProgress})"/>; x and weights are converted to float32.</summary>
        public KernelKMeans PartialFit(double[,] x, double[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            if (weights == null) throw new ArgumentNullException(nameof(weights));
            return PartialFit(Single(x), Single(weights), cancellationToken, progress);
        }

        /// <summary>One batch of n rows of d values stored row-major in rowMajor (length n·d).</summary>
        public KernelKMeans PartialFit(float[] rowMajor, long n, long d, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.partial_fit(rowMajor, n, d);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.partial_fit_progress(rowMajor, n, d, reporter.Callback));
            return this;
        }

        /// <summary>As <see cref="PartialFit(float[], long, long, CancellationToken, IProgress{FitProgress})"/> with n sample weights.</summary>
        public KernelKMeans PartialFit(float[] rowMajor, long n, long d, float[] weights,
                                       CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.partial_fit_weighted(rowMajor, n, d, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.partial_fit_weighted_progress(rowMajor, n, d, weights, reporter.Callback));
            return this;
        }

        /// <summary>One batch of the rows of a jagged array (n rows of d values each; copied once into one row-major array).</summary>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public KernelKMeans PartialFit(float[][] x, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            long n, d;
            float[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return PartialFit(flat, n, d, cancellationToken, progress);
        }

        /// <summary>As <see cref="PartialFit(float[][], CancellationToken, IProgress{FitProgress})"/>; the values are converted to float32.</summary>
        public KernelKMeans PartialFit(double[][] x, CancellationToken cancellationToken = default(CancellationToken),
                                       IProgress<FitProgress> progress = null)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return PartialFit(Single(flat), n, d, cancellationToken, progress);
        }

        /// <summary>
        /// Fits the rows of a file of raw little-endian float32 values, d per row (the library's
        /// kkm_fit_file): the library maps the file read-only and reads it in place, so the rows
        /// never enter managed memory and a file larger than the memory can be fitted (its pages
        /// come and go through the page cache). The result equals Fit on the same values. The
        /// file must not be truncated while the fit runs.
        /// </summary>
        /// <param name="path">The file.</param>
        /// <param name="d">The number of values per row.</param>
        /// <param name="cancellationToken">Cancels the fit: <see cref="OperationCanceledException"/>, model unchanged.</param>
        /// <param name="progress">Receives (stage, fraction) reports during the fit.</param>
        /// <exception cref="ArgumentNullException">path is null.</exception>
        /// <exception cref="ArgumentException">d &lt;= 0, the file's size is not a multiple of 4·d, or the parameters do not fit the data.</exception>
        /// <exception cref="KKMeansException">The file cannot be opened or mapped, is empty or is not a regular file (<see cref="Status.IO"/>; the message names it), or holds NaN/Inf (<see cref="Status.InvalidData"/>).</exception>
        public KernelKMeans FitFile(string path, long d, CancellationToken cancellationToken = default(CancellationToken),
                                    IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (path == null) throw new ArgumentNullException(nameof(path));
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_file(path, d);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_file_progress(path, d, reporter.Callback));
            return this;
        }

        /// <summary>As <see cref="FitFile(string, long, CancellationToken, IProgress{FitProgress})"/> with one non-negative weight per row of the file.</summary>
        /// <exception cref="ArgumentException">Also when weights does not hold one value per row of the file.</exception>
        public KernelKMeans FitFile(string path, long d, float[] weights, CancellationToken cancellationToken = default(CancellationToken),
                                    IProgress<FitProgress> progress = null)
        {
            NativeModel m = Model;
            if (path == null) throw new ArgumentNullException(nameof(path));
            if (weights == null) throw new ArgumentNullException(nameof(weights));
            if (!cancellationToken.CanBeCanceled && progress == null)
            {
                m.fit_file_weighted(path, d, weights);
                return this;
            }
            cancellationToken.ThrowIfCancellationRequested();
            var reporter = new FitReporter(cancellationToken, progress);
            reporter.Finish(m.fit_file_weighted_progress(path, d, weights, reporter.Callback));
            return this;
        }

        private static float[,] Single(double[,] x)
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            var single = new float[x.GetLength(0), x.GetLength(1)];
            for (int i = 0; i < x.GetLength(0); ++i)
            {
                for (int j = 0; j < x.GetLength(1); ++j) single[i, j] = (float)x[i, j];
            }
            return single;
        }

        private static float[] Single(double[] values)
        {
            var single = new float[values.LongLength];
            for (long i = 0; i < values.LongLength; ++i) single[i] = (float)values[i];
            return single;
        }

        // ------------------------------------------------------------------ predict

        /// <summary>The nearest fitted centre (0-based) of each row of x.</summary>
        public int[] Predict(float[,] x)
        {
            NativeModel m = Model;
            if (x == null) throw new ArgumentNullException(nameof(x));
            int[] labels = new int[x.GetLength(0)];
            m.assign(x, labels);
            return labels;
        }

        /// <summary>The nearest fitted centre (0-based) of each of n row-major rows of d values.</summary>
        public int[] Predict(float[] rowMajor, long n, long d)
        {
            NativeModel m = Model;
            if (rowMajor == null) throw new ArgumentNullException(nameof(rowMajor));
            int[] labels = new int[Rows(n, rowMajor.LongLength)];
            m.assign(rowMajor, n, d, labels);
            return labels;
        }

        /// <summary>The nearest fitted centre (0-based) of each row of x.</summary>
        public int[] Predict(double[,] x)
        {
            NativeModel m = Model;
            if (x == null) throw new ArgumentNullException(nameof(x));
            int[] labels = new int[x.GetLength(0)];
            m.assign_f64(x, labels);
            return labels;
        }

        /// <summary>The nearest fitted centre (0-based) of each of n row-major rows of d values.</summary>
        public int[] Predict(double[] rowMajor, long n, long d)
        {
            NativeModel m = Model;
            if (rowMajor == null) throw new ArgumentNullException(nameof(rowMajor));
            int[] labels = new int[Rows(n, rowMajor.LongLength)];
            m.assign_f64(rowMajor, n, d, labels);
            return labels;
        }

        /// <summary>
        /// As <see cref="Predict(double[,])"/>, also giving each row's squared distance to its
        /// centre (kernel-space for exact and nystrom, feature-space for sketch and rff).
        /// </summary>
        public int[] Predict(double[,] x, out double[] distances)
        {
            NativeModel m = Model;
            if (x == null) throw new ArgumentNullException(nameof(x));
            int[] labels = new int[x.GetLength(0)];
            double[] dist = new double[labels.Length];
            m.assign_distances_f64(x, labels, dist);
            distances = dist;
            return labels;
        }

        /// <summary>
        /// As <see cref="Predict(double[], long, long)"/>, also giving each row's squared
        /// distance to its centre.
        /// </summary>
        public int[] Predict(double[] rowMajor, long n, long d, out double[] distances)
        {
            NativeModel m = Model;
            if (rowMajor == null) throw new ArgumentNullException(nameof(rowMajor));
            int[] labels = new int[Rows(n, rowMajor.LongLength)];
            double[] dist = new double[labels.Length];
            m.assign_distances_f64(rowMajor, n, d, labels, dist);
            distances = dist;
            return labels;
        }

        /// <summary>The nearest fitted centre (0-based) of each row of a jagged array (rows of d values).</summary>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public int[] Predict(float[][] x)
        {
            long n, d;
            float[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Predict(flat, n, d);
        }

        /// <summary>The nearest fitted centre (0-based) of each row of a jagged array (rows of d values).</summary>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public int[] Predict(double[][] x)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Predict(flat, n, d);
        }

        /// <summary>
        /// As <see cref="Predict(double[][])"/>, also giving each row's squared distance to its centre.
        /// </summary>
        public int[] Predict(double[][] x, out double[] distances)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Predict(flat, n, d, out distances);
        }

        // ------------------------------------------------------------------ distances
        //
        // The squared distance of each row to every fitted centre, measured as the fit
        // measures its objective: kernel-space for exact, minibatch and nystrom, feature-space
        // for sketch and rff. Each row's first minimum is at Predict's label and equals the
        // distance Predict(x, out distances) reports. With kernel=precomputed only sketch and
        // rff have them (the others need k(x, x)): ArgumentException.

        /// <summary>
        /// The squared distance of each row of x to every fitted centre: an n × <see cref="NumClusters"/> array.
        /// </summary>
        /// <exception cref="ArgumentException">x has the wrong number of columns, or kernel=precomputed with method exact, minibatch or nystrom.</exception>
        /// <exception cref="KKMeansException">The model is not fitted (<see cref="Status.NotFitted"/>), or x holds NaN/Inf.</exception>
        public double[,] Distances(double[,] x)
        {
            NativeModel m = Model;
            if (x == null) throw new ArgumentNullException(nameof(x));
            double[,] distances = new double[x.GetLength(0), m.k()];
            m.distances_f64(x, distances);
            return distances;
        }

        /// <summary>
        /// The squared distance of each of n row-major rows of d values to every fitted centre:
        /// n × <see cref="NumClusters"/> values, row-major (row i's distance to centre j at i × k + j).
        /// </summary>
        public double[] Distances(double[] rowMajor, long n, long d)
        {
            NativeModel m = Model;
            if (rowMajor == null) throw new ArgumentNullException(nameof(rowMajor));
            long k = m.k();
            long rows = Rows(n, rowMajor.LongLength);
            double[] distances = new double[rows <= long.MaxValue / k ? rows * k : 0];
            m.distances_f64(rowMajor, n, d, distances);
            return distances;
        }

        /// <summary>The squared distance of each row of a jagged array to every fitted centre: one double[NumClusters] per row.</summary>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public double[][] Distances(double[][] x)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Jagged.Split(Distances(flat, n, d), n);
        }

        // ------------------------------------------------------------------ transform
        //
        // The feature map of an approximate method (nystrom, sketch, rff): k-means on these
        // features is what the fit solved. method=exact has none (ArgumentException).

        /// <summary>
        /// The <see cref="FeatureDim"/> features (float32) of each row of x under the fitted
        /// feature map; an n × FeatureDim array.
        /// </summary>
        /// <exception cref="ArgumentException">method=exact (no explicit features), or x has the wrong number of columns.</exception>
        /// <exception cref="KKMeansException">The model is not fitted (<see cref="Status.NotFitted"/>), or x holds NaN/Inf.</exception>
        public float[,] Transform(float[,] x)
        {
            NativeModel m = Model;
            if (x == null) throw new ArgumentNullException(nameof(x));
            float[,] features = new float[x.GetLength(0), m.feature_dim()];
            m.transform(x, features);
            return features;
        }

        /// <summary>As <see cref="Transform(float[,])"/>; x is converted to float32 (one copy).</summary>
        public float[,] Transform(double[,] x)
        {
            if (x == null) throw new ArgumentNullException(nameof(x));
            var single = new float[x.GetLength(0), x.GetLength(1)];
            for (int i = 0; i < x.GetLength(0); ++i)
            {
                for (int j = 0; j < x.GetLength(1); ++j) single[i, j] = (float)x[i, j];
            }
            return Transform(single);
        }

        /// <summary>
        /// The features of n row-major rows of d values: n × <see cref="FeatureDim"/> floats, row-major.
        /// </summary>
        public float[] Transform(float[] rowMajor, long n, long d)
        {
            NativeModel m = Model;
            if (rowMajor == null) throw new ArgumentNullException(nameof(rowMajor));
            long dim = m.feature_dim();
            long rows = Rows(n, rowMajor.LongLength);
            float[] features = new float[dim > 0 && rows <= long.MaxValue / dim ? rows * dim : 0];
            m.transform(rowMajor, n, d, features);
            return features;
        }

        /// <summary>The features of each row of a jagged array: one float[FeatureDim] per row.</summary>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public float[][] Transform(float[][] x)
        {
            long n, d;
            float[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            return Jagged.Split(Transform(flat, n, d), n);
        }

        /// <summary>
        /// The features of each row of a jagged array: one float[FeatureDim] per row; x is
        /// converted to float32 (one copy).
        /// </summary>
        /// <exception cref="ArgumentNullException">x or one of its rows is null (the message names the row).</exception>
        /// <exception cref="ArgumentException">x has no rows, or a row's length differs from row 0's (the message names the row).</exception>
        public float[][] Transform(double[][] x)
        {
            long n, d;
            double[] flat = Jagged.Flatten(x, nameof(x), out n, out d);
            float[] single = new float[flat.LongLength];
            for (long i = 0; i < flat.LongLength; ++i) single[i] = (float)flat[i];
            return Jagged.Split(Transform(single, n, d), n);
        }

        // Room for the labels of n rows: n when it is plausible, else 0 and the library reports
        // what is wrong with n, d or the array (no huge allocation for a bad n).
        private static long Rows(long n, long values)
        {
            return n > 0 && n <= values ? n : 0;
        }

        // ------------------------------------------------------------------ fitted results

        /// <summary>Cluster (0-based) of each training row of the last fit: its nearest centre,
        /// what Predict gives it (for nystrom with rank or features of half kernel rows, up to their
        /// rounding at near-ties). A fit
        /// stopped by tol or max_iter keeps the centres its last step measured, the means of the
        /// labels before it; at a fixed point (tol=0) they are the means of these labels
        /// (refine=hartigan: always).</summary>
        public int[] Labels
        {
            get
            {
                NativeModel m = Model;
                int[] labels = new int[m.n_train()];
                m.labels(labels);
                return labels;
            }
        }

        /// <summary>Weight (number of rows, or sum of their weights) of each cluster.</summary>
        public double[] ClusterSizes
        {
            get
            {
                NativeModel m = Model;
                double[] sizes = new double[m.k()];
                m.cluster_sizes(sizes);
                return sizes;
            }
        }

        /// <summary>Objective of the fit: weighted sum of squared distances to the centres (kernel=knn:
        /// each row weighted by its degree in the neighbour graph).</summary>
        public double Objective
        {
            get { return Model.objective(); }
        }

        /// <summary>Lloyd iterations run by the best restart.</summary>
        public int Iterations
        {
            get { return Model.iterations(); }
        }

        /// <summary>Number of clusters of the fitted model.</summary>
        public int NumClusters
        {
            get { return Model.k(); }
        }

        /// <summary>Number of training rows of the last fit.</summary>
        public long NumTrain
        {
            get { return Model.n_train(); }
        }

        /// <summary>Number of columns the model was fitted on.</summary>
        public long NumFeatures
        {
            get { return Model.n_features(); }
        }

        /// <summary>Dimension of an approximate method's feature space (0 for exact).</summary>
        public long FeatureDim
        {
            get { return Model.feature_dim(); }
        }

        /// <summary>
        /// The fitted centres in the explicit feature space of nystrom, sketch, rff and the heat
        /// kernel (the space their fit runs k-means in, the space of <see cref="Transform(float[,])"/>): a
        /// <see cref="NumClusters"/> × <see cref="FeatureDim"/> array; each training row's label
        /// is its nearest centre there.
        /// </summary>
        /// <exception cref="ArgumentException">The model has no explicit centres: methods exact and minibatch and the kernel knn, whose centres are weighted sums of training points (use <see cref="Distances(double[,])"/>).</exception>
        /// <exception cref="KKMeansException">The model is not fitted (<see cref="Status.NotFitted"/>).</exception>
        public float[,] Centres
        {
            get
            {
                NativeModel m = Model;
                int k = m.k();
                long dim = m.feature_dim();
                if (dim <= 0)
                {
                    m.centres(new float[1]);  // throws: the library says why the model has no explicit centres
                    throw new ArgumentException("this model has no explicit centres");
                }
                var flat = new float[k * dim];
                m.centres(flat);
                var centres = new float[k, dim];
                Buffer.BlockCopy(flat, 0, centres, 0, flat.Length * sizeof(float));
                return centres;
            }
        }

        /// <summary>
        /// What the last fit's gamma=search / k=auto scored, one entry per candidate in the
        /// order scanned; empty when the fit did not search. Kept by ToBytes and Save.
        /// </summary>
        public SearchPoint[] Search
        {
            get
            {
                NativeModel m = Model;
                long count = m.search_count();
                double[] gammas = new double[count];
                int[] ks = new int[count];
                double[] scores = new double[count];
                int[] criteria = new int[count];
                m.search_gammas(gammas);
                m.search_ks(ks);
                m.search_scores(scores);
                m.search_criteria(criteria);
                SearchPoint[] points = new SearchPoint[count];
                for (long i = 0; i < count; i++)
                {
                    points[i] = new SearchPoint(gammas[i], ks[i], scores[i], (SearchCriterion)criteria[i]);
                }
                return points;
            }
        }

        /// <summary>Wall-clock seconds of the last fit's stages, "stage=seconds ...".</summary>
        public string Timings
        {
            get { return Model.timings(); }
        }

        // ------------------------------------------------------------------ persistence

        /// <summary>The fitted model as the library's self-contained, versioned byte string.</summary>
        public byte[] ToBytes()
        {
            NativeModel m = Model;
            byte[] bytes = new byte[m.save_size()];
            m.save_buffer(bytes);
            return bytes;
        }

        /// <summary>A model restored from <see cref="ToBytes"/>'s output.</summary>
        public static KernelKMeans FromBytes(byte[] bytes)
        {
            if (bytes == null) throw new ArgumentNullException(nameof(bytes));
            KernelKMeans restored = new KernelKMeans();
            try
            {
                restored.Model.load_buffer(bytes);
            }
            catch
            {
                restored.Dispose();
                throw;
            }
            return restored;
        }

        /// <summary>Writes the fitted model to a file (created or truncated).</summary>
        public void Save(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            Model.save(path);
        }

        /// <summary>A model restored from a file written by <see cref="Save"/>.</summary>
        public static KernelKMeans Load(string path)
        {
            if (path == null) throw new ArgumentNullException(nameof(path));
            KernelKMeans restored = new KernelKMeans();
            try
            {
                restored.Model.load(path);
            }
            catch
            {
                restored.Dispose();
                throw;
            }
            return restored;
        }
    }

    /// <summary>What a <see cref="SearchPoint"/> was scored by (the C API's KKM_SEARCH_* numbers).</summary>
    public enum SearchCriterion
    {
        /// <summary>Mean adjusted Rand index of fits on two halves of the subsample, in [-1, 1].</summary>
        Stability = 0,
        /// <summary>Trace of a reference kernel projected on the clusters (positive).</summary>
        Matr = 1,
    }

    /// <summary>One candidate that gamma=search / k=auto scored (see <see cref="KernelKMeans.Search"/>).</summary>
    public sealed class SearchPoint
    {
        internal SearchPoint(double gamma, int k, double score, SearchCriterion criterion)
        {
            Gamma = gamma;
            K = k;
            Score = score;
            Criterion = criterion;
        }

        /// <summary>The candidate's kernel scale (0 for a kernel without one).</summary>
        public double Gamma { get; }

        /// <summary>The candidate's number of clusters.</summary>
        public int K { get; }

        /// <summary>The criterion's score; higher is better.</summary>
        public double Score { get; }

        /// <summary>The criterion the score is.</summary>
        public SearchCriterion Criterion { get; }

        /// <summary>"gamma=... k=... score=... criterion=..." (invariant culture).</summary>
        public override string ToString()
        {
            return string.Format(CultureInfo.InvariantCulture, "gamma={0:R} k={1} score={2:R} criterion={3}",
                                 Gamma, K, Score, Criterion);
        }
    }

    /// <summary>Agreement between two labelings of the same items.</summary>
    public static class Metrics
    {
        /// <summary>Adjusted Rand index: 1 for identical partitions, about 0 for independent ones.</summary>
        public static double AdjustedRandIndex(int[] a, int[] b)
        {
            if (a == null) throw new ArgumentNullException(nameof(a));
            if (b == null) throw new ArgumentNullException(nameof(b));
            NativeLoader.EnsureLoaded();
            return NativeModel.adjusted_rand_index(a, b);
        }

        /// <summary>Normalized mutual information (arithmetic-mean normalisation).</summary>
        public static double NormalizedMutualInfo(int[] a, int[] b)
        {
            if (a == null) throw new ArgumentNullException(nameof(a));
            if (b == null) throw new ArgumentNullException(nameof(b));
            NativeLoader.EnsureLoaded();
            return NativeModel.normalized_mutual_info(a, b);
        }
    }
}
