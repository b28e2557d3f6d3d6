package dev.symbiont.cpu.gemm;

import dev.symbiont.cpu.gemm.StridedMatrix.Layout;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One parity suite for every {@link Gemm} path: each result is compared with
 * {@link NaiveGemm} (double accumulation) with a tolerance that grows with k.
 */
abstract class GemmParityTest {

    /** The implementation under test. */
    abstract Gemm gemm();

    private static final int[] SMALL = {1, 2, 7, 13, 31, 65};
    private static final int[] AWKWARD = {1, 2, 7, 13, 31, 64, 65, 129, 257};
    private static final float SENTINEL = 12345f;

    @Test
    void should_match_reference_for_every_small_shape() {
        Random rnd = new Random(1);
        for (int m : SMALL) {
            for (int n : SMALL) {
                for (int k : SMALL) {
                    check(m, n, k, Layout.ROW_MAJOR, Layout.ROW_MAJOR, 0, 0, rnd);
                }
            }
        }
    }

    @Test
    void should_match_reference_for_awkward_shapes_up_to_257() {
        Random rnd = new Random(2);
        List<int[]> shapes = new ArrayList<>();
        for (int m : AWKWARD) {
            for (int n : AWKWARD) {
                shapes.add(new int[]{m, n, AWKWARD[rnd.nextInt(AWKWARD.length)]});
            }
        }
        shapes.add(new int[]{257, 257, 257});
        shapes.add(new int[]{129, 64, 257});
        for (int[] s : shapes) {
            check(s[0], s[1], s[2], Layout.ROW_MAJOR, Layout.ROW_MAJOR, 0, 0, rnd);
        }
    }

    @Test
    void should_handle_transposes_strides_offsets_and_padded_c() {
        Random rnd = new Random(3);
        int[][] shapes = {{1, 1, 1}, {7, 13, 31}, {65, 33, 129}, {129, 257, 65}, {64, 64, 64}, {257, 31, 300}};
        for (int[] s : shapes) {
            for (Layout la : Layout.values()) {
                for (Layout lb : Layout.values()) {
                    check(s[0], s[1], s[2], la, lb, 0, 0, rnd);
                }
            }
            check(s[0], s[1], s[2], Layout.TRANSPOSED, Layout.TRANSPOSED, 11, 5, rnd);
            check(s[0], s[1], s[2], Layout.PADDED, Layout.STRIDED, 3, 17, rnd);
        }
    }

    @Test
    void should_cover_several_blocks_in_every_dimension() {
        // n > NC = 512 and k > KC = 256 and m > MC = 128: every block boundary, edge tiles, all threads
        check(131, 547, 517, Layout.ROW_MAJOR, Layout.ROW_MAJOR, 0, 3, new Random(4));
        check(300, 9, 600, Layout.TRANSPOSED, Layout.ROW_MAJOR, 2, 0, new Random(5));
        check(5, 1030, 33, Layout.ROW_MAJOR, Layout.TRANSPOSED, 0, 1, new Random(6));
    }

