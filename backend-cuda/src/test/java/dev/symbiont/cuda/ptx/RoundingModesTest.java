package dev.symbiont.cuda.ptx;

import dev.symbiont.cuda.driver.KernelArgs;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.math.BigDecimal;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Directed rounding (.rz .rm .rp) of arithmetic and cvt, and f64 → bf16/f16 rounding without double
 * rounding, against a reference that rounds the exact BigDecimal result by comparison.
 */
class RoundingModesTest {
    private static final String PTX = """
            .visible .entry rounding(.param .u64 fout, .param .u64 dout, .param .u64 hout, .param .u64 fin, .param .u64 din, .param .u64 lin)
            {
                .reg .f32 %f<16>;
                .reg .f64 %fd<12>;
                .reg .b16 %rs<3>;
                .reg .b32 %r<6>;
                .reg .b64 %rd<16>;
                ld.param.u64 %rd1, [fout];
                ld.param.u64 %rd2, [dout];
                ld.param.u64 %rd3, [hout];
                ld.param.u64 %rd4, [fin];
                ld.param.u64 %rd5, [din];
                ld.param.u64 %rd6, [lin];
                mov.u32 %r1, %tid.x;
                mul.wide.u32 %rd7, %r1, 12;
                add.s64 %rd8, %rd4, %rd7;
                ld.global.f32 %f1, [%rd8];
                ld.global.f32 %f2, [%rd8+4];
                ld.global.f32 %f3, [%rd8+8];
                mul.wide.u32 %rd7, %r1, 24;
                add.s64 %rd8, %rd5, %rd7;
                ld.global.f64 %fd1, [%rd8];
                ld.global.f64 %fd2, [%rd8+8];
                ld.global.f64 %fd3, [%rd8+16];
                mul.wide.u32 %rd7, %r1, 8;
                add.s64 %rd8, %rd6, %rd7;
                ld.global.s64 %rd9, [%rd8];
                add.rm.f32 %f4, %f1, %f2;
                add.rp.f32 %f5, %f1, %f2;
                sub.rz.f32 %f6, %f1, %f2;
                mul.rz.f32 %f7, %f1, %f2;
                div.rp.f32 %f8, %f1, %f2;
                fma.rm.f32 %f9, %f1, %f2, %f3;
                sqrt.rp.f32 %f10, %f3;
                cvt.rm.f32.f64 %f11, %fd1;
                cvt.rp.f32.f64 %f12, %fd1;
                cvt.rz.f32.s64 %f13, %rd9;
                mul.wide.u32 %rd7, %r1, 40;
                add.s64 %rd8, %rd1, %rd7;
                st.global.v4.f32 [%rd8], {%f4, %f5, %f6, %f7};
                st.global.v4.f32 [%rd8+16], {%f8, %f9, %f10, %f11};
                st.global.v2.f32 [%rd8+32], {%f12, %f13};
                add.rm.f64 %fd4, %fd1, %fd2;
                mul.rp.f64 %fd5, %fd1, %fd2;
                div.rz.f64 %fd6, %fd1, %fd2;
                fma.rp.f64 %fd7, %fd1, %fd2, %fd3;
                sqrt.rm.f64 %fd8, %fd3;
                mul.wide.u32 %rd7, %r1, 40;
                add.s64 %rd8, %rd2, %rd7;
                st.global.f64 [%rd8], %fd4;
                st.global.f64 [%rd8+8], %fd5;
                st.global.f64 [%rd8+16], %fd6;
                st.global.f64 [%rd8+24], %fd7;
                st.global.f64 [%rd8+32], %fd8;
                cvt.rn.bf16.f64 %rs1, %fd1;
                cvt.rn.f16.f64 %rs2, %fd1;
                mul.wide.u32 %rd7, %r1, 4;
                add.s64 %rd8, %rd3, %rd7;
                st.global.u16 [%rd8], %rs1;
                st.global.u16 [%rd8+2], %rs2;
                ret;
            }
            """;

    enum Mode { DOWN, UP, ZERO }

    /** The float of {@code exact} rounded in {@code mode}, by comparing the nearest float with the exact value. */
    static float toFloat(BigDecimal exact, Mode mode) { return (float) directed(exact, mode, true); }

    static double toDouble(BigDecimal exact, Mode mode) { return directed(exact, mode, false); }

    private static double directed(BigDecimal exact, Mode mode, boolean single) {
        double nearest = single ? exact.floatValue() : exact.doubleValue();
        int above = new BigDecimal(nearest).compareTo(exact);
        boolean down = mode == Mode.DOWN || mode == Mode.ZERO && exact.signum() > 0;
        if (down && above > 0) return single ? Math.nextDown((float) nearest) : Math.nextDown(nearest);
        if (!down && above < 0) return single ? Math.nextUp((float) nearest) : Math.nextUp(nearest);
        return nearest;
    }

    private static BigDecimal big(double v) { return new BigDecimal(v); }

