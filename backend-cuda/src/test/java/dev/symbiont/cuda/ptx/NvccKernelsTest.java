package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.ModuleImage;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The interpreter on PTX that nvcc 13 emitted for representative CUDA C kernels
 * ({@code representative.cu} beside this package's resources), against Java computations:
 * libdevice's float transcendentals, a block reduction with barriers and warp shuffles, a float
 * atomicAdd scatter, 64-bit index arithmetic over a by-value struct, bf16/f16 rounding and
 * double-precision arithmetic.
 */
class NvccKernelsTest {
    private final PtxHarness h = new PtxHarness();
    private final Driver.Module module = h.driver.load(new ModuleImage("representative", resource("representative.ptx"), new byte[0]));

    static String resource(String name) {
        try (InputStream in = NvccKernelsTest.class.getResourceAsStream(name)) {
            if (in == null) throw new IllegalStateException("missing test resource " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Driver.Function kernel(String name) { return h.driver.function(module, name); }

    private void launch(String name, int blocks, int threads, KernelArgs args) {
        h.driver.launch(kernel(name), Dim3.of(blocks), Dim3.of(threads), 0, h.stream, args);
    }

    private static void assertUlps(double expected, double actual, int ulps, String what) {
        double tolerance = ulps * Math.ulp((float) expected);
        assertTrue(Math.abs(expected - actual) <= tolerance, what + ": expected " + expected + ", got " + actual);
    }

    @Test
    void transcendentalsMatchJavaWithinTheirDocumentedUlps() {
        int n = 1000;
        Random random = new Random(7);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (random.nextFloat() - 0.5f) * 6f;
        x[0] = 0f;
        x[1] = -0f;
        long in = h.floats(x);
        long exp = h.floats(new float[n]), log = h.floats(new float[n]), tanh = h.floats(new float[n]), erf = h.floats(new float[n]);
        // 3 blocks of 128 threads: the grid-stride loop goes round three times.
        launch("transcendental_f32", 3, 128, KernelArgs.of().pointer(exp).pointer(log).pointer(tanh).pointer(erf).pointer(in).i64(n));
        float[] e = h.floats(exp, n), l = h.floats(log, n), t = h.floats(tanh, n), r = h.floats(erf, n);
        for (int i = 0; i < n; i++) {
            assertUlps(Math.exp(x[i]), e[i], 2, "expf(" + x[i] + ")");
            assertUlps(Math.log(Math.abs(x[i]) + 1f), l[i], 2, "logf(" + (Math.abs(x[i]) + 1f) + ")");
            assertUlps(Math.tanh(x[i]), t[i], 2, "tanhf(" + x[i] + ")");
            assertUlps(erf(x[i]), r[i], 2, "erff(" + x[i] + ")");
        }
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(t[1]), "tanhf(-0) keeps the sign");
    }

    /** erf by its Maclaurin series in double, accurate far beyond float for |x| <= 3. */
    static double erf(double x) {
        double term = x, sum = x;
        for (int k = 1; k < 120; k++) {
            term *= -x * x / k;
            sum += term / (2 * k + 1);
        }
        return 2 / Math.sqrt(Math.PI) * sum;
    }

    @Test
    void aBlockReductionWithBarriersAndWarpShufflesSumsEachBlocksShare() {
        int n = 5000, blocks = 4;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (i * 7 % 17) - 8; // small integers: every order of summing is exact
        long in = h.floats(x), out = h.floats(new float[blocks]);
        launch("block_sum_f32", blocks, 256, KernelArgs.of().pointer(out).pointer(in).i32(n));
        float[] expected = new float[blocks];
        for (int i = 0; i < n; i++) expected[i / 256 % blocks] += x[i];
        assertArrayEquals(expected, h.floats(out, blocks));
    }

    @Test
    void floatAtomicAddScattersEveryContribution() {
        int n = 700, bins = 10;
        Random random = new Random(3);
        int[] index = new int[n];
        float[] src = new float[n];
        float[] expected = new float[bins];
        for (int i = 0; i < n; i++) {
            index[i] = random.nextInt(bins);
            src[i] = random.nextInt(9) - 4;
            expected[index[i]] += src[i];
        }
        long out = h.floats(new float[bins]), idx = h.ints(index), s = h.floats(src);
        launch("scatter_add_f32", 3, 256, KernelArgs.of().pointer(out).pointer(idx).pointer(s).i32(n));
        assertArrayEquals(expected, h.floats(out, bins));
    }

    @Test
    void aStridedGatherWalksTheByValueLayoutWith64BitIndices() {
        long[] shape = {3, 4, 5}, stride = {2, 40, 7};
        long offset = 5;
        int n = 60;
        float[] x = new float[200];
        for (int i = 0; i < x.length; i++) x[i] = i;
        ByteBuffer layout = ByteBuffer.allocate(144).order(ByteOrder.LITTLE_ENDIAN);
        for (int d = 0; d < 8; d++) layout.putLong(d * 8, d < 3 ? shape[d] : 1);
        for (int d = 0; d < 8; d++) layout.putLong(64 + d * 8, d < 3 ? stride[d] : 0);
        layout.putLong(128, offset).putInt(136, 3);
        long in = h.floats(x), out = h.floats(new float[n]);
        launch("strided_gather_f32", 2, 32, KernelArgs.of().pointer(out).pointer(in).struct(layout.array(), 8).i64(n));
        float[] expected = new float[n];
        int k = 0;
        for (int a = 0; a < 3; a++) for (int b = 0; b < 4; b++) for (int c = 0; c < 5; c++) {
            expected[k++] = x[(int) (offset + a * stride[0] + b * stride[1] + c * stride[2])];
        }
        assertArrayEquals(expected, h.floats(out, n));
    }

    @Test
    void bfloat16AndHalfRoundToNearestEvenAndBack() {
        float[] x = {
            Float.intBitsToFloat(0x3F808000), Float.intBitsToFloat(0x3F818000), Float.intBitsToFloat(0x3F808001),
            1.00048828125f, 1.00146484375f, 65504f, 65519.99f, 65520f, 1e-7f, 6e-8f, 3e-8f, -2.5f, -0f,
            Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, Float.MIN_VALUE
        };
        int n = x.length;
        long in = h.floats(x), bf = h.driver.malloc(2L * n), hf = h.driver.malloc(2L * n);
        long bfBack = h.floats(new float[n]), hfBack = h.floats(new float[n]);
        launch("round_to_half_f32", 1, 32, KernelArgs.of().pointer(bf).pointer(hf).pointer(bfBack).pointer(hfBack).pointer(in).i32(n));
        short[] b = shorts(bf, n), f = shorts(hf, n);
        float[] bBack = h.floats(bfBack, n), fBack = h.floats(hfBack, n);
        for (int i = 0; i < n; i++) {
            int bits = Float.floatToRawIntBits(x[i]);
            if (Float.isNaN(x[i])) {
                assertTrue(Float.isNaN(bBack[i]) && Float.isNaN(fBack[i]), "NaN stays NaN");
                continue;
            }
            short bf16 = (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
            assertEquals(bf16, b[i], "bf16 of " + x[i]);
            assertEquals(Float.floatToFloat16(x[i]), f[i], "f16 of " + x[i]);
            assertEquals(Float.intBitsToFloat(bf16 << 16), bBack[i], "bf16 back of " + x[i]);
            assertEquals(Float.float16ToFloat(f[i]), fBack[i], "f16 back of " + x[i]);
        }
    }

    private short[] shorts(long address, int n) {
        MemorySegment m = MemorySegment.ofArray(new short[n]);
        h.driver.copyToHost(m, address, h.stream);
        return m.toArray(ValueLayout.JAVA_SHORT);
    }

    @Test
    void doublePrecisionIsIeeeExact() {
        int n = 100;
        Random random = new Random(11);
        double[] a = new double[n], b = new double[n];
        for (int i = 0; i < n; i++) {
            a[i] = (random.nextDouble() - 0.5) * 20;
            b[i] = random.nextDouble() * 3;
        }
        long da = doubles(a), db = doubles(b), fma = doubles(new double[n]), ratio = doubles(new double[n]), exp = doubles(new double[n]);
        launch("double_math_f64", 1, 128, KernelArgs.of().pointer(fma).pointer(ratio).pointer(exp).pointer(da).pointer(db).i32(n));
        double[] f = doubles(fma, n), r = doubles(ratio, n), e = doubles(exp, n);
        for (int i = 0; i < n; i++) {
            assertEquals(Math.fma(a[i], b[i], a[i]), f[i], 0, "fma");
            assertEquals(Math.sqrt(Math.abs(a[i])) / (b[i] + 1.0), r[i], 0, "sqrt / (b + 1)");
            double expected = StrictMath.exp(a[i]);
            assertTrue(Math.abs(expected - e[i]) <= 2 * Math.ulp(expected), "exp(" + a[i] + "): " + expected + " vs " + e[i]);
        }
    }

    private long doubles(double[] values) {
        long at = h.driver.malloc(8L * values.length);
        h.driver.copyToDevice(at, MemorySegment.ofArray(values), h.stream);
        return at;
    }

    private double[] doubles(long address, int n) {
        double[] out = new double[n];
        h.driver.copyToHost(MemorySegment.ofArray(out), address, h.stream);
        return out;
    }
}
