package dev.symbiont.nn.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.nn.Layer;

/**
 * torch.nn.AvgPool2d with a square window: the mean of each k×k window, padding counted in the
 * divisor unless {@code countIncludePad} is false (PyTorch's default: counted). No parameters.
 */
public final class AvgPool2d extends Layer {
    private final int kernel, stride, padding;
    private final boolean ceilMode, countIncludePad;

    /** A k×k window with stride k, no padding. */
    public AvgPool2d(int kernel) { this(kernel, kernel, 0); }

    public AvgPool2d(int kernel, int stride, int padding) { this(kernel, stride, padding, false, true); }

    public AvgPool2d(int kernel, int stride, int padding, boolean ceilMode, boolean countIncludePad) {
        PoolChecks.window("AvgPool2d(kernel " + kernel + ")", kernel, stride, padding, 1);
        this.kernel = kernel;
        this.stride = stride;
        this.padding = padding;
        this.ceilMode = ceilMode;
        this.countIncludePad = countIncludePad;
    }

    /** x: (N, C, H, W) → (N, C, H', W'), H' = floor((H + 2·padding − k) / stride) + 1 (ceil with ceilMode). */
    @Override
    public Tensor forward(Tensor x) {
        return Pooling.avgPool2d(x, new int[] {kernel}, new int[] {stride}, new int[] {padding}, ceilMode, countIncludePad);
    }

    @Override
    protected String extraRepr() {
        return "kernel_size=" + kernel + ", stride=" + stride + ", padding=" + padding + ", ceil_mode=" + ceilMode
                + ", count_include_pad=" + countIncludePad;
    }
}
