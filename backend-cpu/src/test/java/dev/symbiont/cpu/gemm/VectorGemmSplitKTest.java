package dev.symbiont.cpu.gemm;

import dev.symbiont.cpu.gemm.StridedMatrix.Layout;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The k split of {@link VectorGemm} (k-deep products with a small C, a weight gradient's shape)
 * on pools of two and three threads, whatever the machine has: against {@link NaiveGemm} with
 * the bias and the row sums, transposed A at several leading dimensions, odd k, k just below
 * the depth that splits, tiny m and n; and bit for bit against the slices computed one by one
 * and added in order, which is what makes it deterministic.
 */
class VectorGemmSplitKTest {

    private static final ForkJoinPool ONE = new ForkJoinPool(1), TWO = new ForkJoinPool(2), THREE = new ForkJoinPool(3);
    private static final float SENTINEL = 12345f;

    @AfterAll
    static void close() {
        ONE.shutdown();
        TWO.shutdown();
        THREE.shutdown();
    }

    @Test
    void should_match_the_reference_on_deep_k_with_odd_depths_tiny_m_and_n_and_transposed_a() {
        Random rnd = new Random(11);
        // {m, n, k}: m·n small against k; k odd or not a multiple of the block depth
        int[][] shapes = {{37, 29, 3001}, {64, 48, 4096}, {7, 3, 150_001}, {65, 33, 2049}};
        for (ForkJoinPool pool : new ForkJoinPool[] {TWO, THREE}) {
            for (int[] s : shapes) {
                assertEquals(pool.getParallelism(), VectorGemm.kParts(s[0], s[1], s[2], pool.getParallelism()), "k split of " + Arrays.toString(s));
                for (Layout la : new Layout[] {Layout.TRANSPOSED, Layout.ROW_MAJOR, Layout.STRIDED}) {
                    check(pool, s[0], s[1], s[2], la, rnd);
                }
            }
            // shallower than SPLIT_K_DEPTH the product is cut into rectangles of C, as before
            int shallow = GemmSplit.SPLIT_K_DEPTH - 1;
            assertEquals(1, VectorGemm.kParts(100, 60, shallow, pool.getParallelism()));
            check(pool, 100, 60, shallow, Layout.TRANSPOSED, rnd);
        }
        // a weight gradient's C is split along k; a C beyond SPLIT_K_MAX_C floats is cut into rectangles
        assertEquals(2, VectorGemm.kParts(1024, 256, 2048, 2));
        assertEquals(1, VectorGemm.kParts(2048, 2048, 2048, 2));
    }

    @Test
    void should_match_the_reference_when_a_split_reuses_the_partials_a_larger_one_left() {
        Random rnd = new Random(13);
        check(TWO, 64, 48, 4096, Layout.TRANSPOSED, rnd);   // leaves its partial C in this thread's scratch
        check(TWO, 33, 17, 3001, Layout.TRANSPOSED, rnd);   // written over, never added to
        check(TWO, 33, 17, 3001, Layout.ROW_MAJOR, rnd);
    }

    @Test
    void should_give_the_bits_of_the_slices_added_in_order() {
        Random rnd = new Random(12);
        int m = 37, n = 29, k = 3001, parts = 3;
        StridedMatrix a = StridedMatrix.random(m, k, Layout.TRANSPOSED, rnd), b = StridedMatrix.random(k, n, Layout.ROW_MAJOR, rnd);
        float[] c = new float[m * n], again = new float[m * n], sums = new float[m];
        VectorGemm split = new VectorGemm(THREE), sequential = new VectorGemm(ONE);
        split.sgemmRowSums(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(), b.data(), b.off(), b.rowStride(), b.colStride(),
                c, 0, n, sums, 0);
        split.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(), b.data(), b.off(), b.rowStride(), b.colStride(), again, 0, n);
        float[] expected = new float[m * n], slice = new float[m * n], expectedSums = new float[m], sliceSums = new float[m];
        for (int t = 0; t < parts; t++) {
            int k0 = k * t / parts, k1 = k * (t + 1) / parts;
            sequential.sgemmRowSums(m, n, k1 - k0, a.data(), a.off() + k0 * a.colStride(), a.rowStride(), a.colStride(),
                    b.data(), b.off() + k0 * b.rowStride(), b.rowStride(), b.colStride(), slice, 0, n, sliceSums, 0);
            for (int i = 0; i < m * n; i++) expected[i] = t == 0 ? slice[i] : expected[i] + slice[i];
            for (int i = 0; i < m; i++) expectedSums[i] = t == 0 ? sliceSums[i] : expectedSums[i] + sliceSums[i];
        }
        for (int i = 0; i < m * n; i++) {
            assertEquals(Float.floatToIntBits(expected[i]), Float.floatToIntBits(c[i]), "element " + i);
            assertEquals(Float.floatToIntBits(c[i]), Float.floatToIntBits(again[i]), "element " + i + " of a second call");
        }
        for (int i = 0; i < m; i++) assertEquals(Float.floatToIntBits(expectedSums[i]), Float.floatToIntBits(sums[i]), "sum " + i);
    }

    /** sgemm into a padded C (nothing written outside it), sgemmBias and sgemmRowSums, against the reference. */
    private static void check(ForkJoinPool pool, int m, int n, int k, Layout la, Random rnd) {
        VectorGemm gemm = new VectorGemm(pool);
        StridedMatrix a = StridedMatrix.random(m, k, la, rnd), b = StridedMatrix.random(k, n, Layout.ROW_MAJOR, rnd);
        String where = "threads=" + pool.getParallelism() + " m=" + m + " n=" + n + " k=" + k + " A " + la;
        float[] ref = new float[m * n];
        NaiveGemm.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(), b.data(), b.off(), b.rowStride(), b.colStride(), ref, 0, n);
        int ldc = n + 3, cOff = 2;
        float[] c = new float[cOff + m * ldc + 4];
        Arrays.fill(c, SENTINEL);
        for (int i = 0; i < m; i++) Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + n, Float.NaN);
        gemm.sgemm(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(), b.data(), b.off(), b.rowStride(), b.colStride(), c, cOff, ldc);
        for (int idx = 0; idx < c.length; idx++) {
            int rel = idx - cOff;
            if (rel >= 0 && rel / ldc < m && rel % ldc < n) {
                assertClose(ref[rel / ldc * n + rel % ldc], c[idx], k, where + " at (" + rel / ldc + "," + rel % ldc + ")");
            } else if (c[idx] != SENTINEL) {
                fail(where + ": wrote outside C at array index " + idx);
            }
        }
        float[] bias = random(n + 1, rnd), withBias = new float[m * n];
        gemm.sgemmBias(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(), b.data(), b.off(), b.rowStride(), b.colStride(),
                bias, 1, withBias, 0, n);
        for (int i = 0; i < m * n; i++) assertClose(ref[i] + bias[1 + i % n], withBias[i], k, where + " bias, element " + i);
        float[] withSums = new float[m * n], sums = new float[m + 1];
        Arrays.fill(sums, Float.NaN);
        gemm.sgemmRowSums(m, n, k, a.data(), a.off(), a.rowStride(), a.colStride(), b.data(), b.off(), b.rowStride(), b.colStride(),
                withSums, 0, n, sums, 1);
        for (int i = 0; i < m * n; i++) assertClose(ref[i], withSums[i], k, where + " row sums' product, element " + i);
        for (int i = 0; i < m; i++) {
            double expected = 0;
            for (int p = 0; p < k; p++) expected += a.data()[a.off() + i * a.rowStride() + p * a.colStride()];
            assertClose((float) expected, sums[1 + i], k, where + " sum " + i);
        }
    }

    private static void assertClose(float expected, float actual, int k, String where) {
        double tol = 1e-5 * Math.sqrt(Math.max(k, 1)) * (1 + Math.abs(expected)) * 4;
        if (!(Math.abs(expected - actual) <= tol)) {
            fail(where + ": expected " + expected + " but got " + actual + " (tolerance " + tol + ")");
        }
    }

    private static float[] random(int size, Random rnd) {
        float[] x = new float[size];
        for (int i = 0; i < size; i++) x[i] = rnd.nextFloat() * 2 - 1;
        return x;
    }
}
