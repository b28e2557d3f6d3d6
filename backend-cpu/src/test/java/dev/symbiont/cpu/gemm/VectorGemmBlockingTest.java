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

    /**
     * A rectangle wider than one B block packs its rows of A once and rereads them for every later
     * column block: over several k blocks, a partial last panel, the bias, accumulation and the row
     * sums taken while packing, it gives the bits of a blocking whose one column block packs A once anyway.
     */
    @Test
    void keptABlocksGiveTheBitsOfOneColumnBlock() {
        int m = 45, n = 5 * VectorGemm.NR + 3, k = 131;
        VectorGemm wide = new VectorGemm(CpuThreads.team(), new VectorGemm.Blocking(40, 2 * VectorGemm.MR, VectorGemm.NR));
        VectorGemm whole = new VectorGemm(CpuThreads.team(), new VectorGemm.Blocking(40, 2 * VectorGemm.MR, 6 * VectorGemm.NR));
        Random rnd = new Random(5);
        float[] a = new float[m * k], b = new float[k * n], bias = new float[n], c0 = new float[m * n];
        for (float[] x : new float[][] {a, b, bias, c0}) for (int i = 0; i < x.length; i++) x[i] = (float) rnd.nextGaussian();
        for (int variant = 0; variant < 4; variant++) {
            float[] cw = c0.clone(), ch = c0.clone(), sw = new float[m], sh = new float[m];
            for (VectorGemm g : new VectorGemm[] {wide, whole}) {
                float[] c = g == wide ? cw : ch, sums = g == wide ? sw : sh;
                switch (variant) {
                    case 0 -> g.sgemm(m, n, k, a, 0, k, 1, b, 0, 1, k, c, 0, n);
                    case 1 -> g.sgemmBias(m, n, k, a, 0, k, 1, b, 0, n, 1, bias, 0, c, 0, n);
                    case 2 -> g.sgemmAccumulate(m, n, k, a, 0, 1, m, b, 0, 1, k, c, 0, n); // A read transposed
                    default -> g.sgemmRowSums(m, n, k, a, 0, 1, m, b, 0, n, 1, c, 0, n, sums, 0);
                }
            }
            for (int i = 0; i < m * n; i++) {
                assertEquals(Float.floatToRawIntBits(ch[i]), Float.floatToRawIntBits(cw[i]), "variant " + variant + " element " + i);
            }
            for (int i = 0; i < m; i++) assertEquals(Float.floatToRawIntBits(sh[i]), Float.floatToRawIntBits(sw[i]), "row sum " + i);
            if (variant == 3) assertTrue(sw[0] != 0, "the row sums were taken");
        }
    }
}
