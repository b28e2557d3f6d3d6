package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.foreign.MemorySegment;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/**
 * nvcc's PTX for a shared-memory tiled, batched, column-major GEMM ({@code tiled_gemm.cu}) on the
 * interpreter: 2-D blocks, a 3-D grid, module-scope shared tiles, barriers, fp32 and bf16 operands,
 * a transposed A, alpha and beta, at sizes that leave partial tiles. Small integer operands make
 * every sum exact, so the result must equal the Java product exactly.
 */
class TiledGemmKernelTest {
    @ParameterizedTest
    @CsvSource({"gemm_f32, 0", "gemm_f32, 1", "gemm_bf16, 0", "gemm_bf16, 1"})
    void batchedColumnMajorProductWithAlphaAndBeta(String kernel, int transA) {
        int m = 37, n = 21, k = 40, batch = 2;
        float alpha = 2f, beta = 0.5f;
        Random random = new Random(13);
        float[] a = new float[batch * m * k], b = new float[batch * k * n], c = new float[batch * m * n];
        for (int i = 0; i < a.length; i++) a[i] = random.nextInt(7) - 3;
        for (int i = 0; i < b.length; i++) b[i] = random.nextInt(7) - 3;
        for (int i = 0; i < c.length; i++) c[i] = random.nextInt(9) - 4;
        int lda = transA == 1 ? k : m;
        float[] expected = new float[c.length];
        for (int z = 0; z < batch; z++) {
            for (int col = 0; col < n; col++) {
                for (int row = 0; row < m; row++) {
                    double acc = 0;
                    for (int kk = 0; kk < k; kk++) {
                        float av = transA == 1 ? a[z * m * k + row * lda + kk] : a[z * m * k + kk * lda + row];
                        acc += av * b[z * k * n + col * k + kk];
                    }
                    int at = z * m * n + col * m + row;
                    expected[at] = (float) (alpha * acc + beta * c[at]);
                }
            }
        }
        PtxHarness h = new PtxHarness();
        Driver.Module module = h.driver.load(new ModuleImage("tiled_gemm", NvccKernelsTest.resource("tiled_gemm.ptx"), new byte[0]));
        boolean bf16 = kernel.endsWith("bf16");
        long da = bf16 ? bf16(h, a) : h.floats(a), db = bf16 ? bf16(h, b) : h.floats(b), dc = h.floats(c);
        KernelArgs args = KernelArgs.of().i32(transA).i32(m).i32(n).i32(k).f32(alpha).pointer(da).i32(lda).i64((long) m * k)
                .pointer(db).i32(k).i64((long) k * n).f32(beta).pointer(dc).i32(m).i64((long) m * n);
        h.driver.launch(h.driver.function(module, kernel), new Dim3((m + 15) / 16, (n + 15) / 16, batch), Dim3.of(16, 16), 0, h.stream, args);
        assertArrayEquals(expected, h.floats(dc, c.length));
    }

    private static long bf16(PtxHarness h, float[] values) {
        short[] bits = new short[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = (short) (Float.floatToRawIntBits(values[i]) >>> 16); // small integers: exact
        long at = h.driver.malloc(2L * bits.length);
        h.driver.copyToDevice(at, MemorySegment.ofArray(bits), h.stream);
        return at;
    }
}
