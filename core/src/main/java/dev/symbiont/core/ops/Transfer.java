package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Half;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.HostSegments;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Moving tensors between backends and dtypes, and out to Java arrays and host memory segments. */
public final class Transfer {
    private Transfer() {}

    /**
     * x on {@code target}: x itself when it is there, else a contiguous copy; the gradient goes
     * back the same way. The target copies directly when it can read x's storage
     * ({@link Backend#copyFrom}: another device of its kind), else the values pass the host.
     */
    public static Tensor toBackend(Tensor x, Backend target) {
        if (x.backend() == target) return x;
        try (var p = Profiled.pass("to", OpCategory.COPY, x, 0)) {
            Tensor out = Tensor.of(copy(x, target), x.shape());
            Backend source = x.backend();
            return Autograd.record("to", out, g -> new Tensor[] {toBackend(g, source)}, x);
        }
    }

    private static Storage copy(Tensor x, Backend target) {
        Storage direct = target.copyFrom(x.storage(), x.layout());
        if (direct == null) {
            // Staged through off-heap memory: a device backend on either side copies it without
            // pinning a heap array, and the staging copy never lands on the Java heap.
            try (Arena staging = Arena.ofConfined()) {
                MemorySegment host = staging.allocate(bytes(x), x.dtype().byteSize());
                x.backend().download(x.storage(), x.layout(), host);
                return target.upload(x.dtype(), host);
            }
        }
        if (direct.backend() != target || direct.dtype() != x.dtype() || direct.size() != x.numel()) {
            throw new IllegalStateException("to: " + target.device() + ".copyFrom gave " + direct.size() + " " + direct.dtype()
                    + " elements on " + direct.backend().device() + " for " + x.numel() + " " + x.dtype() + " elements of "
                    + x.device() + "; it must return a contiguous copy on its own backend");
        }
        return direct;
    }

    public static Tensor toDType(Tensor x, DType target) {
        if (x.dtype() == target) return x;
        try (var p = Profiler.op(x.backend(), "to", OpCategory.COPY, 0, Profiled.bytes(x) + (long) x.numel() * target.byteSize())) {
            Tensor out = Tensor.of(x.backend().cast(x.storage(), x.layout(), target), x.shape());
            if (!target.isFloating()) return out;
            DType source = x.dtype();
            return Autograd.record("to", out, g -> new Tensor[] {toDType(g, source)}, x);
        }
    }

    /** The bytes of x's elements, row-major in its dtype. */
    private static long bytes(Tensor x) { return (long) x.numel() * x.dtype().byteSize(); }

    /**
     * Writes x's elements, row-major, as little-endian bytes of its dtype to the start of
     * {@code target}, which needs room for {@code numel * dtype.byteSize()} bytes.
     */
    public static void copyTo(Tensor x, MemorySegment target) {
        HostSegments.checkRoom("copyTo", x.dtype(), x.numel(), target);
        try (var p = Profiled.pass("download", OpCategory.COPY, x, 0)) {
            x.backend().download(x.storage(), x.layout(), target);
        }
    }

    /** x's elements in a new segment of {@code arena}, aligned to the element size. */
    public static MemorySegment toSegment(Tensor x, Arena arena) {
        MemorySegment out = arena.allocate(bytes(x), x.dtype().byteSize());
        copyTo(x, out);
        return out;
    }

    /** Reading values back to the host: on an accelerator, the point where the host waits for it. */
    private static Object download(Tensor x) {
        try (var p = Profiled.pass("download", OpCategory.COPY, x, 0)) {
            return x.backend().download(x.storage(), x.layout());
        }
    }

    public static float[] toFloatArray(Tensor x) {
        Object host = download(x);
        return switch (x.dtype()) {
            case FLOAT32 -> (float[]) host;
            case INT32 -> { int[] a = (int[]) host; float[] f = new float[a.length]; for (int i = 0; i < a.length; i++) f[i] = a[i]; yield f; }
            case INT64 -> { long[] a = (long[]) host; float[] f = new float[a.length]; for (int i = 0; i < a.length; i++) f[i] = a[i]; yield f; }
            case BFLOAT16 -> { short[] a = (short[]) host; float[] f = new float[a.length]; for (int i = 0; i < a.length; i++) f[i] = Half.bf16ToFloat(a[i]); yield f; }
            case FLOAT16 -> { short[] a = (short[]) host; float[] f = new float[a.length]; for (int i = 0; i < a.length; i++) f[i] = Half.f16ToFloat(a[i]); yield f; }
        };
    }

    public static long[] toLongArray(Tensor x) {
        Object host = download(x);
        return switch (x.dtype()) {
            case INT64 -> (long[]) host;
            case INT32 -> { int[] a = (int[]) host; long[] l = new long[a.length]; for (int i = 0; i < a.length; i++) l[i] = a[i]; yield l; }
            default -> { float[] f = toFloatArray(x); long[] l = new long[f.length]; for (int i = 0; i < f.length; i++) l[i] = (long) f[i]; yield l; }
        };
    }

    static short[] floatsToHalves(float[] values, DType dtype) {
        short[] out = new short[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = dtype == DType.BFLOAT16 ? Half.floatToBf16(values[i]) : Half.floatToF16(values[i]);
        }
        return out;
    }
}
