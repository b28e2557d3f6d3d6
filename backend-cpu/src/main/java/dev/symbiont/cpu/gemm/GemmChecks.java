package dev.symbiont.cpu.gemm;

/**
 * Argument checks shared by every {@link Gemm}: bad sizes or an operand that runs off its
 * array fail up front with the shapes and offsets involved, never half-way through C.
 */
final class GemmChecks {

    private GemmChecks() {}

    static void check(int m, int n, int k,
                      float[] a, int aOff, int aRowStride, int aColStride,
                      float[] b, int bOff, int bRowStride, int bColStride,
                      float[] c, int cOff, int ldc) {
        if (m < 0 || n < 0 || k < 0) {
            throw new IllegalArgumentException("sgemm: negative size m=" + m + " n=" + n + " k=" + k);
        }
        if (ldc < n) {
            throw new IllegalArgumentException("sgemm: ldc=" + ldc + " < n=" + n);
        }
        if (m == 0 || n == 0) {
            return;
        }
        checkExtent("C", c, cOff, m, n, ldc, 1);
        if (k == 0) {
            return;
        }
        checkExtent("A", a, aOff, m, k, aRowStride, aColStride);
        checkExtent("B", b, bOff, k, n, bRowStride, bColStride);
    }

    static void checkBatch(int batch, int aBatchStride, int bBatchStride, int cBatchStride) {
        if (batch < 0) {
            throw new IllegalArgumentException("sgemmBatched: negative batch " + batch);
        }
        if (batch > 1 && cBatchStride == 0) {
            throw new IllegalArgumentException("sgemmBatched: cBatchStride=0 would make "
                    + batch + " problems write the same C");
        }
    }

    /** The n elements of a bias or sums vector at {@code off} lie inside the array. */
    static void checkVector(String name, float[] v, int off, int n) {
        if (v == null) {
            throw new NullPointerException("sgemm: " + name + " is null");
        }
        if (off < 0 || (long) off + n > v.length) {
            throw new IndexOutOfBoundsException("sgemm: " + name + " of " + n + " elements at offset " + off
                    + " runs past its array of length " + v.length);
        }
    }

    /** Every element (i, j), i < rows, j < cols, at off + i*rs + j*cs lies inside the array. */
    static void checkExtent(String name, float[] arr, int off, int rows, int cols, int rs, int cs) {
        long lo = off + Math.min(0L, (long) (rows - 1) * rs) + Math.min(0L, (long) (cols - 1) * cs);
        long hi = off + Math.max(0L, (long) (rows - 1) * rs) + Math.max(0L, (long) (cols - 1) * cs);
        if (arr == null) {
            throw new NullPointerException("sgemm: " + name + " is null");
        }
        if (lo < 0 || hi >= arr.length) {
            throw new IndexOutOfBoundsException("sgemm: " + name + "[" + rows + "x" + cols
                    + "] at offset " + off + " with strides (" + rs + ", " + cs + ") spans indices ["
                    + lo + ", " + hi + "] but the array has length " + arr.length);
        }
    }
}
