package dev.symbiont.core;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * Where a tensor's elements live in its storage: shape, strides (in elements) and a start
 * offset. Every view (reshape, permute, narrow, expand, ...) is a new Layout over the same
 * storage, so views never copy. Broadcasting is a stride of 0.
 *
 * <p>Sizes, strides and offsets are int, so a layout has at most {@link #MAX_ELEMENTS}
 * elements; every layout is checked for that when it is made, and ops check the shapes they
 * make first with {@link #numel(String, int[])}, so an oversized shape is an error naming the
 * op, never a wrapped size (docs/decisions.md, ADR-035 "SPI seams for device backends").
 */
public record Layout(int[] shape, int[] strides, int offset) {
    // The accessors hand out the record's own arrays for speed in kernels: never modify them.

    /** The most elements one tensor may have: 2^31 − 1, the range of int sizes, strides and offsets. */
    public static final int MAX_ELEMENTS = Integer.MAX_VALUE;

    public Layout {
        if (shape.length != strides.length) {
            throw new IllegalArgumentException("layout: shape " + Arrays.toString(shape)
                    + " and strides " + Arrays.toString(strides) + " differ in rank");
        }
        numel("layout", shape);
    }

    /** A fresh row-major layout of the given shape. */
    public static Layout contiguous(int... shape) {
        return new Layout(shape.clone(), rowMajorStrides(shape), 0);
    }

    public static int[] rowMajorStrides(int[] shape) {
        int[] strides = new int[shape.length];
        long s = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            strides[i] = (int) s;
            s *= Math.max(shape[i], 1);
            if (s > MAX_ELEMENTS && i > 0) {
                throw new IllegalArgumentException("layout: row-major strides of shape " + Arrays.toString(shape) + " pass 2^31 - 1");
            }
        }
        return strides;
    }

    /** Number of elements of {@code shape}; an error naming the shape when a dim is negative or the product passes {@link #MAX_ELEMENTS}. */
    public static int numel(int[] shape) { return numel("numel", shape); }

    /**
     * Number of elements of {@code shape}, checked: a negative dim, or a product past
     * {@link #MAX_ELEMENTS}, throws an IllegalArgumentException naming {@code op} and the shape.
     */
    public static int numel(String op, int[] shape) {
        boolean empty = false;
        for (int d : shape) {
            if (d < 0) throw new IllegalArgumentException(op + ": negative dimension in shape " + Arrays.toString(shape));
            empty |= d == 0;
        }
        if (empty) return 0;
        long n = 1;
        for (int d : shape) {
            n *= d;
            if (n > MAX_ELEMENTS) throw tooLarge(op, shape);
        }
        return (int) n;
    }

    /** The error for a shape with more than {@link #MAX_ELEMENTS} elements, with its exact count. */
    public static IllegalArgumentException tooLarge(String op, int[] shape) {
        BigInteger n = BigInteger.ONE;
        for (int d : shape) n = n.multiply(BigInteger.valueOf(d));
        return new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " has " + n
                + " elements, more than 2^31 - 1 (the most one tensor may hold)");
    }

    public int rank() { return shape.length; }

    /** Checked when the layout was made, so the int product cannot overflow (a zero dim makes it 0 even if it wrapped before). */
    public int numel() {
        int n = 1;
        for (int d : shape) n *= d;
        return n;
    }

    public int size(int dim) { return shape[dim]; }

    public int stride(int dim) { return strides[dim]; }

    /** Row-major with no gaps, starting anywhere; an empty layout is contiguous (as in PyTorch). */
    public boolean isContiguous() {
        for (int d : shape) if (d == 0) return true;
        int expected = 1;
        for (int i = shape.length - 1; i >= 0; i--) {
            if (shape[i] != 1 && strides[i] != expected) return false;
            expected *= shape[i];
        }
        return true;
    }

    /**
     * Contiguous from index 0 over exactly {@code storageSize} elements: a tensor laid out so is
     * the whole of its storage, and no other view can see a part of it that this one does not.
     */
    public boolean coversWhole(long storageSize) {
        return isContiguous() && offset == 0 && numel() == storageSize;
    }

    /** Storage index of the element at the given row-major linear position. */
    public int offsetOf(int linear) {
        int off = offset;
        for (int i = shape.length - 1; i >= 0; i--) {
            int d = shape[i];
            off += (linear % d) * strides[i];
            linear /= d;
        }
        return off;
    }

    /**
     * Largest storage index this layout touches, or offset - 1 when it is empty; computed in
     * long so a huge stride or offset is reported instead of wrapping past a bounds check.
     */
    public int maxIndex() {
        if (numel() == 0) return offset - 1;
        long max = offset;
        for (int i = 0; i < shape.length; i++) max += (long) (shape[i] - 1) * Math.max(strides[i], 0);
        if (max > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("layout: " + this + " reaches index " + max + ", past 2^31 - 1");
        }
        return (int) max;
    }

    /** Normalises a possibly negative dimension, naming the op on failure. */
    public int dim(String op, int dim) {
        return normalizeDim(op, dim, shape.length, shape);
    }

    public static int normalizeDim(String op, int dim, int rank, int[] shape) {
        int d = dim < 0 ? dim + rank : dim;
        if (d < 0 || d >= rank) {
            throw new IllegalArgumentException(op + ": dim " + dim + " out of range for shape "
                    + Arrays.toString(shape) + " (rank " + rank + ")");
        }
        return d;
    }

    public Layout permute(int... dims) {
        if (dims.length != rank()) {
            throw new IllegalArgumentException("permute: " + Arrays.toString(dims) + " has " + dims.length
                    + " dims but shape " + Arrays.toString(shape) + " has rank " + rank());
        }
        int[] ns = new int[dims.length];
        int[] nst = new int[dims.length];
        boolean[] seen = new boolean[dims.length];
        for (int i = 0; i < dims.length; i++) {
            int d = dim("permute", dims[i]);
            if (seen[d]) {
                throw new IllegalArgumentException("permute: dim " + dims[i] + " repeated in " + Arrays.toString(dims));
            }
            seen[d] = true;
            ns[i] = shape[d];
            nst[i] = strides[d];
        }
        return new Layout(ns, nst, offset);
    }

    public Layout transpose(int dim0, int dim1) {
        int a = dim("transpose", dim0), b = dim("transpose", dim1);
        int[] ns = shape.clone(), nst = strides.clone();
        ns[a] = shape[b]; ns[b] = shape[a];
        nst[a] = strides[b]; nst[b] = strides[a];
        return new Layout(ns, nst, offset);
    }

    public Layout narrow(int dim, int start, int length) {
        int d = dim("narrow", dim);
        if (start < 0 || length < 0 || (long) start + length > shape[d]) {
            throw new IllegalArgumentException("narrow: start " + start + " length " + length
                    + " out of range for dim " + dim + " of size " + shape[d] + " in shape " + Arrays.toString(shape));
        }
        int[] ns = shape.clone();
        ns[d] = length;
        return new Layout(ns, strides.clone(), offset + start * strides[d]);
    }

    /** Selects one index of a dimension and drops it. */
    public Layout select(int dim, int index) {
        int d = dim("select", dim);
        int idx = index < 0 ? index + shape[d] : index;
        if (idx < 0 || idx >= shape[d]) {
            throw new IndexOutOfBoundsException("select: index " + index + " out of range for dim " + dim
                    + " of size " + shape[d] + " in shape " + Arrays.toString(shape));
        }
        return new Layout(remove(shape, d), remove(strides, d), offset + idx * strides[d]);
    }

    public Layout unsqueeze(int dim) {
        int d = normalizeDim("unsqueeze", dim, rank() + 1, shape);
        int stride = d < rank() ? shape[d] * strides[d] : 1;
        return new Layout(insert(shape, d, 1), insert(strides, d, stride), offset);
    }

    /** Drops the given size-1 dimension; a dimension whose size is not 1 is an error. */
    public Layout squeeze(int dim) {
        int d = dim("squeeze", dim);
        if (shape[d] != 1) {
            throw new IllegalArgumentException("squeeze: dim " + dim + " has size " + shape[d]
                    + ", not 1, in shape " + Arrays.toString(shape));
        }
        return new Layout(remove(shape, d), remove(strides, d), offset);
    }

    /** Drops every size-1 dimension. */
    public Layout squeeze() {
        int keep = 0;
        for (int s : shape) if (s != 1) keep++;
        int[] ns = new int[keep], nst = new int[keep];
        for (int i = 0, j = 0; i < shape.length; i++) {
            if (shape[i] != 1) { ns[j] = shape[i]; nst[j++] = strides[i]; }
        }
        return new Layout(ns, nst, offset);
    }

    /** Broadcasts to a larger shape with stride 0 on the new or size-1 dimensions (numpy rules). */
    public Layout expand(int... target) {
        if (target.length < rank()) {
            throw new IllegalArgumentException("expand: cannot expand shape " + Arrays.toString(shape)
                    + " to fewer dims " + Arrays.toString(target));
        }
        int lead = target.length - rank();
        int[] nst = new int[target.length];
        int[] ns = target.clone();
        for (int i = 0; i < target.length; i++) {
            if (i < lead) {
                if (target[i] < 0) throw new IllegalArgumentException("expand: -1 not allowed for new dim " + i);
                nst[i] = 0;
                continue;
            }
            int src = shape[i - lead];
            int want = target[i] == -1 ? src : target[i];
            ns[i] = want;
            if (src == want) {
                nst[i] = strides[i - lead];
            } else if (src == 1) {
                nst[i] = 0;
            } else {
                throw new IllegalArgumentException("expand: shape " + Arrays.toString(shape)
                        + " cannot broadcast to " + Arrays.toString(target) + " (dim " + i + ": " + src + " vs " + want + ")");
            }
        }
        numel("expand", ns);
        return new Layout(ns, nst, offset);
    }

    /**
     * Reshapes without copying, or returns null when the strides make that impossible
     * (the caller then copies or, for {@code view}, throws).
     */
    public Layout reshapeView(int[] newShape) {
        if (isContiguous() || numel() == 0) return new Layout(newShape.clone(), rowMajorStrides(newShape), offset);
        if (rank() == 0) return new Layout(newShape.clone(), rowMajorStrides(newShape), offset);
        // Walk the old dims from the back in chunks that are contiguous among themselves;
        // each chunk must be covered exactly by a run of new dims (PyTorch's view rule).
        int[] newStrides = new int[newShape.length];
        int viewD = newShape.length - 1;
        long chunkBaseStride = strides[rank() - 1];
        long tensorNumel = 1, viewNumel = 1;
        for (int d = rank() - 1; d >= 0; d--) {
            tensorNumel *= shape[d];
            boolean chunkEnds = d == 0 || (shape[d - 1] != 1 && strides[d - 1] != tensorNumel * chunkBaseStride);
            if (!chunkEnds) continue;
            while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] == 1)) {
                newStrides[viewD] = (int) (viewNumel * chunkBaseStride);
                viewNumel *= newShape[viewD];
                viewD--;
            }
            if (viewNumel != tensorNumel) return null;
            if (d > 0) {
                chunkBaseStride = strides[d - 1];
                tensorNumel = 1;
                viewNumel = 1;
            }
        }
        if (viewD != -1) return null;
        return new Layout(newShape.clone(), newStrides, offset);
    }

    static int[] remove(int[] a, int i) {
        int[] r = new int[a.length - 1];
        System.arraycopy(a, 0, r, 0, i);
        System.arraycopy(a, i + 1, r, i, a.length - i - 1);
        return r;
    }

    static int[] insert(int[] a, int i, int v) {
        int[] r = new int[a.length + 1];
        System.arraycopy(a, 0, r, 0, i);
        r[i] = v;
        System.arraycopy(a, i, r, i + 1, a.length - i);
        return r;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Layout l && offset == l.offset && Arrays.equals(shape, l.shape) && Arrays.equals(strides, l.strides);
    }

    @Override
    public int hashCode() { return 31 * (31 * Arrays.hashCode(shape) + Arrays.hashCode(strides)) + offset; }

    @Override
    public String toString() {
        return "Layout(shape=" + Arrays.toString(shape) + ", strides=" + Arrays.toString(strides) + ", offset=" + offset + ")";
    }
}
