package dev.symbiont.cpu;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;

/**
 * The calling thread and cores − 1 helper threads, running one parallel job at a time the way
 * an OpenMP team does: the caller publishes the job, every member claims tasks from one
 * counter until none is left, and the caller returns when the last task has finished.
 * Between jobs a helper spins, then yields, then parks.
 *
 * <p>Why not the ForkJoinPool alone: handing a job to parked pool workers and being woken
 * when they finish costs tens of microseconds on a VM (measured on a 2-core Zen 4 guest: two
 * 17 µs tasks took 87 µs through {@code ForkJoinPool.invoke}, 21 µs with a spinning helper and
 * the caller taking a task), and a training step runs hundreds of parallel kernels. The
 * caller working too means a slow wake-up costs nothing: if the helper is not there yet, the
 * caller claims its tasks.
 *
 * <p>A job started from inside a job (a GEMM inside a parallel kernel) runs its tasks on the
 * calling thread — the cores are busy with the outer job. A job from another thread while the
 * team is busy (two models trained from two threads) goes to the fallback runner.
 */
public final class CpuTeam implements TaskRunner {
    /** How long an idle helper polls for the next job with the CPU's pause hint. */
    private static final long SPIN_NANOS = 50_000;
    /** How long it then polls with {@link Thread#yield}, leaving its core to any runnable thread, before it parks. */
    private static final long YIELD_NANOS = 1_000_000;

    private final Thread[] helpers;
    private final TaskRunner fallback;
    private final AtomicBoolean busy = new AtomicBoolean();
    /** The thread whose job is running (null when idle): its nested jobs run inline. */
    private volatile Thread owner;
    /** The job helpers should work on, or null. */
    private volatile Job job;
    /** 1 while helper h is parked or about to park: the caller then unparks it. */
    private final AtomicIntegerArray parked;

    /**
     * A team of {@code threads} (the caller and threads − 1 daemon helpers); jobs started while it
     * is busy run on {@code fallback}.
     */
    public CpuTeam(int threads, TaskRunner fallback) {
        if (threads < 1) throw new IllegalArgumentException("CpuTeam: threads must be >= 1, got " + threads);
        this.fallback = fallback;
        this.helpers = new Thread[threads - 1];
        this.parked = new AtomicIntegerArray(threads - 1);
        for (int h = 0; h < helpers.length; h++) {
            int id = h;
            helpers[h] = new Helper(() -> helperLoop(id), "symbiont-cpu-team-" + (h + 1));
            helpers[h].setDaemon(true);
            helpers[h].start();
        }
    }

    @Override
    public int parallelism() {
        return helpers.length + 1;
    }

    @Override
    public void run(int tasks, IntConsumer task) {
        if (tasks <= 0) return;
        Thread me = Thread.currentThread();
        if (tasks == 1 || helpers.length == 0 || owner == me || me instanceof Helper) {
            for (int i = 0; i < tasks; i++) task.accept(i);
            return;
        }
        if (!busy.compareAndSet(false, true)) {
            fallback.run(tasks, task);
            return;
        }
        owner = me;
        Job j = new Job(task, tasks);
        try {
            job = j;
            wakeParkedHelpers();
            j.work();
            j.awaitDone();
        } finally {
            job = null;
            owner = null;
            busy.set(false);
        }
        j.rethrow();
    }

    private void wakeParkedHelpers() {
        for (int h = 0; h < helpers.length; h++) {
            if (parked.get(h) == 1) LockSupport.unpark(helpers[h]);
        }
    }

    private void helperLoop(int id) {
        Job last = null;
        long idleSince = System.nanoTime();
        while (true) {
            Job j = job;
            if (j != null && j != last) {
                last = j;
                j.work();
                idleSince = System.nanoTime();
                continue;
            }
            long idle = System.nanoTime() - idleSince;
            if (idle < SPIN_NANOS) {
                Thread.onSpinWait();
            } else if (idle < YIELD_NANOS) {
                Thread.yield();
            } else {
                // flag first, then look at the job once more: the caller writes the job, then reads the
                // flag, so either this helper sees the new job or the caller sees the flag and unparks it
                parked.set(id, 1);
                if (job == null || job == last) LockSupport.park(this);
                parked.set(id, 0);
                idleSince = System.nanoTime();
            }
        }
    }

    /** The helper threads' class: a job started on one runs inline. */
    private static final class Helper extends Thread {
        Helper(Runnable body, String name) {
            super(body, name);
        }
    }

    /** One job: its tasks, the next unclaimed one, how many have finished, the first failure. */
    private static final class Job {
        private final IntConsumer task;
        private final int tasks;
        private final AtomicInteger next = new AtomicInteger();
        private final AtomicInteger done = new AtomicInteger();
        private volatile Throwable failure;

        Job(IntConsumer task, int tasks) {
            this.task = task;
            this.tasks = tasks;
        }

        /** Claims and runs tasks until none is left. */
        void work() {
            for (int i; (i = next.getAndIncrement()) < tasks; ) {
                try {
                    task.accept(i);
                } catch (Throwable t) {
                    if (failure == null) failure = t;
                } finally {
                    done.incrementAndGet();
                }
            }
        }

        /** Waits for tasks other threads claimed: they are running, so spin, yielding now and then. */
        void awaitDone() {
            for (int spins = 0; done.get() < tasks; spins++) {
                if ((spins & 1023) == 1023) Thread.yield();
                else Thread.onSpinWait();
            }
        }

        void rethrow() {
            Throwable t = failure;
            if (t instanceof RuntimeException r) throw r;
            if (t instanceof Error e) throw e;
            if (t != null) throw new IllegalStateException("a parallel task failed", t);
        }
    }
}
