package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.cuda.driver.KernelArgs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.OptionalLong;
import java.util.function.LongFunction;

/**
 * Index checks on the device ({@code index_check.cu}): the SPI's checkIndex, and the range check
 * the indexing ops run before they index. A bad id is recorded in a {@link DeviceErrors} slot and
 * raised with the reference's message at the next synchronisation; the message's id is read back
 * from the ids' storage then, so the ids must not be released before that synchronisation.
 */
final class CudaIndexCheck {
    private final CudaBackend backend;

    CudaIndexCheck(CudaBackend backend) { this.backend = backend; }

    /** ids (int32/int64, any shape) → contiguous int64 ids (ignored ones 0) and float32 keep (1 or 0). */
    Backend.IndexCheck checkIndex(String op, CudaStorage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        checkIdType(op, "ids", ids.dtype());
        backend.enter();
        long n = idsLayout.numel();
        CudaStorage safe = backend.empty(DType.INT64, n), keep = backend.empty(DType.FLOAT32, n);
        if (n == 0) return new Backend.IndexCheck(safe, keep);
        long slot = backend.errors().slot(p -> {
            long v = readId(ids, idsLayout, p);
            return new IndexOutOfBoundsException(op + ": index " + v + " at position " + position(p, idsLayout)
                    + " is outside [0, " + bound + ")"
                    + (ignore.isPresent() ? " and is not the ignore index " + ignore.getAsLong() : ""));
        });
        backend.kernels().launch("index_check", "check_index_" + CudaCopies.suffix(ids.dtype()), n, KernelArgs.of()
                .pointer(safe.address()).pointer(keep.address()).pointer(ids.address())
                .struct(Strided.of(op, idsLayout), Strided.ALIGN).i64(n).i64(bound).i64(ignore.orElse(0))
                .i32(ignore.isPresent() ? 1 : 0).pointer(slot));
        return new Backend.IndexCheck(safe, keep);
    }

    /**
     * Checks every index (int32/int64) lies in [0, size) for dim {@code dim}; a bad one raises the
     * reference's {@link IndexOutOfBoundsException} for {@code op} at the next synchronisation.
     */
    void checkRange(String op, CudaStorage index, Layout indexLayout, int dim, long size) {
        checkIdType(op, "index", index.dtype());
        long n = indexLayout.numel();
        if (n == 0) return;
        LongFunction<RuntimeException> error = p -> new IndexOutOfBoundsException(op + ": index "
                + readId(index, indexLayout, p) + " at position " + position(p, indexLayout)
                + " out of range for dim " + dim + " of size " + size);
        long slot = backend.errors().slot(error);
        backend.kernels().launch("index_check", "check_range_" + CudaCopies.suffix(index.dtype()), n, KernelArgs.of()
                .pointer(index.address()).struct(Strided.of(op, indexLayout), Strided.ALIGN).i64(n).i64(size).pointer(slot));
    }

    private static void checkIdType(String op, String what, DType dtype) {
        if (dtype != DType.INT32 && dtype != DType.INT64) {
            throw new IllegalArgumentException(op + ": " + what + " must be int32 or int64, got " + dtype);
        }
    }

    /** Row-major position p of {@code layout}'s shape as coordinates, as the reference prints them. */
    private static String position(long p, Layout layout) {
        int[] shape = layout.shape();
        int[] pos = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            if (shape[d] == 0) continue;
            pos[d] = (int) (p % shape[d]);
            p /= shape[d];
        }
        return Arrays.toString(pos);
    }

    /** The id at row-major position p of {@code layout}, read from the device. */
    private long readId(CudaStorage ids, Layout layout, long p) {
        Layout one = new Layout(new int[] {1}, new int[] {1}, layout.offsetOf((int) p));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(8, 8);
            backend.download(ids, one, host);
            return ids.dtype() == DType.INT32 ? host.get(ValueLayout.JAVA_INT, 0) : host.get(ValueLayout.JAVA_LONG, 0);
        }
    }
}
