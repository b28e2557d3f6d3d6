package dev.symbiont.core.profile;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a {@link ProfilerSession} recorded, frozen: one row per op name, one per category, and
 * each backend's memory. Rows are sorted by self time, largest first, and carry their share of
 * the total self time — the time spent in all recorded scopes, counted once however they nest.
 * With one recording thread that total is at most the session's wall time; with a data-loader
 * worker recording too it can exceed it, which is how overlap shows.
 *
 * @param label       the session's label
 * @param wallNanos   from start to close (or to this report, for a session still open)
 * @param threads     how many threads recorded at least one scope
 * @param ops         per op name, by self time
 * @param categories  per category, by self time; only categories with calls
 * @param memory      each available backend's current and peak bytes when the report was taken
 * @param fallbacks   how often a backend's fast kernel handed an input it does not accept to the
 *                    reference, per "op: reason" (empty when none did): a silently slow path shows here
 */
public record ProfileReport(String label, long wallNanos, int threads, List<OpRow> ops,
                            List<CategoryRow> categories, List<BackendMemory> memory, Map<String, Long> fallbacks) {

    /** Builds the report from raw op rows, deriving shares and the category rows. */
    ProfileReport(String label, long wallNanos, int threads, List<OpRow> raw, List<BackendMemory> memory,
                  Map<String, Long> fallbacks) {
        this(label, wallNanos, threads, sorted(withShares(raw)), categoriesOf(raw), List.copyOf(memory),
                java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(fallbacks)));
    }

    /**
     * One op name's totals. FLOPs and bytes are inclusive (the op's own estimate, or its nested
     * ops' when it gave none); the self variants leave out what nested ops reported, so they sum
     * without double counting.
     */
    public record OpRow(String name, OpCategory category, long calls, long selfNanos, long totalNanos,
                        long flops, long selfFlops, long bytes, long selfBytes, double share) {
        OpRow(String name, OpCategory category, long calls, long selfNanos, long totalNanos,
              long flops, long selfFlops, long bytes, long selfBytes) {
            this(name, category, calls, selfNanos, totalNanos, flops, selfFlops, bytes, selfBytes, 0);
        }

        /** Inclusive FLOPs over inclusive time; 0 when no estimate was given. */
        public double gflopsPerSecond() { return totalNanos == 0 ? 0 : (double) flops / totalNanos; }
    }

    /** One category's totals: the sums of its op rows (self FLOPs and bytes, so nothing counts twice). */
    public record CategoryRow(OpCategory category, long calls, long selfNanos, long flops, long bytes, double share) {
        /** Self FLOPs over self time: the rate of the work done in this category's own code. */
        public double gflopsPerSecond() { return selfNanos == 0 ? 0 : (double) flops / selfNanos; }
    }

    /** Self time of every recorded scope, counted once. */
    public long selfNanos() { return ops.stream().mapToLong(OpRow::selfNanos).sum(); }

    /** FLOPs of every recorded scope, counted once. */
    public long flops() { return ops.stream().mapToLong(OpRow::selfFlops).sum(); }

    /** The row of an op name (in any category), if it was recorded. */
    public Optional<OpRow> op(String name) {
        return ops.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /** The row of a category; all zeros when nothing in it was recorded. */
    public CategoryRow category(OpCategory category) {
        return categories.stream().filter(r -> r.category() == category).findFirst()
                .orElse(new CategoryRow(category, 0, 0, 0, 0, 0));
    }

    /** The op table, the category table and the memory lines, formatted for a terminal. */
    public String table() { return ReportTable.format(this); }

    @Override
    public String toString() { return table(); }

    private static List<OpRow> withShares(List<OpRow> raw) {
        long total = raw.stream().mapToLong(OpRow::selfNanos).sum();
        List<OpRow> out = new ArrayList<>(raw.size());
        for (OpRow r : raw) {
            out.add(new OpRow(r.name(), r.category(), r.calls(), r.selfNanos(), r.totalNanos(), r.flops(), r.selfFlops(),
                    r.bytes(), r.selfBytes(), share(r.selfNanos(), total)));
        }
        return out;
    }

    private static List<OpRow> sorted(List<OpRow> rows) {
        List<OpRow> out = new ArrayList<>(rows);
        out.sort(Comparator.comparingLong(OpRow::selfNanos).reversed().thenComparing(OpRow::name));
        return List.copyOf(out);
    }

    private static List<CategoryRow> categoriesOf(List<OpRow> raw) {
        long total = raw.stream().mapToLong(OpRow::selfNanos).sum();
        Map<OpCategory, long[]> sums = new EnumMap<>(OpCategory.class);
        for (OpRow r : raw) {
            long[] s = sums.computeIfAbsent(r.category(), c -> new long[4]);
            s[0] += r.calls();
            s[1] += r.selfNanos();
            s[2] += r.selfFlops();
            s[3] += r.selfBytes();
        }
        List<CategoryRow> out = new ArrayList<>();
        sums.forEach((c, s) -> out.add(new CategoryRow(c, s[0], s[1], s[2], s[3], share(s[1], total))));
        out.sort(Comparator.comparingLong(CategoryRow::selfNanos).reversed().thenComparing(CategoryRow::category));
        return List.copyOf(out);
    }

    private static double share(long part, long total) { return total == 0 ? 0 : (double) part / total; }
}
