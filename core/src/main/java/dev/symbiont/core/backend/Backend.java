package dev.symbiont.core.backend;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.fused.Family;

import java.lang.foreign.MemorySegment;

/**
 * The compute seam. A backend computes on {@link Storage}s described by {@link Layout}s and
 * never tracks gradients: autograd lives in core, above this interface.
 *
 * <p>This interface is the <b>primitive tier</b>: the small set every backend implements.
 * The <b>fused tier</b> is grouped in families ({@link dev.symbiont.core.fused.Families}: norm,
 * activation, attention, ...), each with a reference composed from these primitives; a backend
 * hands out kernels of its own for the families it makes faster through {@link #fused} and
 * leaves the rest to the references.
 *
 * <p>Contract for every primitive: inputs may be any strided layout (including stride 0 for
 * broadcast dims and negative-free transposes); outputs are fresh contiguous storages whose
 * layout is {@code Layout.contiguous(resultShape)}. Core has already checked shapes, dtypes
 * and that every storage belongs to this backend; backends check data-dependent things
 * (index values) and throw naming the op.
 *
 * <p>Dtypes: unary, binary, reduce, cumsum, topk and scatterAdd's values are float32; matmul's
 * operands are float32, bfloat16 or float16 (see {@link #matmul}), its result float32;
 * where's condition may be any dtype (non-zero is true), its operands float32; indexSelect and
 * gather take any dtype of input; index tensors are int32 or int64. Layouts never have
 * negative strides. {@link #copyInto} reads all of src before writing when dst and src share
 * a storage, so overlapping views copy the old values.
 */
public interface Backend {

    /** Short lower-case name, the one used with {@code -Dsymbiont.backend=}. */
    String name();

    /** Bytes held now and the peak since the last reset. */
    MemoryStats memory();

    /** Starts a new peak-memory window at the current allocation. */
    void resetPeakMemory();

    /**
     * This backend's kernels for a fused family, or null when it has none and the family's
     * reference (composed from this backend's primitives) should run. Core asks through
     * {@link dev.symbiont.core.fused.FusedKernels#of}, which also honours the switches that
     * force a family to its reference.
     */
    default <K> K fused(Family<K> family) { return null; }

    // ---- memory and transfer -------------------------------------------------------------

    /**
     * A zero-filled buffer of {@code size} elements. Sizes are long in the SPI so a device
     * backend is not bound to int; the heap backends reject more than a Java array holds.
     */
    Storage allocate(DType dtype, long size);

    /**
     * A buffer of {@code size} elements whose contents are unspecified (PyTorch's {@code torch.empty}),
     * for an op that writes every element: a backend with a buffer pool hands back a used buffer
     * without zeroing it. The default is {@link #allocate}.
     */
    default Storage empty(DType dtype, long size) { return allocate(dtype, size); }

    /**
     * Copies {@code source.byteSize() / dtype.byteSize()} elements from host memory into a new
     * buffer.
     *
     * <p>The host side of both transfers is a {@link MemorySegment} of little-endian elements,
     * each dtype's raw bits (bfloat16 and float16 as 16-bit patterns), not necessarily aligned
     * ({@link HostSegments#elementLayout}): a heap array, off-heap memory or a slice of a
     * memory-mapped file alike, of any size a long counts. A backend implements the two segment
     * forms; the Java-array forms are conveniences built on them. Neither keeps a reference to
     * the host memory, which may be freed or unmapped as soon as the call returns.
     *
     * <p>A byte size that is not a whole number of elements is an error naming {@code upload},
     * the byte size and the element size; a backend whose buffers cannot hold that many elements
     * (the heap backends: a Java array's 2^31 − 9) throws naming {@code upload}, the dtype and
     * the count.
     */
    Storage upload(DType dtype, MemorySegment source);

    /**
     * Writes the layout's elements, in row-major order, to the start of {@code target}, which
     * must be writable and hold at least {@code layout.numel() * dtype.byteSize()} bytes (else an
     * error naming {@code download} and both sizes); bytes past them are left as they are.
     */
    void download(Storage storage, Layout layout, MemorySegment target);

