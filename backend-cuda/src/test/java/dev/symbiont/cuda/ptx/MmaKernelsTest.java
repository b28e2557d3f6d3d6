package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Tensor-core instructions on the interpreter, through nvcc's PTX for {@code mma_tile.cu}: one warp
 * multiplies a 16×16 (or 16×8) tile by a 16×8 (8×8) tile with mma.sync, its fragments gathered by
 * the ISA's formulas or by ldmatrix. Every element of A, B and C is distinct, so a fragment layout
 * that puts any element in a wrong place gives a wrong product.
 */
class MmaKernelsTest {
    private final PtxHarness h = new PtxHarness();
    private final Driver.Module module = h.driver.load(new ModuleImage("mma_tile", NvccKernelsTest.resource("mma_tile.ptx"), new byte[0]));

    /** Distinct small integers: bf16 and f16 hold them exactly and every sum is exact in float32. */
    private static float[] distinct(int n, int offset) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i - offset;
        return v;
    }

    /** C (m×8) + A (m×k) · B (k×8), all row-major, summed in double. */
    private static float[] product(float[] a, float[] b, float[] c, int m, int k) {
        float[] out = new float[m * 8];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < 8; j++) {
                double sum = c[i * 8 + j];
                for (int kk = 0; kk < k; kk++) sum += (double) a[i * k + kk] * b[kk * 8 + j];
                out[i * 8 + j] = (float) sum;
            }
        }
        return out;
    }

    private long halves(float[] values, boolean bf16) {
        short[] bits = new short[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = bf16 ? bf16(values[i]) : Float.floatToFloat16(values[i]);
        long at = h.driver.malloc(2L * bits.length);
        h.driver.copyToDevice(at, MemorySegment.ofArray(bits), h.stream);
        return at;
    }

    /** float → bfloat16, rounding to nearest even (the values here are finite). */
    static short bf16(float v) {
        int bits = Float.floatToRawIntBits(v);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }

    private static float rounded(float v, boolean bf16) {
        return bf16 ? Float.intBitsToFloat(bf16(v) << 16) : Float.float16ToFloat(Float.floatToFloat16(v));
    }

    private float[] run(String kernel, long a, long b, float[] c) {
        long dc = h.floats(c);
        h.launch(h.driver.function(module, kernel), 1, 32, KernelArgs.of().pointer(a).pointer(b).pointer(dc));
        return h.floats(dc, c.length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mma_direct_bf16", "mma_direct_f16"})
    void m16n8k16FragmentsFollowTheIsaLayout(String kernel) {
        boolean bf16 = kernel.endsWith("bf16");
        float[] a = distinct(16 * 16, 128), b = distinct(16 * 8, 64), c = distinct(16 * 8, 0);
        assertArrayEquals(product(a, b, c, 16, 16), run(kernel, halves(a, bf16), halves(b, bf16), c));
    }

    @Test
    void m16n8k8FragmentsFollowTheIsaLayout() {
        float[] a = distinct(16 * 8, 64), b = distinct(8 * 8, 32), c = distinct(16 * 8, 50);
        assertArrayEquals(product(a, b, c, 16, 8), run("mma_k8_bf16", halves(a, true), halves(b, true), c));
    }

    /**
     * Random floats rounded in pairs by cvt.rn.{bf16x2,f16x2}.f32, loaded by ldmatrix.x4 and
     * ldmatrix.x2.trans: the product of the rounded values, within the float32 rounding of 17 sums
     * in any order (17 · 2⁻²⁴ of the sum of the terms' magnitudes).
     */
    @ParameterizedTest
    @ValueSource(strings = {"mma_ldmatrix_bf16", "mma_ldmatrix_f16"})
    void ldmatrixFragmentsFeedTheProductOfRoundedValues(String kernel) {
        boolean bf16 = kernel.endsWith("bf16");
        Random random = new Random(40);
        float[] a = new float[16 * 16], b = new float[16 * 8], c = new float[16 * 8];
        for (int i = 0; i < a.length; i++) a[i] = (float) random.nextGaussian();
        for (int i = 0; i < b.length; i++) b[i] = (float) random.nextGaussian();
        for (int i = 0; i < c.length; i++) c[i] = (float) random.nextGaussian();
        float[] actual = run(kernel, h.floats(a), h.floats(b), c);
        float[] ar = a.clone(), br = b.clone();
        for (int i = 0; i < ar.length; i++) ar[i] = rounded(a[i], bf16);
        for (int i = 0; i < br.length; i++) br[i] = rounded(b[i], bf16);
        float[] expected = product(ar, br, c, 16, 16);
        for (int i = 0; i < 16; i++) {
            for (int j = 0; j < 8; j++) {
                double magnitude = Math.abs(c[i * 8 + j]);
                for (int k = 0; k < 16; k++) magnitude += Math.abs((double) ar[i * 16 + k] * br[k * 8 + j]);
                double tolerance = 17 * Math.scalb(magnitude, -24);
                float e = expected[i * 8 + j], got = actual[i * 8 + j];
                assertTrue(Math.abs(e - got) <= tolerance, kernel + " C[" + i + "][" + j + "]: expected " + e + ", got " + got);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1})
    void ldmatrixX1GivesEachLaneItsRowPairOrColumnPair(int trans) {
        int[] matrix = new int[32];                      // 8×8 16-bit elements, element (r, c) = 8r + c + 100
        for (int i = 0; i < 32; i++) matrix[i] = (2 * i + 100) | (2 * i + 101) << 16;
        long out = h.ints(new int[32]);
        h.launch(h.driver.function(module, "ldmatrix_x1"), 1, 32, KernelArgs.of().pointer(h.ints(matrix)).pointer(out).i32(trans));
        int[] expected = new int[32];
        for (int lane = 0; lane < 32; lane++) {
            int fixed = lane / 4, pair = 2 * (lane % 4);
            int lo = trans == 1 ? 8 * pair + fixed : 8 * fixed + pair, hi = trans == 1 ? lo + 8 : lo + 1;
            expected[lane] = (lo + 100) | (hi + 100) << 16;
        }
        assertArrayEquals(expected, h.ints(out, 32));
    }

    private static String mmaKernel(String instruction) {
        return ".visible .entry bad()\n{\n.reg .f32 %f<4>;\n.reg .b32 %r<8>;\n" + instruction + "\nret;\n}\n";
    }

    @Test
    void anUnimplementedShapeOrTypeIsNamed() {
        PtxException shape = assertThrows(PtxException.class, () -> h.kernel(mmaKernel(
                "mma.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%f0,%f1,%f2,%f3}, {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%f0,%f1,%f2,%f3};"), "bad"));
        assertTrue(shape.getMessage().contains("shape m16n8k32"), shape.getMessage());
        PtxException type = assertThrows(PtxException.class, () -> h.kernel(mmaKernel(
                "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r6}, {%r0,%r1,%r2,%r3};"), "bad"));
        assertTrue(type.getMessage().contains("types .s32.s8.s8.s32"), type.getMessage());
    }
}
