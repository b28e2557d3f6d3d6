package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.StridedCopy;

/** How the CPU family kernels read tensors and allocate results on their backend. */
final class CpuTensors {
    private final Backend backend;

    CpuTensors(Backend backend) { this.backend = backend; }

    /** A tracked, zero-filled float32 buffer of {@code n} elements on the backend. */
    HeapStorage newFloats(int n) {
        return HeapStorage.of(backend.allocate(DType.FLOAT32, n));
    }

    /** A tracked float32 buffer of {@code n} elements with unspecified contents, for a kernel that writes every one. */
    HeapStorage emptyFloats(int n) {
        return HeapStorage.of(backend.empty(DType.FLOAT32, n));
    }

    /** A tracked, zero-filled int64 buffer of {@code n} elements on the backend, for indices a kernel writes. */
    HeapStorage newLongs(int n) {
        return HeapStorage.of(backend.allocate(DType.INT64, n));
    }

    /** A tracked int64 tensor of the given shape holding {@code values}: copied into a buffer of the backend, not uploaded. */
    Tensor longs(long[] values, int... shape) {
        HeapStorage out = newLongs(values.length);
        System.arraycopy(values, 0, out.longs(), 0, values.length);
        return Tensor.of(out, shape);
    }

    /**
     * The elements of an int32 or int64 tensor (indices, sizes) in row-major order: read in place,
     * as the CPU's memory is the host's, so nothing is downloaded; other dtypes throw naming the op.
     */
    static long[] longsOf(String op, Tensor t) {
        Object values = StridedCopy.toContiguous(HeapStorage.of(t.storage()).array(), t.dtype(), t.layout());
        return switch (t.dtype()) {
            case INT64 -> (long[]) values;
            case INT32 -> java.util.Arrays.stream((int[]) values).asLongStream().toArray();
            default -> throw new IllegalArgumentException(op + ": expected int32 or int64 indices, got " + t.dtype());
        };
    }

    /** The elements of t in row-major order: a host copy, untracked scratch dropped after the kernel. */
    float[] copyOf(Tensor t) {
        // StridedCopy, not backend.download: this is scratch inside a kernel, not a transfer to the caller.
        return (float[]) StridedCopy.toContiguous(HeapStorage.of(t.storage()).array(), t.dtype(), t.layout());
    }

    /**
     * t seen as (rows, cols) with each row consecutive in memory: its own storage when its
     * layout allows that view, else a contiguous host copy (untracked scratch, dropped after the kernel).
     */
    Rows rows(String op, Tensor t, int rows, int cols) {
        Layout view = t.layout().reshapeView(new int[] {rows, cols});
        float[] data = HeapStorage.floats(op, t.storage(), t.layout()); // dtype and bounds checks, naming the op
        if (view != null && (view.stride(1) == 1 || cols == 1)) {
            return new Rows(data, view.offset(), rows == 1 ? 0 : view.stride(0));
        }
        return new Rows(copyOf(t), 0, cols);
    }

    /** A 1-D parameter as a run of consecutive elements, or null. */
    Rows vectorOf(String op, Tensor p) {
        return p == null ? null : rows(op, p, 1, p.numel());
    }

    /** A (rows, 1) statistic: element r at offset + r·stride. */
    static Rows stats(String op, Tensor stat) {
        float[] data = HeapStorage.floats(op, stat.storage(), stat.layout());
        return new Rows(data, stat.layout().offset(), stat.layout().stride(0));
    }

    /** The data of an optional row vector, or null. */
    static float[] data(Rows r) { return r == null ? null : r.data(); }

    /** The offset of an optional row vector, or 0. */
    static int offset(Rows r) { return r == null ? 0 : r.offset(); }
}
