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

    /** allReduce's checks: {@code buffer} a contiguous tensor of a collective dtype, {@code op} applicable to it. */
    public static void checkAllReduce(Tensor buffer, Reduction op) {
        check("allReduce", "buffer", buffer);
        checkReduction("allReduce", buffer.dtype(), op);
    }

    /** broadcast's checks: {@code buffer} a contiguous tensor of a collective dtype, {@code root} a rank of the group. */
    public static void checkBroadcast(Tensor buffer, int root, int size) {
        check("broadcast", "buffer", buffer);
        checkRoot("broadcast", root, size);
    }

    /** allGather's checks: both tensors contiguous, of one collective dtype, {@code output} holding {@code input} once per rank. */
    public static void checkAllGather(Tensor input, Tensor output, int size) {
        check("allGather", "input", input);
        check("allGather", "output", output);
        checkSizes("allGather", input, output, (long) input.numel() * size);
    }

    /** reduceScatter's checks: both tensors contiguous, of one collective dtype, {@code input} holding {@code output} once per rank. */
    public static void checkReduceScatter(Tensor input, Tensor output, Reduction op, int size) {
        check("reduceScatter", "input", input);
        check("reduceScatter", "output", output);
        checkReduction("reduceScatter", input.dtype(), op);
        checkSizes("reduceScatter", output, input, (long) output.numel() * size);
    }

    /** Throws, naming {@code op}, unless {@code root} is a rank of a group of {@code size}. */
    public static void checkRoot(String op, int root, int size) {
        if (root < 0 || root >= size) throw new IllegalArgumentException(op + ": root " + root + " is not a rank of a group of " + size);
    }

    /**
     * Throws, naming {@code op}, unless {@code large} holds {@code small}'s elements once per rank
     * ({@code expected} = small.numel() · size) in the same dtype: allGather's and reduceScatter's rule.
     */
    public static void checkSizes(String op, Tensor small, Tensor large, long expected) {
        if (large.numel() != expected) {
            throw new IllegalArgumentException(op + ": tensors of " + small.numel() + " and " + large.numel()
                    + " elements; the larger must hold the smaller's " + small.numel() + " times the group size (" + expected + ")");
        }
        if (small.dtype() != large.dtype()) throw new IllegalArgumentException(op + ": dtypes differ, " + small.dtype() + " and " + large.dtype());
    }

    /**
     * A collective as messages name it: {@code "allReduce of 1000 float32 (SUM)"},
     * {@code "broadcast of 7 int64 from root 1"}. {@code dtype} and {@code reduction} may be null,
     * {@code root} negative, where they do not apply.
     */
    public static String describe(String op, DType dtype, long count, Reduction reduction, int root) {
        return op + (dtype == null ? "" : " of " + count + " " + dtype) + (root >= 0 ? " from root " + root : "")
                + (reduction == null ? "" : " (" + reduction + ")");
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
