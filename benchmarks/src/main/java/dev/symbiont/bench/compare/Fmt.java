package dev.symbiont.bench.compare;

import java.util.Locale;

/** Numbers as the report prints them: few significant digits, no exponent for everyday sizes. */
final class Fmt {
    private Fmt() {}

    /** An integer-valued number without ".0", else three significant digits. */
    static String num(double v) {
        if (Double.isNaN(v)) return "–";
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
        return sig(v, 3);
    }

    /** {@code v} to {@code digits} significant digits, plain notation between 1e-4 and 1e9. */
    static String sig(double v, int digits) {
        if (Double.isNaN(v)) return "–";
        if (v == 0) return "0";
        double a = Math.abs(v);
        if (a >= 1e9 || a < 1e-4) return String.format(Locale.ROOT, "%." + (digits - 1) + "e", v);
        int decimals = Math.max(0, digits - 1 - (int) Math.floor(Math.log10(a)));
        return String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    /** Three significant digits without trailing zeros: 512, 0.25, 1.5e+10. */
    static String short3(double v) {
        String s = sig(v, 3);
        if (!s.contains(".") || s.contains("e")) return s;
        s = s.replaceAll("0+$", "");
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    /** A share as a percentage, e.g. "47.1%". */
    static String pct(double share) { return Double.isNaN(share) ? "–" : String.format(Locale.ROOT, "%.1f%%", 100 * share); }

    /** An exponent with two decimals. */
    static String exp(double k) { return Double.isNaN(k) ? "–" : String.format(Locale.ROOT, "%.2f", k); }
}
