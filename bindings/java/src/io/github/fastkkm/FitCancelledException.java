package io.github.fastkkm;

/**
 * A fit that stopped before its end because its thread was interrupted
 * ({@link Thread#interrupt()}) or its {@link ProgressListener} returned false. The model is
 * exactly as it was before the fit. Status {@link KKMeansException#CANCELLED}.
 *
 * <p>After an interrupt the thread's interrupt flag is still set (it is never cleared by
 * the library), so the code around the fit sees it as well.
 */
public class FitCancelledException extends KKMeansException {
    private static final long serialVersionUID = 1L;

    /** Whether the fitting thread was interrupted (else the listener returned false). */
    private final boolean interrupted;

    /**
     * @param message what stopped the fit
     * @param interrupted whether the fitting thread was interrupted (else the listener said stop)
     */
    public FitCancelledException(String message, boolean interrupted) {
        super(CANCELLED, message);
        this.interrupted = interrupted;
    }

    /**
     * Which cause stopped the fit.
     *
     * @return true when the fit stopped because its thread was interrupted, false when the
     *     listener returned false
     */
    public boolean interrupted() {
        return interrupted;
    }
}
