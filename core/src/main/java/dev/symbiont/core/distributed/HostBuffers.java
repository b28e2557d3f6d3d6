package dev.symbiont.core.distributed;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.core.backend.Storage;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * The host side of a communicator that exchanges host memory: the checks every collective makes
 * on its tensors, and the copies between a tensor and a host segment, each marked as the
 * deliberate {@link HostTransfer#COLLECTIVE} transfer.
 */
public final class HostBuffers {
    private HostBuffers() {}

    /**
     * Throws, naming {@code op} and the tensor, unless {@code t} is contiguous and of a dtype
     * collectives exchange (float32, int32, int64).
     */
    public static void check(String op, String role, Tensor t) {
        if (t == null) throw new IllegalArgumentException(op + ": " + role + " is null");
        if (!t.isContiguous()) {
            throw new IllegalArgumentException(op + ": " + role + " of shape " + Arrays.toString(t.shape())
                    + " is not contiguous; collectives work in place on contiguous tensors (call contiguous() first)");
        }
        DType d = t.dtype();
        if (d != DType.FLOAT32 && d != DType.INT32 && d != DType.INT64) {
            throw new IllegalArgumentException(op + ": " + role + " is " + d + "; collectives exchange float32, int32 and int64");
        }
    }

    /** Throws, naming {@code op}, when {@code reduction} does not apply to {@code dtype} (AVG on integers). */
    public static void checkReduction(String op, DType dtype, Reduction reduction) {
        if (reduction == null) throw new IllegalArgumentException(op + ": reduction is null");
        if (reduction == Reduction.AVG && dtype != DType.FLOAT32) {
            throw new IllegalArgumentException(op + ": AVG needs float32, the tensor is " + dtype + " (use SUM)");
        }
    }

    /** Copies {@code t}'s elements into {@code target} (at least {@code t.numel()} elements of its dtype). */
    public static void download(Tensor t, MemorySegment target) {
        try (var allowed = HostTransfer.COLLECTIVE.allow()) {
            t.backend().download(t.storage(), t.layout(), target);
        }
    }

    /** Writes {@code source}'s first {@code t.numel()} elements into {@code t}'s storage, in place. */
    public static void upload(MemorySegment source, Tensor t) {
        long bytes = (long) t.numel() * t.dtype().byteSize();
        try (var allowed = HostTransfer.COLLECTIVE.allow()) {
            Storage fresh = t.backend().upload(t.dtype(), source.asSlice(0, bytes));
            try {
                t.backend().copyInto(t.storage(), t.layout(), fresh, dev.symbiont.core.Layout.contiguous(t.shape()));
            } finally {
                fresh.release();
            }
        }
    }
}
