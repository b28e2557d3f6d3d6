package dev.symbiont.cuda.blas;

/**
 * A {@link GemmCall} in cuBLAS's enum values, ready for {@code cublasGemmEx} (batch 1) or
 * {@code cublasGemmStridedBatchedEx}: what both cuBLAS routes (JCublas and {@code java.lang.foreign})
 * pass, computed in one place. Values are those of {@code cublas_api.h} / {@code library_types.h},
 * the same in CUDA 12 and 13 (and in JCublas's {@code cublasComputeType}, {@code cublasMath}).
 */
public record CublasGemmArgs(int transA, int transB, int m, int n, int k,
                             long a, int aType, int lda, long strideA,
                             long b, int bType, int ldb, long strideB,
                             long c, int cType, int ldc, long strideC,
                             int batch, int computeType, int mathMode, int algo) {

    static final int CUBLAS_OP_N = 0;
    static final int CUBLAS_OP_T = 1;
    static final int CUDA_R_32F = 0;
    static final int CUDA_R_16F = 2;
    static final int CUDA_R_16BF = 14;
    static final int CUBLAS_COMPUTE_32F = 68;
    static final int CUBLAS_COMPUTE_32F_FAST_TF32 = 77;
    static final int CUBLAS_DEFAULT_MATH = 0;
    static final int CUBLAS_TF32_TENSOR_OP_MATH = 3;
    static final int CUBLAS_GEMM_DEFAULT = -1;

    /**
     * Why cuBLAS's {@code GemmEx} cannot run {@code call}, or {@code null} when it can: A and B must
     * have one element type (float32, bf16 or f16 with float32 output and accumulation); an empty
     * inner dimension is left to the kernel, which writes the zeros without asking the library.
     */
    public static String unsupported(GemmCall call) {
        if (call.aType() != call.bType()) {
            return "cuBLAS GemmEx needs A and B of one type, got A " + call.aType() + " and B " + call.bType();
        }
        if (call.k() == 0) return "k = 0";
        return null;
    }

    /** The cuBLAS arguments of {@code call}; only for a call {@link #unsupported} accepts. */
    public static CublasGemmArgs of(GemmCall call) {
        boolean tf32 = call.mode() == GemmCall.MathMode.TF32 && call.aType() == GemmCall.ElementType.F32;
        return new CublasGemmArgs(call.transA() ? CUBLAS_OP_T : CUBLAS_OP_N, call.transB() ? CUBLAS_OP_T : CUBLAS_OP_N,
                call.m(), call.n(), call.k(),
                call.a(), dataType(call.aType()), call.lda(), call.strideA(),
                call.b(), dataType(call.bType()), call.ldb(), call.strideB(),
                call.c(), CUDA_R_32F, call.ldc(), call.strideC(), call.batch(),
                tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH, CUBLAS_GEMM_DEFAULT);
    }

    /** The arguments of {@code call} for route {@code op}; a clear error when cuBLAS cannot run it or the handle is closed. */
    static CublasGemmArgs checked(String op, GemmCall call, boolean closed) {
        String why = unsupported(call);
        if (why != null) throw new IllegalArgumentException(op + ": " + why);
        if (closed) throw new IllegalStateException(op + ": the cuBLAS handle is closed");
        return of(call);
    }

    static int dataType(GemmCall.ElementType type) {
        return switch (type) {
            case F32 -> CUDA_R_32F;
            case BF16 -> CUDA_R_16BF;
            case F16 -> CUDA_R_16F;
        };
    }

    /** {@code cublasStatus_t}'s name, for errors. */
    public static String statusName(int status) {
        return switch (status) {
            case 0 -> "CUBLAS_STATUS_SUCCESS";
            case 1 -> "CUBLAS_STATUS_NOT_INITIALIZED";
            case 3 -> "CUBLAS_STATUS_ALLOC_FAILED";
            case 7 -> "CUBLAS_STATUS_INVALID_VALUE";
            case 8 -> "CUBLAS_STATUS_ARCH_MISMATCH";
            case 11 -> "CUBLAS_STATUS_MAPPING_ERROR";
            case 13 -> "CUBLAS_STATUS_EXECUTION_FAILED";
            case 14 -> "CUBLAS_STATUS_INTERNAL_ERROR";
            case 15 -> "CUBLAS_STATUS_NOT_SUPPORTED";
            case 16 -> "CUBLAS_STATUS_LICENSE_ERROR";
            default -> "cublasStatus " + status;
        };
    }

    /** The call's shape for error messages. */
    String shape() {
        return "m=" + m + " n=" + n + " k=" + k + " lda=" + lda + " ldb=" + ldb + " ldc=" + ldc + " batch=" + batch
                + " opA=" + (transA == CUBLAS_OP_T ? "T" : "N") + " opB=" + (transB == CUBLAS_OP_T ? "T" : "N")
                + " types=" + aType + "/" + bType + " compute=" + computeType;
    }
}
