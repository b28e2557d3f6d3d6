package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.HostSegments;
import dev.symbiont.core.heap.BufferPool;
import dev.symbiont.core.heap.HeapMemory;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.MemoryStats;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.backend.Philox;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The trusted twin: every primitive as a plain scalar loop over strided layouts, on
 * {@link HeapStorage}. Fast backends are tested against it, and the CPU backend extends it,
 * overriding only its hot primitives. It has no fused kernels of its own: every fused family
 * runs its reference here.
 *
 * <p>Besides what core checks, each primitive re-checks what it relies on (dtypes, that the
 * layout lies inside the storage, index values) and throws naming the op, so a mistake above
 * never becomes an ArrayIndexOutOfBoundsException or a wrong answer.
 */
public class ReferenceBackend implements Backend, HeapMemory {
    private final MemoryTracker tracker = new MemoryTracker();
    private final BufferPool pool = new BufferPool();

    @Override public String name() { return "reference"; }

    @Override public MemoryStats memory() { return tracker.stats(); }

    @Override public void resetPeakMemory() { tracker.resetPeak(); }

    // ---- helpers for this class and subclasses ----------------------------------------------

    /** The tracker every storage of this backend is counted in. */
    protected final MemoryTracker tracker() { return tracker; }

    /** The most elements a heap buffer may hold: the largest Java array every JVM allocates. */
    public static final int MAX_HEAP_ELEMENTS = Integer.MAX_VALUE - 8;

    /** The pool this backend's buffers return to; its idle bytes are not in {@link #memory()}. */
    public final BufferPool pool() { return pool; }

    /** A tracked, zero-filled heap buffer owned by this backend. */
    protected HeapStorage newStorage(DType dtype, long size) {
        return HeapStorage.allocate(this, tracker, pool, dtype, heapSize("allocate", dtype, size), true);
    }

    /** A tracked heap buffer whose contents are unspecified, for a kernel that writes every element. */
    protected HeapStorage newUninitialized(DType dtype, long size) {
        return HeapStorage.allocate(this, tracker, pool, dtype, heapSize("empty", dtype, size), false);
    }

    /** {@code size} as a Java array length, or an error naming the op when it is negative or too large for the heap. */
    protected static int heapSize(String op, DType dtype, long size) {
        if (size < 0) throw new IllegalArgumentException(op + ": negative size " + size + " for " + dtype);
        if (size > MAX_HEAP_ELEMENTS) {
            throw new IllegalArgumentException(op + ": " + size + " elements of " + dtype + " exceed the " + MAX_HEAP_ELEMENTS
                    + " a heap buffer (a Java array) holds");
        }
        return (int) size;
    }

    /** Hands a freshly computed host array (not copied) to this backend as a tracked storage. */
    protected HeapStorage wrap(DType dtype, Object array) {
        return HeapStorage.wrap(this, tracker, dtype, array);
    }

    /** The heap storage behind {@code storage}, checked to hold every element {@code layout} addresses. */
    protected static HeapStorage heap(String op, Storage storage, Layout layout) {
        return HeapStorage.checked(op, storage, layout);
    }

    /** The float[] behind a float32 operand; any other dtype is an error naming the op. */
    protected static float[] floats(String op, Storage storage, Layout layout) {
        return HeapStorage.floats(op, storage, layout);
    }

    /** Throws unless both layouts have the same shape. */
    protected static void checkSameShape(String op, Layout a, Layout b) {
        if (!Arrays.equals(a.shape(), b.shape())) {
            throw new IllegalArgumentException(op + ": shapes " + Arrays.toString(a.shape()) + " and "
                    + Arrays.toString(b.shape()) + " differ");
        }
    }

    /** Throws unless a is (batch..., m, k) and b is (batch..., k, n) with the same batch dims. */
    protected static void checkMatmulShapes(Layout a, Layout b) {
        int rank = a.rank();
        boolean ok = rank >= 2 && b.rank() == rank
                && a.size(rank - 1) == b.size(rank - 2)
                && Arrays.equals(a.shape(), 0, rank - 2, b.shape(), 0, rank - 2);
        if (!ok) {
            throw new IllegalArgumentException("matmul: shapes " + Arrays.toString(a.shape()) + " and "
                    + Arrays.toString(b.shape()) + " do not multiply (expected (batch..., m, k) and (batch..., k, n))");
        }
    }

    // ---- memory and transfer -------------------------------------------------------------------

    @Override
    public Storage allocate(DType dtype, long size) { return newStorage(dtype, size); }

