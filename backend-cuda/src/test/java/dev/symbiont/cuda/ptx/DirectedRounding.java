package dev.symbiont.cuda.ptx;

import java.math.BigDecimal;

/**
 * The directed IEEE rounding modes of PTX ({@code .rz}, {@code .rm}, {@code .rp}) for add, sub,
 * mul, div, fma and sqrt in .f32 and .f64 (libdevice's expf reduces its argument with
 * {@code fma.rm.f32}). Each operation yields the round-to-nearest double {@code s} of the exact
 * result and the sign of the remainder {@code exact - s} (error-free transformations); the
 * directed result then follows from {@code s} and that sign without ever rounding twice.
 */
final class DirectedRounding {
    private DirectedRounding() {}

    enum Mode { ZERO, DOWN, UP }

    /** The directed mode an instruction names; null for round-to-nearest. */
    static Mode mode(Insn in) {
        if (in.has("rz")) return Mode.ZERO;
        if (in.has("rm")) return Mode.DOWN;
        if (in.has("rp")) return Mode.UP;
        return null;
    }

    static double add(double a, double b, boolean f64, Mode m) {
        double s = a + b, bb = s - a;
        return round(s, (a - (s - bb)) + (b - bb), f64, m);
    }

    static double mul(double a, double b, boolean f64, Mode m) {
        double p = a * b;
        return round(p, Math.fma(a, b, -p), f64, m);
    }

    static double div(double a, double b, boolean f64, Mode m) {
        double q = a / b;
        return round(q, Math.fma(-q, b, a) * Math.signum(b), f64, m);
    }

    static double sqrt(double a, boolean f64, Mode m) {
        double q = Math.sqrt(a);
        return round(q, Math.fma(-q, q, a), f64, m);
    }

    static double fma(double a, double b, double c, boolean f64, Mode m) {
        if (!f64) return add(a * b, c, false, m); // a product of two floats is exact in double
        if (!Double.isFinite(a) || !Double.isFinite(b) || !Double.isFinite(c)) return Math.fma(a, b, c);
        BigDecimal exact = new BigDecimal(a).multiply(new BigDecimal(b)).add(new BigDecimal(c));
        double s = Math.fma(a, b, c);
        return round(s, Double.isFinite(s) ? exact.compareTo(new BigDecimal(s)) : 0, true, m);
    }

    /** Rounds the exact value {@code s + err} (only err's sign matters; |err| below half an ulp of s) to the type. */
    static double round(double s, double err, boolean f64, Mode m) {
        if (Double.isNaN(s) || Double.isNaN(err)) return s;
        if (f64) {
            if (err == 0 || Double.isInfinite(s)) return s;
            boolean down = m == Mode.DOWN || m == Mode.ZERO && s > 0;
            boolean up = m == Mode.UP || m == Mode.ZERO && s < 0;
            if (down && err < 0) return Math.nextDown(s);
            if (up && err > 0) return Math.nextUp(s);
            return s;
        }
        float f = (float) s;
        // The sign of f - exact: f != s decides it, as no double lies strictly between s and exact.
        int above = f > s ? 1 : f < s ? -1 : err > 0 ? -1 : err < 0 ? 1 : 0;
        if (above == 0) return f;
        boolean positive = s > 0 || s == 0 && err > 0;
        boolean down = m == Mode.DOWN || m == Mode.ZERO && positive;
        if (down) return above > 0 ? Math.nextDown(f) : f;
        return above < 0 ? Math.nextUp(f) : f;
    }
}
