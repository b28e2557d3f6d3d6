package dev.symbiont.core.memory;

import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backend;
import java.lang.ref.Reference;
import java.util.function.Supplier;

/**
 * Memory a piece of work costs on a backend, counted by its {@link MemoryTracker} so that only
 * reachable buffers count: the peak of a step and what a forward pass leaves alive for
 * backward. Each measurement runs garbage collections, so this is for tests and benchmarks.
 *
 * <p>Both wait for the backend ({@link Backend#synchronize()}) before they read its counters, so
 * work an asynchronous backend still has queued is counted in the measurement that caused it.
 */
public final class MemoryMeasure {
    private MemoryMeasure() {}

    /**
     * The highest live set {@code step} reached, in bytes above what was live when it started,
     * counted in {@link MemoryTracker#exactPeaks()} mode (a full GC before every allocation).
     */
    public static long peakAbove(Backend backend, Runnable step) { return peakAbove(backend, true, step); }

    /**
     * As {@link #peakAbove(Backend, Runnable)} when {@code exact}; otherwise counted in the
     * tracker's normal mode, garbage not yet collected included: an upper bound, without the
     * collections exact counting costs.
     */
    public static long peakAbove(Backend backend, boolean exact, Runnable step) {
        try (var mode = exact ? MemoryTracker.exactPeaks() : (Scope) () -> { }) {
            backend.synchronize();
            backend.resetPeakMemory();
            long base = backend.memory().allocatedBytes();
            step.run();
            backend.synchronize();
            return backend.memory().peakBytes() - base;
        }
    }

    /** Bytes still live once {@code work} has returned, its result included (e.g. the activations a forward saves). */
    public static long retainedBy(Backend backend, Supplier<?> work) {
        long base = settled(backend);
        Object result = work.get();
        long retained = settled(backend) - base;
        Reference.reachabilityFence(result);
        return retained;
    }

    /**
     * Live bytes once collections stop finding garbage: one collection may leave a buffer whose
     * last reference died during it, so collect until two in a row agree.
     */
    private static long settled(Backend backend) {
        backend.synchronize();
        MemoryTracker.collectGarbage();
        long live = backend.memory().allocatedBytes();
        for (int i = 0; i < 10; i++) {
            MemoryTracker.collectGarbage();
            long now = backend.memory().allocatedBytes();
            if (now == live) return now;
            live = now;
        }
        return live;
    }
}
