package dev.symbiont.core.profile;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One recording window, from {@link Profiler#start} to {@link #close}. Holds the running
 * totals per (category, op name); {@link #report()} snapshots them, during the session or after
 * it. Totals are {@link LongAdder}s in concurrent maps, so ops on any number of threads record
 * without a lock; scopes that close after the session has are ignored.
 */
public final class ProfilerSession implements AutoCloseable {
    private final String label;
    private final String startThread;
    private final Instant startedAt = Instant.now();
    private final long startNanos = System.nanoTime();
    private volatile long endNanos;
    private volatile boolean closed;
    /** Indexed by category ordinal, so recording needs no composite key. */
    private final List<Map<String, Totals>> rows = new ArrayList<>();
    private final Set<Long> threads = ConcurrentHashMap.newKeySet();
    private final Map<String, LongAdder> fallbacks = new ConcurrentHashMap<>();

    ProfilerSession(String label, Thread starter) {
        this.label = label;
        this.startThread = starter.getName();
        for (int i = 0; i < OpCategory.values().length; i++) rows.add(new ConcurrentHashMap<>());
    }

    public String label() { return label; }

    /** True until {@link #close()}. */
    public boolean isActive() { return !closed; }

    /** Stops recording; the report stays available. Closing twice does nothing. */
    @Override
    public void close() {
        if (closed) return;
        endNanos = System.nanoTime();
        closed = true;
        Profiler.stop(this);
    }

    /** A snapshot of everything recorded so far, with each backend's memory now. */
    public ProfileReport report() {
        long wall = (closed ? endNanos : System.nanoTime()) - startNanos;
        List<ProfileReport.OpRow> ops = new ArrayList<>();
        for (OpCategory c : OpCategory.values()) {
            for (Map.Entry<String, Totals> e : rows.get(c.ordinal()).entrySet()) {
                Totals t = e.getValue();
                ops.add(new ProfileReport.OpRow(e.getKey(), c, t.calls.sum(), t.selfNanos.sum(), t.totalNanos.sum(),
                        t.flops.sum(), t.selfFlops.sum(), t.bytes.sum(), t.selfBytes.sum()));
            }
        }
        Map<String, Long> fallbackCounts = new java.util.HashMap<>();
        fallbacks.forEach((k, v) -> fallbackCounts.put(k, v.sum()));
        return new ProfileReport(label, wall, threads.size(), ops, BackendMemory.all(), fallbackCounts);
    }

    void fallback(String what) {
        if (!closed) fallbacks.computeIfAbsent(what, k -> new LongAdder()).increment();
    }

    void joined(Thread thread) { threads.add(thread.threadId()); }

    void record(String name, OpCategory category, long totalNanos, long selfNanos,
                long flops, long selfFlops, long bytes, long selfBytes) {
        if (closed) return;
        Totals t = rows.get(category.ordinal()).get(name);
        if (t == null) {
            t = rows.get(category.ordinal()).computeIfAbsent(name, k -> new Totals());
            Profiler.learnCategory(name, category);
        }
        t.calls.increment();
        t.totalNanos.add(totalNanos);
        t.selfNanos.add(selfNanos);
        if (flops != 0) t.flops.add(flops);
        if (selfFlops != 0) t.selfFlops.add(selfFlops);
        if (bytes != 0) t.bytes.add(bytes);
        if (selfBytes != 0) t.selfBytes.add(selfBytes);
    }

    @Override
    public String toString() {
        return "profiler session '" + label + "' (started on thread " + startThread + " at " + startedAt + ")";
    }

    /** Running totals of one op row. */
    private static final class Totals {
        final LongAdder calls = new LongAdder();
        final LongAdder totalNanos = new LongAdder();
        final LongAdder selfNanos = new LongAdder();
        final LongAdder flops = new LongAdder();
        final LongAdder selfFlops = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder selfBytes = new LongAdder();
    }
}
