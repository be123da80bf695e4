package io.github.fastkkm;

/**
 * Receives the progress of a fit and may cancel it ({@link KernelKMeans#fit(double[][], ProgressListener)}
 * and the other fit overloads taking a listener).
 *
 * <p>It is called on the thread that runs the fit, at the start of each stage and then about
 * every 0.1 s, also during the eigen-decomposition of the "kernel+eigen" stage (a cancel
 * there returns within about 0.1 s at m = 1000 to 4000). It must not call the model being fitted.
 */
@FunctionalInterface
public interface ProgressListener {
    /**
     * One progress report.
     *
     * @param stage the running stage: "gamma", "landmarks", "kernel", "kernel+eigen", "rank",
     *     "features", "seeding", "lloyd", "minibatch", "assign", and "done" once at the end of
     *     a successful fit (stages repeat per restart when n_init &gt; 1)
     * @param fraction the part of the stage done, in [0, 1]
     * @return true to go on, false to cancel the fit: it then throws
     *     {@link FitCancelledException} and the model is as it was before the fit. An exception
     *     thrown here also cancels the fit and is rethrown to the caller of fit.
     */
    boolean onProgress(String stage, double fraction);
}
