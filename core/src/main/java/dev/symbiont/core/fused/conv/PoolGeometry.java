package dev.symbiont.core.fused.conv;

/**
 * One max or average pooling call, fixed by {@link Pooling} after its checks: input
 * (batch, channels, inH, inW), output (batch, channels, outH, outW). Output row oh's window
 * covers input rows oh·strideH − padH + i·dilationH for i in [0, kernelH); rows outside the
 * input are padding (−∞ for max, 0 for average). With ceil_mode the last window may run past
 * the trailing padding; the average's divisor then counts only the part inside input + padding,
 * as PyTorch does. Average pooling has dilation 1.
 */
public record PoolGeometry(int batch, int channels, int inH, int inW,
                           int kernelH, int kernelW, int strideH, int strideW,
                           int padH, int padW, int dilationH, int dilationW, int outH, int outW) {

    public int[] inputShape() { return new int[] {batch, channels, inH, inW}; }

    public int[] outputShape() { return new int[] {batch, channels, outH, outW}; }

    /** First input row of output row oh's window (may be negative: padding). */
    public int rowStart(int oh) { return oh * strideH - padH; }

    /** First input column of output column ow's window. */
    public int colStart(int ow) { return ow * strideW - padW; }

    /**
     * The divisor of average pooling at (oh, ow), as PyTorch's avg_pool2d: the window clipped to
     * input + padding when padding counts, else clipped to the input alone.
     */
    public int divisor(int oh, int ow, boolean countIncludePad) {
        int h0 = rowStart(oh), w0 = colStart(ow);
        int h1 = Math.min(h0 + kernelH, inH + padH), w1 = Math.min(w0 + kernelW, inW + padW);
        if (countIncludePad) return (h1 - h0) * (w1 - w0);
        return (Math.min(h1, inH) - Math.max(h0, 0)) * (Math.min(w1, inW) - Math.max(w0, 0));
    }

    /** PyTorch's adaptive pooling window along one dim: [floor(o·in/out), ceil((o+1)·in/out)). */
    public static int adaptiveStart(int o, int in, int out) { return (int) ((long) o * in / out); }

    public static int adaptiveEnd(int o, int in, int out) { return (int) (((long) (o + 1) * in + out - 1) / out); }
}
