package dev.symbiont.core.profile;

import java.util.Locale;

/**
 * Formats a {@link ProfileReport} like torch.profiler's {@code key_averages().table()}: the op
 * rows by self time with their share, then the categories, then memory per backend. Times are
 * milliseconds; FLOPs and bytes use SI prefixes (k, M, G, T); "GFLOP/s" is shown only where
 * FLOPs were estimated, and "-" elsewhere so a missing estimate is not mistaken for a slow op.
 */
final class ReportTable {
    private ReportTable() {}

    static String format(ProfileReport r) {
        StringBuilder out = new StringBuilder();
        long self = r.selfNanos();
        out.append(String.format(Locale.ROOT, "Profile '%s': wall %.3f ms, recorded self time %.3f ms (%.1f%% of wall) on %d thread%s%n",
                r.label(), ms(r.wallNanos()), ms(self), percent(self, r.wallNanos()), r.threads(), r.threads() == 1 ? "" : "s"));
        int width = "Total".length();
        for (ProfileReport.OpRow row : r.ops()) width = Math.max(width, row.name().length());
        width = Math.min(width, 48);
        String opFormat = "%-" + width + "s  %-13s %9s %11s %7s %11s %8s %9s %8s%n";
        out.append(String.format(Locale.ROOT, opFormat, "Op", "Category", "Calls", "Self ms", "Self %", "Total ms", "FLOPs", "GFLOP/s", "Bytes"));
        out.append("-".repeat(width + 87)).append('\n');
        for (ProfileReport.OpRow row : r.ops()) {
            out.append(String.format(Locale.ROOT, opFormat, clip(row.name(), width), row.category().displayName(), row.calls(),
                    fixed(ms(row.selfNanos())), pct(row.share()), fixed(ms(row.totalNanos())), si(row.flops()),
                    rate(row.flops(), row.gflopsPerSecond()), si(row.bytes())));
        }
        long calls = r.ops().stream().mapToLong(ProfileReport.OpRow::calls).sum();
        out.append(String.format(Locale.ROOT, opFormat, "Total", "", calls, fixed(ms(self)), pct(self == 0 ? 0 : 1), "",
                si(r.flops()), "", ""));
        out.append('\n');

        String catFormat = "%-13s %9s %11s %7s %8s %9s %8s%n";
        out.append(String.format(Locale.ROOT, catFormat, "Category", "Calls", "Self ms", "Self %", "FLOPs", "GFLOP/s", "Bytes"));
        out.append("-".repeat(71)).append('\n');
        for (ProfileReport.CategoryRow row : r.categories()) {
            out.append(String.format(Locale.ROOT, catFormat, row.category().displayName(), row.calls(), fixed(ms(row.selfNanos())),
                    pct(row.share()), si(row.flops()), rate(row.flops(), row.gflopsPerSecond()), si(row.bytes())));
        }
        if (!r.fallbacks().isEmpty()) {
            out.append('\n').append("Reference fallbacks (a fast kernel did not accept the input)\n");
            r.fallbacks().forEach((what, n) -> out.append(String.format(Locale.ROOT, "  %9d  %s%n", n, what)));
        }
        out.append('\n').append("Memory (current / peak since the backend's last peak reset)\n");
        if (r.memory().isEmpty()) out.append("  no backend available\n");
        for (BackendMemory m : r.memory()) out.append("  ").append(m).append('\n');
        return out.toString();
    }

    private static double ms(long nanos) { return nanos / 1e6; }

    private static double percent(long part, long whole) { return whole == 0 ? 0 : 100.0 * part / whole; }

    private static String fixed(double v) { return String.format(Locale.ROOT, "%.3f", v); }

    private static String pct(double share) { return String.format(Locale.ROOT, "%.1f%%", 100 * share); }

    /** 3 significant digits with an SI prefix: 812, 4.10k, 93.7M, 1.20G; "-" for 0 (no estimate). */
    static String si(long v) {
        if (v == 0) return "-";
        if (v < 1000) return Long.toString(v);
        String prefixes = "kMGTPE";
        double x = v;
        int i = -1;
        while (x >= 999.5 && i < prefixes.length() - 1) {
            x /= 1000;
            i++;
        }
        String digits = x >= 99.95 ? "%.0f" : x >= 9.995 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, digits, x) + prefixes.charAt(i);
    }

    private static String rate(long flops, double gflopsPerSecond) {
        return flops == 0 ? "-" : String.format(Locale.ROOT, "%.2f", gflopsPerSecond);
    }


    private static String clip(String s, int width) { return s.length() <= width ? s : s.substring(0, width - 1) + "…"; }
}
