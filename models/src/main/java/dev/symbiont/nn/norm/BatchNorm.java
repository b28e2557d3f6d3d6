package dev.symbiont.nn.norm;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.norm.ChannelNorms;

/**
 * Batch normalisation over dim 1 of (N, C, *) inputs, as torch.nn.BatchNorm1d/2d (Ioffe and
 * Szegedy 2015, Algorithm 1): y = (x − E[x]) / √(Var[x] + eps) · weight + bias, the statistics
 * per channel over the batch and the spatial dims.
 *
 * <p>In training mode the batch's statistics are used and, with {@code trackRunningStats},
 * running_mean and running_var move towards them by {@code momentum} (the variance unbiased);
 * a null momentum gives the cumulative average, factor 1 / num_batches_tracked. In eval mode the
 * running statistics are used, or the batch's when they are not tracked. State-dict keys are
 * PyTorch's: {@code weight}, {@code bias} (C) when {@code affine}; {@code running_mean},
 * {@code running_var} (C) and {@code num_batches_tracked} (an int64 scalar) when tracked.
 */
public abstract class BatchNorm extends ChannelNorm {
    private final Double momentum;
    private final boolean trackRunningStats;
    /** num_batches_tracked on the host, and the buffer it was read from: a load or a move replaces the buffer. */
    private Tensor countedBuffer;
    private long counted;

    protected BatchNorm(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, affine);
        this.momentum = momentum;
        this.trackRunningStats = trackRunningStats;
        if (trackRunningStats) {
            buffer("running_mean", Tensor.zeros(numFeatures), true);
            buffer("running_var", Tensor.ones(numFeatures), true);
            buffer("num_batches_tracked", Tensor.full(0, DType.INT64), true);
        }
    }

    /** Throws unless x has the rank this layer takes (PyTorch's "expected 4D input"). */
    protected abstract void checkRank(Tensor x);

    /** x: (N, C, *) with C = numFeatures → same shape. */
    @Override
    public Tensor forward(Tensor x) {
        checkRank(x);
        checkChannels(x);
        boolean counting = isTraining() && trackRunningStats;
        long batches = counting ? numBatchesTracked() + 1 : 0;
        double factor = momentum != null ? momentum : counting ? 1.0 / batches : 0.0;
        Tensor y = ChannelNorms.batchNorm(x, runningMean(), runningVar(), weight(), bias(), isTraining() || !trackRunningStats,
                factor, eps);
        if (counting) storeCount(batches); // after the op: a rejected batch is not counted
        return y;
    }

    /** running_mean (C), or null when statistics are not tracked. */
    public Tensor runningMean() { return trackRunningStats ? buffer("running_mean") : null; }

    /** running_var (C), or null when statistics are not tracked. */
    public Tensor runningVar() { return trackRunningStats ? buffer("running_var") : null; }

    /** How many training batches updated the running statistics (0 when they are not tracked). */
    public long numBatchesTracked() {
        if (!trackRunningStats) return 0;
        syncCount();
        return counted;
    }

    /** Writes the count into num_batches_tracked in place (a live state dict sees it); a device fill, no upload. */
    private void storeCount(long count) {
        Tensor buffer = buffer("num_batches_tracked"), next;
        try (var scope = Backends.use(buffer.backend())) {
            next = Tensor.full(count, DType.INT64);
        }
        buffer.backend().copyInto(buffer.storage(), buffer.layout(), next.storage(), next.layout());
        counted = count;
        countedBuffer = buffer;
    }

    /** Reads the count from the buffer when the buffer is not the one last read (loaded, moved). */
    private void syncCount() {
        Tensor buffer = buffer("num_batches_tracked");
        if (buffer != countedBuffer) {
            counted = buffer.toLongArray()[0];
            countedBuffer = buffer;
        }
    }

    @Override
    protected String extraRepr() {
        return channels + ", eps=" + eps + ", momentum=" + momentum + ", affine=" + affine()
                + ", track_running_stats=" + trackRunningStats;
    }
}
