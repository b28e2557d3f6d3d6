package dev.symbiont.nn.parallel;

import dev.symbiont.core.DType;
import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Data-parallel training over a {@link Communicator}, in the shape of PyTorch's
 * {@code torch.nn.parallel.DistributedDataParallel}: every rank holds a replica of the model,
 * runs forward and backward on its own share of the batch, and ends the step with the mean of the
 * ranks' gradients, so every replica takes the same optimizer step.
 *
 * <ul>
 * <li><b>Wrapping</b> checks that every rank built the same model (parameter and buffer names,
 * dtypes, shapes, which are frozen; a mismatch is a {@link CollectiveException} on every rank
 * naming the ranks and the first differing entry) and copies rank 0's parameters and persistent
 * buffers to every rank.
 * <li><b>Buckets.</b> Gradients of trainable float32 parameters are packed into flat float32
 * buckets of about {@code bucketCapMb} MiB (25 by default), parameters in reverse registration
 * order at first and, after the first step, in the order their gradients became ready. A
 * gradient-ready hook copies each gradient into its bucket during backward, and a full bucket's
 * all-reduce (AVG) starts at once, overlapping the rest of backward; buckets start in index order.
 * The first bucket is capped at {@code firstBucketCapMb} (1 MiB, as PyTorch's
 * {@code _DEFAULT_FIRST_BUCKET_BYTES}; before the first step it is the bucket reduced last).
 * <li><b>{@link #finishGradientSync()}</b>, called after the last backward and before clipping
 * and the optimizer step, waits for the buckets and makes the averages the parameters' gradients.
 * <li><b>{@link #noSync()}</b> (PyTorch's {@code no_sync}): backward passes inside it only
 * accumulate locally; the next synchronised backward reduces the accumulated sums.
 * <li><b>Unused parameters.</b> A parameter that got no gradient on some rank is an error on every
 * rank naming it, its bucket and the ranks, unless {@code findUnusedParameters(true)}: then it
 * counts as zero on those ranks (and keeps its gradient untouched where no rank produced one).
 * </ul>
 *
 * <p>Unlike PyTorch's wrapper this is not a module: the model's own forward is called, and the
 * state dict keeps the model's keys (no {@code module.} prefix). One instance per rank, used by
 * the thread that runs that rank's backward.
 *
 * <pre>{@code
 * try (var ddp = DistributedDataParallel.wrap(model, world)) {
 *     for (var batch : loader.epoch(e)) {            // loader built with shard(world.rank(), world.size())
 *         model.loss(batch.input(), batch.target()).backward();
 *         ddp.finishGradientSync();                    // gradients now the mean over the ranks
 *         optimizer.step();
 *         optimizer.zeroGrad();
 *     }
 * }
 * }</pre>
 * With gradient accumulation, the micro-batches but the last go inside {@code noSync()}:
 * <pre>{@code
 * try (var local = ddp.noSync()) { for (micro-batch but the last) loss(mb).div(k).backward(); }
 * loss(last).div(k).backward();
 * ddp.finishGradientSync();
 * GradClip.clipGradNorm(model.trainableParameters(), 1.0);
 * optimizer.step();
 * }</pre>
 */
public final class DistributedDataParallel implements AutoCloseable {
    /** PyTorch's {@code bucket_cap_mb} default. */
    public static final double DEFAULT_BUCKET_CAP_MB = 25;
    /** PyTorch's {@code _DEFAULT_FIRST_BUCKET_BYTES}, 1 MiB. */
    public static final double DEFAULT_FIRST_BUCKET_CAP_MB = 1;

    private final Module module;
    private final Communicator comm;
    private final boolean findUnusedParameters;
    private final int bufferCount;
    private final Reducer reducer;

    private DistributedDataParallel(Builder b) {
        this.module = b.module;
        this.comm = b.comm;
        this.findUnusedParameters = b.findUnusedParameters;
        List<ModelAgreement.Entry> entries = ModelAgreement.entries(module);
        List<ModelAgreement.Entry> compared = new ArrayList<>(entries);
        // The options decide which collectives each step makes, so they must agree as well.
        compared.add(new ModelAgreement.Entry("option findUnusedParameters=" + b.findUnusedParameters + ", bucketCapMb=" + b.bucketCapMb
                + ", firstBucketCapMb=" + b.firstBucketCapMb, null, false));
        List<String> names = new ArrayList<>();
        List<Parameter> trainable = new ArrayList<>();
        for (Map.Entry<String, Parameter> e : module.namedParameters().entrySet()) {
            if (e.getValue().value().requiresGrad()) {
                names.add(e.getKey());
                trainable.add(e.getValue());
            }
        }
        ModelAgreement.verify(comm, compared, localProblem(names, trainable));
        ModelAgreement.broadcastFromRankZero(comm, entries);
        this.bufferCount = (int) entries.stream().filter(ModelAgreement.Entry::buffer).count();
        this.reducer = new Reducer(comm, names, trainable, trainable.getFirst().value().backend(),
                bytes(b.firstBucketCapMb), bytes(b.bucketCapMb), b.findUnusedParameters);
    }

    /** Wraps {@code module} with the defaults (25 MiB buckets, unused parameters an error); see {@link Builder}. */
    public static DistributedDataParallel wrap(Module module, Communicator communicator) {
        return builder(module, communicator).build();
    }

    /** Options for wrapping {@code module}; every rank must build with the same ones. */
    public static Builder builder(Module module, Communicator communicator) { return new Builder(module, communicator); }

    /** The wrapped model, whose forward the training loop calls. */
    public Module module() { return module; }

    public Communicator communicator() { return comm; }

    public boolean findUnusedParameters() { return findUnusedParameters; }

    /**
     * PyTorch's {@code no_sync()}: backward passes inside the scope only accumulate gradients
     * locally, and the first synchronised backward after it reduces the sums (gradient
     * accumulation without a collective per micro-batch). Every rank must run the same number of
     * backward passes inside it. Scopes nest.
     */
    public Scope noSync() { return reducer.noSync(); }

    /**
     * Completes the step's gradient synchronisation: starts the buckets backward did not complete
     * (a parameter that got no gradient counts as zero), waits for every bucket's all-reduce, and
     * sets each trainable parameter's gradient to the mean over the ranks (a view of its bucket).
     * Call it once after the step's last backward, outside {@link #noSync()}, before clipping,
     * unscaling or the optimizer step; every rank must call it.
     *
     * @throws CollectiveException on every rank, when some parameter got no gradient on some rank
     *         and {@code findUnusedParameters} is off (naming the parameters, buckets and ranks),
     *         or when the communicator fails
     */
    public void finishGradientSync() { reducer.finish(); }

    /**
     * Copies rank 0's persistent buffers (batch norm's running statistics) to every rank, as
     * PyTorch's DDP does before each forward with {@code broadcast_buffers}; wrapping does it once.
     * The buffers are looked up again each time: loading a state dict after wrapping (resuming
     * from a checkpoint) replaces the module's buffer tensors. Every rank must call it.
     */
    public void broadcastBuffers() {
        List<ModelAgreement.Entry> current = ModelAgreement.entries(module).stream().filter(ModelAgreement.Entry::buffer).toList();
        if (current.size() != bufferCount) {
            throw new IllegalStateException("DistributedDataParallel.broadcastBuffers: the module has " + current.size()
                    + " persistent buffers, " + bufferCount + " when it was wrapped; wrap it again after changing its buffers");
        }
        ModelAgreement.broadcastFromRankZero(comm, current);
    }

    /** The trainable parameters' names per bucket, in bucket-index order: the order their all-reduces start. */
    public List<List<String>> bucketAssignment() { return reducer.assignment(); }

    /** Removes the gradient hooks: later backward passes only accumulate locally. */
    @Override
    public void close() { reducer.close(); }

    private static long bytes(double mb) { return (long) (mb * 1024 * 1024); }

    /** What keeps this rank from wrapping its model, or null: checked before any rank throws, so all of them do. */
    private static String localProblem(List<String> names, List<Parameter> trainable) {
        if (trainable.isEmpty()) {
            return "DistributedDataParallel: the module has no parameter that requires a gradient, so there is nothing to average";
        }
        Backend backend = trainable.getFirst().value().backend();
        for (int i = 0; i < trainable.size(); i++) {
            var value = trainable.get(i).value();
            if (value.dtype() != DType.FLOAT32) {
                return "DistributedDataParallel: parameter '" + names.get(i) + "' is " + value.dtype()
                        + "; gradients are averaged in float32 buckets, so trainable parameters must be float32"
                        + " (keep float32 weights and autocast the forward, or freeze it)";
            }
            if (value.backend() != backend) {
                return "DistributedDataParallel: parameter '" + names.get(i) + "' is on " + value.device() + " and '" + names.getFirst()
                        + "' on " + trainable.getFirst().value().device() + "; move the whole model to one device before wrapping it";
            }
        }
        return null;
    }

    /** Options for {@link DistributedDataParallel}; defaults as PyTorch's. */
    public static final class Builder {
        private final Module module;
        private final Communicator comm;
        private double bucketCapMb = DEFAULT_BUCKET_CAP_MB;
        private double firstBucketCapMb = DEFAULT_FIRST_BUCKET_CAP_MB;
        private boolean findUnusedParameters;

        private Builder(Module module, Communicator comm) {
            this.module = Objects.requireNonNull(module, "DistributedDataParallel: module");
            this.comm = Objects.requireNonNull(comm, "DistributedDataParallel: communicator");
        }

        /** PyTorch's {@code bucket_cap_mb}: the size (MiB) at which a bucket is closed; 25 by default. */
        public Builder bucketCapMb(double mb) {
            this.bucketCapMb = positive("bucketCapMb", mb);
            return this;
        }

        /** The first bucket's cap (MiB), 1 by default (PyTorch's {@code _DEFAULT_FIRST_BUCKET_BYTES}). */
        public Builder firstBucketCapMb(double mb) {
            this.firstBucketCapMb = positive("firstBucketCapMb", mb);
            return this;
        }

        /**
         * PyTorch's {@code find_unused_parameters}: when on, a parameter that got no gradient in a
         * step on some rank counts as zero there instead of being an error, and one that got none
         * on any rank keeps its gradient untouched. As in PyTorch, the buckets are then not
         * rebuilt in ready order (which parameters are ready may change from step to step).
         */
        public Builder findUnusedParameters(boolean on) {
            this.findUnusedParameters = on;
            return this;
        }

        /** Checks the ranks agree, copies rank 0's state everywhere and hooks the parameters; every rank must call it. */
        public DistributedDataParallel build() { return new DistributedDataParallel(this); }

        private static double positive(String name, double mb) {
            if (!(mb > 0) || Double.isInfinite(mb)) {
                throw new IllegalArgumentException("DistributedDataParallel: " + name + " must be a positive number of MiB, got " + mb);
            }
            return mb;
        }
    }
}
