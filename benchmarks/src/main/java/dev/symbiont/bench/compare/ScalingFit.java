package dev.symbiont.bench.compare;

import java.util.List;

/**
 * A power law y = c·x^k fitted by least squares on log y against log x: the scaling exponent k
 * of a cost against a size (1: linear, 2: quadratic, 0: constant), its prefactor c, and R² of
 * the fit in log space. Points with x ≤ 0 or y ≤ 0 have no logarithm and are left out.
 *
 * @param exponent k
 * @param factor   c
 * @param r2       the fraction of the variance of log y the line explains (1 when it is exact; 1 too for a constant y)
 * @param points   how many points were fitted
 */
public record ScalingFit(double exponent, double factor, double r2, int points) {

    /** The fit of ys against xs (the same length, at least two usable points with different x). */
    public static ScalingFit of(double[] xs, double[] ys) {
        if (xs.length != ys.length) throw new IllegalArgumentException("ScalingFit: " + xs.length + " x values but " + ys.length + " y values");
        int n = 0;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (int i = 0; i < xs.length; i++) {
            if (!(xs[i] > 0 && ys[i] > 0) || !Double.isFinite(xs[i]) || !Double.isFinite(ys[i])) continue;
            double lx = Math.log(xs[i]), ly = Math.log(ys[i]);
            n++;
            sx += lx; sy += ly; sxx += lx * lx; sxy += lx * ly;
        }
        double vx = sxx - sx * sx / Math.max(n, 1);
        if (n < 2 || vx <= 1e-12) {
            throw new IllegalArgumentException("ScalingFit: need two positive points with different x, got " + n + " usable of " + xs.length);
        }
        double k = (sxy - sx * sy / n) / vx, logC = (sy - k * sx) / n;
        double ssRes = 0, ssTot = 0, meanY = sy / n;
        for (int i = 0; i < xs.length; i++) {
            if (!(xs[i] > 0 && ys[i] > 0) || !Double.isFinite(xs[i]) || !Double.isFinite(ys[i])) continue;
            double ly = Math.log(ys[i]), fit = logC + k * Math.log(xs[i]);
            ssRes += (ly - fit) * (ly - fit);
            ssTot += (ly - meanY) * (ly - meanY);
        }
        return new ScalingFit(k, Math.exp(logC), ssTot <= 1e-24 ? 1 : 1 - ssRes / ssTot, n);
    }

    /** The fit of a value of measured points against their x. */
    public static ScalingFit of(List<Point> points, String value) {
        double[] xs = points.stream().mapToDouble(Point::x).toArray();
        double[] ys = points.stream().mapToDouble(p -> p.value(value)).toArray();
        return of(xs, ys);
    }

    /**
     * The fit over the upper half of the points by x (at least the last two): the exponent where
     * the sizes are largest, which is where an asymptotic claim (O(n²)) can show.
     */
    public static ScalingFit ofUpperHalf(List<Point> points, String value) {
        int from = Math.min(points.size() / 2, Math.max(0, points.size() - 2));
        return of(points.subList(from, points.size()), value);
    }

    /** The fitted y at x. */
    public double at(double x) { return factor * Math.pow(x, exponent); }
}
