package dev.symbiont.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads every parallel CPU kernel shares, sized to the machine's cores: the
 * {@link #team()} that runs the kernels' jobs, and the ForkJoinPool that runs a job started
 * while the team is busy with another thread's.
 *
 * <p>One team for the whole backend keeps nested kernels (a batched GEMM inside a parallel
 * op) from oversubscribing the cores; its helpers and the pool's workers are daemon threads,
 * so an idle backend never keeps the JVM alive.
 */
public final class CpuThreads {

    private CpuThreads() {}

    private static final class Holder {
        static final ForkJoinPool POOL = create();
        static final CpuTeam TEAM = new CpuTeam(POOL.getParallelism(), TaskRunner.of(POOL));

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

    /** The shared team (created on first use): every parallel kernel's jobs run on it. */
    public static TaskRunner team() {
        return Holder.TEAM;
    }

    /** The shared pool (created on first use): the team's fallback. */
    public static ForkJoinPool pool() {
        return Holder.POOL;
    }

    /** The number of threads parallel kernels split their work into. */
    public static int parallelism() {
        return pool().getParallelism();
    }
}
