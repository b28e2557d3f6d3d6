package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.profile.OpCategory;

/**
 * max_pool2d, avg_pool2d and adaptive_avg_pool2d with PyTorch's semantics
 * ({@code torch.nn.functional}), through the conv family's kernels ({@link ConvKernels}).
 * x is (N, C, H, W); kernel, stride, padding and dilation are int-or-tuple ({@code {k}} is
 * {@code {k, k}}); stride null or empty means the kernel; padding is at most half the kernel.
 *
 * <pre>
 *   outH = floor((H + 2·p − d·(k − 1) − 1) / s) + 1        (ceil with ceilMode, the last window starting inside input + leading padding)
 * </pre>
 * Max pooling pads with −∞ and keeps the argmax of each window (the first on ties) for its
 * backward; average pooling pads with 0 and divides by the window size clipped to input +
 * padding (count_include_pad, the default) or to the input alone. Adaptive average pooling
 * averages rows [floor(i·H/outH), ceil((i+1)·H/outH)) and columns likewise.
 */
public final class Pooling {
    private Pooling() {}

    private static final FusedOp<ConvKernels> MAX_POOL = FusedOp.of(ConvKernels.FAMILY, "max_pool2d", OpCategory.CONVOLUTION);
    private static final FusedOp<ConvKernels> AVG_POOL = FusedOp.of(ConvKernels.FAMILY, "avg_pool2d", OpCategory.CONVOLUTION);
    private static final FusedOp<ConvKernels> ADAPTIVE = FusedOp.of(ConvKernels.FAMILY, "adaptive_avg_pool2d", OpCategory.CONVOLUTION);
    private static final int[] ONE = {1}, ZERO = {0};

    /** max_pool2d with a k×k window, stride k, no padding. */
    public static Tensor maxPool2d(Tensor x, int kernel) {
        return maxPool2d(x, new int[] {kernel}, null, ZERO, ONE, false);
    }

    /** max_pool2d with square window, stride and padding. */
    public static Tensor maxPool2d(Tensor x, int kernel, int stride, int padding) {
        return maxPool2d(x, new int[] {kernel}, new int[] {stride}, new int[] {padding}, ONE, false);
    }

    /**
     * Max pooling.
     *
     * @param x (N, C, H, W), any strides
     * @return (N, C, outH, outW)
     * @throws IllegalArgumentException naming the op and the shape for a non-4-D input, a size out
     *         of range, padding over half the kernel, or a window larger than the padded input
     */
    public static Tensor maxPool2d(Tensor x, int[] kernel, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        return maxPool2dWithIndices(x, kernel, stride, padding, dilation, ceilMode).output();
    }

    /**
     * Max pooling that also returns where each maximum is (PyTorch's return_indices=True):
     * int64 indices h·W + w into each input plane, (N, C, outH, outW). The output is differentiable.
     */
    public static ConvKernels.MaxPoolResult maxPool2dWithIndices(Tensor x, int[] kernel, int[] stride, int[] padding,
                                                                 int[] dilation, boolean ceilMode) {
        PoolGeometry g = ConvChecks.pool(MAX_POOL.name(), x, kernel, stride, padding, dilation, ceilMode);
        Tensor in = x.detach();
        Tensor[] indices = new Tensor[1];
        long cells = (long) g.batch() * g.channels() * g.outH() * g.outW();
        Tensor out = MAX_POOL.run(x.backend(), cells * g.kernelH() * g.kernelW(), FusedOp.bytes(x) + 12 * cells,
                k -> {
                    ConvKernels.MaxPoolResult r = k.maxPool2d(in, g);
                    indices[0] = r.indices();
                    return new FusedOp.Result<>(r.output(), r.indices());
                },
                (k, saved, grad) -> new Tensor[] {k.maxPool2dBackward(grad, saved, g)}, x);
        return new ConvKernels.MaxPoolResult(out, indices[0]);
    }

    /** avg_pool2d with a k×k window, stride k, no padding. */
    public static Tensor avgPool2d(Tensor x, int kernel) {
        return avgPool2d(x, new int[] {kernel}, null, ZERO, false, true);
    }

    /** avg_pool2d with square window, stride and padding, padding counted in the divisor. */
    public static Tensor avgPool2d(Tensor x, int kernel, int stride, int padding) {
        return avgPool2d(x, new int[] {kernel}, new int[] {stride}, new int[] {padding}, false, true);
    }

    /**
     * Average pooling.
     *
     * @param countIncludePad whether padding cells count in the divisor (PyTorch's default, true)
     * @return (N, C, outH, outW)
     */
    public static Tensor avgPool2d(Tensor x, int[] kernel, int[] stride, int[] padding, boolean ceilMode,
                                   boolean countIncludePad) {
        PoolGeometry g = ConvChecks.pool(AVG_POOL.name(), x, kernel, stride, padding, ONE, ceilMode);
        Tensor in = x.detach();
        long cells = (long) g.batch() * g.channels() * g.outH() * g.outW();
        return AVG_POOL.run(x.backend(), cells * g.kernelH() * g.kernelW(), FusedOp.bytes(x) + 4 * cells,
                k -> new FusedOp.Result<>(k.avgPool2d(in, g, countIncludePad), null),
                (k, unused, grad) -> new Tensor[] {k.avgPool2dBackward(grad, g, countIncludePad)}, x);
    }

    /** adaptive_avg_pool2d to a size × size output. */
    public static Tensor adaptiveAvgPool2d(Tensor x, int size) {
        return adaptiveAvgPool2d(x, size, size);
    }

    /**
     * Adaptive average pooling to (outH, outW): PyTorch's windows, which overlap when the
     * input is not a multiple of the output.
     *
     * @param x (N, C, H, W), any strides
     * @return (N, C, outH, outW)
     */
    public static Tensor adaptiveAvgPool2d(Tensor x, int outH, int outW) {
        ConvChecks.adaptive(ADAPTIVE.name(), x, outH, outW);
        Tensor in = x.detach();
        int[] shape = x.shape();
        return ADAPTIVE.run(x.backend(), x.numel(), FusedOp.bytes(x) + 4L * shape[0] * shape[1] * outH * outW,
                k -> new FusedOp.Result<>(k.adaptiveAvgPool2d(in, outH, outW), null),
                (k, unused, grad) -> new Tensor[] {k.adaptiveAvgPool2dBackward(grad, shape)}, x);
    }
}
