package io.github.fastkkm;

/**
 * A failure reported by the kkmeans library other than an invalid argument (those are
 * {@link IllegalArgumentException}s): invalid data, a model that is not fitted, out of memory,
 * I/O, a malformed model file, an internal error. The message is the library's.
 */
public class KKMeansException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** NaN/Inf in the data, negative weights, zero variance with gamma=auto. */
    public static final int INVALID_DATA = 2;
    /** The call needs a fitted model. */
    public static final int NOT_FITTED = 3;
    /** The memory estimate exceeds max_memory_mb, or an allocation failed. */
    public static final int OUT_OF_MEMORY = 4;
    /** A file could not be read or written. */
    public static final int IO = 5;
    /** A model file or buffer is malformed. */
    public static final int FORMAT = 6;
    /** A progress callback asked to stop. */
    public static final int CANCELLED = 7;
    /** A bug in the library: please report it with the message. */
    public static final int INTERNAL = 8;

    /** The library's kkm_status number. */
    private final int status;

    /**
     * @param status the library's kkm_status number (see the constants)
     * @param message the library's message
     */
    public KKMeansException(int status, String message) {
        super(message);
        this.status = status;
    }

    /**
     * The library's kkm_status number, e.g. {@link #NOT_FITTED}.
     *
     * @return the status number
     */
    public int status() {
        return status;
    }

    /**
     * Short English name of the status, e.g. "not fitted".
     *
     * @return the name
     */
    public String statusName() {
        switch (status) {
            case 1: return "invalid argument";
            case INVALID_DATA: return "invalid data";
            case NOT_FITTED: return "not fitted";
            case OUT_OF_MEMORY: return "out of memory";
            case IO: return "i/o error";
            case FORMAT: return "format error";
            case CANCELLED: return "cancelled";
            case INTERNAL: return "internal error";
            default: return "unknown status";
        }
    }
}
