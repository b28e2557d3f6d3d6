package dev.symbiont.nn.norm;

import dev.symbiont.core.Tensor;

/** Batch norm of images (N, C, H, W), torch.nn.BatchNorm2d; see {@link BatchNorm}. */
public final class BatchNorm2d extends BatchNorm {

    /** eps 1e-5, momentum 0.1, affine, tracking running statistics: PyTorch's defaults. */
    public BatchNorm2d(int numFeatures) { this(numFeatures, 1e-5, 0.1, true, true); }

    /** A null momentum keeps a cumulative average of the batch statistics. */
    public BatchNorm2d(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    @Override
    protected void checkRank(Tensor x) {
        if (x.dim() != 4) throw new IllegalArgumentException("BatchNorm2d: expected 4D input (got " + x.dim() + "D input)");
    }
}