    @Test
    void directedModesRoundTheExactResultAndF64ToHalfRoundsOnce() {
        int n = 200;
        Random random = new Random(5);
        float[] fin = new float[3 * n];
        double[] din = new double[3 * n];
        long[] lin = new long[n];
        for (int i = 0; i < n; i++) {
            fin[3 * i] = (float) random.nextGaussian() * (1 << random.nextInt(20));
            fin[3 * i + 1] = (float) random.nextGaussian() * (i % 7 == 0 ? 1e-9f : 1f);
            fin[3 * i + 2] = Math.abs((float) random.nextGaussian() * 100);
            din[3 * i] = random.nextGaussian() * 1000;
            din[3 * i + 1] = random.nextGaussian() * (i % 5 == 0 ? 1e-20 : 1);
            din[3 * i + 2] = Math.abs(random.nextGaussian());
            lin[i] = random.nextLong() >> random.nextInt(40);
        }
        // a double just above a bf16 and an f16 tie: rounding through float first would round to even, wrongly
        din[0] = 1.0 + 0x1p-8 + 0x1p-40;
        din[3] = 1.0 + 0x1p-11 + 0x1p-40;
        PtxHarness h = new PtxHarness();
        long fout = h.floats(new float[10 * n]), dout = h.driver.malloc(40L * n), hout = h.ints(new int[n]);
        long f = h.floats(fin), d = h.driver.malloc(24L * n), l = h.longs(lin);
        h.driver.copyToDevice(d, MemorySegment.ofArray(din), h.stream);
        h.launch(h.kernel(PTX, "rounding"), 1, n, KernelArgs.of().pointer(fout).pointer(dout).pointer(hout).pointer(f).pointer(d).pointer(l));
        float[] fo = h.floats(fout, 10 * n);
        double[] dov = new double[5 * n];
        h.driver.copyToHost(MemorySegment.ofArray(dov), dout, h.stream);
        short[] ho = new short[2 * n];
        h.driver.copyToHost(MemorySegment.ofArray(ho), hout, h.stream);
        for (int i = 0; i < n; i++) {
            BigDecimal a = big(fin[3 * i]), b = big(fin[3 * i + 1]), c = big(fin[3 * i + 2]);
            String at = " at " + i + " of " + fin[3 * i] + ", " + fin[3 * i + 1] + ", " + fin[3 * i + 2];
            assertEquals(toFloat(a.add(b), Mode.DOWN), fo[10 * i], "add.rm.f32" + at);
            assertEquals(toFloat(a.add(b), Mode.UP), fo[10 * i + 1], "add.rp.f32" + at);
            assertEquals(toFloat(a.subtract(b), Mode.ZERO), fo[10 * i + 2], "sub.rz.f32" + at);
            assertEquals(toFloat(a.multiply(b), Mode.ZERO), fo[10 * i + 3], "mul.rz.f32" + at);
            assertEquals(toFloat(a.divide(b, new java.math.MathContext(60)), Mode.UP), fo[10 * i + 4], "div.rp.f32" + at);
            assertEquals(toFloat(a.multiply(b).add(c), Mode.DOWN), fo[10 * i + 5], "fma.rm.f32" + at);
            assertEquals(toFloat(c.sqrt(new java.math.MathContext(60)), Mode.UP), fo[10 * i + 6], "sqrt.rp.f32" + at);
            BigDecimal x = big(din[3 * i]), y = big(din[3 * i + 1]), z = big(din[3 * i + 2]);
            String dat = " at " + i + " of " + din[3 * i] + ", " + din[3 * i + 1] + ", " + din[3 * i + 2];
            assertEquals(toFloat(x, Mode.DOWN), fo[10 * i + 7], "cvt.rm.f32.f64" + dat);
            assertEquals(toFloat(x, Mode.UP), fo[10 * i + 8], "cvt.rp.f32.f64" + dat);
            assertEquals(toFloat(new BigDecimal(lin[i]), Mode.ZERO), fo[10 * i + 9], "cvt.rz.f32.s64 of " + lin[i]);
            assertEquals(toDouble(x.add(y), Mode.DOWN), dov[5 * i], "add.rm.f64" + dat);
            assertEquals(toDouble(x.multiply(y), Mode.UP), dov[5 * i + 1], "mul.rp.f64" + dat);
            assertEquals(toDouble(x.divide(y, new java.math.MathContext(80)), Mode.ZERO), dov[5 * i + 2], "div.rz.f64" + dat);
            assertEquals(toDouble(x.multiply(y).add(z), Mode.UP), dov[5 * i + 3], "fma.rp.f64" + dat);
            assertEquals(toDouble(z.sqrt(new java.math.MathContext(80)), Mode.DOWN), dov[5 * i + 4], "sqrt.rm.f64" + dat);
            assertEquals(bf16Nearest(x), ho[2 * i], "cvt.rn.bf16.f64" + dat);
            assertEquals(f16Nearest(din[3 * i]), ho[2 * i + 1], "cvt.rn.f16.f64" + dat);
        }
    }

    /** bfloat16 nearest-even of an exact value: of the bf16 values next to it (bits above and below), the nearer, ties to even. */
    static short bf16Nearest(BigDecimal exact) {
        short t = (short) (Float.floatToRawIntBits(toFloat(exact, Mode.ZERO)) >>> 16); // toward zero, magnitude below
        return nearest(exact, new short[] {t, (short) (t + 1)}, bits -> Float.intBitsToFloat(bits << 16));
    }

    /** f16 nearest-even of a double: of the JDK's conversion and its two neighbours, the nearest, ties to even. */
    static short f16Nearest(double v) {
        short a = Float.floatToFloat16((float) v);
        return nearest(new BigDecimal(v), new short[] {(short) (a - 1), a, (short) (a + 1)}, bits -> Float.float16ToFloat((short) bits));
    }

    private static short nearest(BigDecimal exact, short[] candidates, java.util.function.IntFunction<Float> value) {
        short best = candidates[0];
        BigDecimal bestDistance = null;
        for (short c : candidates) {
            BigDecimal distance = exact.subtract(new BigDecimal(value.apply(c))).abs();
            int cmp = bestDistance == null ? -1 : distance.compareTo(bestDistance);
            if (cmp < 0 || cmp == 0 && (c & 1) == 0) {
                best = c;
                bestDistance = distance;
            }
        }
        return best;
    }
}