    @Test
    void should_write_zeros_when_k_is_zero_and_nothing_when_m_or_n_is_zero() {
        float[] c = filled(3 * 5, Float.NaN);
        gemm().sgemm(3, 4, 0, new float[0], 0, 0, 1, new float[0], 0, 4, 1, c, 0, 5);
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 5; j++) {
                if (j < 4) {
                    assertEquals(0f, c[i * 5 + j], "c[" + i + "," + j + "]");
                } else {
                    assertEquals(Float.NaN, c[i * 5 + j], "padding c[" + i + "," + j + "]");
                }
            }
        }
        float[] batched = filled(3 * 6, Float.NaN);
        gemm().sgemmBatched(3, 2, 3, 0, new float[0], 0, 0, 0, 1, new float[0], 0, 0, 3, 1, batched, 0, 6, 3);
        for (float v : batched) {
            assertEquals(0f, v, "every problem of a k=0 batch is zeroed");
        }
        float[] untouched = filled(4, 7f);
        gemm().sgemm(0, 4, 3, new float[0], 0, 3, 1, new float[12], 0, 4, 1, untouched, 0, 4);
        gemm().sgemm(4, 0, 3, new float[12], 0, 3, 1, new float[0], 0, 0, 1, untouched, 0, 0);
        assertEquals(7f, untouched[0]);
    }

    @Test
    void should_run_a_batch_of_small_and_of_large_problems() {
        Random rnd = new Random(7);
        int[][] shapes = {{64, 64, 64, 32}, {13, 7, 31, 5}, {200, 160, 150, 3}, {96, 96, 96, 2}};
        for (int[] s : shapes) {
            int m = s[0], n = s[1], k = s[2], batch = s[3];
            int aStride = m * k + 3, bStride = k * n + 1, cStride = m * n + 2;
            float[] a = randomArray(5 + batch * aStride, rnd);
            float[] b = randomArray(batch * bStride, rnd);
            float[] c = filled(1 + batch * cStride, Float.NaN);
            float[] ref = new float[m * n];
            gemm().sgemmBatched(batch, m, n, k, a, 5, aStride, k, 1, b, 0, bStride, n, 1, c, 1, cStride, n);
            for (int t = 0; t < batch; t++) {
                NaiveGemm.sgemm(m, n, k, a, 5 + t * aStride, k, 1, b, t * bStride, n, 1, ref, 0, n);
                for (int i = 0; i < m * n; i++) {
                    assertClose(ref[i], c[1 + t * cStride + i], k, "batch " + t + " element " + i);
                }
            }
        }
    }

    @Test
    void should_share_an_operand_across_the_batch_with_stride_zero() {
        Random rnd = new Random(8);
        int m = 16, n = 24, k = 40, batch = 6;
        float[] a = randomArray(batch * m * k, rnd);
        float[] w = randomArray(k * n, rnd);
        float[] c = new float[batch * m * n];
        float[] ref = new float[m * n];
        gemm().sgemmBatched(batch, m, n, k, a, 0, m * k, k, 1, w, 0, 0, n, 1, c, 0, m * n, n);
        for (int t = 0; t < batch; t++) {
            NaiveGemm.sgemm(m, n, k, a, t * m * k, k, 1, w, 0, n, 1, ref, 0, n);
            for (int i = 0; i < m * n; i++) {
                assertClose(ref[i], c[t * m * n + i], k, "batch " + t + " element " + i);
            }
        }
    }

    @Test
    void should_add_the_bias_in_the_epilogue_on_edge_tiles_blocks_and_transposes() {
        Random rnd = new Random(9);
        int[][] shapes = {{1, 1, 1}, {7, 13, 31}, {37, 19, 23}, {131, 547, 517}, {300, 41, 70}, {5, 3, 0}};
        for (int[] s : shapes) {
            int m = s[0], n = s[1], k = s[2];
            for (Layout lb : new Layout[] {Layout.ROW_MAJOR, Layout.TRANSPOSED}) {
                StridedMatrix a = StridedMatrix.random(m, k, Layout.PADDED, rnd), b = StridedMatrix.random(k, n, lb, rnd);
                float[] bias = randomArray(n + 3, rnd);
                float[] c = filled(m * n, Float.NaN), ref = new float[m * n];
                gemm().sgemmBias(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                        b.data(), b.off(), b.rowStride(), b.colStride(), bias, 3, c, 0, n);
                NaiveGemm.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                        b.data(), b.off(), b.rowStride(), b.colStride(), ref, 0, n);
                for (int i = 0; i < m * n; i++) {
                    assertClose(ref[i] + bias[3 + i % n], c[i], k, gemm().path() + " bias m=" + m + " n=" + n + " k=" + k
                            + " B " + lb + " element " + i);
                }
            }
        }
        assertThrows(IndexOutOfBoundsException.class, () -> gemm().sgemmBias(2, 4, 1, new float[2], 0, 1, 1,
                new float[4], 0, 4, 1, new float[3], 0, new float[8], 0, 4));
    }

    @Test
    void should_return_the_row_sums_of_a_transposed_a_with_the_product() {
        Random rnd = new Random(10);
        // k > KC: the sums add up over several packed blocks; m > MC and n > NC: several row and column blocks
        int[][] shapes = {{1, 1, 1}, {7, 13, 31}, {41, 70, 300}, {200, 150, 130}, {131, 547, 517}, {3, 0, 5}, {4, 2, 0}};
        for (int[] s : shapes) {
            int m = s[0], n = s[1], k = s[2];
            for (Layout la : new Layout[] {Layout.TRANSPOSED, Layout.ROW_MAJOR, Layout.STRIDED}) {
                StridedMatrix a = StridedMatrix.random(m, k, la, rnd), b = StridedMatrix.random(k, n, Layout.ROW_MAJOR, rnd);
                float[] c = filled(m * n, Float.NaN), ref = new float[m * n], sums = filled(m + 2, Float.NaN);
                gemm().sgemmRowSums(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                        b.data(), b.off(), b.rowStride(), b.colStride(), c, 0, n, sums, 2);
                NaiveGemm.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                        b.data(), b.off(), b.rowStride(), b.colStride(), ref, 0, n);
                String where = gemm().path() + " row sums m=" + m + " n=" + n + " k=" + k + " A " + la;
                for (int i = 0; i < m * n; i++) assertClose(ref[i], c[i], k, where + " element " + i);
                for (int i = 0; i < m; i++) {
                    double expected = 0;
                    for (int p = 0; p < k; p++) expected += a.data()[a.off() + i * a.rowStride() + p * a.colStride()];
                    assertClose((float) expected, sums[2 + i], k, where + " sum " + i);
                }
            }
        }
    }

    @Test
    void should_add_the_product_to_c_and_leave_padding_alone() {
        Random rnd = new Random(11);
        // edge tiles, several k blocks, a k deep enough to be split across threads, and k = 0 (C unchanged)
        int[][] shapes = {{1, 1, 1}, {7, 13, 31}, {64, 64, 112}, {65, 33, 300}, {37, 29, 3001}, {5, 6, 0}};
        for (int[] s : shapes) {
            int m = s[0], n = s[1], k = s[2], ldc = n + 3;
            for (Layout lb : new Layout[] {Layout.ROW_MAJOR, Layout.TRANSPOSED}) {
                StridedMatrix a = StridedMatrix.random(m, k, Layout.ROW_MAJOR, rnd), b = StridedMatrix.random(k, n, lb, rnd);
                float[] c = new float[m * ldc], ref = new float[m * n];
                for (int i = 0; i < c.length; i++) c[i] = i % ldc < n ? (float) rnd.nextGaussian() : SENTINEL;
                float[] before = c.clone();
                gemm().sgemmAccumulate(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                        b.data(), b.off(), b.rowStride(), b.colStride(), c, 0, ldc);
                NaiveGemm.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                        b.data(), b.off(), b.rowStride(), b.colStride(), ref, 0, n);
                String where = gemm().path() + " accumulate m=" + m + " n=" + n + " k=" + k + " B " + lb;
                for (int i = 0; i < m; i++) {
                    for (int j = 0; j < ldc; j++) {
                        int at = i * ldc + j;
                        if (j >= n) assertEquals(SENTINEL, c[at], where + " padding (" + i + ", " + j + ")");
                        else assertClose(before[at] + ref[i * n + j], c[at], Math.max(k, 1), where + " (" + i + ", " + j + ")");
                    }
                }
            }
        }
    }

    @Test
    void should_reject_bad_arguments_with_the_shapes_in_the_message() {
        float[] a = new float[6], b = new float[6], c = new float[4];
        assertThrows(IllegalArgumentException.class,
                () -> gemm().sgemm(-1, 2, 3, a, 0, 3, 1, b, 0, 2, 1, c, 0, 2));
        assertThrows(IllegalArgumentException.class,
                () -> gemm().sgemm(2, 2, 3, a, 0, 3, 1, b, 0, 2, 1, c, 0, 1));
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class,
                () -> gemm().sgemm(2, 2, 3, a, 1, 3, 1, b, 0, 2, 1, c, 0, 2));
        assertEquals(true, e.getMessage().contains("A[2x3]"), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class,
                () -> gemm().sgemm(2, 2, 3, a, 0, 3, 1, b, 0, 2, 1, new float[3], 0, 2));
    }

    // ------------------------------------------------------------------ helpers

    private void check(int m, int n, int k, Layout la, Layout lb, int cOff, int cPad, Random rnd) {
        StridedMatrix a = StridedMatrix.random(m, k, la, rnd);
        StridedMatrix b = StridedMatrix.random(k, n, lb, rnd);
        int ldc = n + cPad;
        float[] c = filled(cOff + m * ldc + 4, SENTINEL);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                c[cOff + i * ldc + j] = Float.NaN; // must be overwritten, never accumulated into
            }
        }
        float[] ref = new float[m * n];
        gemm().sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                b.data(), b.off(), b.rowStride(), b.colStride(), c, cOff, ldc);
        NaiveGemm.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(),
                b.data(), b.off(), b.rowStride(), b.colStride(), ref, 0, n);
        String where = gemm().path() + " m=" + m + " n=" + n + " k=" + k + " A " + la + " B " + lb
                + " cOff=" + cOff + " ldc=" + ldc;
        for (int idx = 0; idx < c.length; idx++) {
            int rel = idx - cOff;
            boolean inside = rel >= 0 && rel / ldc < m && rel % ldc < n;
            if (inside) {
                assertClose(ref[(rel / ldc) * n + rel % ldc], c[idx], k, where + " at (" + rel / ldc + "," + rel % ldc + ")");
            } else if (c[idx] != SENTINEL) {
                fail(where + ": wrote outside C at array index " + idx);
            }
        }
    }

    /** float32 accumulation of k products of values in [-1, 1]: error grows with k. */
    private static void assertClose(float expected, float actual, int k, String where) {
        double tol = 1e-5 * Math.max(k, 1) * (1 + Math.abs(expected));
        if (!(Math.abs(expected - actual) <= tol)) {
            fail(where + ": expected " + expected + " but got " + actual + " (tolerance " + tol + ")");
        }
    }

    private static float[] filled(int size, float v) {
        float[] x = new float[size];
        java.util.Arrays.fill(x, v);
        return x;
    }

    private static float[] randomArray(int size, Random rnd) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) {
            x[i] = rnd.nextFloat() * 2 - 1;
        }
        return x;
    }
}
