package dev.symbiont.nn;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.norm.Normalization;

/** Root-mean-square normalisation over the last dim with a learned scale (1 initially), as torch.nn.RMSNorm. */
public final class RMSNorm extends Layer implements ResidualNorm {
    private final int dim;
    private final double eps;
    private final Parameter weight;

    public RMSNorm(int dim) { this(dim, 1e-6); }

    public RMSNorm(int dim, double eps) {
        this.dim = dim;
        this.eps = eps;
        this.weight = parameter("weight", Tensor.ones(dim));
    }

    /** x: (..., dim) → same shape. */
    @Override
    public Tensor forward(Tensor x) { return x.rmsNorm(new int[] {dim}, weight.value(), eps); }

    /** s = x + residual and this norm of s in one pass ({@link Normalization#addRmsNorm}); shapes (..., dim). */
    @Override
    public Normalization.AddNorm forwardAdd(Tensor x, Tensor residual) {
        return Normalization.addRmsNorm(x, residual, new int[] {dim}, weight.value(), eps);
    }

    @Override
    protected String extraRepr() { return dim + ", eps=" + eps; }
}
