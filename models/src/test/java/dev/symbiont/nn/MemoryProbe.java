package dev.symbiont.nn;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.MemoryTracker;

/** Peak bytes a step allocates above what was live before it, counted exactly (a GC per allocation). */
final class MemoryProbe {
    private MemoryProbe() {}

    /** Bytes still live after {@code forward} returns (what the graph keeps for backward), its result included. */
    static long retainedBy(java.util.function.Supplier<Object> forward) {
        Backend backend = Backends.current();
        MemoryTracker.collectGarbage();
        long base = backend.memory().allocatedBytes();
        Object result = forward.get();
        MemoryTracker.collectGarbage();
        long retained = backend.memory().allocatedBytes() - base;
        java.lang.ref.Reference.reachabilityFence(result);
        return retained;
    }

    static long peakAbove(Runnable step) {
        Backend backend = Backends.current();
        try (var exact = MemoryTracker.exactPeaks()) {
            backend.resetPeakMemory();
            long base = backend.memory().allocatedBytes();
            step.run();
            return backend.memory().peakBytes() - base;
        }
    }
}
