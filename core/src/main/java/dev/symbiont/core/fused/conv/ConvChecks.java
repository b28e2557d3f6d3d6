package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Checks;

import java.util.Arrays;

/**
 * The argument checks of conv1d/conv2d and the pools, each failure an
 * IllegalArgumentException naming the op and the shapes, and the geometry they fix. Sizes
 * per spatial dim come as PyTorch's int-or-tuple: one value for every dim, or one per dim.
 */
final class ConvChecks {
    private ConvChecks() {}

    /** "same" and "valid", PyTorch's string paddings. */
    static final String SAME = "same", VALID = "valid";

    /**
     * Checks a convolution over {@code dims} (1 or 2) spatial dims and returns its geometry, a
     * 1-D one seen as H = 1. {@code padding} is an int[] or one of "same" / "valid".
     */
    static ConvGeometry conv(String op, int dims, Tensor x, Tensor weight, Tensor bias,
                             int[] stride, Object padding, int[] dilation, int groups) {
        Checks.sameBackend(op, x, weight, bias);
        Checks.float32(op, x, weight, bias);
        String layout = dims == 1 ? "(N, C, L)" : "(N, C, H, W)";
        String wLayout = dims == 1 ? "(out_channels, in_channels / groups, k)" : "(out_channels, in_channels / groups, kh, kw)";
        String shapes = "input " + shape(x) + ", weight " + shape(weight) + (bias == null ? "" : ", bias " + shape(bias));
        if (x.dim() != dims + 2) fail(op, "expected a " + (dims + 2) + "-D input " + layout, shapes);
        if (weight.dim() != dims + 2) fail(op, "expected a " + (dims + 2) + "-D weight " + wLayout, shapes);
        int[] s = perDim(op, "stride", stride, dims, 1, shapes);
        int[] d = perDim(op, "dilation", dilation, dims, 1, shapes);
        int[] k = Arrays.copyOfRange(weight.shape(), 2, dims + 2), in = Arrays.copyOfRange(x.shape(), 2, dims + 2);
        int channels = x.size(1), out = weight.size(0);
        if (groups < 1) fail(op, "groups must be at least 1, got " + groups, shapes);
        if (channels % groups != 0) fail(op, "groups = " + groups + " must divide the input's " + channels + " channels", shapes);
        if (out % groups != 0) fail(op, "groups = " + groups + " must divide the weight's " + out + " output channels", shapes);
        if (weight.size(1) * groups != channels) {
            fail(op, "the input has " + channels + " channels but the weight expects " + weight.size(1) + " × groups " + groups
                    + " = " + weight.size(1) * groups, shapes);
        }
        for (int kk : k) if (kk < 1) fail(op, "kernel sizes must be at least 1", shapes);
        if (bias != null && (bias.dim() != 1 || bias.size(0) != out)) {
            fail(op, "bias must be (out_channels) = (" + out + ")", shapes);
        }
        int[] before = new int[dims], total = new int[dims];
        if (padding instanceof String p) {
            if (p.equals(SAME)) {
                for (int v : s) if (v != 1) fail(op, "padding='same' needs stride 1, got stride " + Arrays.toString(s), shapes);
                for (int i = 0; i < dims; i++) {
                    total[i] = d[i] * (k[i] - 1);
                    before[i] = total[i] / 2;          // PyTorch puts the odd cell at the end
                }
            } else if (!p.equals(VALID)) {
                fail(op, "padding must be 'same', 'valid' or sizes, got '" + p + "'", shapes);
            }
        } else {
            int[] p = perDim(op, "padding", (int[]) padding, dims, 0, shapes);
            for (int i = 0; i < dims; i++) { before[i] = p[i]; total[i] = 2 * p[i]; }
        }
        int[] o = new int[dims];
        for (int i = 0; i < dims; i++) {
            o[i] = Math.floorDiv(in[i] + total[i] - d[i] * (k[i] - 1) - 1, s[i]) + 1;
            if (o[i] < 1) {
                fail(op, "the kernel " + Arrays.toString(k) + " with dilation " + Arrays.toString(d)
                        + " is larger than the padded input " + Arrays.toString(padded(in, total)), shapes);
            }
        }
        int n = x.size(0);
        return dims == 1
                ? new ConvGeometry(n, channels, 1, in[0], out, 1, k[0], 1, s[0], 0, before[0], 1, d[0], groups, 1, o[0])
                : new ConvGeometry(n, channels, in[0], in[1], out, k[0], k[1], s[0], s[1], before[0], before[1], d[0], d[1],
                        groups, o[0], o[1]);
    }

