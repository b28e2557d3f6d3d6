package dev.symbiont.cuda;

import dev.symbiont.cuda.blas.Blas;
import dev.symbiont.cuda.blas.GemmCall;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

/**
 * The backend's own GEMM kernel ({@code gemm.cu}) behind the {@link Blas} seam, with cuBLAS's
 * column-major semantics: what the interpreter runs, and what stands in where no cuBLAS loads or
 * for calls cuBLAS cannot run (mixed operand types). The math mode is ignored: products are
 * always exact float32 (TF32 is a tensor-core mode this kernel does not use).
 */
final class KernelBlas implements Blas {
    private static final int TILE = 16;
    private static final int MAX_GRID_Z = 65_535;

    private final Kernels kernels;

    KernelBlas(Kernels kernels) { this.kernels = kernels; }

    @Override
    public String describe() { return "the backend's GEMM kernel (16×16 shared-memory tiles, float32 accumulation)"; }

    @Override
    public void gemm(GemmCall call) {
        if (call.m() == 0 || call.n() == 0 || call.batch() == 0) return;
        Dim3 grid = new Dim3((call.m() + TILE - 1) / TILE, (call.n() + TILE - 1) / TILE, Math.min(call.batch(), MAX_GRID_Z));
        int sharedBytes = 2 * TILE * (TILE + 1) * Float.BYTES;
        kernels.launch("gemm", "gemm_" + suffix(call.aType()), grid, Dim3.of(TILE, TILE), sharedBytes, KernelArgs.of()
                .i32(call.transA() ? 1 : 0).i32(call.transB() ? 1 : 0).i32(call.m()).i32(call.n()).i32(call.k())
                .pointer(call.a()).i32(call.lda()).i64(call.strideA())
                .pointer(call.b()).i32(call.bType().ordinal()).i32(call.ldb()).i64(call.strideB())
                .pointer(call.c()).i32(call.ldc()).i64(call.strideC()).i32(call.batch()));
    }

    /** The kernel's name of A's type; B's type goes as its {@code enum Element} code (the ElementType ordinal). */
    private static String suffix(GemmCall.ElementType type) {
        return switch (type) {
            case F32 -> "f32";
            case BF16 -> "bf16";
            case F16 -> "f16";
        };
    }

    @Override
    public void close() {}
}
