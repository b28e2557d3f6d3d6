package dev.symbiont.cuda.blas;

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

    /** Releases the library handle. */
    void close();
}
