package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.reference.StridedWalker;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The SPI's index check on the device ({@code index_check.cu}). A bad id does not stop the stream:
 * its position goes to a {@link DeviceErrors} slot and the backend throws the reference backend's
 * {@link IndexOutOfBoundsException} message at its next synchronisation or host read.
 */
final class CudaIndexCheck {
    private final CudaBackend backend;

    CudaIndexCheck(CudaBackend backend) { this.backend = backend; }

    /** ids: int32 or int64 of any layout → (contiguous int64 ids with ignored ones 0, float32 keep mask). */
    Backend.IndexCheck checkIndex(String op, CudaStorage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        if (ids.dtype() != DType.INT32 && ids.dtype() != DType.INT64) {
            throw new IllegalArgumentException(op + ": ids must be int32 or int64, got " + ids.dtype());
        }
        backend.enter();
        long n = idsLayout.numel();
        CudaStorage safe = backend.empty(DType.INT64, n);
        CudaStorage keep = backend.empty(DType.FLOAT32, n);
        long slots = backend.errors().slotWithValue((position, id) -> outOfRange(op, idsLayout, bound, ignore, position, id));
        String suffix = CudaCopies.suffix(ids.dtype());
        byte[] layout = Strided.of(op, idsLayout);
        backend.kernels().launch("index_check", "check_index_" + suffix, n, KernelArgs.of()
                .pointer(safe.address()).pointer(keep.address()).pointer(ids.address())
                .struct(layout, Strided.ALIGN).i64(n).i64(bound)
                .i32(ignore.isPresent() ? 1 : 0).i64(ignore.orElse(0)).pointer(slots));
        backend.kernels().launch("index_check", "check_index_value_" + suffix, Dim3.of(1), Dim3.of(1), 0,
                KernelArgs.of().pointer(ids.address()).struct(layout, Strided.ALIGN).pointer(slots));
        return new Backend.IndexCheck(safe, keep);
    }

    /**
     * Checks every index (int32/int64) of an indexing op lies in [0, size) for dim {@code dim}; the
     * first bad one raises the reference's {@link IndexOutOfBoundsException} for {@code op} at the
     * next synchronisation. The check kernel's id and mask outputs are not needed here.
     */
    void checkRange(String op, CudaStorage index, Layout indexLayout, int dim, long size) {
        if (index.dtype() != DType.INT32 && index.dtype() != DType.INT64) {
            throw new IllegalArgumentException(op + ": index must be int32 or int64, got " + index.dtype());
        }
        long n = indexLayout.numel();
        if (n == 0) return;
        backend.enter();
        CudaStorage safe = backend.empty(DType.INT64, n);
        CudaStorage keep = backend.empty(DType.FLOAT32, n);
        long slots = backend.errors().slotWithValue((position, id) -> new IndexOutOfBoundsException(op + ": index " + id
                + " at position " + Arrays.toString(StridedWalker.unravel((int) position, indexLayout.shape()))
                + " out of range for dim " + dim + " of size " + size));
        String suffix = CudaCopies.suffix(index.dtype());
        byte[] layout = Strided.of(op, indexLayout);
        backend.kernels().launch("index_check", "check_index_" + suffix, n, KernelArgs.of()
                .pointer(safe.address()).pointer(keep.address()).pointer(index.address())
                .struct(layout, Strided.ALIGN).i64(n).i64(size).i32(0).i64(0).pointer(slots));
        backend.kernels().launch("index_check", "check_index_value_" + suffix, Dim3.of(1), Dim3.of(1), 0,
                KernelArgs.of().pointer(index.address()).struct(layout, Strided.ALIGN).pointer(slots));
        safe.release();                 // queued work that writes them runs first, in stream order
        keep.release();
    }

    /** The reference backend's message for the first bad id (its value kept on the device beside its position). */
    private static RuntimeException outOfRange(String op, Layout idsLayout, long bound, OptionalLong ignore,
                                               long position, long id) {
        return new IndexOutOfBoundsException(op + ": index " + id + " at position "
                + Arrays.toString(StridedWalker.unravel((int) position, idsLayout.shape())) + " is outside [0, " + bound + ")"
                + (ignore.isPresent() ? " and is not the ignore index " + ignore.getAsLong() : ""));
    }
}
