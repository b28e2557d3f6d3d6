package dev.symbiont.data;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The background half of a prefetching iteration: a daemon thread prepares batches
 * [start, end) in order and hands them over through a queue. A semaphore with
 * {@code prefetch} permits bounds the batches prepared but not yet taken: the worker takes a
 * permit before preparing a batch and the caller returns it when it takes the batch.
 *
 * <p>Holds no reference to the {@link Batches} that owns it, so a cleaner can close it once the
 * iteration becomes unreachable.
 */
final class BatchWorker<B> implements Runnable {
    /** How long close() waits for a batch being prepared to notice it should stop. */
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(2);
    /** How often a waiting caller checks that the worker is still alive. */
    private static final long POLL_MILLIS = 50;

    sealed interface Item<B> permits Ready, Failed {}
    record Ready<B>(int index, B batch) implements Item<B> {}
    record Failed<B>(int index, Throwable error) implements Item<B> {}

    private final DataLoader.BatchSource<B> source;
    private final int start;
    private final int end;
    private final Semaphore permits;
    private final BlockingQueue<Item<B>> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closed;

    BatchWorker(String threadName, DataLoader.BatchSource<B> source, int start, int end, int prefetch) {
        this.source = source;
        this.start = start;
        this.end = end;
        this.permits = new Semaphore(prefetch);
        this.thread = Thread.ofPlatform().daemon().name(threadName).unstarted(this);
    }

    void start() { thread.start(); }

    Thread thread() { return thread; }

    boolean isClosed() { return closed; }

    @Override
    public void run() {
        for (int b = start; b < end; b++) {
            try {
                permits.acquire();
            } catch (InterruptedException e) {
                return; // closed while waiting for the caller to catch up
            }
            if (closed) return;
            Item<B> item;
            try {
                item = new Ready<>(b, source.prepare(b));
            } catch (Throwable t) {
                // After close the failure is most likely our own interrupt; nobody is listening.
                if (!closed) queue.add(new Failed<>(b, t));
                return;
            }
            if (closed) return;
            queue.add(item);
        }
    }

    /**
     * The next item, waiting as long as the worker is alive; null when the worker ended without
     * producing one, so a caller can never wait forever on a dead thread.
     */
    Item<B> take() throws InterruptedException {
        while (true) {
            Item<B> item = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
            if (item == null && !thread.isAlive()) item = queue.poll(); // it may have added one just before ending
            if (item != null) {
                permits.release();
                return item;
            }
            if (!thread.isAlive()) return null;
        }
    }

    /** Stops the worker and drops prepared batches; waits briefly for it to end unless called from a cleaner. */
    void close() { close(true); }

    void close(boolean wait) {
        if (closed) return;
        closed = true;
        thread.interrupt();
        queue.clear();
        if (wait && Thread.currentThread() != thread) {
            try {
                thread.join(JOIN_TIMEOUT); // a prepare that ignores interrupts finishes its batch, then sees closed
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        queue.clear();
    }
}
