package dev.symbiont.cpu.gemm;

import dev.symbiont.cpu.CpuThreads;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Other cache blockings of the vector GEMM (what {@code GemmBlockingProfile} compares): they
 * parse and print as KCxMCxNC, reject sizes the packing cannot use, match the reference over
 * several blocks in every direction with both inner-loop orders, and give the default's bits
 * when the product fits in one block of depth.
 */
class VectorGemmBlockingTest {
    @Test
    void parsesPrintsAndRejectsBlockings() {
        VectorGemm.Blocking b = VectorGemm.Blocking.parse("64x" + 2 * VectorGemm.MR + "x" + 3 * VectorGemm.NR);
        assertEquals(new VectorGemm.Blocking(64, 2 * VectorGemm.MR, 3 * VectorGemm.NR), b);
        assertEquals(b, VectorGemm.Blocking.parse(b.toString()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new VectorGemm.Blocking(64, VectorGemm.MR + 1, VectorGemm.NR));
        assertTrue(e.getMessage().contains("mc " + (VectorGemm.MR + 1)), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new VectorGemm.Blocking(0, VectorGemm.MR, VectorGemm.NR));
        assertThrows(IllegalArgumentException.class, () -> VectorGemm.Blocking.parse("512x128"));
    }

    @Test
    void smallBlocksMatchTheReferenceAndShallowProductsTheDefaultBits() {
        // blocks far smaller than the products: many k, row and column blocks, rectangles wider than NC
        VectorGemm small = new VectorGemm(CpuThreads.team(), new VectorGemm.Blocking(40, 2 * VectorGemm.MR, 2 * VectorGemm.NR));
        VectorGemm standard = new VectorGemm(CpuThreads.team());
        Random rnd = new Random(4);
        int[][] shapes = {{37, 150, 131}, {200, 97, 40}, {9, 300, 77}};
        for (int[] s : shapes) {
            int m = s[0], n = s[1], k = s[2];
            float[] a = new float[m * k], b = new float[k * n];
            for (int i = 0; i < a.length; i++) a[i] = (float) rnd.nextGaussian();
            for (int i = 0; i < b.length; i++) b[i] = (float) rnd.nextGaussian();
            float[] got = new float[m * n], ref = new float[m * n], dflt = new float[m * n];
            small.sgemm(m, n, k, a, 0, k, 1, b, 0, 1, k, got, 0, n); // B read transposed, as x·Wᵀ
            NaiveGemm.sgemm(m, n, k, a, 0, k, 1, b, 0, 1, k, ref, 0, n);
            standard.sgemm(m, n, k, a, 0, k, 1, b, 0, 1, k, dflt, 0, n);
            for (int i = 0; i < m * n; i++) {
                assertEquals(ref[i], got[i], 1e-4 * Math.sqrt(k) * (1 + Math.abs(ref[i])), m + "x" + n + "x" + k + " element " + i);
                if (k <= 40) assertEquals(Float.floatToRawIntBits(dflt[i]), Float.floatToRawIntBits(got[i]), "bits of element " + i);
            }
        }
    }
}
