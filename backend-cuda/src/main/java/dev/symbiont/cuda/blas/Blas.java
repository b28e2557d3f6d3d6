package dev.symbiont.cuda.blas;

import java.util.List;

/**
 * The GEMM the backend's matmul runs, with cuBLAS's column-major semantics
 * ({@code cublasGemmStridedBatchedEx}): for each batch {@code b},
 * {@code C_b = op(A_b) · op(B_b)} with alpha 1 and beta 0, C float32, accumulation in float32.
 * Implemented by cuBLAS (through JCublas or {@code java.lang.foreign}) and by the backend's own
 * GEMM kernel, which the interpreter runs and which stands in where no cuBLAS loads.
 */
public interface Blas {

    /** One line for {@code symbiont backends}: which route, which library, and why. */
    String describe();

    /** Runs one strided batched GEMM on the backend's stream. */
    void gemm(GemmCall call);

    /**
     * Runs independent GEMMs of batch 1 and float32 operands, each with its own shape, as cuBLAS's
     * grouped GEMM ({@code cublasGemmGroupedBatchedEx}, a group per problem) where the route has it,
     * otherwise one {@link #gemm} each (this default).
     *
     * @param problems the GEMMs, in one math mode
     * @param pointers the device address of 3·n int64: every problem's A address, then every B, then
     *                 every C (the grouped entry point reads its operand addresses on the device)
     */
    default void groupedGemm(List<GemmCall> problems, long pointers) {
        problems.forEach(this::gemm);
    }

    /** Releases the library handle. */
    void close();
}