    @Override
    public Storage empty(DType dtype, long size) { return newUninitialized(dtype, size); }

    /** One bulk copy from the segment into a new array. */
    @Override
    public Storage upload(DType dtype, MemorySegment source) {
        int n = heapSize("upload", dtype, HostSegments.elementCount("upload", dtype, source));
        HeapStorage copy = newUninitialized(dtype, n);
        MemorySegment.copy(source, HostSegments.elementLayout(dtype), 0, arraySegment(copy.array()), arrayLayout(dtype), 0, n);
        return copy;
    }

    /**
     * A contiguous layout is one bulk copy; a strided one is written by this backend's strided
     * copy straight into the target when the target is a host array of the dtype (as for the
     * array form of download), else into a scratch array that is then copied in bulk.
     */
    @Override
    public void download(Storage storage, Layout layout, MemorySegment target) {
        DType dtype = storage.dtype();
        Object array = heap("download", storage, layout).array();
        int n = layout.numel();
        HostSegments.checkRoom("download", dtype, n, target);
        if (n == 0) return;
        long from = layout.offset();
        if (!layout.isContiguous()) {
            HostSegments.ArrayView view = HostSegments.arrayView(dtype, target);
            if (view != null) {
                copyStrided(array, layout, view.array(), new Layout(layout.shape(), Layout.rowMajorStrides(layout.shape()), view.first()));
                return;
            }
            array = toContiguous(array, dtype, layout);
            from = 0;
        }
        MemorySegment.copy(arraySegment(array), arrayLayout(dtype), from * dtype.byteSize(),
                target, HostSegments.elementLayout(dtype), 0, n);
    }

    /** A host array's memory, as {@link MemorySegment#ofArray} sees it. */
    private static MemorySegment arraySegment(Object array) {
        return switch (array) {
            case float[] a -> MemorySegment.ofArray(a);
            case int[] a -> MemorySegment.ofArray(a);
            case long[] a -> MemorySegment.ofArray(a);
            case short[] a -> MemorySegment.ofArray(a);
            default -> throw new IllegalArgumentException("not a host array: " + array.getClass().getSimpleName());
        };
    }

