package dev.symbiont.data;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Groups a {@link Dataset} into batches, optionally shuffled, optionally prepared ahead of time
 * on a background thread.
 *
 * <p><b>Order.</b> Batch {@code b} of epoch {@code e} holds examples
 * {@code order(e)[b * batchSize ..]}, each read with {@code dataset.get(index, e)} so that random
 * augmentation can differ by epoch; with shuffling, {@code order(e)} is a permutation that is
 * a pure function of (seed, e). A run resumed with {@code epoch(e, i)} therefore sees exactly the
 * batches an uninterrupted run would have seen from batch i on. With drop-last the final short
 * batch is skipped, otherwise it is returned smaller.
 *
 * <p><b>Sharding.</b> In data-parallel training each rank builds the same loader (same dataset,
 * seed and batch size) with {@code shard(rank, worldSize)}: {@code order(e)} is then this rank's
 * share of the epoch's order, as PyTorch's {@code DistributedSampler} deals it (every
 * {@code worldSize}-th example from position {@code rank}, the epoch padded by repeating its start
 * to a multiple of {@code worldSize}, or cut with the shard's drop-last). Every rank gets the same
 * number of batches, and batch b of the ranks together holds batch b of the unsharded loader with
 * {@code worldSize} times the batch size (as a set; the order within it differs).
 *
 * <p><b>Prefetch.</b> With {@code prefetch > 0} a daemon thread named
 * {@code symbiont-data-<name>-e<epoch>} prepares up to {@code prefetch} batches that the caller
 * has not taken yet, so data preparation overlaps the caller's compute. With 0 each batch is
 * prepared in the caller's thread inside {@code next()}. The worker creates tensors on the
 * backend that was current in the thread that called {@link #epoch}. A failure surfaces from
 * {@code next()} as a {@link DataLoaderException} naming the batch.
 *
 * <p><b>Cleanup.</b> Close an abandoned iteration (try-with-resources); a loader also closes
 * its previous iteration when a new epoch starts, so a training loop that {@code break}s out of
 * one epoch and starts the next leaks nothing.
 *
 * <pre>{@code
 * var loader = DataLoader.builder(task, SequenceExample::collate).batchSize(32).shuffle(seed).prefetch(2).build();
 * for (int e = 0; e < epochs; e++) {
 *     try (var batches = loader.epoch(e)) {
 *         for (SequenceBatch batch : batches) step(batch);
 *     }
 * }
 * }</pre>
 *
 * @param <T> the example type
 * @param <B> the batch type made by the collate function
 */
public final class DataLoader<T, B> {
    // Keeps shuffle streams apart from a task's example streams when both use the same seed.
    private static final long SHUFFLE_STREAM = 0x5348_5546_464C_45L; // "SHUFFLE"

    private final Dataset<T> dataset;
    private final Function<List<T>, B> collate;
    private final int batchSize;
    private final boolean shuffle;
    private final long seed;
    private final boolean dropLast;
    private final Shard shard;
    private final int prefetch;
    private final String name;

    private final AtomicLong batchesDelivered = new AtomicLong();
    private final AtomicLong prepareNanos = new AtomicLong();
    private final AtomicLong waitNanos = new AtomicLong();

    private BatchWorker<B> running; // guarded by this: the last iteration's worker, closed by the next one

    private DataLoader(Builder<T, B> b) {
        this.dataset = b.dataset;
        this.collate = b.collate;
        this.batchSize = b.batchSize;
        this.shuffle = b.shuffle;
        this.seed = b.seed;
        this.dropLast = b.dropLast;
        this.shard = b.shard;
        this.prefetch = b.prefetch;
        this.name = b.name;
    }

    /** Starts a loader over {@code dataset}; {@code collate} turns a list of examples into a batch. */
    public static <T, B> Builder<T, B> builder(Dataset<T> dataset, Function<List<T>, B> collate) {
        return new Builder<>(dataset, collate);
    }

    public int batchSize() { return batchSize; }
    public int prefetch() { return prefetch; }
    public String name() { return name; }
    public Dataset<T> dataset() { return dataset; }
    /** The rank whose share of each epoch this loader reads: 0 unless sharded. */
    public int shardRank() { return shard.rank(); }
    /** The number of ranks the epoch is dealt to: 1 unless sharded. */
    public int shardCount() { return shard.worldSize(); }

    /** Batches in each epoch: examples / batchSize, rounded down with drop-last and up without (examples: this rank's share). */
    public int batchesPerEpoch() {
        int n = shard.samples(dataset.size());
        return dropLast ? n / batchSize : (n + batchSize - 1) / batchSize;
    }

    /** The dataset indices in the order epoch {@code epoch} visits them (this rank's share when sharded). */
    public int[] order(int epoch) {
        checkEpoch(epoch);
        int n = dataset.size();
        if (shuffle) return shard.of(Seeds.randperm(n, Seeds.generator(Seeds.mix(seed, SHUFFLE_STREAM), epoch)));
        int[] order = new int[n];
        for (int i = 0; i < n; i++) order[i] = i;
        return shard.of(order);
    }

    /** Iterates every batch of {@code epoch}. */
    public Batches<B> epoch(int epoch) { return epoch(epoch, 0); }

    /**
     * Iterates {@code epoch} from batch {@code startBatch} (0 to {@link #batchesPerEpoch()};
     * equal to it gives an empty iteration). Closes this loader's previous iteration.
     */
    public synchronized Batches<B> epoch(int epoch, int startBatch) {
        checkEpoch(epoch);
        int end = batchesPerEpoch();
        if (startBatch < 0 || startBatch > end) {
            throw new IllegalArgumentException("data loader '" + name + "': startBatch must be in [0, " + end
                    + "] for " + end + " batches per epoch, got " + startBatch);
        }
        if (running != null) running.close();
        running = null;
        int[] order = order(epoch);
        Backend backend = Backends.current();
        BatchSource<B> source = index -> {
            try (var scope = Backends.use(backend)) { // the worker thread has no scoped backend of its own
                return prepare(order, epoch, index);
            }
        };
        BatchWorker<B> worker = null;
        if (prefetch > 0 && startBatch < end) {
            worker = new BatchWorker<>("symbiont-data-" + name + "-e" + epoch, source, startBatch, end, prefetch);
            running = worker;
            worker.start();
        }
        return new Batches<>(this, epoch, startBatch, end, source, worker);
    }

    /** Prepares batch {@code batchIndex} of {@code epoch} in this thread, outside any iteration. */
    public B batch(int epoch, int batchIndex) {
        int end = batchesPerEpoch();
        if (batchIndex < 0 || batchIndex >= end) {
            throw new IndexOutOfBoundsException("data loader '" + name + "': batch " + batchIndex
                    + " is outside [0, " + end + ")");
        }
        return prepare(order(epoch), epoch, batchIndex);
    }

    /** Cumulative timings over every iteration of this loader. */
    public Stats stats() {
        return new Stats(batchesDelivered.get(), prepareNanos.get(), waitNanos.get());
    }

    /**
     * Timings: {@code prepareNanos} is time spent in {@code Dataset.get} (with the epoch) and collate (on the
     * worker, or in the caller without prefetch); {@code waitNanos} is time the caller spent
     * inside {@code next()} waiting for a batch. Prefetch works when wait is much smaller than
     * prepare. Subtract two snapshots with {@link #minus} to time one epoch.
     */
    public record Stats(long batches, long prepareNanos, long waitNanos) {
        public Stats minus(Stats earlier) {
            return new Stats(batches - earlier.batches, prepareNanos - earlier.prepareNanos, waitNanos - earlier.waitNanos);
        }
    }

    void recordDelivered(long waitedNanos) {
        batchesDelivered.incrementAndGet();
        waitNanos.addAndGet(waitedNanos);
    }

    private B prepare(int[] order, int epoch, int batchIndex) {
        long start = System.nanoTime();
        try (var scope = Profiler.op("data.prepare", OpCategory.DATA); var upload = HostTransfer.BATCH.allow()) {
            int from = batchIndex * batchSize;
            int to = Math.min(order.length, from + batchSize);
            List<T> items = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) items.add(dataset.get(order[i], epoch));
            return collate.apply(items);
        } finally {
            prepareNanos.addAndGet(System.nanoTime() - start);
        }
    }

    private void checkEpoch(int epoch) {
        if (epoch < 0) throw new IllegalArgumentException("data loader '" + name + "': epoch must be >= 0, got " + epoch);
    }

    /** Settings for a {@link DataLoader}; defaults: batch size 1, no shuffle, keep last, unsharded, prefetch 0. */
    public static final class Builder<T, B> {
        private final Dataset<T> dataset;
        private final Function<List<T>, B> collate;
        private int batchSize = 1;
        private boolean shuffle;
        private long seed;
        private boolean dropLast;
        private Shard shard = Shard.WHOLE;
        private int prefetch;
        private String name = "loader";

        private Builder(Dataset<T> dataset, Function<List<T>, B> collate) {
            this.dataset = Objects.requireNonNull(dataset, "dataset");
            this.collate = Objects.requireNonNull(collate, "collate");
        }

        public Builder<T, B> batchSize(int batchSize) {
            if (batchSize <= 0) throw new IllegalArgumentException("data loader: batchSize must be positive, got " + batchSize);
            this.batchSize = batchSize;
            return this;
        }

        /** Shuffles each epoch with an order that depends only on (seed, epoch). */
        public Builder<T, B> shuffle(long seed) {
            this.shuffle = true;
            this.seed = seed;
            return this;
        }

        /** Visits examples in dataset order every epoch (the default). */
        public Builder<T, B> noShuffle() {
            this.shuffle = false;
            return this;
        }

        /** Skips the final batch when it would be smaller than the batch size. */
        public Builder<T, B> dropLast(boolean dropLast) {
            this.dropLast = dropLast;
            return this;
        }

        /**
         * Reads only rank {@code rank}'s share of each epoch out of {@code worldSize} ranks, the
         * epoch padded by repeating its start to a multiple of {@code worldSize} (PyTorch's
         * {@code DistributedSampler(num_replicas=worldSize, rank=rank)}); every rank must use the
         * same dataset, seed and batch size. {@code shard(0, 1)} is the whole epoch.
         */
        public Builder<T, B> shard(int rank, int worldSize) { return shard(rank, worldSize, false); }

        /**
         * {@link #shard(int, int)}; with {@code dropLast} the epoch is cut to a multiple of
         * {@code worldSize} instead of padded ({@code DistributedSampler}'s {@code drop_last}, which
         * is not the batch-level {@link #dropLast(boolean)}).
         */
        public Builder<T, B> shard(int rank, int worldSize, boolean dropLast) {
            this.shard = new Shard(rank, worldSize, dropLast);
            return this;
        }

        /** Batches prepared ahead on a background thread; 0 prepares each one in next(). */
        public Builder<T, B> prefetch(int prefetch) {
            if (prefetch < 0) throw new IllegalArgumentException("data loader: prefetch must be >= 0, got " + prefetch);
            this.prefetch = prefetch;
            return this;
        }

        /** A name for messages and the worker thread. */
        public Builder<T, B> name(String name) {
            if (name == null || name.isBlank()) throw new IllegalArgumentException("data loader: name must not be blank");
            this.name = name;
            return this;
        }

        public DataLoader<T, B> build() { return new DataLoader<>(this); }
    }

    /** Prepares batch {@code index} of the current epoch. */
    @FunctionalInterface
    interface BatchSource<B> {
        B prepare(int index);
    }
}
