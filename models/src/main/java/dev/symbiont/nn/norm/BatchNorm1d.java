package dev.symbiont.nn.norm;

import dev.symbiont.core.Tensor;

/** Batch norm of features (N, C) or sequences (N, C, L), torch.nn.BatchNorm1d; see {@link BatchNorm}. */
public final class BatchNorm1d extends BatchNorm {

    /** eps 1e-5, momentum 0.1, affine, tracking running statistics: PyTorch's defaults. */
    public BatchNorm1d(int numFeatures) { this(numFeatures, 1e-5, 0.1, true, true); }

    /** A null momentum keeps a cumulative average of the batch statistics. */
    public BatchNorm1d(int numFeatures, double eps, Double momentum, boolean affine, boolean trackRunningStats) {
        super(numFeatures, eps, momentum, affine, trackRunningStats);
    }

    @Override
    protected void checkRank(Tensor x) {
        if (x.dim() != 2 && x.dim() != 3) {
            throw new IllegalArgumentException("BatchNorm1d: expected 2D or 3D input (got " + x.dim() + "D input)");
        }
    }
}
