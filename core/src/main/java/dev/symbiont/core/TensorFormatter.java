package dev.symbiont.core;

import java.util.Arrays;

/** Tensor.toString(): shape, dtype, backend and an elided preview of the values. */
final class TensorFormatter {
    /** Entries shown at each end of a dimension that is too long to print whole. */
    private static final int EDGE = 3;
    private static final int MAX_WHOLE = 2 * EDGE;

    private TensorFormatter() {}

    static String format(Tensor t) {
        StringBuilder sb = new StringBuilder();
        sb.append("Tensor(shape=").append(Arrays.toString(t.shape()))
          .append(", dtype=").append(t.dtype())
          .append(", backend=").append(t.device());
        if (t.gradFn() != null) sb.append(", grad_fn=").append(t.gradFn());
        else if (t.requiresGrad()) sb.append(", requires_grad=true");
        sb.append(")\n");
        float[] values = t.toFloatArray();
        appendDim(sb, values, t.shape(), 0, 0, t.dtype().isInteger());
        return sb.toString();
    }

    private static void appendDim(StringBuilder sb, float[] values, int[] shape, int dim, int base, boolean integer) {
        if (shape.length == 0) { sb.append(number(values[0], integer)); return; }
        int size = shape[dim];
        int inner = 1;
        for (int i = dim + 1; i < shape.length; i++) inner *= shape[i];
        sb.append('[');
        for (int i = 0; i < size; i++) {
            if (size > MAX_WHOLE && i == EDGE) {
                sb.append("...");
                i = size - EDGE - 1;
                sb.append(dim == shape.length - 1 ? ", " : ",\n" + " ".repeat(dim + 1));
                continue;
            }
            if (dim == shape.length - 1) sb.append(number(values[base + i], integer));
            else appendDim(sb, values, shape, dim + 1, base + i * inner, integer);
            if (i < size - 1) sb.append(dim == shape.length - 1 ? ", " : ",\n" + " ".repeat(dim + 1));
        }
        sb.append(']');
    }

    private static String number(float v, boolean integer) {
        if (integer) return Long.toString((long) v);
        if (Float.isNaN(v) || Float.isInfinite(v)) return Float.toString(v);
        return String.format(java.util.Locale.ROOT, "%.4f", v);
    }
}
