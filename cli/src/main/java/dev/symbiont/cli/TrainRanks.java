package dev.symbiont.cli;

import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Communicators;
import dev.symbiont.data.DataLoader;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.parallel.DistributedDataParallel;
import dev.symbiont.train.NonFiniteException;
import dev.symbiont.train.Trainer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The ranks of a data-parallel {@code train} job, as this process sees them: one rank outside an
 * MPI job, rank r of the job's size inside one ({@link Communicators#world()}, whether
 * {@link TrainLauncher} started it or {@code mpirun} by hand). {@code --batch} is the global batch,
 * split evenly; the training loader is sharded, the model wrapped in
 * {@link DistributedDataParallel}, and rank 0 alone prints and writes the run directory.
 */
final class TrainRanks {
    /** How long a failed rank other than 0 waits for rank 0's abort before reporting its own error. */
    private static final long FOLLOWER_GRACE_MILLIS = 3000;
    /** What a rank's communicator prints (after {@code rank R: }) as the rank aborts the job; the launcher looks for it. */
    static final String ABORT_MESSAGE = "stopping every rank of the job";

    private final Communicator comm;

    private TrainRanks(Communicator comm) { this.comm = comm; }

    /** This process alone (no MPI job). */
    static TrainRanks single() { return new TrainRanks(null); }

    /**
     * The MPI job this process belongs to; {@code nproc} (when {@code given}) must be its size.
     * A process of a job of one is treated as a single rank.
     */
    static TrainRanks world(int nproc, boolean given) {
        Communicator world = Communicators.world();
        if (given && nproc != world.size()) {
            String message = "--nproc " + nproc + " differs from the " + world.size() + " ranks of the MPI job this process runs in;"
                    + " drop --nproc under mpirun, or give the job's size";
            throw new IllegalArgumentException(message);
        }
        return new TrainRanks(world.size() == 1 ? null : world);
    }

    int rank() { return comm == null ? 0 : comm.rank(); }

    int size() { return comm == null ? 1 : comm.size(); }

    /** Rank 0, the one that prints and writes files. */
    boolean leader() { return rank() == 0; }

    /** Each rank's share of the global {@code batch}; an error naming both when it does not divide. */
    int share(int batch) {
        if (batch % size() != 0) throw new IllegalArgumentException(indivisible(batch, size()));
        return batch / size();
    }

    /** The error of a global batch that the ranks cannot split evenly. */
    static String indivisible(int batch, int ranks) {
        return "--batch " + batch + " does not divide by --nproc " + ranks + ": --batch is the global batch, split evenly over the ranks;"
                + " give a multiple of " + ranks;
    }

    /** "32", or "32 = 2 ranks × 16" in data-parallel training: the global batch in the start line. */
    String describe(int batch) {
        return size() == 1 ? Integer.toString(batch) : String.format(Locale.ROOT, "%d = %d ranks × %d", batch, size(), batch / size());
    }

    /** "", or "; 2 ranks, 1 compute thread each": how the job shares the machine, for the start line. */
    String computeThreads() {
        if (size() == 1) return "";
        int threads = Runtime.getRuntime().availableProcessors();
        return String.format(Locale.ROOT, "; %d ranks, %d compute thread%s each", size(), threads, threads == 1 ? "" : "s");
    }

    /** The training loader builder for this rank: its share of the global {@code batch}, this rank's share of each epoch. */
    <T, B> DataLoader.Builder<T, B> shard(DataLoader.Builder<T, B> builder, int batch) {
        builder.batchSize(share(batch));
        // Cut each epoch to a multiple of the ranks: an epoch then has as many batches as one rank's unsharded loader.
        return size() == 1 ? builder : builder.shard(rank(), size(), true);
    }

    /** {@code builder} training data-parallel over the job when there are several ranks (wrapping {@code model}). */
    <B> Trainer.Builder<B> distribute(Trainer.Builder<B> builder, Module model) {
        return comm == null ? builder : builder.distributed(DistributedDataParallel.wrap(model, comm));
    }

    /** What only rank 0 does to the run directory (deleting an old run with --force); every rank waits for it. */
    void prepare(Path dir, boolean resume, boolean force) throws IOException {
        if (leader()) RunDirectory.prepare(dir, resume, force);
        if (comm != null) comm.barrier();
    }

    /** Ranks other than 0 print nothing to standard output (errors still reach standard error). */
    void silenceFollowers() {
        if (!leader()) System.setOut(new PrintStream(java.io.OutputStream.nullOutputStream()));
    }

    /**
     * Ends this rank of a job after {@code e}: its one line {@code symbiont train: rank R: message};
     * then either the exit code (a failure every rank met at the same step, such as a non-finite
     * loss, which rank 0 alone reports) or, for a failure of this rank alone, an abort of the whole
     * job so that no rank is left waiting in a collective.
     */
    int fail(Throwable e) {
        boolean agreed = agreed(e);
        if (!agreed && !leader()) awaitLeadersAbort();
        if (leader() || !agreed) {
            System.out.flush();
            System.err.println("symbiont train: rank " + rank() + ": " + Failures.message(e));
            System.err.flush();
        }
        if (!agreed) comm.abort(ABORT_MESSAGE, Main.BAD_INPUT);
        return Main.BAD_INPUT;
    }

    /**
     * Most failures come from the options or the files, and rank 0 meets them too: a moment's wait
     * lets its abort end the job first, so such an error is printed once, not once per rank. An
     * error of this rank alone is printed after the wait.
     */
    private static void awaitLeadersAbort() {
        try {
            Thread.sleep(FOLLOWER_GRACE_MILLIS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether every rank raised {@code e} at the same point (the trainer's agreed non-finite stop). */
    private static boolean agreed(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) if (t instanceof NonFiniteException) return true;
        return false;
    }

    /** Finalises the job's communicator (MPI_Finalize) after a run. */
    void close() {
        if (comm != null) comm.close();
    }
}
