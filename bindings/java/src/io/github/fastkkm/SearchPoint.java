package io.github.fastkkm;

/**
 * One candidate that a fit's {@code gamma=search} / {@code k=auto} scored (see
 * {@link KernelKMeans#search()}): its kernel scale, number of clusters, score and criterion.
 * Immutable.
 */
public final class SearchPoint {
    private final double gamma;
    private final int k;
    private final double score;
    private final String criterion;

    SearchPoint(double gamma, int k, double score, String criterion) {
        this.gamma = gamma;
        this.k = k;
        this.score = score;
        this.criterion = criterion;
    }

    /**
     * The candidate's kernel scale.
     *
     * @return gamma (0 for a kernel without one)
     */
    public double gamma() {
        return gamma;
    }

    /**
     * The candidate's number of clusters.
     *
     * @return k
     */
    public int k() {
        return k;
    }

    /**
     * The criterion's score.
     *
     * @return the score; higher is better
     */
    public double score() {
        return score;
    }

    /**
     * The criterion the score is: "stability" (mean adjusted Rand index of fits on two halves
     * of the subsample, in [-1, 1]) or "matr" (trace of a reference kernel projected on the
     * clusters, positive).
     *
     * @return "stability" or "matr"
     */
    public String criterion() {
        return criterion;
    }

    /** The name of a KKM_SEARCH_* code of the C API (kkmeans.h). */
    static String criterionName(int code) {
        switch (code) {
            case 0: return "stability";
            case 1: return "matr";
            default: return "criterion " + code;
        }
    }

    @Override
    public String toString() {
        return "SearchPoint(gamma=" + gamma + ", k=" + k + ", score=" + score + ", criterion=" + criterion + ")";
    }
}
