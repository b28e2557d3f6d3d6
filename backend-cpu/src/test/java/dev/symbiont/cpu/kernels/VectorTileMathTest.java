package dev.symbiont.cpu.kernels;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The attention kernels' block product on the Vector API against the scalar twin, over row
 * counts that exercise the eight-row, four-row and single-row tiles, column tails, strided and
 * transposed A, padded leading dimensions and both the overwrite and the accumulate form.
 */
class VectorTileMathTest {
    private static float[] random(Random r, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) r.nextGaussian();
        return x;
    }

    /** m × n × k, A read as rows (ars = lda, acs = 1) or as a transposed block (ars = 1, acs = lda). */
    @ParameterizedTest
    @CsvSource({
        "64, 64, 64, false", "64, 64, 64, true", "8, 32, 5, false", "13, 64, 64, false",
        "15, 70, 33, true", "1, 17, 9, false", "7, 33, 64, true", "24, 96, 1, false", "20, 40, 100, true"})
    void productMatchesTheScalarTwin(int m, int n, int k, boolean transposedA) {
        Random r = new Random(31L * m + 7L * n + k);
        int lda = (transposedA ? m : k) + 3, ldb = n + 5, ldc = n + 2;
        int ars = transposedA ? 1 : lda, acs = transposedA ? lda : 1;
        float[] a = random(r, lda * (transposedA ? k : m)), b = random(r, ldb * k), c0 = random(r, ldc * m);
        for (boolean accumulate : new boolean[] {false, true}) {
            float[] vector = c0.clone(), scalar = c0.clone();
            VectorTileMath.INSTANCE.mulAdd(m, n, k, a, 0, ars, acs, b, 0, ldb, vector, 0, ldc, accumulate);
            ScalarTileMath.INSTANCE.mulAdd(m, n, k, a, 0, ars, acs, b, 0, ldb, scalar, 0, ldc, accumulate);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < ldc; j++) {
                    int at = i * ldc + j;
                    if (j >= n) {
                        assertEquals(c0[at], vector[at], "padding column " + j + " of row " + i + " was written");
                        continue;
                    }
                    assertEquals(scalar[at], vector[at], 1e-4f * (1 + Math.abs(scalar[at])),
                            "C(" + i + ", " + j + ") of " + m + "×" + n + "×" + k + ", accumulate " + accumulate);
                }
            }
        }
    }

    /**
     * A read as rows (the contiguous-row tiles) and the same A read from a transposed copy (the
     * strided tiles): the same bits, for eight-row tiles and the four-row ones (m 12 and 4 here;
     * every tile on a 256-bit machine).
     */
    @ParameterizedTest
    @CsvSource({"64, 64, 64", "16, 32, 7", "24, 96, 33", "12, 32, 9", "4, 64, 20"})
    void rowsAndTransposedAGiveTheSameBits(int m, int n, int k) {
        Random r = new Random(9);
        float[] a = random(r, m * k), at = new float[k * m], b = random(r, k * n);
        for (int i = 0; i < m; i++) for (int p = 0; p < k; p++) at[p * m + i] = a[i * k + p];
        float[] rows = new float[m * n], strided = new float[m * n];
        VectorTileMath.INSTANCE.mulAdd(m, n, k, a, 0, k, 1, b, 0, n, rows, 0, n, false);
        VectorTileMath.INSTANCE.mulAdd(m, n, k, at, 0, 1, m, b, 0, n, strided, 0, n, false);
        for (int i = 0; i < m * n; i++) {
            assertEquals(Float.floatToRawIntBits(strided[i]), Float.floatToRawIntBits(rows[i]), "element " + i);
        }
    }

    /**
     * A stored transposed with the attention backward's column stride (the transposed-block tiles,
     * whose stride is a constant) and with any other stride (the strided tiles), and the same A read
     * as rows: the same bits, for eight- and four-row tiles and row tails.
     */
    @ParameterizedTest
    @CsvSource({"64, 64, 128", "40, 64, 64", "12, 32, 9", "4, 64, 20", "7, 48, 33"})
    void transposedBlocksOfTheBackwardsStrideGiveTheSameBits(int m, int n, int k) {
        Random r = new Random(11);
        int ld = VectorTileKernels.TRANSPOSED_STRIDE, other = ld + 3;
        float[] a = random(r, m * k), b = random(r, k * n);
        float[] atBlock = new float[k * ld], atOther = new float[k * other];
        for (int i = 0; i < m; i++) for (int p = 0; p < k; p++) atBlock[p * ld + i] = atOther[p * other + i] = a[i * k + p];
        float[] rows = new float[m * n], block = new float[m * n], strided = new float[m * n];
        VectorTileMath.INSTANCE.mulAdd(m, n, k, a, 0, k, 1, b, 0, n, rows, 0, n, false);
        VectorTileMath.INSTANCE.mulAdd(m, n, k, atBlock, 0, 1, ld, b, 0, n, block, 0, n, false);
        VectorTileMath.INSTANCE.mulAdd(m, n, k, atOther, 0, 1, other, b, 0, n, strided, 0, n, false);
        for (int i = 0; i < m * n; i++) {
            assertEquals(Float.floatToRawIntBits(rows[i]), Float.floatToRawIntBits(block[i]), "transposed block, element " + i);
            assertEquals(Float.floatToRawIntBits(rows[i]), Float.floatToRawIntBits(strided[i]), "strided, element " + i);
        }
    }

    /**
     * The packed product (queries and keys as the attention kernels pack them: A from rows, B from
     * rows stored transposed or not) against the strided product: the same bits on the Vector API,
     * whose packed kernel runs the same FMA chain; the scalar twin's packed product within rounding.
     * Whole panels are written, padding included, and nothing past them.
     */
    @ParameterizedTest
    @CsvSource({"64, 128, 64, true", "64, 64, 64, false", "13, 70, 33, true", "1, 17, 9, false", "40, 96, 1, true"})
    void packedProductMatchesTheStridedOne(int m, int n, int k, boolean transposedB) {
        Random r = new Random(41L * m + 3L * n + k);
        int lda = k + 3, ldb = (transposedB ? k : n) + 5;
        float[] a = random(r, m * lda), b = random(r, ldb * (transposedB ? n : k));
        int brs = transposedB ? 1 : ldb, bcs = transposedB ? ldb : 1;
        float[] bRows = new float[k * n]; // B as the strided product reads it
        for (int p = 0; p < k; p++) for (int j = 0; j < n; j++) bRows[p * n + j] = b[p * brs + j * bcs];
        float[] strided = new float[m * n];
        VectorTileMath.INSTANCE.mulAdd(m, n, k, a, 0, lda, 1, bRows, 0, n, strided, 0, n, false);
        for (TileMath tm : new TileMath[] {VectorTileMath.INSTANCE, ScalarTileMath.INSTANCE}) {
            int rows = (m + tm.panelRows() - 1) / tm.panelRows() * tm.panelRows();
            int cols = (n + tm.panelColumns() - 1) / tm.panelColumns() * tm.panelColumns();
            float[] ap = new float[2 + rows * k], bp = new float[5 + cols * k], c = new float[rows * (cols + 2) + 1];
            float sentinel = 12345f;
            java.util.Arrays.fill(c, sentinel);
            tm.packA(a, 0, lda, 1, m, k, ap, 2);
            tm.packB(b, 0, brs, bcs, k, n, bp, 5);
            tm.mulPacked(m, n, k, ap, 2, bp, 5, c, 0, cols + 2);
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < cols + 2; j++) {
                    float got = c[i * (cols + 2) + j];
                    if (j >= cols) {
                        assertEquals(sentinel, got, "column " + j + " past the panels of row " + i + " was written");
                    } else if (i >= m || j >= n) {
                        assertEquals(0f, got, "padding (" + i + ", " + j + ") is a product of zero padding");
                    } else if (tm == VectorTileMath.INSTANCE) {
                        assertEquals(Float.floatToRawIntBits(strided[i * n + j]), Float.floatToRawIntBits(got),
                                "C(" + i + ", " + j + ") of " + m + "×" + n + "×" + k);
                    } else {
                        assertEquals(strided[i * n + j], got, 1e-4f * (1 + Math.abs(got)), "scalar C(" + i + ", " + j + ")");
                    }
                }
            }
            assertEquals(sentinel, c[c.length - 1], "a row past the panels was written");
        }
    }

    /** Every tile computes an element as the same FMA chain over p, so one call equals row-by-row calls bit for bit. */
    @ParameterizedTest
    @CsvSource({"64, 64, 64", "13, 40, 17", "12, 32, 64"})
    void tilesOfEveryHeightGiveTheSameBits(int m, int n, int k) {
        Random r = new Random(5);
        float[] a = random(r, m * k), b = random(r, k * n);
        float[] whole = new float[m * n], rows = new float[m * n];
        VectorTileMath.INSTANCE.mulAdd(m, n, k, a, 0, k, 1, b, 0, n, whole, 0, n, false);
        for (int i = 0; i < m; i++) VectorTileMath.INSTANCE.mulAdd(1, n, k, a, i * k, k, 1, b, 0, n, rows, i * n, n, false);
        for (int i = 0; i < m * n; i++) {
            assertEquals(Float.floatToRawIntBits(rows[i]), Float.floatToRawIntBits(whole[i]), "element " + i);
        }
    }

    /** exp and expSum on the Vector API against the scalar twin: the same values (within the polynomial's error) and tails. */
    @ParameterizedTest
    @CsvSource({"128, 0", "64, 3", "37, 1", "5, 2", "1, 0"})
    void expMatchesTheScalarTwin(int n, int off) {
        Random r = new Random(n * 17L + off);
        float[] x = random(r, off + n + 4);
        for (int i = 0; i < x.length; i++) x[i] *= 4;
        x[off] = Float.NEGATIVE_INFINITY;                                   // a masked score: exp gives 0
        float shift = 3.5f;
        float[] scalar = x.clone(), vector = x.clone(), summed = x.clone();
        ScalarTileMath.INSTANCE.exp(scalar, off, n, shift);
        VectorTileMath.INSTANCE.exp(vector, off, n, shift);
        float sum = VectorTileMath.INSTANCE.expSum(summed, off, n, shift);
        double expected = 0;
        for (int i = 0; i < x.length; i++) {
            boolean inside = i >= off && i < off + n;
            if (!inside) {
                assertEquals(x[i], vector[i], "element " + i + " outside the run changed");
                continue;
            }
            expected += scalar[i];
            assertEquals(scalar[i], vector[i], 2e-6 * scalar[i], "exp at " + i);
            assertEquals(Float.floatToRawIntBits(vector[i]), Float.floatToRawIntBits(summed[i]), "exp and expSum differ at " + i);
        }
        assertEquals(0f, vector[off], "exp(-inf - shift)");
        assertEquals(expected, sum, 1e-5 * expected, "expSum's sum");
    }

    /**
     * Packing, by both twins, against the layout the panels promise: A from rows (the queries) and B
     * from rows stored transposed (the keys, the vector twin's register transposes) or not, full
     * panels and every kind of edge, the padding zero and nothing before or after the panels written.
     */
    @ParameterizedTest
    @CsvSource({"64, 64, 70", "128, 64, 64", "13, 70, 80", "8, 16, 16", "7, 15, 15", "24, 33, 40"})
    void packingFollowsThePanelLayout(int lines, int k, int stride) {
        Random r = new Random(lines * 1000L + k);
        float[] x = random(r, lines * stride + 5);
        for (TileMath tm : new TileMath[] {VectorTileMath.INSTANCE, ScalarTileMath.INSTANCE}) {
            for (int kind = 0; kind < 3; kind++) { // A from rows; B from rows stored transposed; B from rows
                boolean a = kind == 0, transposed = kind == 1;
                int count = a || transposed ? lines : k, depth = a || transposed ? k : lines; // panels across count, depth steps each
                int w = a ? tm.panelRows() : tm.panelColumns(), all = (count + w - 1) / w * w;
                float[] dst = new float[3 + all * depth + 2];
                java.util.Arrays.fill(dst, Float.NaN);
                if (a) tm.packA(x, 5, stride, 1, lines, k, dst, 3);
                else if (transposed) tm.packB(x, 5, 1, stride, k, lines, dst, 3);
                else tm.packB(x, 5, stride, 1, lines, k, dst, 3); // B of k = lines rows, `k` columns
                for (int l = 0; l < all; l++) {
                    for (int p = 0; p < depth; p++) {
                        float want = l >= count ? 0f : a || transposed ? x[5 + l * stride + p] : x[5 + p * stride + l];
                        assertEquals(want, dst[3 + l / w * w * depth + p * w + l % w], tm.getClass().getSimpleName()
                                + " kind " + kind + ", line " + l + ", step " + p);
                    }
                }
                for (int e : new int[] {0, 1, 2, 3 + all * depth, 4 + all * depth}) {
                    assertEquals(Float.NaN, dst[e], tm.getClass().getSimpleName() + " kind " + kind + " wrote outside the panels at " + e);
                }
            }
        }
    }
}
