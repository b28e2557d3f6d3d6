package dev.symbiont.core.memory;

import dev.symbiont.core.backend.MemoryStats;
import dev.symbiont.core.Scope;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a backend's live bytes and their peak. A buffer is counted from allocation until it is
 * released explicitly or its storage becomes unreachable and a background thread notices, so
 * by default the numbers include garbage the collector has not yet reclaimed: an upper bound
 * on what a reference-counted runtime would hold.
 *
 * <p>For measurements, {@link #exactPeaks()} opens a scope in which a counted allocation that
 * would raise the peak first runs a full collection and drops the buffers it found unreachable;
 * the peak is then exactly the largest live set at any allocation — what PyTorch's allocator
 * would report. An allocation that stays under the peak even with garbage counted cannot raise
 * it and needs no collection. Still a collection per new high, so it is for tests and
 * benchmarks only.
 *
 * <p>Buffers below a size floor (4 KiB by default) are not counted at all: tracking one costs
 * a weak reference and work in every garbage collection, which for a scalar or a 64-element
 * tensor is more than the op itself, while their bytes are noise next to activations.
 */
public final class MemoryTracker {
    /** Buffers smaller than this are not counted unless a tracker is built with another floor. */
    public static final long DEFAULT_MIN_TRACKED_BYTES = 4096;

    private static final Cleaner.Cleanable UNTRACKED = () -> { };
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<>();
    private static final Set<Allocation> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicInteger EXACT_SCOPES = new AtomicInteger();

    static {
        Thread reaper = new Thread(MemoryTracker::releaseCollected, "symbiont-memory-tracker");
        reaper.setDaemon(true);
        reaper.start();
    }

    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final long minTrackedBytes;

    /** A tracker that ignores buffers under {@link #DEFAULT_MIN_TRACKED_BYTES}. */
    public MemoryTracker() { this(DEFAULT_MIN_TRACKED_BYTES); }

    /** A tracker that ignores buffers under {@code minTrackedBytes} (0 counts every buffer). */
    public MemoryTracker(long minTrackedBytes) { this.minTrackedBytes = minTrackedBytes; }

    /**
     * The handle a storage keeps; releasing it (once) gives its bytes back. It holds the owner
     * only weakly and nothing else of it — not its buffer — so an unreleased buffer dies with its
     * owner, in the same collection.
     */
    private final class Allocation extends WeakReference<Object> implements Cleaner.Cleanable {
        private final long bytes;
        private final AtomicBoolean released = new AtomicBoolean();

        private Allocation(Object owner, long bytes) {
            super(owner, COLLECTED);
            this.bytes = bytes;
        }

        /** An explicit release: the owner says nobody reads the buffer any more. */
        @Override
        public void clean() { free(); }

        /** The owner was found unreachable: its bytes return. */
        void collected() { free(); }

        private void free() {
            if (released.compareAndSet(false, true)) {
                allocated.addAndGet(-bytes);
                LIVE.remove(this);
            }
        }
    }

    /**
     * Records an allocation of {@code bytes} owned by {@code owner}; the bytes return when the
     * handle is cleaned or the owner is found unreachable. Buffers under the size floor are not
     * tracked (the handle does nothing).
     */
    public Cleaner.Cleanable track(Object owner, long bytes) {
        if (bytes < minTrackedBytes) return UNTRACKED;
        Allocation allocation = new Allocation(owner, bytes);
        LIVE.add(allocation);
        long now = allocated.addAndGet(bytes);
        // Exact mode: the count holds garbage, so it is an upper bound of the live set. Only when that
        // bound would raise the peak is a collection needed to learn the true live set; below the peak
        // it cannot change the peak, and skipping the collection keeps exact measurements affordable.
        if (EXACT_SCOPES.get() > 0 && now > peak.get()) {
            collectGarbage();
            now = allocated.get();
        }
        peak.accumulateAndGet(now, Math::max);
        Reference.reachabilityFence(owner);                                    // counted live through the collection above
        return allocation;
    }

    public MemoryStats stats() { return new MemoryStats(allocated.get(), peak.get()); }

    /** Sets the peak to what is allocated now. */
    public void resetPeak() { peak.set(allocated.get()); }

    /**
     * Until the scope closes, counts only reachable buffers: a counted allocation (on any backend)
     * that would raise its tracker's peak runs a full garbage collection first. Slow; for memory tests and benchmarks.
     */
    public static Scope exactPeaks() {
        EXACT_SCOPES.incrementAndGet();
        collectGarbage();
        return EXACT_SCOPES::decrementAndGet;
    }

    /** Runs a full collection and releases every counted buffer it found unreachable. */
    public static void collectGarbage() {
        System.gc();
        for (Allocation a : LIVE) {
            if (a.refersTo(null)) a.collected();
        }
    }

    private static void releaseCollected() {
        while (true) {
            try {
                ((Allocation) COLLECTED.remove()).collected();
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
