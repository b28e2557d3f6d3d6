package dev.symbiont.core.distributed.mpi;

import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How the MPI thread waits for a tensor all-reduce, chosen by {@value #PROPERTY}. Open MPI's
 * blocking {@code MPI_Allreduce} polls without rest until the slowest rank arrives, which on a
 * machine with a core per compute thread competes with the backward pass it overlaps.
 * {@link #POLL} starts the reduction with {@code MPI_Iallreduce} and tests it, spinning for the
 * first {@value #SPIN_NANOS} ns (a small message completes in that time) and then sleeping
 * between tests, the sleep doubling up to {@value #MAX_SLEEP_NANOS} ns. Measured on 2 cores
 * (docs/benchmarks.md), polling halves a lone all-reduce's bandwidth but makes the overlapped
 * training step faster, which is what the thread is for: {@link #POLL} is the default,
 * {@link #BLOCK} the choice for a program that all-reduces without computing meanwhile.
 */
enum MpiWait {
    /** {@code MPI_Allreduce}: the least latency; the MPI thread stays busy until the reduction is done. */
    BLOCK,
    /** {@code MPI_Iallreduce}, then {@code MPI_Test} with backoff: the default. */
    POLL;

    /** The system property naming the policy: {@code poll} (default) or {@code block}. */
    static final String PROPERTY = MpiCommunicator.WAIT_PROPERTY;
    static final long SPIN_NANOS = 50_000;
    static final long FIRST_SLEEP_NANOS = 5_000;
    static final long MAX_SLEEP_NANOS = 100_000;

    /** The policy {@value #PROPERTY} names now, read when each collective starts. */
    static MpiWait current() { return parse(System.getProperty(PROPERTY)); }

    static MpiWait parse(String value) {
        if (value == null || value.isBlank()) return POLL;
        return switch (value.strip().toLowerCase(Locale.ROOT)) {
            case "poll" -> POLL;
            case "block" -> BLOCK;
            default -> throw new IllegalArgumentException(PROPERTY + "=" + value + " is not a wait policy: use poll or block");
        };
    }

    /**
     * Calls {@code test} until it returns true: back to back for {@link #SPIN_NANOS}, then with
     * sleeps of {@link #FIRST_SLEEP_NANOS} doubling to {@link #MAX_SLEEP_NANOS} between calls.
     * Returns how many times it called {@code test}.
     */
    static long pollUntil(BooleanSupplier test) {
        long start = System.nanoTime(), sleep = FIRST_SLEEP_NANOS, calls = 0;
        while (true) {
            calls++;
            if (test.getAsBoolean()) return calls;
            if (System.nanoTime() - start < SPIN_NANOS) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(sleep);
                sleep = Math.min(2 * sleep, MAX_SLEEP_NANOS);
            }
        }
    }
}
