package dev.symbiont.cpu.gemm;

import org.ejml.data.FMatrixRMaj;
import org.ejml.dense.row.CommonOps_FDRM;

/**
 * The portable path: copies the strided operands into EJML's row-major matrices and calls
 * {@link CommonOps_FDRM#mult}. Runs anywhere, single-threaded, no Vector API; the twin the
 * vector path is measured against.
 */
public final class EjmlGemm implements Gemm {

    @Override
    public GemmPath path() {
        return GemmPath.EJML;
    }

    @Override
    public void sgemm(int m, int n, int k,
                      float[] a, int aOff, int aRowStride, int aColStride,
                      float[] b, int bOff, int bRowStride, int bColStride,
                      float[] c, int cOff, int ldc) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        if (m == 0 || n == 0) {
            return;
        }
        if (k == 0) {
            for (int i = 0; i < m; i++) {
                java.util.Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + n, 0f);
            }
            return;
        }
        FMatrixRMaj ma = dense(m, k, a, aOff, aRowStride, aColStride);
        FMatrixRMaj mb = dense(k, n, b, bOff, bRowStride, bColStride);
        FMatrixRMaj mc;
        boolean direct = cOff == 0 && ldc == n && c.length == m * n;
        if (direct) {
            mc = FMatrixRMaj.wrap(m, n, c);
        } else {
            mc = new FMatrixRMaj(m, n);
        }
        CommonOps_FDRM.mult(ma, mb, mc);
        if (!direct) {
            for (int i = 0; i < m; i++) {
                System.arraycopy(mc.data, i * n, c, cOff + i * ldc, n);
            }
        }
    }

    /** A rows×cols row-major copy of a strided view (wrapping the array when it already is one). */
    private static FMatrixRMaj dense(int rows, int cols, float[] x, int off, int rs, int cs) {
        if (off == 0 && cs == 1 && rs == cols && x.length == rows * cols) {
            return FMatrixRMaj.wrap(rows, cols, x);
        }
        FMatrixRMaj d = new FMatrixRMaj(rows, cols);
        float[] data = d.data;
        for (int i = 0; i < rows; i++) {
            int src = off + i * rs, dst = i * cols;
            if (cs == 1) {
                System.arraycopy(x, src, data, dst, cols);
            } else {
                for (int j = 0; j < cols; j++) {
                    data[dst + j] = x[src + j * cs];
                }
            }
        }
        return d;
    }
}
