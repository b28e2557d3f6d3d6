package dev.symbiont.bench;

/**
 * A straight line t = α + β·n through measured (bytes, seconds) points: α the fixed cost of one
 * collective (latency), β the cost per byte (1/β the bandwidth). Fitted by least squares on the
 * relative residuals (weights 1/t²), so the microsecond points of small messages weigh as much
 * as the millisecond points of large ones: an unweighted fit over 8 B … 64 MiB is decided by the
 * largest few sizes alone and leaves α to their noise.
 *
 * @param alpha seconds, the intercept
 * @param beta  seconds per byte, the slope
 * @param rmsRelativeResidual the root mean square of (t − fit) / t over the points: how well a line describes them
 */
record AlphaBetaFit(double alpha, double beta, double rmsRelativeResidual) {
    /**
     * The weighted least-squares line through ({@code bytes[i]}, {@code seconds[i]}).
     * At least two distinct sizes; every time positive.
     */
    static AlphaBetaFit fit(double[] bytes, double[] seconds) {
        if (bytes.length != seconds.length || bytes.length < 2) {
            throw new IllegalArgumentException("AlphaBetaFit: needs at least two (bytes, seconds) points of equal count, got "
                    + bytes.length + " sizes and " + seconds.length + " times");
        }
        double sw = 0, sx = 0, sy = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (!(seconds[i] > 0) || !(bytes[i] >= 0)) {
                throw new IllegalArgumentException("AlphaBetaFit: point " + i + " has bytes " + bytes[i] + " and seconds " + seconds[i]
                        + "; sizes must be ≥ 0 and times positive");
            }
            double w = 1 / (seconds[i] * seconds[i]);
            sw += w;
            sx += w * bytes[i];
            sy += w * seconds[i];
        }
        double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0;
        for (int i = 0; i < bytes.length; i++) {
            double w = 1 / (seconds[i] * seconds[i]), dx = bytes[i] - mx;
            sxx += w * dx * dx;
            sxy += w * dx * (seconds[i] - my);
        }
        if (sxx == 0) throw new IllegalArgumentException("AlphaBetaFit: every point has the same size; a slope needs two sizes");
        double beta = sxy / sxx, alpha = my - beta * mx, squares = 0;
        for (int i = 0; i < bytes.length; i++) {
            double r = (seconds[i] - alpha - beta * bytes[i]) / seconds[i];
            squares += r * r;
        }
        return new AlphaBetaFit(alpha, beta, Math.sqrt(squares / bytes.length));
    }

    /** The line's time for {@code bytes}. */
    double seconds(double bytes) { return alpha + beta * bytes; }
}
