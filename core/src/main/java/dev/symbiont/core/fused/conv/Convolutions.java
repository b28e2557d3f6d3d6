package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.profile.OpCategory;

/**
 * conv2d and conv1d with PyTorch's semantics ({@code torch.nn.functional.conv2d}), through the
 * conv family's kernels ({@link ConvKernels}).
 *
 * <pre>
 *   out[n, o, y, x] = bias[o] + Σ_{c, i, j} weight[o, c, i, j] · in[n, g·C/G + c, y·s_h − p_h + i·d_h, x·s_w − p_w + j·d_w]
 *   outH = floor((H + 2·p_h − d_h·(kh − 1) − 1) / s_h) + 1                    (cells outside the input read 0)
 * </pre>
 * where g = o / (O/G) is o's group. x is (N, C, H, W), weight (O, C/groups, kh, kw), bias null
 * or (O). Stride, padding and dilation are int-or-tuple as in PyTorch: {@code {2}} is
 * {@code {2, 2}}. Padding "valid" is 0; "same" (stride 1 only) pads d·(k − 1) in total per dim,
 * half before and the odd cell after, as PyTorch does. groups = C = O is a depthwise convolution.
 * conv1d is conv2d over (N, C, 1, L). Differentiable w.r.t. input, weight and bias.
 */
public final class Convolutions {
    private Convolutions() {}

    private static final FusedOp<ConvKernels> CONV2D = FusedOp.of(ConvKernels.FAMILY, "conv2d", OpCategory.CONVOLUTION);
    private static final FusedOp<ConvKernels> CONV1D = FusedOp.of(ConvKernels.FAMILY, "conv1d", OpCategory.CONVOLUTION);
    private static final int[] ONE = {1}, ZERO = {0};

    /** conv2d with stride 1, no padding, dilation 1, one group. */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias) {
        return conv2d(x, weight, bias, ONE, ZERO, ONE, 1);
    }

    /** conv2d with the same stride, padding and dilation along H and W. */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        return conv2d(x, weight, bias, new int[] {stride}, new int[] {padding}, new int[] {dilation}, groups);
    }

    /**
     * The 2-D convolution.
     *
     * @param x        (N, C, H, W), any strides
     * @param weight   (O, C / groups, kh, kw)
     * @param bias     null or (O)
     * @param stride   {s} or {s_h, s_w}, each ≥ 1
     * @param padding  {p} or {p_h, p_w}, each ≥ 0
     * @param dilation {d} or {d_h, d_w}, each ≥ 1
     * @param groups   ≥ 1, dividing C and O
     * @return (N, O, outH, outW)
     * @throws IllegalArgumentException naming the op and the shapes when they disagree, groups do not
     *         divide the channels, the kernel is larger than the padded input, or a size is out of range
     */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, int[] padding, int[] dilation, int groups) {
        return run(CONV2D, ConvChecks.conv(CONV2D.name(), 2, x, weight, bias, stride, padding, dilation, groups), x, weight, bias);
    }

    /** As {@link #conv2d(Tensor, Tensor, Tensor, int[], int[], int[], int)} with padding "same" or "valid". */
    public static Tensor conv2d(Tensor x, Tensor weight, Tensor bias, int[] stride, String padding, int[] dilation, int groups) {
        return run(CONV2D, ConvChecks.conv(CONV2D.name(), 2, x, weight, bias, stride, padding, dilation, groups), x, weight, bias);
    }

    /** conv1d with stride 1, no padding, dilation 1, one group. */
    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias) {
        return conv1d(x, weight, bias, 1, 0, 1, 1);
    }

    /**
     * The 1-D convolution: conv2d over (N, C, 1, L).
     *
     * @param x      (N, C, L), any strides
     * @param weight (O, C / groups, k)
     * @param bias   null or (O)
     * @return (N, O, outL)
     */
    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias, int stride, int padding, int dilation, int groups) {
        ConvGeometry g = ConvChecks.conv(CONV1D.name(), 1, x, weight, bias, new int[] {stride}, new int[] {padding},
                new int[] {dilation}, groups);
        return run(CONV1D, g, x.unsqueeze(2), weight.unsqueeze(2), bias).squeeze(2);
    }

    /** As {@link #conv1d(Tensor, Tensor, Tensor, int, int, int, int)} with padding "same" or "valid". */
    public static Tensor conv1d(Tensor x, Tensor weight, Tensor bias, int stride, String padding, int dilation, int groups) {
        ConvGeometry g = ConvChecks.conv(CONV1D.name(), 1, x, weight, bias, new int[] {stride}, padding,
                new int[] {dilation}, groups);
        return run(CONV1D, g, x.unsqueeze(2), weight.unsqueeze(2), bias).squeeze(2);
    }

    /** x and weight 4-D, checked against g. */
    private static Tensor run(FusedOp<ConvKernels> op, ConvGeometry g, Tensor x, Tensor weight, Tensor bias) {
        Tensor x2 = x.detach(), w2 = weight.detach(), b2 = bias == null ? null : bias.detach();
        boolean dx = x.requiresGrad(), dw = weight.requiresGrad(), db = bias != null && bias.requiresGrad();
        long bytes = FusedOp.bytes(x, weight, bias) + 4L * g.batch() * g.outChannels() * g.outPixels();
        return op.run(x.backend(), g.flops(), bytes,
                k -> new FusedOp.Result<>(k.conv2d(x2, w2, b2, g), null),
                (k, unused, grad) -> {
                    ConvKernels.ConvGrads gr = k.conv2dBackward(grad, x2, w2, g, dx, dw, db);
                    return new Tensor[] {gr.input(), gr.weight(), gr.bias()};
                }, x, weight, bias);
    }
}
