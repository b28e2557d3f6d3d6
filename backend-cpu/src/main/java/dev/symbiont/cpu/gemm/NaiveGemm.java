package dev.symbiont.cpu.gemm;

/**
 * The reference twin: a plain triple loop accumulating in double. Slow and obviously right;
 * tests compare the fast paths against it. Not a selectable {@link Gemm} path.
 */
public final class NaiveGemm {

    private NaiveGemm() {}

    /** Same contract as {@link Gemm#sgemm}. */
    public static void sgemm(int m, int n, int k,
                      float[] a, int aOff, int aRowStride, int aColStride,
                      float[] b, int bOff, int bRowStride, int bColStride,
                      float[] c, int cOff, int ldc) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double sum = 0;
                for (int p = 0; p < k; p++) {
                    sum += (double) a[aOff + i * aRowStride + p * aColStride]
                            * b[bOff + p * bRowStride + j * bColStride];
                }
                c[cOff + i * ldc + j] = (float) sum;
            }
        }
    }
}
