package dev.symbiont.cpu.gemm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link DualGemmTiles} against its twin, two {@link VectorGemm} products on one thread: the
 * epilogue must see every element of both products exactly once, with the GEMM's bits where one
 * block covers k (deeper products add their blocks through the partial arrays, whose edge tiles
 * the GEMM sums in another order). Named VectorGemm* so both micro-tiles run it.
 */
class VectorGemmDualTilesTest {
    private final VectorGemm gemm = new VectorGemm(new ForkJoinPool(1));

    @ParameterizedTest(name = "{0} × {1} × {2}")
    @CsvSource({"1, 1, 1", "13, 37, 7", "9, 16, 256", "8, 32, 33", "130, 300, 100", "1030, 20, 40", "17, 33, 1100", "70, 50, 513"})
    void should_hand_the_epilogue_each_tile_of_both_products_as_the_gemm_computes_them(int m, int n, int k) {
        Random rnd = new Random(m * 31L + n * 7L + k);
        float[] a = random(m * k, rnd), w1 = random(n * k, rnd), b2 = random(k * n, rnd);
        // A row-major, B1 a Linear's (n, k) weight seen as (k, n), B2 row-major (k, n)
        float[] expected1 = new float[m * n], expected2 = new float[m * n];
        gemm.sgemm(m, n, k, a, 0, k, 1, w1, 0, 1, k, expected1, 0, n);
        gemm.sgemm(m, n, k, a, 0, k, 1, b2, 0, n, 1, expected2, 0, n);
        float[] actual1 = nans(m * n), actual2 = nans(m * n);
        int[] seen = new int[m * n];
        boolean partials = DualGemmTiles.needsPartials(k);
        DualGemmTiles tiles = DualGemmTiles.of(m, n, k, a, 0, k, 1, w1, 0, 1, k, b2, 0, n, 1,
                partials ? new float[m * n] : null, partials ? new float[m * n] : null, 0, n,
                (tile, row, col, rows, cols) -> {
                    assertTrue(rows >= 1 && rows <= VectorGemmKernels.MR && cols >= 1 && cols <= DualGemmTiles.PAIR,
                            rows + " × " + cols + " tile");
                    for (int r = 0; r < rows; r++) {
                        for (int j = 0; j < cols; j++) {
                            int at = (row + r) * n + col + j;
                            actual1[at] = tile[r * DualGemmTiles.TILE_STRIDE + j];
                            actual2[at] = tile[r * DualGemmTiles.TILE_STRIDE + DualGemmTiles.PAIR + j];
                            seen[at]++;
                        }
                    }
                });
        for (int t = tiles.count() - 1; t >= 0; t--) tiles.run(t); // any order
        int[] once = new int[m * n];
        Arrays.fill(once, 1);
        assertArrayEquals(once, seen, "every element handed over exactly once");
        if (partials) {
            assertClose(expected1, actual1, k);
            assertClose(expected2, actual2, k);
        } else {
            assertArrayEquals(expected1, actual1, "C1 bits");
            assertArrayEquals(expected2, actual2, "C2 bits");
        }
    }

    @Test
    void should_cut_tall_and_wide_products_into_several_tiles_and_weigh_them_by_both_products() {
        DualGemmTiles tiles = DualGemmTiles.of(DualGemmTiles.ROWS + 1, DualGemmTiles.COLS + 1, 3, new float[(DualGemmTiles.ROWS + 1) * 3], 0, 3, 1,
                new float[3 * (DualGemmTiles.COLS + 1)], 0, DualGemmTiles.COLS + 1, 1, new float[3 * (DualGemmTiles.COLS + 1)], 0,
                DualGemmTiles.COLS + 1, 1, null, null, 0, DualGemmTiles.COLS + 1, (tile, row, col, rows, cols) -> { });
        assertEquals(4, tiles.count());
        assertEquals(2L * DualGemmTiles.ROWS * DualGemmTiles.COLS * 3, tiles.work(0));
        assertEquals(2L * 1 * 1 * 3, tiles.work(3));
    }

    @Test
    void should_reject_a_deep_product_without_partial_arrays_and_operands_past_their_arrays() {
        int k = VectorGemm.KC + 1;
        var e = assertThrows(IllegalArgumentException.class, () -> DualGemmTiles.of(2, 3, k, new float[2 * k], 0, k, 1,
                new float[k * 3], 0, 3, 1, new float[k * 3], 0, 3, 1, null, null, 0, 3, (t, r, c, rs, cs) -> { }));
        assertTrue(e.getMessage().contains("k = " + k) && e.getMessage().contains("partial"), e.getMessage());
        var o = assertThrows(IndexOutOfBoundsException.class, () -> DualGemmTiles.of(2, 3, 4, new float[8], 0, 4, 1,
                new float[12], 0, 3, 1, new float[11], 0, 3, 1, null, null, 0, 3, (t, r, c, rs, cs) -> { }));
        assertTrue(o.getMessage().contains("B2") && o.getMessage().contains("11"), o.getMessage());
    }

    private static void assertClose(float[] expected, float[] actual, int k) {
        for (int i = 0; i < expected.length; i++) {
            float tol = 1e-6f * k * Math.max(1, Math.abs(expected[i]));
            assertTrue(Math.abs(expected[i] - actual[i]) <= tol, "element " + i + ": gemm " + expected[i] + ", dual " + actual[i]);
        }
    }

    private static float[] nans(int n) {
        float[] x = new float[n];
        Arrays.fill(x, Float.NaN);
        return x;
    }

    private static float[] random(int n, Random rnd) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = rnd.nextFloat() - 0.5f;
        return x;
    }
}
