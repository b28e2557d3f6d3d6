package dev.symbiont.nn;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.norm.Normalization;

/** Layer normalisation over the last {@code normalizedShape} dims with weight 1 and bias 0 initially. */
public final class LayerNorm extends Layer implements ResidualNorm {
    private final int[] normalizedShape;
    private final double eps;
    private final Parameter weight, bias;

    public LayerNorm(int dim) { this(new int[] {dim}, 1e-5, true); }

    public LayerNorm(int[] normalizedShape, double eps, boolean affine) {
        this.normalizedShape = normalizedShape.clone();
        this.eps = eps;
        this.weight = affine ? parameter("weight", Tensor.ones(normalizedShape)) : null;
        this.bias = affine ? parameter("bias", Tensor.zeros(normalizedShape)) : null;
    }

    /** x: (..., normalizedShape) → same shape. */
    @Override
    public Tensor forward(Tensor x) {
        return x.layerNorm(normalizedShape, weight == null ? null : weight.value(), bias == null ? null : bias.value(), eps);
    }

    /** s = x + residual and this norm of s in one pass ({@link Normalization#addLayerNorm}). */
    @Override
    public Normalization.AddNorm forwardAdd(Tensor x, Tensor residual) {
        return Normalization.addLayerNorm(x, residual, normalizedShape, weight == null ? null : weight.value(),
                bias == null ? null : bias.value(), eps);
    }

    @Override
    protected String extraRepr() { return java.util.Arrays.toString(normalizedShape) + ", eps=" + eps; }
}
