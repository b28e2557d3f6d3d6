package dev.symbiont.cpu.kernels;

/**
 * Which output columns of a convolution row read inside the input for each kernel column j:
 * output column ow reads input column {@code first(j) + ow·stride}, and does so inside [0, W)
 * exactly for ow in [{@link #lo}(j), {@link #hi}(j)). Computed once per call, so the row loops
 * of im2col, col2im and the depthwise kernel copy or multiply whole runs with no bounds test
 * per element; the same rule gives the valid output rows of kernel row i.
 */
public record ConvTaps(int[] first, int[] lo, int[] hi) {

    /**
     * The taps of {@code kernel} offsets along one dim.
     *
     * @param in     input size along the dim
     * @param out    output size along the dim
     */
    public static ConvTaps of(int in, int out, int kernel, int stride, int pad, int dilation) {
        int[] first = new int[kernel], lo = new int[kernel], hi = new int[kernel];
        for (int j = 0; j < kernel; j++) {
            int f = j * dilation - pad;
            first[j] = f;
            int l = f >= 0 ? 0 : ceilDiv(-f, stride);
            int h = in - f <= 0 ? 0 : ceilDiv(in - f, stride);
            lo[j] = Math.min(l, out);
            hi[j] = Math.max(lo[j], Math.min(h, out));
        }
        return new ConvTaps(first, lo, hi);
    }

    private static int ceilDiv(int a, int b) { return (a + b - 1) / b; }
}
