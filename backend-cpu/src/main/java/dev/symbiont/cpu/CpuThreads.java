package dev.symbiont.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one ForkJoinPool every parallel CPU kernel shares, sized to the machine's cores.
 *
 * <p>One pool for the whole backend keeps nested kernels (a batched GEMM inside a parallel
 * op) from oversubscribing the cores; its workers are daemon threads, so an idle pool never
 * keeps the JVM alive.
 */
public final class CpuThreads {

    private CpuThreads() {}

    private static final class Holder {
        static final ForkJoinPool POOL = create();

        private static ForkJoinPool create() {
            AtomicInteger ids = new AtomicInteger();
            ForkJoinPool.ForkJoinWorkerThreadFactory factory = pool -> {
                ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(pool);
                t.setName("symbiont-cpu-" + ids.getAndIncrement());
                t.setDaemon(true);
                return t;
            };
            return new ForkJoinPool(Runtime.getRuntime().availableProcessors(), factory, null, false);
        }
    }

    /** The shared pool (created on first use). */
    public static ForkJoinPool pool() {
        return Holder.POOL;
    }

    /** The number of threads parallel kernels split their work into. */
    public static int parallelism() {
        return pool().getParallelism();
    }
}
