package dev.symbiont.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.function.IntConsumer;

/**
 * Runs the tasks 0 … n−1 of one parallel job and returns when every one has run. Which thread
 * runs which task is unspecified: a task must write only what its index owns, so results
 * never depend on the schedule. The first task to throw is rethrown once all have finished.
 */
public interface TaskRunner {

    /** How many threads run tasks at once; callers cut their work into this many parts or a multiple. */
    int parallelism();

    /** Runs {@code task.accept(i)} for every i in [0, tasks). */
    void run(int tasks, IntConsumer task);

    /** A runner on a ForkJoinPool: one fork per task, the pool's work stealing balancing them. */
    static TaskRunner of(ForkJoinPool pool) {
        return new TaskRunner() {
            @Override
            public int parallelism() {
                return pool.getParallelism();
            }

            @Override
            public void run(int tasks, IntConsumer task) {
                if (tasks == 1) {
                    task.accept(0);
                } else if (tasks > 1) {
                    pool.invoke(new Halves(task, 0, tasks));
                }
            }
        };
    }

    /** Tasks [from, to), halved until one remains. */
    final class Halves extends RecursiveAction {
        private final IntConsumer task;
        private final int from, to;

        Halves(IntConsumer task, int from, int to) {
            this.task = task;
            this.from = from;
            this.to = to;
        }

        @Override
        protected void compute() {
            if (to - from == 1) {
                task.accept(from);
                return;
            }
            int mid = (from + to) >>> 1;
            invokeAll(new Halves(task, from, mid), new Halves(task, mid, to));
        }
    }
}
