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

    /** The reference backend's message for the first bad id (its value kept on the device beside its position). */
    private static RuntimeException outOfRange(String op, Layout idsLayout, long bound, OptionalLong ignore,
                                               long position, long id) {
        return new IndexOutOfBoundsException(op + ": index " + id + " at position "
                + Arrays.toString(StridedWalker.unravel((int) position, idsLayout.shape())) + " is outside [0, " + bound + ")"
                + (ignore.isPresent() ? " and is not the ignore index " + ignore.getAsLong() : ""));
    }
}
