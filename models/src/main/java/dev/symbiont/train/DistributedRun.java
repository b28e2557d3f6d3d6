package dev.symbiont.train;

import dev.symbiont.core.Scope;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.Reduction;
import dev.symbiont.data.DataLoader;
import dev.symbiont.nn.ForwardMetrics;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.parallel.DistributedDataParallel;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link Trainer}'s side of data-parallel training ({@link Trainer.Builder#distributed}): what
 * the ranks must do together so that they take the same steps and decide the same things. One
 * rank (no {@link DistributedDataParallel}) makes no collective at all.
 *
 * <ul>
 * <li>Micro-batches but the step's last run inside {@link DistributedDataParallel#noSync()}; after
 * the last, {@link #finishGradients} averages the gradients and the step's losses (on the
 * backend), so the non-finite check, skipping and clipping see the same numbers on every rank.
 * <li>Each step the stop (cancellation, time limit, stop-now) is agreed with a host all-reduce
 * MAX, and under a time limit so is the lr schedule's step, which follows each rank's own clock.
 * <li>A logged window's throughput is summed and the model's forward metrics averaged.
 * <li>Rank 0 alone writes checkpoints and metrics and shows progress; whether its checkpoint was
 * written is agreed, so a failed write stops every rank instead of leaving them waiting.
 * <li>Batch-norm running statistics are copied from rank 0 before each evaluation and checkpoint
 * and at the end of the run, the only places they are read (see {@link #broadcastBuffers}).
 * </ul>
 */
final class DistributedRun {
    /** The stop decision of a step, the same on every rank. */
    record Stop(boolean cancelled, boolean timeUp, boolean now) {}

    private final DistributedDataParallel ddp;
    private final Communicator comm;

    private DistributedRun(DistributedDataParallel ddp) {
        this.ddp = ddp;
        this.comm = ddp == null ? null : ddp.communicator();
    }

    /** {@code ddp} null: a single rank. */
    static DistributedRun of(DistributedDataParallel ddp) { return new DistributedRun(ddp); }

    int rank() { return comm == null ? 0 : comm.rank(); }

    int size() { return comm == null ? 1 : comm.size(); }

    /** Rank 0: the one that writes files and shows progress. */
    boolean leader() { return rank() == 0; }

    /**
     * Throws unless the trainer's pieces fit data-parallel training over this group: the DDP wraps
     * {@code model}, the training loader is sharded for this rank, and the eval loader is not
     * (the trainer deals its batches to the ranks itself).
     */
    void check(Module model, DataLoader<?, ?> train, DataLoader<?, ?> eval) {
        if (ddp == null) return;
        if (ddp.module() != model) {
            throw new IllegalArgumentException("Trainer.distributed: the DistributedDataParallel wraps a "
                    + ddp.module().getClass().getSimpleName() + " other than the trainer's model; wrap the model the trainer trains");
        }
        if (train.shardRank() != rank() || train.shardCount() != size()) {
            throw new IllegalArgumentException("Trainer.distributed: the training loader is sharded for rank " + train.shardRank() + " of "
                    + train.shardCount() + ", but this is rank " + rank() + " of " + size()
                    + "; build it with shard(comm.rank(), comm.size()) and the same seed on every rank");
        }
        if (eval != null && eval.shardCount() != 1) {
            throw new IllegalArgumentException("Trainer.distributed: the eval loader is sharded (" + eval.shardCount()
                    + " ranks); give every rank the whole eval loader: the trainer deals its batches to the ranks");
        }
    }

    /** The scope of micro-batch {@code micro} of {@code count}: gradients stay local for all but the last. */
    Scope microBatch(int micro, int count) {
        return ddp == null || micro == count - 1 ? () -> { } : ddp.noSync();
    }

    /** After the step's last backward: the gradients' and the step's losses' means over the ranks. */
    void finishGradients(LogWindow window) {
        if (ddp == null) return;
        ddp.finishGradientSync();
        window.averageStepOver(comm);
    }

    /** The lr schedule's step for this step: the furthest any rank's clock puts it (they differ only under a time limit). */
    long scheduleStep(long local, boolean timed) {
        if (ddp == null || !timed) return local;
        double[] v = {local};
        comm.allReduce(v, Reduction.MAX);
        return (long) v[0];
    }

    /** Stops when any rank asks to: one host all-reduce per step. */
    Stop agree(boolean cancelled, boolean timeUp, boolean now) {
        if (ddp == null) return new Stop(cancelled, timeUp, now);
        double[] v = {flag(cancelled), flag(timeUp), flag(now)};
        comm.allReduce(v, Reduction.MAX);
        return new Stop(v[0] > 0, v[1] > 0, v[2] > 0);
    }

    private static double flag(boolean b) { return b ? 1 : 0; }

    /** {@code partials} summed over the ranks, in place; returns it. */
    double[] sum(double[] partials) {
        if (ddp != null) comm.allReduce(partials, Reduction.SUM);
        return partials;
    }

    /**
     * A window's tokens summed over the ranks (the throughput of the job) and the model's forward
     * metrics averaged over them (each rank's window mean, the same layout on every rank as the
     * model is the same); index 0 of the result is the tokens.
     */
    Window window(long tokens, ForwardMetrics.Read metrics) {
        if (ddp == null) return new Window(tokens, metrics);
        double[] v = new double[1 + metrics.values().size() + metrics.headline().size()];
        v[0] = tokens;
        int i = 1;
        for (double x : metrics.values().values()) v[i++] = x;
        for (double x : metrics.headline().values()) v[i++] = x;
        sum(v);
        Map<String, Double> values = new LinkedHashMap<>(), headline = new LinkedHashMap<>();
        i = 1;
        for (String k : metrics.values().keySet()) values.put(k, v[i++] / size());
        for (String k : metrics.headline().keySet()) headline.put(k, v[i++] / size());
        return new Window((long) v[0], new ForwardMetrics.Read(values, headline));
    }

    /** A logged window's numbers over every rank. */
    record Window(long tokens, ForwardMetrics.Read metrics) {}

    /**
     * Copies rank 0's persistent buffers to every rank. Training forwards use the batch's
     * statistics, not the running ones, and rank 0's buffers evolve from its own batches alone
     * whether or not they are broadcast before each forward (PyTorch's {@code broadcast_buffers}),
     * so copying them before each evaluation, checkpoint and the end of the run is enough for
     * every rank to hold and use what PyTorch's ranks would, at a collective per evaluation instead
     * of per forward.
     */
    void broadcastBuffers() {
        if (ddp != null) ddp.broadcastBuffers();
    }

    /** A write only rank 0 makes (the checkpoint, the files beside it). */
    @FunctionalInterface
    interface Write {
        void run() throws IOException;
    }

    /**
     * Runs {@code write} on rank 0 and agrees on its outcome: when it fails, rank 0 throws its
     * error and every other rank an {@link IOException} saying rank 0's {@code what} failed, so
     * no rank goes on waiting for the others.
     */
    void onLeader(String what, Write write) throws IOException {
        IOException failed = null;
        RuntimeException crashed = null;
        if (leader()) {
            try {
                write.run();
            } catch (IOException e) {
                failed = e;
            } catch (RuntimeException e) {
                crashed = e;
            }
        }
        if (ddp != null) {
            double[] v = {failed != null || crashed != null ? 1 : 0};
            comm.allReduce(v, Reduction.MAX);
            if (v[0] > 0 && !leader()) throw new IOException("rank 0 failed to write " + what + " (its error says why), so every rank stopped");
        }
        if (failed != null) throw failed;
        if (crashed != null) throw crashed;
    }
}
