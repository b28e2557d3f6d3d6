package dev.symbiont.core.backend;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a backend's live bytes and their peak. A buffer is counted from allocation until it is
 * released explicitly or its storage becomes unreachable and the cleaner runs, so the numbers
 * include garbage the collector has not yet reclaimed: they are an upper bound on what a
 * reference-counted runtime would hold.
 *
 * <p>Buffers below a size floor (4 KiB by default) are not counted at all: tracking one costs
 * a phantom reference and work in every garbage collection, which for a scalar or a 64-element
 * tensor is more than the op itself, while their bytes are noise next to activations.
 */
public final class MemoryTracker {
    /** Buffers smaller than this are not counted unless a tracker is built with another floor. */
    public static final long DEFAULT_MIN_TRACKED_BYTES = 4096;

    private static final Cleaner CLEANER = Cleaner.create();
    private static final Cleaner.Cleanable UNTRACKED = () -> { };

    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final long minTrackedBytes;

    /** A tracker that ignores buffers under {@link #DEFAULT_MIN_TRACKED_BYTES}. */
    public MemoryTracker() { this(DEFAULT_MIN_TRACKED_BYTES); }

    /** A tracker that ignores buffers under {@code minTrackedBytes} (0 counts every buffer). */
    public MemoryTracker(long minTrackedBytes) { this.minTrackedBytes = minTrackedBytes; }

    /** The handle a storage keeps; releasing it (once) gives its bytes back. */
    public final class Allocation implements Runnable {
        private final long bytes;
        private final AtomicBoolean released = new AtomicBoolean();

        private Allocation(long bytes) { this.bytes = bytes; }

        @Override
        public void run() {
            if (released.compareAndSet(false, true)) allocated.addAndGet(-bytes);
        }
    }

    /** Records an allocation owned by {@code owner}; the bytes return when the owner is unreachable. */
    public Cleaner.Cleanable track(Object owner, long bytes) {
        if (bytes < minTrackedBytes) return UNTRACKED;
        long now = allocated.addAndGet(bytes);
        peak.accumulateAndGet(now, Math::max);
        return CLEANER.register(owner, new Allocation(bytes));
    }

    public MemoryStats stats() { return new MemoryStats(allocated.get(), peak.get()); }

    /** Sets the peak to what is allocated now. */
    public void resetPeak() { peak.set(allocated.get()); }
}