    /**
     * Copies a host array into a new buffer: float[] for float32, int[] for int32, long[] for
     * int64, short[] (raw bits) for bfloat16 and float16. The default uploads the array's
     * memory as a segment ({@link MemorySegment#ofArray}), so the data is copied once.
     */
    default Storage upload(DType dtype, Object hostArray) {
        return upload(dtype, HostSegments.ofArray("upload", dtype, hostArray));
    }

    /**
     * The layout's elements in row-major order as a new host array of the dtype's Java type.
     * The default downloads into a fresh array seen as a segment.
     */
    default Object download(Storage storage, Layout layout) {
        Object array = HostSegments.newArray(storage.dtype(), layout.numel());
        download(storage, layout, HostSegments.ofArray("download", storage.dtype(), array));
        return array;
    }

    /** Copies a strided view into a new contiguous buffer of the same dtype. */
    Storage contiguous(Storage storage, Layout layout);

    /** Writes {@code src} (viewed through {@code srcLayout}) into {@code dst} through {@code dstLayout}; same shape and dtype. */
    void copyInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout);

    /**
     * Adds {@code src} into {@code dst} in place (dst += src; same shape, float32), how autograd
     * accumulates a leaf's gradient without a new buffer. The default adds into a new buffer and
     * copies it back; a backend overrides it with one pass.
     */
    default void addInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        copyInto(dst, dstLayout, binary(BinaryOp.ADD, dst, dstLayout, src, srcLayout), Layout.contiguous(dstLayout.shape()));
    }

    /** Converts elements to another dtype (float to int truncates toward zero; halves round to nearest even). */
    Storage cast(Storage storage, Layout layout, DType to);

    /** A buffer of {@code size} elements all equal to {@code value}. */
    Storage full(DType dtype, long size, double value);

    // ---- elementwise (float32) -------------------------------------------------------------

    Storage unary(UnaryOp op, Storage x, Layout xLayout);

    /** {@code a} and {@code b} have the same shape (core expands broadcast operands with stride 0). */
    Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout);

    /**
     * Compares two integer operands exactly ({@code op} is EQ, NE, LT, LE, GT or GE): {@code a}
     * and {@code b} have the same shape and the same dtype, int32 or int64 (core promotes the pair
     * first); the result is a float32 mask of 1 (true) and 0 (false), like {@link #binary}'s
     * comparisons of float32 operands. Values past 2^24 must not go through float32.
     *
     * <p>The default downloads both operands, compares them on the host with the reference
     * kernel and uploads the mask: correct on any backend, and off the training hot path
     * (integer comparisons count predictions); a device backend overrides it with a kernel.
     */
    default Storage compare(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        Layout dense = Layout.contiguous(aLayout.shape());
        float[] mask = dev.symbiont.core.reference.IntegerComparisons.compare(op,
                download(a, aLayout), a.dtype(), dense, download(b, bLayout), b.dtype(), dense);
        return upload(DType.FLOAT32, mask);
    }

    /** Picks {@code a} where {@code condition != 0}, else {@code b}; all three have the same shape. */
    Storage where(Storage condition, Layout conditionLayout, Storage a, Layout aLayout, Storage b, Layout bLayout);

    // ---- reductions --------------------------------------------------------------------------

    /**
     * Reduces float32 {@code x} over {@code dims} (sorted, distinct, non-negative). The result
     * has x's rank with the reduced dims of size 1. ARGMAX/ARGMIN take exactly one dim and give int64.
     */
    Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims);

    /** Inclusive prefix sum along {@code dim}. */
    Storage cumsum(Storage x, Layout xLayout, int dim);

    /**
     * The k largest (or smallest) entries along {@code dim}, sorted; result shape is x's with
     * {@code dim} of size k. Ties keep the lower index first.
     */
    TopK topk(Storage x, Layout xLayout, int dim, int k, boolean largest);

    /** Values (float32) and their int64 indices, both contiguous of the same shape. */
    record TopK(Storage values, Storage indices) {}

    // ---- linear algebra ------------------------------------------------------------------------

    /**
     * Batched matrix product: a is (batch..., m, k), b is (batch..., k, n) with identical batch
     * dims (core broadcasts them with stride 0); the result is contiguous (batch..., m, n).
     * Transposed operands arrive as strides, never as copies.
     *
     * <p>Each operand is float32, bfloat16 or float16; products are accumulated in float32 and
     * the result is float32 (autocast hands bfloat16/float16 operands straight here, so a device
     * backend can run a tensor-core GEMM). Both low-precision operands usually share one dtype;
     * a mixed pair (a float32 gradient times a bfloat16 activation in autocast's backward) is
     * legal, and a backend may widen the low operand and run a float32 GEMM for it. The heap
     * backends widen every low operand to float32 inside the kernel, so their low-precision
     * product equals the float32 product of the widened values.
     */
    Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout);

    // ---- indexing ------------------------------------------------------------------------------

    /** Picks entries along {@code dim} with a 1-D int32/int64 index; result dim size = index length. */
    Storage indexSelect(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout);

    /** out[i][j][k] = x[index[i][j][k]][j][k] (for dim 0); index has x's rank, result has index's shape. */
    Storage gather(Storage x, Layout xLayout, int dim, Storage index, Layout indexLayout);

    /**
     * A copy of {@code base} with {@code src} added at {@code index} along {@code dim}
     * (out[index[i][j]][j] += src[i][j] for dim 0); index and src have the same shape.
     */
    Storage scatterAdd(Storage base, Layout baseLayout, int dim, Storage index, Layout indexLayout,
                       Storage src, Layout srcLayout);

    // ---- random numbers and index checks: made and checked where the data lives --------------

    /**
     * {@code size} float32 values of {@code kind} from Philox4x32-10: element i from block
     * {@code offset + i / 4} of {@code seed}'s stream, converted exactly as {@link Philox}
     * specifies, so every backend gives the same bits for the same (seed, offset). The caller
     * ({@link dev.symbiont.core.Generator}) advances its offset by {@link Philox#blocks}(size).
     */
    Storage random(RandomKind kind, long size, long seed, long offset);

    /**
     * Checks integer ids (int32 or int64, any layout) against [0, bound) without a host round
     * trip. Returns the ids as a contiguous int64 buffer with every id equal to {@code ignore}
     * replaced by 0, and a float32 buffer of the same size holding 1 where the id counts and 0
     * where it was ignored. An id outside the range that is not {@code ignore} throws an
     * {@link IndexOutOfBoundsException} naming {@code op}, the id and its position. (A device
     * backend may raise it at its next synchronisation, but must keep that message.)
     */
    IndexCheck checkIndex(String op, Storage ids, Layout idsLayout, long bound, java.util.OptionalLong ignore);

    /** The checked ids (int64, ignored ones 0) and their keep mask (float32 1 or 0), both contiguous. */
    record IndexCheck(Storage ids, Storage keep) {}

    // ---- seams for device backends --------------------------------------------------------------

    /**
     * Waits until all work queued on this backend is done. The heap backends finish every
     * primitive before it returns, so theirs is a no-op; an asynchronous backend (a CUDA stream)
     * blocks here. The profiler calls it when it closes an op's scope during a session, and the
     * memory measurements before they read the counters, so an asynchronous backend's time and
     * bytes land on the op that spent them; nothing calls it while profiling is off.
     */
    default void synchronize() {}

    // ---- device identity and copies between devices ---------------------------------------------

    /**
     * The device this backend computes on, what {@code tensor.device()} reports. The default is
     * the name alone ({@code cpu}, {@code reference}); a backend of a provider with several
     * devices returns its ordinal ({@code cuda:1}).
     */
    default Device device() { return new Device(name()); }

    /**
     * A new contiguous storage of this backend holding {@code source}'s elements seen through
     * {@code layout}, in row-major order, copied without the host (a device's peer copy); or null
     * when this backend cannot read {@code source} directly, and the caller goes through the host
     * ({@link #download} then {@link #upload}). {@code source} belongs to another backend,
     * typically another device of the same kind. The default reads no foreign storage.
     */
    default Storage copyFrom(Storage source, Layout layout) { return null; }
}
