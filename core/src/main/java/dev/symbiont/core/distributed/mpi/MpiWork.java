package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.Work;

import java.util.concurrent.CompletableFuture;

/**
 * A tensor collective queued on the MPI thread. {@link #await()} waits for the MPI call, then
 * runs {@code writeBack} on the caller's thread (backends are only called from there) and hands
 * the staging buffer back; a failure, or a second call, rethrows the same exception.
 */
final class MpiWork implements Work {
    private final CompletableFuture<Void> done;
    private final Runnable writeBack;
    private final Runnable release;
    private boolean finished;
    private RuntimeException failure;

    MpiWork(CompletableFuture<Void> done, Runnable writeBack, Runnable release) {
        this.done = done;
        this.writeBack = writeBack;
        this.release = release;
    }

    @Override
    public synchronized void await() {
        if (failure != null) throw failure;
        if (finished) return;
        try {
            CollectiveQueue.await(done);
            writeBack.run();
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            finished = true;
            release.run();
        }
    }

    @Override
    public boolean isCompleted() { return done.isDone(); }
}
