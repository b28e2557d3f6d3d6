package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;

/**
 * How the fused-family kernels of this backend take tensors: as the device address of a
 * contiguous run (a strided operand is copied contiguous first, one pass), with absent optional
 * operands as null pointers, and how they allocate float32 results they write in full.
 */
final class FusedOperands {
    private final CudaBackend backend;

    FusedOperands(CudaBackend backend) { this.backend = backend; }

    CudaBackend backend() { return backend; }

    /** t made contiguous (itself when it already is), or null for an absent operand. */
    static Tensor dense(Tensor t) { return t == null ? null : t.contiguous(); }

    /** The device address of the first element of contiguous t, or 0 (a null pointer) when t is null. */
    static long address(Tensor t) {
        if (t == null) return 0;
        if (!t.isContiguous()) throw new IllegalStateException("cuda fused kernel: operand " + t + " is not contiguous");
        return CudaBackend.storage(t.storage()).address(t.layout().offset());
    }

    /** A new float32 tensor of {@code shape} with unspecified contents, for a kernel that writes every element. */
    Tensor empty(int... shape) {
        return Tensor.of(backend.empty(DType.FLOAT32, Layout.numel(shape)), shape);
    }

    /** Whether every given tensor (nulls skipped) is float32 with elements; otherwise counts a fallback of op. */
    static boolean nonEmptyFloats(String op, Tensor... tensors) {
        for (Tensor t : tensors) {
            if (t != null && (t.numel() == 0 || t.dtype() != DType.FLOAT32)) {
                Fallbacks.record(op, "an operand is empty or not float32");
                return false;
            }
        }
        return true;
    }
}
