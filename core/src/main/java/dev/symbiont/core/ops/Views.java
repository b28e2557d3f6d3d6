package dev.symbiont.core.ops;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.profile.OpCategory;

import java.util.Arrays;

/** Ops that reinterpret a storage without copying (except reshape when it must), with their gradients. */
public final class Views {
    private Views() {}

    public static Tensor reshape(Tensor x, int... shape) {
        int[] target = inferShape("reshape", x, shape);
        Layout view = x.layout().reshapeView(target);
        if (view != null) return viewOf(x, view, "reshape");
        return view(contiguous(x), target);
    }

    public static Tensor view(Tensor x, int... shape) {
        int[] target = inferShape("view", x, shape);
        Layout view = x.layout().reshapeView(target);
        if (view == null) {
            throw new IllegalArgumentException("view: shape " + Arrays.toString(target) + " is not compatible with input of shape "
                    + Arrays.toString(x.shape()) + " and strides " + Arrays.toString(x.strides())
                    + " without a copy; use reshape() (which copies) or contiguous() first");
        }
        return viewOf(x, view, "view");
    }

    private static Tensor viewOf(Tensor x, Layout view, String op) {
        int[] inShape = x.shape();
        return Autograd.record(op, new Tensor(x.storage(), view), g -> new Tensor[] {reshape(g, inShape)}, x);
    }

    public static Tensor permute(Tensor x, int... dims) {
        Layout view = x.layout().permute(dims);
        int[] inverse = new int[dims.length];
        for (int i = 0; i < dims.length; i++) inverse[x.layout().dim("permute", dims[i])] = i;
        return Autograd.record("permute", new Tensor(x.storage(), view), g -> new Tensor[] {permute(g, inverse)}, x);
    }

    public static Tensor transpose(Tensor x, int dim0, int dim1) {
        Layout view = x.layout().transpose(dim0, dim1);
        return Autograd.record("transpose", new Tensor(x.storage(), view), g -> new Tensor[] {transpose(g, dim0, dim1)}, x);
    }

    public static Tensor t(Tensor x) {
        if (x.dim() != 2) throw new IllegalArgumentException("t: expects a 2-D tensor, got shape " + Arrays.toString(x.shape()));
        return transpose(x, 0, 1);
    }

    public static Tensor narrow(Tensor x, int dim, int start, int length) {
        Layout view = x.layout().narrow(dim, start, length);
        int d = x.layout().dim("narrow", dim);
        int[] inShape = x.shape();
        return Autograd.record("narrow", new Tensor(x.storage(), view),
                g -> new Tensor[] {Joining.padInto(g, inShape, d, start, 1)}, x);
    }

    public static Tensor slice(Tensor x, int dim, int start, int end, int step) {
        int d = x.layout().dim("slice", dim);
        int size = x.layout().size(d);
        if (step <= 0) throw new IllegalArgumentException("slice: step must be positive, got " + step);
        int s = Math.clamp(start < 0 ? start + size : start, 0, size);
        int e = Math.clamp(end < 0 ? end + size : end, 0, size);
        int len = e > s ? (e - s + step - 1) / step : 0;
        int[] shape = x.shape(), strides = x.strides();
        int offset = x.layout().offset() + s * strides[d];
        shape[d] = len;
        strides[d] *= step;
        int[] inShape = x.shape();
        return Autograd.record("slice", new Tensor(x.storage(), new Layout(shape, strides, offset)),
                g -> new Tensor[] {Joining.padInto(g, inShape, d, s, step)}, x);
    }

    public static Tensor select(Tensor x, int dim, int index) {
        int d = x.layout().dim("select", dim);
        Layout view = x.layout().select(d, index);
        int idx = index < 0 ? index + x.layout().size(d) : index;
        int[] inShape = x.shape();
        return Autograd.record("select", new Tensor(x.storage(), view),
                g -> new Tensor[] {Joining.padInto(unsqueeze(g, d), inShape, d, idx, 1)}, x);
    }

    public static Tensor expand(Tensor x, int... shape) {
        Layout view = x.layout().expand(shape);
        int[] inShape = x.shape();
        return Autograd.record("expand", new Tensor(x.storage(), view), g -> new Tensor[] {Reductions.sumToShape(g, inShape)}, x);
    }

    public static Tensor squeeze(Tensor x) {
        int[] inShape = x.shape();
        return Autograd.record("squeeze", new Tensor(x.storage(), x.layout().squeeze()), g -> new Tensor[] {reshape(g, inShape)}, x);
    }

    public static Tensor squeeze(Tensor x, int dim) {
        int[] inShape = x.shape();
        return Autograd.record("squeeze", new Tensor(x.storage(), x.layout().squeeze(dim)), g -> new Tensor[] {reshape(g, inShape)}, x);
    }

    public static Tensor unsqueeze(Tensor x, int dim) {
        int[] inShape = x.shape();
        return Autograd.record("unsqueeze", new Tensor(x.storage(), x.layout().unsqueeze(dim)), g -> new Tensor[] {reshape(g, inShape)}, x);
    }

    public static Tensor flatten(Tensor x, int startDim, int endDim) {
        if (x.dim() == 0) return reshape(x, 1);
        int s = x.layout().dim("flatten", startDim), e = x.layout().dim("flatten", endDim);
        if (s > e) throw new IllegalArgumentException("flatten: start dim " + startDim + " comes after end dim " + endDim);
        int[] shape = x.shape();
        int[] out = new int[shape.length - (e - s)];
        int k = 0, merged = 1;
        for (int i = 0; i < shape.length; i++) {
            if (i < s || i > e) out[k++] = shape[i];
            else { merged *= shape[i]; if (i == e) out[k++] = merged; }
        }
        return reshape(x, out);
    }

    public static Tensor contiguous(Tensor x) {
        return x.isContiguous() ? x : copy(x, "contiguous");
    }

    public static Tensor copy(Tensor x) {
        return copy(x, "copy");
    }

    /** A contiguous copy in fresh storage; the gradient passes through unchanged. Views are free and not profiled. */
    private static Tensor copy(Tensor x, String op) {
        try (var p = Profiled.pass(op, OpCategory.COPY, x, 0)) {
            Tensor out = Tensor.of(x.backend().contiguous(x.storage(), x.layout()), x.shape());
            return Autograd.record(op, out, g -> new Tensor[] {g}, x);
        }
    }

    /** Resolves one -1 and checks the element count. */
    static int[] inferShape(String op, Tensor x, int[] shape) {
        int[] out = shape.clone();
        int infer = -1;
        long known = 1;
        for (int i = 0; i < out.length; i++) {
            if (out[i] == -1) {
                if (infer >= 0) throw new IllegalArgumentException(op + ": only one dimension can be -1 in " + Arrays.toString(shape));
                infer = i;
            } else if (out[i] < 0) {
                throw new IllegalArgumentException(op + ": invalid dimension " + out[i] + " in " + Arrays.toString(shape));
            } else {
                known *= out[i];
                if (known > Layout.MAX_ELEMENTS) throw Layout.tooLarge(op, shape);
            }
        }
        int n = x.numel();
        if (infer >= 0) {
            if (known == 0 || n % known != 0) {
                throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " is invalid for input of shape "
                        + Arrays.toString(x.shape()) + " (" + n + " elements)");
            }
            out[infer] = (int) (n / known);
        } else if (known != n) {
            throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " is invalid for input of shape "
                    + Arrays.toString(x.shape()) + " (" + n + " elements)");
        }
        return out;
    }
}
