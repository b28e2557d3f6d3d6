package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.function.DoubleUnaryOperator;
import java.util.function.UnaryOperator;

import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * VectorMath's tanh, log and log1p: within a few ulps of double precision over the float range
 * (subnormals and special values included), and the same bits before and after the JIT has
 * compiled them — the property the Vector API's own TANH, LOG and LOG1P lack.
 */
class VectorMathTest {
    private static final int L = S.length();

    private static float[] apply(UnaryOperator<FloatVector> f, float[] x) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i += L) f.apply(FloatVector.fromArray(S, x, i)).intoArray(out, i);
        return out;
    }

    /** n floats (a multiple of the lane count): log-uniform magnitudes from 2^lo to 2^hi, signs as asked. */
    private static float[] spread(long seed, int n, int lo, int hi, boolean negative) {
        Random r = new Random(seed);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            float v = (float) Math.scalb(1 + r.nextDouble(), lo + r.nextInt(hi - lo));
            x[i] = negative && r.nextBoolean() ? -v : v;
        }
        return x;
    }

    /** Largest error in ulps of the exact value's float neighbourhood; special values must match exactly. */
    private static void assertUlps(String name, UnaryOperator<FloatVector> f, DoubleUnaryOperator exact, float[] x, double maxUlps) {
        float[] got = apply(f, x);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            double want = exact.applyAsDouble(x[i]);
            float w = (float) want;
            if (Float.isNaN(w) || Float.isInfinite(w) || w == 0) {
                if (Float.compare(w, got[i]) != 0) fail(name + "(" + x[i] + ") = " + got[i] + ", expected " + w);
                continue;
            }
            double ulps = Math.abs(got[i] - want) / Math.ulp(w);
            if (ulps > maxUlps) fail(name + "(" + x[i] + ") = " + got[i] + ", expected " + want + ": " + ulps + " ulps");
            worst = Math.max(worst, ulps);
        }
        assertTrue(worst <= maxUlps, name + ": " + worst + " ulps");
    }

    private static float[] withSpecials(float[] x, float... specials) {
        float[] out = x.clone();
        System.arraycopy(specials, 0, out, 0, specials.length);
        return out;
    }

    @Test
    void tanhIsWithinFourUlpsEverywhere() {
        float[] x = withSpecials(spread(1, 64 * L * 16, -30, 5, true), Float.NaN, Float.POSITIVE_INFINITY,
                Float.NEGATIVE_INFINITY, 0f, 0.625f, -0.625f, 0.62499994f, 9f, -9f, 20f, Float.MIN_VALUE);
        assertUlps("tanh", VectorMath::tanh, Math::tanh, x, 4);
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(apply(VectorMath::tanh, withSpecials(new float[L], -0f))[0]),
                "tanh(-0) is -0");
    }

    @Test
    void logIsWithinFourUlpsFromSubnormalsToTheLargestFloat() {
        float[] x = withSpecials(spread(2, 64 * L * 16, -149, 128, false), Float.MIN_VALUE, Float.MIN_NORMAL,
                Float.MAX_VALUE, 1f, 0.70710677f, 0.7071068f, 2f, 0.5f, Float.NaN, Float.POSITIVE_INFINITY, 0f, -0f,
                -1f, Float.NEGATIVE_INFINITY);
        assertUlps("log", VectorMath::log, Math::log, x, 4);
    }

    @Test
    void log1pKeepsThePrecisionOfSmallArguments() {
        float[] x = withSpecials(spread(3, 64 * L * 16, -149, 4, false), 0f, 1f, Float.MIN_VALUE, 1e-8f, 3e-8f,
                Float.POSITIVE_INFINITY);
        assertUlps("log1p", VectorMath::log1p, Math::log1p, x, 4);
    }

    @Test
    void theSameBitsBeforeAndAfterCompilation() {
        float[] x = spread(4, 256 * L, -20, 7, true), positive = spread(5, 256 * L, -20, 7, false);
        float[][] cold = {apply(VectorMath::tanh, x), apply(VectorMath::log, positive), apply(VectorMath::log1p, positive),
                apply(VectorMath::exp, x)};
        for (int i = 0; i < 3000; i++) { // enough calls for C2 to compile the loops
            apply(VectorMath::tanh, x);
            apply(VectorMath::log, positive);
            apply(VectorMath::log1p, positive);
            apply(VectorMath::exp, x);
        }
        float[][] warm = {apply(VectorMath::tanh, x), apply(VectorMath::log, positive), apply(VectorMath::log1p, positive),
                apply(VectorMath::exp, x)};
        String[] names = {"tanh", "log", "log1p", "exp"};
        for (int f = 0; f < names.length; f++) {
            for (int i = 0; i < x.length; i++) {
                assertEquals(Float.floatToRawIntBits(cold[f][i]), Float.floatToRawIntBits(warm[f][i]),
                        names[f] + ": element " + i + " changed after compilation");
            }
        }
    }
}
