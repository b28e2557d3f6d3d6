package dev.symbiont.core.distributed;

import dev.symbiont.core.DType;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Where the threads of a {@link LocalCommunicator} group meet: each collective, every rank puts
 * its contribution in its slot, waits for the others, takes a copy of all slots and waits again
 * (so the next collective cannot overwrite a slot another rank is still reading). The first
 * failure — a timeout, an abort, ranks that disagree — breaks the group for good, and every rank
 * gets the same message.
 */
final class LocalGroup {
    /** What one rank brings to a collective: its name, dtype, element count, reduction, root and data. */
    record Contribution(String op, DType dtype, long count, Reduction reduction, int root, MemorySegment data) {
        String describe() { return HostBuffers.describe(op, dtype, count, reduction, root); }

        boolean matches(Contribution o) {
            return op.equals(o.op) && dtype == o.dtype && count == o.count && reduction == o.reduction && root == o.root;
        }
    }

    private final int size;
    private final Duration timeout;
    private final Contribution[] slots;
    private final long[] entered;
    private final CyclicBarrier arrive, leave;
    private volatile String broken;

    LocalGroup(int size, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("LocalCommunicator: timeout must be positive, got " + timeout);
        }
        this.size = size;
        this.timeout = timeout;
        this.slots = new Contribution[size];
        this.entered = new long[size];
        this.arrive = new CyclicBarrier(size);
        this.leave = new CyclicBarrier(size);
    }

    int size() { return size; }

    /** Meets the other ranks at this rank's next collective; returns every rank's contribution, in rank order. */
    Contribution[] exchange(int rank, Contribution mine) {
        failIfBroken(mine, rank);
        slots[rank] = mine;
        synchronized (entered) { entered[rank]++; }
        await(arrive, rank, mine);
        Contribution[] all = slots.clone();
        await(leave, rank, mine);
        for (int r = 0; r < size; r++) {
            if (!all[r].matches(all[0])) {
                String why = mine.op() + ": ranks disagree on the collective: " + describeAll(all);
                abort(why);
                throw new CollectiveException(why);
            }
        }
        return all;
    }

    /** Breaks the group: every rank waiting now, and every later collective, fails with {@code why}. */
    void abort(String why) {
        synchronized (this) {
            if (broken == null) broken = why;
            notifyAll();
        }
        arrive.reset();
        leave.reset();
    }

    private void await(CyclicBarrier barrier, int rank, Contribution mine) {
        try {
            barrier.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            String why = mine.describe() + ": rank " + rank + " waited " + timeout.toSeconds() + " s for the other ranks; "
                    + "ranks " + behind(rank) + " did not reach this collective";
            abort(why);
            throw new CollectiveException(why);
        } catch (BrokenBarrierException e) {
            awaitReason();
            failIfBroken(mine, rank);
            throw new CollectiveException(mine.describe() + ": rank " + rank + ": the group broke while waiting", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            String why = mine.describe() + ": rank " + rank + " was interrupted while waiting for the other ranks";
            abort(why);
            throw new CollectiveException(why);
        }
        failIfBroken(mine, rank);
    }

    /**
     * A barrier breaks (waking the other ranks) before the rank that timed out or was interrupted
     * has recorded why, so a rank woken by it waits for the reason (at most one timeout).
     */
    private synchronized void awaitReason() {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            for (long left = timeout.toNanos(); broken == null && left > 0; left = deadline - System.nanoTime()) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void failIfBroken(Contribution mine, int rank) {
        String why = broken;
        if (why != null) throw new CollectiveException(mine.op() + " on rank " + rank + " failed: " + why);
    }

    /** The ranks that have entered fewer collectives than {@code rank}. */
    private List<Integer> behind(int rank) {
        List<Integer> late = new ArrayList<>();
        synchronized (entered) {
            for (int r = 0; r < size; r++) if (entered[r] < entered[rank]) late.add(r);
        }
        return late;
    }

    private static String describeAll(Contribution[] all) {
        StringBuilder s = new StringBuilder();
        for (int r = 0; r < all.length; r++) s.append(r == 0 ? "" : ", ").append("rank ").append(r).append(' ').append(all[r].describe());
        return s.toString();
    }
}