    /**
     * Checks a 2-D max or average pool and returns its geometry: stride null means the kernel,
     * padding at most half the kernel, and ceil_mode's output size rule as PyTorch's
     * {@code pooling_output_shape} (the last window must start inside the input or its leading padding).
     */
    static PoolGeometry pool(String op, Tensor x, int[] kernel, int[] stride, int[] padding, int[] dilation, boolean ceilMode) {
        Checks.float32(op, x);
        String shapes = "input " + shape(x);
        if (x.dim() != 4) fail(op, "expected a 4-D input (N, C, H, W)", shapes);
        int[] k = perDim(op, "kernel_size", kernel, 2, 1, shapes);
        int[] s = stride == null || stride.length == 0 ? k : perDim(op, "stride", stride, 2, 1, shapes);
        int[] p = perDim(op, "padding", padding, 2, 0, shapes);
        int[] d = perDim(op, "dilation", dilation, 2, 1, shapes);
        for (int i = 0; i < 2; i++) {
            if (p[i] > k[i] / 2) {
                fail(op, "padding " + Arrays.toString(p) + " must be at most half the kernel " + Arrays.toString(k), shapes);
            }
        }
        int[] in = {x.size(2), x.size(3)}, o = new int[2];
        for (int i = 0; i < 2; i++) {
            int span = in[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1;
            o[i] = Math.floorDiv(span + (ceilMode ? s[i] - 1 : 0), s[i]) + 1;
            if (ceilMode && (o[i] - 1) * s[i] >= in[i] + p[i]) o[i]--;
            if (o[i] < 1) {
                fail(op, "the kernel " + Arrays.toString(k) + " with dilation " + Arrays.toString(d)
                        + " is larger than the padded input " + Arrays.toString(padded(in, new int[] {2 * p[0], 2 * p[1]})), shapes);
            }
        }
        return new PoolGeometry(x.size(0), x.size(1), in[0], in[1], k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], o[0], o[1]);
    }

    /** Checks adaptive pooling's input and output size. */
    static void adaptive(String op, Tensor x, int outH, int outW) {
        Checks.float32(op, x);
        String shapes = "input " + shape(x);
        if (x.dim() != 4) fail(op, "expected a 4-D input (N, C, H, W)", shapes);
        if (outH < 1 || outW < 1) fail(op, "output size must be at least 1, got (" + outH + ", " + outW + ")", shapes);
        if (x.size(2) < 1 || x.size(3) < 1) fail(op, "the input's H and W must be at least 1", shapes);
    }

    /** int-or-tuple: one value for all dims or one per dim, each at least {@code min}. */
    static int[] perDim(String op, String what, int[] values, int dims, int min, String shapes) {
        if (values == null || (values.length != 1 && values.length != dims)) {
            fail(op, what + " must have 1 or " + dims + " values, got " + (values == null ? "none" : Arrays.toString(values)), shapes);
        }
        int[] v = values.length == dims ? values.clone() : filled(dims, values[0]);
        for (int e : v) {
            if (e < min) fail(op, what + " must be " + (min == 0 ? "non-negative" : "at least " + min) + ", got " + Arrays.toString(values), shapes);
        }
        return v;
    }

    private static int[] filled(int dims, int value) {
        int[] v = new int[dims];
        Arrays.fill(v, value);
        return v;
    }

    private static int[] padded(int[] in, int[] total) {
        int[] p = new int[in.length];
        for (int i = 0; i < in.length; i++) p[i] = in[i] + total[i];
        return p;
    }

    static String shape(Tensor t) { return Arrays.toString(t.shape()); }

    static void fail(String op, String what, String shapes) {
        throw new IllegalArgumentException(op + ": " + what + "; got " + shapes);
    }
}
