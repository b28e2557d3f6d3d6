package dev.symbiont.fuzz;

import java.lang.management.ManagementFactory;

/**
 * Bytes allocated on the heap by the current thread, garbage included, as the JVM counts them
 * ({@code com.sun.management.ThreadMXBean}). A loader that allocates far more than its input
 * shows up here even when the garbage collector keeps the heap small.
 */
public final class Allocation {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocation() {}

    /** Heap bytes allocated so far by the calling thread. */
    public static long byThisThread() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }

    /** A piece of work that may throw anything. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    /** Runs {@code work} on this thread and returns the bytes it allocated, rethrowing what it throws. */
    public static long of(Work work) throws Exception {
        long before = byThisThread();
        work.run();
        return byThisThread() - before;
    }
}
