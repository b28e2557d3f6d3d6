package dev.symbiont.core.amp;

import dev.symbiont.core.Scope;

import dev.symbiont.core.DType;

/**
 * Mixed precision, per thread: inside {@code try (var scope = Autocast.enable(DType.BFLOAT16))}
 * matmuls keep their operands for backward in the low-precision dtype (half the bytes of an
 * activation) while the product is still accumulated in float32 and the weights stay float32
 * masters. Other ops run in float32, as torch.autocast does for them on the CPU.
 *
 * <p>The low-precision operands go to the backend's matmul as they are (float32 accumulation
 * and result), so a device backend can use tensor-core GEMMs; the linear family
 * ({@link dev.symbiont.core.fused.linear.Linears}: linear, linear_gelu, linear_split) gets x and
 * W cast the same way, so a fused GEMM epilogue runs in mixed precision too. On the heap
 * backends the gain is memory, not speed: their kernels widen the operands to float32 scratch.
 */
public final class Autocast {
    private static final ThreadLocal<DType[]> ACTIVE = ThreadLocal.withInitial(() -> new DType[1]);

    private Autocast() {}

    /** The dtype matmul operands are cast to, or null when autocast is off on this thread. */
    public static DType lowPrecision() { return ACTIVE.get()[0]; }

    /** Turns autocast on with {@code dtype} (bfloat16 or float16) until the scope is closed. */
    public static Scope enable(DType dtype) {
        if (dtype != DType.BFLOAT16 && dtype != DType.FLOAT16) {
            throw new IllegalArgumentException("autocast: the low-precision dtype must be BFLOAT16 or FLOAT16, got " + dtype);
        }
        return set(dtype);
    }

    /** Turns autocast off (e.g. for a numerically sensitive block) until the scope is closed. */
    public static Scope disable() { return set(null); }

    private static Scope set(DType dtype) {
        DType[] cell = ACTIVE.get();
        DType previous = cell[0];
        cell[0] = dtype;
        return () -> cell[0] = previous;
    }
}
