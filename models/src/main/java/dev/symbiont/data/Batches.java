package dev.symbiont.data;

import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.lang.ref.Cleaner;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * One pass over an epoch of a {@link DataLoader}, from a start batch to the end. It is both the
 * iterator and a one-shot {@link Iterable}, so it can sit in a for-each loop; close it (or let
 * the loader's next epoch close it) when leaving the loop early. After close, after a failure,
 * or (with prefetch) once the loader has started another iteration, {@link #hasNext()} is false.
 *
 * @param <B> the batch type
 */
public final class Batches<B> implements Iterator<B>, Iterable<B>, AutoCloseable {
    // Last resort for an iteration dropped without close(): stop its worker once it is unreachable.
    private static final Cleaner CLEANER = Cleaner.create();

    private final DataLoader<?, B> loader;
    private final int epoch;
    private final int end;
    private final DataLoader.BatchSource<B> source;
    private final BatchWorker<B> worker; // null when batches are prepared synchronously
    private final Cleaner.Cleanable cleanable;
    private int next;
    private boolean closed;
    private boolean iteratorHandedOut;

    Batches(DataLoader<?, B> loader, int epoch, int start, int end, DataLoader.BatchSource<B> source, BatchWorker<B> worker) {
        this.loader = loader;
        this.epoch = epoch;
        this.next = start;
        this.end = end;
        this.source = source;
        this.worker = worker;
        this.cleanable = worker == null ? null : CLEANER.register(this, () -> worker.close(false));
    }

    /** The epoch being iterated. */
    public int epoch() { return epoch; }

    /** The index within the epoch of the batch the next call to {@link #next()} returns. */
    public int nextBatchIndex() { return next; }

    /** The name of the worker thread, or null without prefetch. */
    public String workerName() { return worker == null ? null : worker.thread().getName(); }

    @Override
    public boolean hasNext() {
        // The loader closes the worker of an iteration it has superseded; that ends this one too.
        return !closed && next < end && (worker == null || !worker.isClosed());
    }

    /**
     * The next batch, waiting for the worker if it is not ready.
     *
     * @throws DataLoaderException if preparing it failed; the iteration is then closed
     */
    @Override
    public B next() {
        if (!hasNext()) throw new NoSuchElementException("data loader '" + loader.name() + "': epoch " + epoch
                + (closed ? " iteration is closed" : " has no batch " + next));
        int index = next;
        long start = System.nanoTime();
        B batch;
        // The caller's wait: with prefetch it is what data loading still costs the training loop.
        try (var scope = Profiler.op("data.wait", OpCategory.DATA)) {
            batch = worker == null ? prepareHere(index) : takeFromWorker(index);
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
        loader.recordDelivered(System.nanoTime() - start);
        next++;
        if (next == end) close();
        return batch;
    }

    private B prepareHere(int index) {
        try {
            return source.prepare(index);
        } catch (RuntimeException | Error e) {
            throw new DataLoaderException(loader.name(), epoch, index, e);
        }
    }

    private B takeFromWorker(int index) {
        BatchWorker.Item<B> item;
        try {
            item = worker.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DataLoaderException(loader.name(), epoch, index, e);
        }
        return switch (item) {
            case null -> throw new DataLoaderException(loader.name(), epoch, index,
                    new IllegalStateException("worker thread ended without producing the batch"));
            case BatchWorker.Ready<B> ready when ready.index() == index -> ready.batch();
            case BatchWorker.Ready<B> ready -> throw new IllegalStateException("data loader '" + loader.name()
                    + "': expected batch " + index + " but the worker delivered batch " + ready.index());
            case BatchWorker.Failed<B> failed -> throw new DataLoaderException(loader.name(), epoch, failed.index(), failed.error());
        };
    }

    /** This iteration, once: it is its own iterator. */
    @Override
    public Iterator<B> iterator() {
        if (iteratorHandedOut) throw new IllegalStateException("data loader '" + loader.name()
                + "': an epoch iteration can be looped over once; call loader.epoch(...) again");
        iteratorHandedOut = true;
        return this;
    }

    /** Stops the worker, if any, and drops batches it prepared; safe to call more than once. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (worker != null) worker.close(true); // waits briefly for the thread to end
        if (cleanable != null) cleanable.clean(); // deregisters; its close(false) is then a no-op
    }
}
