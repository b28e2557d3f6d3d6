package dev.symbiont.core.backend;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts a backend's live bytes and their peak. A buffer is counted from allocation until it is
 * released explicitly or its storage becomes unreachable and the cleaner runs, so the numbers
 * include garbage the collector has not yet reclaimed: they are an upper bound on what a
 * reference-counted runtime would hold.
 */
public final class MemoryTracker {
    private static final Cleaner CLEANER = Cleaner.create();

    private final AtomicLong allocated = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();

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
        long now = allocated.addAndGet(bytes);
        peak.accumulateAndGet(now, Math::max);
        return CLEANER.register(owner, new Allocation(bytes));
    }

    public MemoryStats stats() { return new MemoryStats(allocated.get(), peak.get()); }

    /** Sets the peak to what is allocated now. */
    public void resetPeak() { peak.set(allocated.get()); }
}
