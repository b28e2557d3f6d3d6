package dev.symbiont.cpu.kernels;

import java.util.Arrays;

/** {@link TileMath} in plain Java: the twin the vector implementation is tested against. */
final class ScalarTileMath implements TileMath {
    static final ScalarTileMath INSTANCE = new ScalarTileMath();

    private ScalarTileMath() {}

    @Override
    public void mulAdd(int m, int n, int k, float[] a, int aOff, int ars, int acs, float[] b, int bOff, int ldb,
                       float[] c, int cOff, int ldc, boolean accumulate) {
        for (int i = 0; i < m; i++) {
            int ci = cOff + i * ldc, ai = aOff + i * ars;
            if (!accumulate) Arrays.fill(c, ci, ci + n, 0f);
            for (int p = 0; p < k; p++) {
                float av = a[ai + p * acs];
                int bp = bOff + p * ldb;
                for (int j = 0; j < n; j++) c[ci + j] += av * b[bp + j];
            }
        }
    }

    @Override
    public void transpose(float[] x, int xOff, int rs, int rows, int cols, float[] dst, int dOff, int ld) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0, src = xOff + r * rs; c < cols; c++) dst[dOff + c * ld + r] = x[src + c];
        }
    }

    @Override
    public float max(float[] x, int off, int n) {
        float m = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) m = Math.max(m, x[off + i]);
        return m;
    }

    @Override
    public void exp(float[] x, int off, int n, float shift) {
        for (int i = 0; i < n; i++) x[off + i] = (float) Math.exp(x[off + i] - shift);
    }

    @Override
    public float expSum(float[] x, int off, int n, float shift) {
        float sum = 0;
        for (int i = 0; i < n; i++) {
            float e = (float) Math.exp(x[off + i] - shift);
            x[off + i] = e;
            sum += e;
        }
        return sum;
    }

    @Override
    public void scale(float[] y, int yOff, float factor, float[] x, int xOff, int n) {
        for (int i = 0; i < n; i++) x[xOff + i] = y[yOff + i] * factor;
    }

    @Override
    public void addStrided(float[] x, int xOff, float[] m, int mOff, int mStride, int n) {
        for (int i = 0; i < n; i++) x[xOff + i] += m[mOff + i * mStride];
    }

    @Override
    public void axpy(float a, float[] x, int xOff, float[] y, int yOff, int n) {
        for (int i = 0; i < n; i++) y[yOff + i] += a * x[xOff + i];
    }

    @Override
    public float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        float s = 0;
        for (int i = 0; i < n; i++) s += a[aOff + i] * b[bOff + i];
        return s;
    }

    @Override
    public void softmaxGrad(float[] p, float[] dp, int off, int n, float d) {
        for (int i = 0; i < n; i++) dp[off + i] = p[off + i] * (dp[off + i] - d);
    }
}
