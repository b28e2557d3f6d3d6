package dev.symbiont.cuda.blas;

/**
 * One strided batched GEMM in cuBLAS's column-major terms: {@code C (m×n) = op(A) (m×k) · op(B) (k×n)}
 * for {@code batch} matrices, each operand at {@code address + b · stride} elements. A row-major
 * product is the column-major product of the transposes with the operands swapped; the matmul op
 * makes that mapping, so transposed views never become copies.
 *
 * @param transA whether A is stored transposed (A is then k×m with leading dimension lda)
 * @param aType  A's element type; bType likewise; C is always float32
 * @param mode   {@link MathMode#TF32} lets float32 products use tensor cores' TF32
 */
public record GemmCall(boolean transA, boolean transB, int m, int n, int k,
                       long a, ElementType aType, int lda, long strideA,
                       long b, ElementType bType, int ldb, long strideB,
                       long c, int ldc, long strideC, int batch, MathMode mode) {

    /** Operand element types cuBLAS names CUDA_R_32F, CUDA_R_16BF and CUDA_R_16F. */
    public enum ElementType { F32, BF16, F16 }

    /** The math mode: exact float32, or TF32 tensor cores for float32 inputs (opt-in). */
    public enum MathMode { DEFAULT, TF32 }
}
