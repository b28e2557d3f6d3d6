package dev.symbiont.core.distributed.mpi;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Off-heap buffers that MPI reads and writes while the caller computes: a collective's tensor is
 * staged in one from its start until its result is written back. Buffers of each size are
 * reused (a training step exchanges the same bucket sizes every step); a few are kept free, the
 * oldest beyond that is freed, and {@link #close()} frees them all.
 */
final class StagingPool implements AutoCloseable {
    /** An off-heap buffer and the arena that frees it. */
    record Staging(MemorySegment segment, Arena arena) {}

    /** How many free buffers are kept for reuse. */
    static final int KEPT = 8;

    private final ArrayDeque<Staging> free = new ArrayDeque<>();
    private final Set<Staging> all = new LinkedHashSet<>();
    private boolean closed;

    /** A buffer of exactly {@code bytes} bytes, aligned for any element type; reused when one is free. */
    synchronized Staging acquire(long bytes) {
        if (closed) throw new IllegalStateException("MPI staging pool: closed");
        for (Iterator<Staging> it = free.iterator(); it.hasNext(); ) {
            Staging s = it.next();
            if (s.segment().byteSize() == bytes) {
                it.remove();
                return s;
            }
        }
        Arena arena = Arena.ofShared(); // written by the caller's thread, read and written by the MPI thread
        Staging s = new Staging(arena.allocate(bytes, Long.BYTES), arena);
        all.add(s);
        return s;
    }

    /** Returns {@code s} for reuse; after {@link #close()} it was already freed. */
    synchronized void release(Staging s) {
        if (closed || !all.contains(s)) return;
        free.addLast(s);
        while (free.size() > KEPT) {
            Staging oldest = free.removeFirst();
            all.remove(oldest);
            oldest.arena().close();
        }
    }

    /** How many buffers are allocated, free or in use (for tests). */
    synchronized int allocated() { return all.size(); }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        for (Staging s : all) s.arena().close();
        all.clear();
        free.clear();
    }
}