    /** The element layout of a host array of the dtype (native order, so copies to the little-endian side swap where needed). */
    private static ValueLayout arrayLayout(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> ValueLayout.JAVA_FLOAT;
            case INT32 -> ValueLayout.JAVA_INT;
            case INT64 -> ValueLayout.JAVA_LONG;
            case BFLOAT16, FLOAT16 -> ValueLayout.JAVA_SHORT;
        };
    }

    @Override
    public Storage contiguous(Storage storage, Layout layout) { return contiguousCopy("contiguous", storage, layout); }

    /**
     * Takes a storage of another backend of this very class directly (two devices of one heap
     * kind share the heap): one strided copy instead of download and upload. A storage of any
     * other backend gives null, so a move between kinds stays an explicit trip through the host.
     */
    @Override
    public Storage copyFrom(Storage source, Layout layout) {
        return source.backend().getClass() == getClass() ? contiguousCopy("copyFrom", source, layout) : null;
    }

    /** The layout's elements of a heap storage as a new contiguous storage of this backend. */
    private HeapStorage contiguousCopy(String op, Storage storage, Layout layout) {
        Object array = heap(op, storage, layout).array();
        HeapStorage out = newUninitialized(storage.dtype(), layout.numel());
        copyStrided(array, layout, out.array(), Layout.contiguous(layout.shape()));
        return out;
    }

    /**
     * Copies element by element in row-major order. When dst and src are the same storage, src
     * is snapshotted first, so even overlapping views copy as if from the old values.
     */
    @Override
    public void copyInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        checkSameShape("copyInto", dstLayout, srcLayout);
        if (dst.dtype() != src.dtype()) {
            throw new IllegalArgumentException("copyInto: dtypes " + dst.dtype() + " and " + src.dtype() + " differ");
        }
        Object to = heap("copyInto", dst, dstLayout).array();
        Object from = heap("copyInto", src, srcLayout).array();
        if (to == from) {
            from = toContiguous(from, src.dtype(), srcLayout);
            srcLayout = Layout.contiguous(srcLayout.shape());
        }
        copyStrided(from, srcLayout, to, dstLayout);
    }

    /**
     * The copy kernel behind download, contiguous and copyInto: a new row-major array of the
     * layout's elements. Subclasses override it (and {@link #copyStrided}) with faster loops.
     */
    protected Object toContiguous(Object array, DType dtype, Layout layout) {
        return ReferenceCopies.toContiguous(array, dtype, layout);
    }

    /** Writes the elements of {@code from} seen through {@code fromLayout} into {@code to} through {@code toLayout}. */
    protected void copyStrided(Object from, Layout fromLayout, Object to, Layout toLayout) {
        ReferenceCopies.copyStrided(from, fromLayout, to, toLayout);
    }

    @Override
    public Storage cast(Storage storage, Layout layout, DType to) {
        Object array = heap("cast", storage, layout).array();
        return wrap(to, ReferenceCopies.cast(array, storage.dtype(), layout, to));
    }

    @Override
    public Storage full(DType dtype, long size, double value) {
        return wrap(dtype, ReferenceCopies.full(dtype, heapSize("full", dtype, size), value));
    }

    // ---- elementwise -------------------------------------------------------------------------

    @Override
    public Storage unary(UnaryOp op, Storage x, Layout xLayout) {
        float[] xs = floats("unary " + op, x, xLayout);
        return wrap(DType.FLOAT32, ReferenceElementwise.unary(op, xs, xLayout));
    }

    /** One pass when both are contiguous and distinct; otherwise the SPI's add and copy back. */
    @Override
    public void addInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        checkSameShape("addInto", dstLayout, srcLayout);
        float[] to = floats("addInto", dst, dstLayout), from = floats("addInto", src, srcLayout);
        if (to == from || !dstLayout.isContiguous() || !srcLayout.isContiguous()) {
            Backend.super.addInto(dst, dstLayout, src, srcLayout);
            return;
        }
        int n = dstLayout.numel(), d = dstLayout.offset(), s = srcLayout.offset();
        for (int i = 0; i < n; i++) to[d + i] += from[s + i];
    }

    @Override
    public Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        String name = "binary " + op;
        checkSameShape(name, aLayout, bLayout);
        float[] as = floats(name, a, aLayout), bs = floats(name, b, bLayout);
        return wrap(DType.FLOAT32, ReferenceElementwise.binary(op, as, aLayout, bs, bLayout));
    }

    /** The exact integer comparison on the heap arrays themselves, no copies. */
    @Override
    public Storage compare(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        String name = "compare " + op.opName();
        Object as = heap(name, a, aLayout).array(), bs = heap(name, b, bLayout).array();
        return wrap(DType.FLOAT32, IntegerComparisons.compare(op, as, a.dtype(), aLayout, bs, b.dtype(), bLayout));
    }

    @Override
    public Storage where(Storage condition, Layout conditionLayout, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        checkSameShape("where", conditionLayout, aLayout);
        checkSameShape("where", aLayout, bLayout);
        Object cs = heap("where", condition, conditionLayout).array();
        float[] as = floats("where", a, aLayout), bs = floats("where", b, bLayout);
        return wrap(DType.FLOAT32, ReferenceElementwise.where(cs, condition.dtype(), conditionLayout, as, aLayout, bs, bLayout));
    }

    // ---- reductions --------------------------------------------------------------------------

    @Override
    public Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims) {
        float[] xs = floats("reduce " + op, x, xLayout);
        checkDims(op, xLayout, dims);
        if (op.isArg()) {
            if (dims.length != 1) {
                throw new IllegalArgumentException(op + ": needs exactly one dim, got " + Arrays.toString(dims));
            }
            return wrap(DType.INT64, ReferenceReductions.argReduce(op, xs, xLayout, dims[0]));
        }
        return wrap(DType.FLOAT32, ReferenceReductions.reduce(op, xs, xLayout, dims));
    }

    @Override
    public Storage cumsum(Storage x, Layout xLayout, int dim) {
        float[] xs = floats("cumsum", x, xLayout);
        return wrap(DType.FLOAT32, ReferenceReductions.cumsum(xs, xLayout, xLayout.dim("cumsum", dim)));
    }

    @Override
    public TopK topk(Storage x, Layout xLayout, int dim, int k, boolean largest) {
        float[] xs = floats("topk", x, xLayout);
        var r = ReferenceReductions.topk(xs, xLayout, xLayout.dim("topk", dim), k, largest);
        return new TopK(wrap(DType.FLOAT32, r.values()), wrap(DType.INT64, r.indices()));
    }

    private static void checkDims(ReduceOp op, Layout layout, int[] dims) {
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 0 || dims[i] >= layout.rank() || (i > 0 && dims[i] <= dims[i - 1])) {
                throw new IllegalArgumentException(op + ": dims " + Arrays.toString(dims)
                        + " must be sorted, distinct and within rank " + layout.rank() + " of shape "
                        + Arrays.toString(layout.shape()));
            }
        }
    }

    // ---- linear algebra ------------------------------------------------------------------------

    /** float32, bfloat16 or float16 operands (each widened as {@link #matmulOperand} says); float32 product. */
    @Override
    public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
        try (MatmulOperand x = matmulOperand(a, aLayout); MatmulOperand y = matmulOperand(b, bLayout)) {
            checkMatmulShapes(aLayout, bLayout);
            return wrap(DType.FLOAT32, ReferenceMatmul.matmul(x.data(), x.layout(), y.data(), y.layout()));
        }
    }

    /**
     * A matmul operand as float32 data and a layout into it. A float32 operand is used as it is;
     * a bfloat16 or float16 one is widened (with this backend's {@link #cast}) into a tracked
     * scratch buffer holding the span of elements its layout addresses, and the layout keeps its
     * strides, so a transposed or batch-broadcast operand is not materialised. Closing the
     * operand releases the scratch.
     */
    protected final MatmulOperand matmulOperand(Storage storage, Layout layout) {
        DType dtype = storage.dtype();
        if (dtype == DType.FLOAT32) return new MatmulOperand(floats("matmul", storage, layout), layout, null);
        if (dtype != DType.BFLOAT16 && dtype != DType.FLOAT16) {
            throw new IllegalArgumentException("matmul: expected float32, bfloat16 or float16, got " + dtype);
        }
        heap("matmul", storage, layout);
        int first = layout.offset(), span = layout.numel() == 0 ? 0 : layout.maxIndex() - first + 1;
        HeapStorage scratch = HeapStorage.of(cast(storage, new Layout(new int[] {span}, new int[] {1}, first), DType.FLOAT32));
        return new MatmulOperand(scratch.floats(), new Layout(layout.shape(), layout.strides(), 0), scratch);
    }

    /** Float32 data of one matmul operand; {@code scratch} (released on close) is non-null when it was widened. */
    protected record MatmulOperand(float[] data, Layout layout, HeapStorage scratch) implements AutoCloseable {
        @Override
        public void close() {
            if (scratch != null) scratch.release();
        }
    }

    // ---- indexing ------------------------------------------------------------------------------

    @Override
    public Storage indexSelect(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        Object xs = heap("indexSelect", x, xLayout).array();
        Object is = heap("indexSelect", index, indexLayout).array();
        return wrap(x.dtype(), ReferenceIndexing.indexSelect(xs, x.dtype(), xLayout, xLayout.dim("indexSelect", dim),
                is, index.dtype(), indexLayout));
    }

    @Override
    public Storage gather(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout) {
        Object xs = heap("gather", x, xLayout).array();
        Object is = heap("gather", index, indexLayout).array();
        return wrap(x.dtype(), ReferenceIndexing.gather(xs, x.dtype(), xLayout, xLayout.dim("gather", dim),
                is, index.dtype(), indexLayout));
    }

    @Override
    public Storage scatterAdd(Storage base, Layout baseLayout, int dim, Storage index, Layout indexLayout,
                              Storage src, Layout srcLayout) {
        float[] bs = floats("scatterAdd", base, baseLayout), ss = floats("scatterAdd", src, srcLayout);
        Object is = heap("scatterAdd", index, indexLayout).array();
        return wrap(DType.FLOAT32, ReferenceIndexing.scatterAdd(bs, baseLayout, baseLayout.dim("scatterAdd", dim),
                is, index.dtype(), indexLayout, ss, srcLayout));
    }

    // ---- random numbers and index checks -------------------------------------------------------

    /** Plain scalar Philox over the whole range ({@link Philox#fill}). */
    @Override
    public Storage random(RandomKind kind, long size, long seed, long offset) {
        int n = heapSize("random", DType.FLOAT32, size);
        HeapStorage out = newStorage(DType.FLOAT32, n);
        Philox.fill(kind, out.floats(), 0, n, seed, offset);
        return out;
    }

    @Override
    public IndexCheck checkIndex(String op, Storage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        Object is = heap(op, ids, idsLayout).array();
        int n = idsLayout.numel();
        long[] safe = new long[n];
        float[] keep = new float[n];
        ReferenceIndexing.checkIds(op, is, ids.dtype(), idsLayout, bound, ignore, safe, keep);
        return new IndexCheck(wrap(DType.INT64, safe), wrap(DType.FLOAT32, keep));
    }
}
