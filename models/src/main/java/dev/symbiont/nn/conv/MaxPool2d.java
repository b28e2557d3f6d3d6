package dev.symbiont.nn.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.nn.Layer;

/**
 * torch.nn.MaxPool2d with a square window: the maximum of each k×k window (padding reads −∞).
 * No parameters. Computed by the conv family's fused op ({@link Pooling#maxPool2d}), which keeps
 * the argmax for the backward.
 */
public final class MaxPool2d extends Layer {
    private final int kernel, stride, padding, dilation;
    private final boolean ceilMode;

    /** A k×k window with stride k, no padding. */
    public MaxPool2d(int kernel) { this(kernel, kernel, 0); }

    /** ResNet's stem uses {@code new MaxPool2d(3, 2, 1)}. */
    public MaxPool2d(int kernel, int stride, int padding) { this(kernel, stride, padding, 1, false); }

    /** @param ceilMode round the output size up, as PyTorch's ceil_mode */
    public MaxPool2d(int kernel, int stride, int padding, int dilation, boolean ceilMode) {
        PoolChecks.window("MaxPool2d(kernel " + kernel + ")", kernel, stride, padding, dilation);
        this.kernel = kernel;
        this.stride = stride;
        this.padding = padding;
        this.dilation = dilation;
        this.ceilMode = ceilMode;
    }

    /** x: (N, C, H, W) → (N, C, H', W'), H' = floor((H + 2·padding − dilation·(k − 1) − 1) / stride) + 1 (ceil with ceilMode). */
    @Override
    public Tensor forward(Tensor x) {
        return Pooling.maxPool2d(x, new int[] {kernel}, new int[] {stride}, new int[] {padding}, new int[] {dilation}, ceilMode);
    }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + kernel + ", stride=" + stride + ", padding=" + padding + ", dilation=" + dilation + ", ceil_mode=" + ceilMode;
    }
}
