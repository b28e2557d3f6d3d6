package dev.symbiont.core.fused;

import dev.symbiont.core.profile.Profiler;

import java.util.Map;
import java.util.Set;
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
    private static final Map<String, LongAdder> COUNTS = new ConcurrentHashMap<>();
    private static final Set<String> LOGGED = ConcurrentHashMap.newKeySet();

    private Fallbacks() {}

    /** One fallback of {@code op} (e.g. "softmax") for {@code reason} (e.g. "dim is not the last"). */
    public static void record(String op, String reason) {
        String what = op + ": " + reason;
        COUNTS.computeIfAbsent(what, k -> new LongAdder()).increment();
        Profiler.fallback(what);
        if (LOGGED.add(what) && LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "reference fallback in " + what);
        }
    }

    /** Fallbacks of {@code op} since the JVM started, over every reason. */
    public static long count(String op) {
        String prefix = op + ": ";
        long n = 0;
        for (var e : COUNTS.entrySet()) if (e.getKey().startsWith(prefix)) n += e.getValue().sum();
        return n;
    }

    /** Every "op: reason" seen so far with its count, sorted by name. */
    public static Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        COUNTS.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
