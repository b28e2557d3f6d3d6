package dev.symbiont.cuda.blas;

import dev.symbiont.cuda.blas.GemmCall.ElementType;
import dev.symbiont.cuda.blas.GemmCall.MathMode;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.ModuleImage;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GEMM kernel on the PTX interpreter against a plain Java column-major GEMM that accumulates
 * in the kernel's order (one float fma per k, k ascending), so results agree bit for bit.
 */
class KernelBlasTest {
    private final InterpretedDriver driver = new InterpretedDriver();
    private final Driver.Stream stream = driver.createStream();
    private final KernelBlas blas = new KernelBlas(driver, stream, image("gemm"));

    static ModuleImage image(String group) {
        String folder = "/dev/symbiont/cuda/kernels/";
        try (InputStream ptx = KernelBlasTest.class.getResourceAsStream(folder + group + ".ptx");
             InputStream fatbin = KernelBlasTest.class.getResourceAsStream(folder + group + ".fatbin")) {
            return new ModuleImage(group, new String(ptx.readAllBytes(), StandardCharsets.US_ASCII), fatbin.readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One operand: its values as the kernel widens them, and its raw elements on the device. */
    private record Operand(float[] widened, long address) {}

    private Operand operand(ElementType type, int count, long seed) {
        Random r = new Random(seed);
        float[] widened = new float[count];
        int bytes = type == ElementType.F32 ? 4 : 2;
        MemorySegment host = Arena.ofAuto().allocate((long) Math.max(1, count) * bytes, 4);
        for (int i = 0; i < count; i++) {
            float v = (float) r.nextGaussian();
            switch (type) {
                case F32 -> { widened[i] = v; host.setAtIndex(ValueLayout.JAVA_FLOAT, i, v); }
                case BF16 -> {
                    short bits = (short) (Float.floatToRawIntBits(v) >>> 16);
                    widened[i] = Float.intBitsToFloat((bits & 0xffff) << 16);
                    host.setAtIndex(ValueLayout.JAVA_SHORT, i, bits);
                }
                case F16 -> {
                    short bits = Float.floatToFloat16(v);
                    widened[i] = Float.float16ToFloat(bits);
                    host.setAtIndex(ValueLayout.JAVA_SHORT, i, bits);
                }
            }
        }
        long address = driver.malloc(host.byteSize());
        driver.copyToDevice(address, host, stream);
        return new Operand(widened, address);
    }

    /** C_b = op(A_b)·op(B_b) in column-major storage, as cuBLAS defines it. */
    private static float[] javaGemm(GemmCall g, float[] a, float[] b, int cSize) {
        float[] c = new float[cSize];
        for (int batch = 0; batch < g.batch(); batch++) {
            for (int j = 0; j < g.n(); j++) {
                for (int i = 0; i < g.m(); i++) {
                    float acc = 0f;
                    for (int p = 0; p < g.k(); p++) {
                        float x = a[(int) (batch * g.strideA() + (g.transA() ? p + (long) i * g.lda() : i + (long) p * g.lda()))];
                        float y = b[(int) (batch * g.strideB() + (g.transB() ? j + (long) p * g.ldb() : p + (long) j * g.ldb()))];
                        acc = Math.fma(x, y, acc);
                    }
                    c[(int) (batch * g.strideC() + i + (long) j * g.ldc())] = acc;
                }
            }
        }
        return c;
    }

    private float[] run(boolean transA, boolean transB, int m, int n, int k, int batch, ElementType aType, ElementType bType, int pad) {
        int lda = (transA ? k : m) + pad, ldb = (transB ? n : k) + pad, ldc = m + pad;
        long strideA = (long) lda * (transA ? m : k) + pad, strideB = (long) ldb * (transB ? k : n) + pad;
        long strideC = (long) ldc * n + pad;
        int aSize = (int) (strideA * batch), bSize = (int) (strideB * batch), cSize = (int) (strideC * batch);
        Operand a = operand(aType, aSize, 11), b = operand(bType, bSize, 12);
        float sentinel = -12345f;
        MemorySegment cHost = Arena.ofAuto().allocate((long) cSize * 4, 4);
        for (int i = 0; i < cSize; i++) cHost.setAtIndex(ValueLayout.JAVA_FLOAT, i, sentinel);
        long c = driver.malloc(cHost.byteSize());
        driver.copyToDevice(c, cHost, stream);
        GemmCall call = new GemmCall(transA, transB, m, n, k, a.address(), aType, lda, strideA,
                b.address(), bType, ldb, strideB, c, ldc, strideC, batch, MathMode.DEFAULT);
        blas.gemm(call);
        driver.copyToHost(cHost, c, stream);
        float[] expected = javaGemm(call, a.widened(), b.widened(), cSize);
        float[] actual = new float[cSize];
        for (int i = 0; i < cSize; i++) actual[i] = cHost.getAtIndex(ValueLayout.JAVA_FLOAT, i);
        // Padding (between columns and batches) is never written: it keeps the sentinel.
        for (int bIdx = 0; bIdx < batch; bIdx++) {
            for (int j = 0; j < n; j++) {
                for (int i = 0; i < ldc; i++) {
                    int at = (int) (bIdx * strideC + i + (long) j * ldc);
                    if (i < m) assertEquals(expected[at], actual[at], 0f, "C(" + i + ", " + j + ") of batch " + bIdx);
                    else assertEquals(sentinel, actual[at], "padding row " + i + " of column " + j + " was written");
                }
            }
        }
        return actual;
    }

    @ParameterizedTest(name = "transA={0} transB={1} m={2} n={3} k={4} batch={5}")
    @CsvSource({
            "false, false, 1, 1, 1, 1",
            "false, false, 7, 33, 1, 1",
            "true, false, 65, 7, 33, 1",
            "false, true, 33, 65, 17, 2",
            "true, true, 130, 1, 16, 1",
            "false, false, 1, 130, 65, 1",
            "true, false, 66, 65, 7, 3",
    })
    void float32MatchesTheJavaGemm(boolean transA, boolean transB, int m, int n, int k, int batch) {
        run(transA, transB, m, n, k, batch, ElementType.F32, ElementType.F32, 3);
    }

    @ParameterizedTest(name = "{0} x {1} transA={2} transB={3}")
    @CsvSource({
            "BF16, BF16, false, true", "F16, F16, true, false",
            "F32, BF16, false, false", "BF16, F32, true, true",
            "F32, F16, true, false", "F16, F32, false, true",
            "BF16, F16, false, false", "F16, BF16, true, true",
    })
    void halfAndMixedOperandsAreWidenedToFloat(ElementType aType, ElementType bType, boolean transA, boolean transB) {
        run(transA, transB, 9, 70, 19, 2, aType, bType, 1);
    }

    @Test
    void kZeroWritesZeros() {
        float[] c = run(false, false, 5, 3, 0, 2, ElementType.F32, ElementType.F32, 1);
        for (int j = 0; j < 3; j++) for (int i = 0; i < 5; i++) assertEquals(0f, c[i + j * 6], "C(" + i + ", " + j + ")");
    }

    @Test
    void kernelNamesFollowTheOperandTypes() {
        GemmCall like = new GemmCall(false, false, 1, 1, 1, 0, ElementType.BF16, 1, 0, 0, ElementType.BF16, 1, 0, 0, 1, 0, 1, MathMode.DEFAULT);
        GemmCall mixed = new GemmCall(false, false, 1, 1, 1, 0, ElementType.F16, 1, 0, 0, ElementType.F32, 1, 0, 0, 1, 0, 1, MathMode.TF32);
        assertEquals("gemm_bf16", KernelBlas.kernelName(like));
        assertEquals("gemm_f16_f32", KernelBlas.kernelName(mixed));
        assertTrue(blas.describe().contains("no cuBLAS"));
    }

    @Test
    void aLeadingDimensionShorterThanTheRowsIsRejected() {
        GemmCall bad = new GemmCall(false, false, 4, 2, 3, 0, ElementType.F32, 3, 0, 0, ElementType.F32, 3, 0, 0, 4, 0, 1, MathMode.DEFAULT);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> blas.gemm(bad));
        assertTrue(e.getMessage().contains("lda=3"), e.getMessage());
    }
}
