package dev.symbiont.cpu.gemm;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static dev.symbiont.cpu.gemm.VectorGemmKernels.MR;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.NR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The micro-kernel alone against a scalar loop, for each thing its epilogue adds to the
 * product (nothing, a bias, C itself), inside a padded C and at offsets, for short and long k.
 * The surefire runs gemm-tile-4 and gemm-tile-8 run it with both tiles. The narrow kernel of a
 * partial last B panel likewise, with C ending where the tile's last row does, so that its
 * masked loads and stores sit at the array's end.
 */
class VectorGemmKernelsTest {

    private static final int LDC = NR + 5, C_OFF = 3, A_OFF = 2, B_OFF = 7, BIAS_OFF = 1;
    private static final float SENTINEL = 12345f;

    @Test
    void should_overwrite_the_tile_with_the_product() {
        for (int kc : new int[] {1, 2, 3, 17, 256}) check(NR, kc, false, false);
    }

    @Test
    void should_add_the_bias_to_every_row_of_the_tile() {
        for (int kc : new int[] {1, 2, 3, 17, 256}) check(NR, kc, false, true);
    }

    @Test
    void should_add_the_product_to_c_when_accumulating() {
        for (int kc : new int[] {1, 2, 3, 17, 256}) check(NR, kc, true, false);
    }

    @Test
    void the_narrow_kernel_writes_only_its_columns_of_the_product() {
        assumeTrue(VectorGemmKernels.NARROW, "the narrow kernel runs with the 8-row tile only");
        for (int cols : new int[] {1, 5, VectorGemmKernels.L - 1, VectorGemmKernels.L}) {
            for (int kc : new int[] {1, 3, 64}) {
                check(cols, kc, false, false);
                check(cols, kc, false, true);
                check(cols, kc, true, false);
            }
        }
    }

    /** The full kernel (cols = NR) or the narrow one (C then ends with the tile's last row) against a double-precision loop. */
    private static void check(int cols, int kc, boolean accumulate, boolean withBias) {
        boolean narrow = cols < NR;
        Random rnd = new Random(97L * cols + 31L * kc + (accumulate ? 1 : 0) + (withBias ? 2 : 0));
        float[] ap = random(A_OFF + kc * MR, rnd), bp = random(B_OFF + kc * NR, rnd), bias = random(BIAS_OFF + NR, rnd);
        float[] c = new float[C_OFF + (MR - 1) * LDC + cols + (narrow ? 0 : LDC - NR + 4)];
        java.util.Arrays.fill(c, SENTINEL);
        float[] before = random(MR * cols, rnd);
        for (int r = 0; r < MR; r++) {
            for (int j = 0; j < cols; j++) c[C_OFF + r * LDC + j] = accumulate ? before[r * cols + j] : Float.NaN;
        }
        float[] b = withBias ? bias : null;
        if (narrow) {
            VectorGemmKernels.narrowKernel(kc, ap, A_OFF, bp, B_OFF, c, C_OFF, LDC, cols, accumulate, b, BIAS_OFF);
        } else {
            VectorGemmKernels.kernel(kc, ap, A_OFF, bp, B_OFF, c, C_OFF, LDC, accumulate, b, BIAS_OFF);
        }
        String where = "cols=" + cols + " kc=" + kc + " accumulate=" + accumulate + " bias=" + withBias;
        for (int idx = 0; idx < c.length; idx++) {
            int rel = idx - C_OFF, r = Math.floorDiv(rel, LDC), j = Math.floorMod(rel, LDC);
            if (rel < 0 || r >= MR || j >= cols) {
                assertEquals(SENTINEL, c[idx], where + ": wrote outside the tile at index " + idx);
                continue;
            }
            double expected = accumulate ? before[r * cols + j] : withBias ? bias[BIAS_OFF + j] : 0;
            for (int p = 0; p < kc; p++) expected += (double) ap[A_OFF + p * MR + r] * bp[B_OFF + p * NR + j];
            if (!(Math.abs(expected - c[idx]) <= 1e-5 * kc * (1 + Math.abs(expected)))) {
                fail(where + ": at (" + r + "," + j + ") expected " + expected + " but got " + c[idx]);
            }
        }
    }

    private static float[] random(int size, Random rnd) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) x[i] = rnd.nextFloat() * 2 - 1;
        return x;
    }

    /** The row sums of a packed A block, four panels at a time, are the scalar loop's over p, bit for bit. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"128, 512", "100, 37", "5, 9", "33, 1"})
    void rowSumsOfAPackedBlockAreTheScalarLoopsBits(int mc, int kc) {
        java.util.Random rnd = new java.util.Random(mc + kc);
        int panels = (mc + VectorGemmKernels.MR - 1) / VectorGemmKernels.MR;
        int at = 5; // the block's start in its buffer (a rectangle's kept A blocks)
        float[] block = new float[at + panels * VectorGemmKernels.MR * kc];
        for (int i = 0; i < block.length; i++) block[i] = (float) rnd.nextGaussian();
        float[] sums = new float[mc + 3], expected = new float[mc + 3];
        for (int i = 0; i < sums.length; i++) sums[i] = expected[i] = i;
        VectorGemmKernels.addRowSums(block, at, mc, kc, sums, 2);
        for (int row = 0; row < mc; row++) {
            int q = row / VectorGemmKernels.MR, r = row % VectorGemmKernels.MR;
            float s = 0;
            for (int p = 0; p < kc; p++) s += block[at + q * VectorGemmKernels.MR * kc + p * VectorGemmKernels.MR + r];
            expected[2 + row] += s;
        }
        for (int i = 0; i < sums.length; i++) {
            org.junit.jupiter.api.Assertions.assertEquals(Float.floatToIntBits(expected[i]), Float.floatToIntBits(sums[i]), "sum " + i);
        }
    }
}
