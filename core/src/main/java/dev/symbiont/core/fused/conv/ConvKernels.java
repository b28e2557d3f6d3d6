package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The conv family's contract: 2-D convolution and pooling, each with its backward. Semantics
 * and shapes are {@link Convolutions}'s and {@link Pooling}'s; inputs carry no autograd
 * history, may have any strides and have passed their checks, so the geometry agrees with
 * the tensors. {@link ReferenceConv} is the reference: im2col with {@code index_select} and a
 * batched matmul, which materialises the whole (C/groups·kh·kw) × (outH·outW) matrix per image.
 */
public interface ConvKernels {

    Family<ConvKernels> FAMILY = new Family<>("conv", ConvKernels.class, new ReferenceConv());

    /**
     * out[n, o] = bias[o] + Σ_{c in o's group, i, j} weight[o, c, i, j]·x[n, c, oh·s − p + i·d, ...].
     *
     * @param x      g.inputShape()
     * @param weight g.weightShape()
     * @param bias   null or (outChannels)
     * @return g.outputShape(), contiguous
     */
    Tensor conv2d(Tensor x, Tensor weight, Tensor bias, ConvGeometry g);

    /**
     * The gradients of {@link #conv2d}: the input's is the transposed convolution of gradOut
     * (col2im of weightᵀ·gradOut), the weight's gradOut·im2col(x)ᵀ summed over the batch, the
     * bias's gradOut summed over batch and positions. Only the asked-for ones are computed; the
     * others are null.
     *
     * @param gradOut g.outputShape()
     */
    ConvGrads conv2dBackward(Tensor gradOut, Tensor x, Tensor weight, ConvGeometry g,
                             boolean inputGrad, boolean weightGrad, boolean biasGrad);

    /**
     * The window maxima and where they are: indices (int64) into each (inH·inW) input plane,
     * h·inW + w, the first maximum in window order on ties (as PyTorch).
     */
    MaxPoolResult maxPool2d(Tensor x, PoolGeometry g);

    /** Scatters gradOut to the saved indices (repeats add up); the result has g.inputShape(). */
    Tensor maxPool2dBackward(Tensor gradOut, Tensor indices, PoolGeometry g);

    /** Window sums over {@link PoolGeometry#divisor}; padding reads zero. */
    Tensor avgPool2d(Tensor x, PoolGeometry g, boolean countIncludePad);

    /** Each window's gradient spread evenly over its cells: g.inputShape(). */
    Tensor avgPool2dBackward(Tensor gradOut, PoolGeometry g, boolean countIncludePad);

    /**
     * Means over PyTorch's adaptive windows, rows [floor(oh·H/outH), ceil((oh+1)·H/outH)) and
     * columns likewise ({@link PoolGeometry#adaptiveStart}).
     *
     * @param x (batch, channels, H, W)
     * @return (batch, channels, outH, outW)
     */
    Tensor adaptiveAvgPool2d(Tensor x, int outH, int outW);

    /** The gradient of {@link #adaptiveAvgPool2d}: (batch, channels, H, W) = inputShape. */
    Tensor adaptiveAvgPool2dBackward(Tensor gradOut, int[] inputShape);

    /** The gradients of a conv2d; null for those not asked for. */
    record ConvGrads(Tensor input, Tensor weight, Tensor bias) {}

    /** Max pooling's output and the int64 indices its backward scatters to, both g.outputShape(). */
    record MaxPoolResult(Tensor output, Tensor indices) {}
}
