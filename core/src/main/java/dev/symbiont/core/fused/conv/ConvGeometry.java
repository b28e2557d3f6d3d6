package dev.symbiont.core.fused.conv;

/**
 * Everything a convolution kernel needs to know about one conv2d call, fixed by
 * {@link Convolutions} after its checks: input (batch, inChannels, inH, inW), weight
 * (outChannels, inChannels / groups, kernelH, kernelW), output (batch, outChannels, outH, outW).
 *
 * <p>Output row oh reads input rows oh·strideH − padH + i·dilationH for i in [0, kernelH)
 * (columns likewise); rows outside [0, inH) read zero. Only the leading padding is stored:
 * the trailing padding is whatever makes outH rows, so PyTorch's asymmetric "same" padding
 * for even kernels (the extra row at the bottom) needs nothing special. A conv1d is a conv2d
 * with inH = kernelH = outH = 1.
 */
public record ConvGeometry(int batch, int inChannels, int inH, int inW,
                           int outChannels, int kernelH, int kernelW,
                           int strideH, int strideW, int padH, int padW, int dilationH, int dilationW,
                           int groups, int outH, int outW) {

    /** Input channels per group: the weight's dim 1. */
    public int groupInChannels() { return inChannels / groups; }

    /** Output channels per group. */
    public int groupOutChannels() { return outChannels / groups; }

    /** Rows of one group's im2col matrix: (inChannels / groups)·kernelH·kernelW. */
    public int patchSize() { return groupInChannels() * kernelH * kernelW; }

    /** Output positions per image: outH·outW, the columns of the im2col matrix. */
    public int outPixels() { return outH * outW; }

    /** Whether each output channel reads only its own input channel (groups = inChannels = outChannels). */
    public boolean depthwise() { return groups == inChannels && groups == outChannels; }

    /** A 1×1, stride-1, unpadded convolution: a plain matrix product per image. */
    public boolean pointwise() {
        return kernelH == 1 && kernelW == 1 && strideH == 1 && strideW == 1 && padH == 0 && padW == 0
                && outH == inH && outW == inW;
    }

    /** Multiply-adds of the forward, times two. */
    public long flops() {
        return 2L * batch * outChannels * outPixels() * patchSize();
    }

    public int[] inputShape() { return new int[] {batch, inChannels, inH, inW}; }

    public int[] weightShape() { return new int[] {outChannels, groupInChannels(), kernelH, kernelW}; }

    public int[] outputShape() { return new int[] {batch, outChannels, outH, outW}; }
}
