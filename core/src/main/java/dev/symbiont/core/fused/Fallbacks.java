package dev.symbiont.core.fused;

import dev.symbiont.core.profile.Profiler;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the calls in which a backend's fast kernel did not accept its input (a layout,
 * dtype or shape it is not built for) and ran the reference instead, so a silently slow path
 * shows: in the profiler's report, in {@link #counts()}, and once per op and reason as a DEBUG
 * log line of {@code dev.symbiont.fused}.
 */
public final class Fallbacks {
    private static final System.Logger LOG = System.getLogger("dev.symbiont.fused");
    /** op → reason → count; a fallback costs two map lookups and builds no string unless profiling. */
    private static final Map<String, Map<String, LongAdder>> COUNTS = new ConcurrentHashMap<>();

    private Fallbacks() {}

    /** One fallback of {@code op} (e.g. "softmax") for {@code reason} (e.g. "dim is not the last"). */
    public static void record(String op, String reason) {
        Map<String, LongAdder> reasons = COUNTS.computeIfAbsent(op, k -> new ConcurrentHashMap<>());
        LongAdder n = reasons.get(reason);
        if (n == null) {
            n = reasons.computeIfAbsent(reason, r -> {
                if (LOG.isLoggable(System.Logger.Level.DEBUG)) LOG.log(System.Logger.Level.DEBUG, "reference fallback in " + op + ": " + r);
                return new LongAdder();
            });
        }
        n.increment();
        if (Profiler.isActive()) Profiler.fallback(op + ": " + reason);
    }

    /** Fallbacks of {@code op} since the JVM started, over every reason. */
    public static long count(String op) {
        Map<String, LongAdder> reasons = COUNTS.get(op);
        long n = 0;
        if (reasons != null) for (LongAdder a : reasons.values()) n += a.sum();
        return n;
    }

    /** Every "op: reason" seen so far with its count, sorted by name. */
    public static Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        COUNTS.forEach((op, reasons) -> reasons.forEach((reason, n) -> out.put(op + ": " + reason, n.sum())));
        return out;
    }
}
