package dev.symbiont.cuda.blas;

import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The backend's own GEMM ({@code gemm.cu}): a 64×64-tiled kernel with cuBLAS's column-major
 * semantics, float32 accumulation, bfloat16/float16 operands widened to float, mixed operand types
 * ({@code gemm_<a>_<b>}). The interpreter runs it, and it stands in where no cuBLAS loads. It has
 * no TF32 path: {@link GemmCall.MathMode#TF32} computes exact float32 products here.
 */
public final class KernelBlas implements Blas {
    /** Rows and columns of C one block computes; the kernel's TILE. */
    static final int TILE = 64;
    static final int THREADS = 256;
    /** Grid z limit of the driver API; the kernel loops over batches beyond it. */
    static final int MAX_GRID_Z = 65_535;
    static final int MAX_GRID_Y = 65_535;

    private final Driver driver;
    private final Driver.Stream stream;
    private final Driver.Module module;
    private final Map<String, Driver.Function> functions = new HashMap<>();

    /** The kernel of {@code gemm} (the committed {@code gemm.ptx|.fatbin}) on {@code stream} of {@code driver}. */
    public KernelBlas(Driver driver, Driver.Stream stream, ModuleImage gemm) {
        this.driver = driver;
        this.stream = stream;
        this.module = driver.load(gemm);
    }

    @Override
    public String describe() {
        return "own GEMM kernel (no cuBLAS; float32 accumulation, TF32 mode has no effect)";
    }

    @Override
    public void gemm(GemmCall call) {
        check(call);
        if (call.m() == 0 || call.n() == 0 || call.batch() == 0) return;
        int gridX = (call.m() + TILE - 1) / TILE;
        int gridY = (call.n() + TILE - 1) / TILE;
        if (gridY > MAX_GRID_Y) {
            throw new IllegalArgumentException("gemm kernel: n = " + call.n() + " needs more than " + MAX_GRID_Y + " column tiles");
        }
        Dim3 grid = new Dim3(gridX, gridY, Math.min(call.batch(), MAX_GRID_Z));
        // k = 0 needs no special case: the k loop runs no step and C is written as zeros (beta 0).
        driver.launch(function(kernelName(call)), grid, Dim3.of(THREADS), 0, stream, KernelArgs.of()
                .i32(call.transA() ? 1 : 0).i32(call.transB() ? 1 : 0).i32(call.m()).i32(call.n()).i32(call.k())
                .pointer(call.a()).i32(call.lda()).i64(call.strideA())
                .pointer(call.b()).i32(call.ldb()).i64(call.strideB())
                .pointer(call.c()).i32(call.ldc()).i64(call.strideC()).i32(call.batch()));
    }

    /** {@code gemm_f32} for like operands, {@code gemm_<a>_<b>} for mixed ones. */
    static String kernelName(GemmCall call) {
        String a = call.aType().name().toLowerCase(Locale.ROOT);
        String b = call.bType().name().toLowerCase(Locale.ROOT);
        return a.equals(b) ? "gemm_" + a : "gemm_" + a + "_" + b;
    }

    /** cuBLAS's argument rules: non-negative sizes, leading dimensions covering the stored rows. */
    static void check(GemmCall call) {
        int rowsA = call.transA() ? call.k() : call.m();
        int rowsB = call.transB() ? call.n() : call.k();
        if (call.m() < 0 || call.n() < 0 || call.k() < 0 || call.batch() < 0
                || call.lda() < Math.max(1, rowsA) || call.ldb() < Math.max(1, rowsB) || call.ldc() < Math.max(1, call.m())) {
            throw new IllegalArgumentException("gemm kernel: bad arguments m=" + call.m() + " n=" + call.n() + " k=" + call.k()
                    + " batch=" + call.batch() + " transA=" + call.transA() + " lda=" + call.lda()
                    + " transB=" + call.transB() + " ldb=" + call.ldb() + " ldc=" + call.ldc());
        }
    }

    private synchronized Driver.Function function(String name) {
        return functions.computeIfAbsent(name, n -> driver.function(module, n));
    }

    @Override
    public void close() {
        // the module lives as long as the driver's context; there is no library handle to release
    }
}
