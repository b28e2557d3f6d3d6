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

    /** Panels as wide as the AVX-512 tiles': the layout is the twin's own, any size would do. */
    private static final int PANEL_ROWS = 8, PANEL_COLUMNS = 32;

    @Override
    public int panelRows() {
        return PANEL_ROWS;
    }

    @Override
    public int panelColumns() {
        return PANEL_COLUMNS;
    }

    @Override
    public void packA(float[] a, int aOff, int rs, int cs, int rows, int k, float[] dst, int dOff) {
        panels(a, aOff, rs, cs, rows, k, PANEL_ROWS, dst, dOff);
    }

    @Override
    public void packB(float[] b, int bOff, int rs, int cs, int k, int cols, float[] dst, int dOff) {
        panels(b, bOff, cs, rs, cols, k, PANEL_COLUMNS, dst, dOff);
    }

    /** Lines l &lt; count (element p of line l at x[off + l·lineStride + p·stepStride]) into panels of width lines, zero-padded. */
    private static void panels(float[] x, int off, int lineStride, int stepStride, int count, int k, int width, float[] dst, int dOff) {
        int padded = (count + width - 1) / width * width;
        for (int l = 0; l < padded; l++) {
            int at = dOff + l / width * width * k + l % width;
            for (int p = 0; p < k; p++) dst[at + p * width] = l < count ? x[off + l * lineStride + p * stepStride] : 0f;
        }
    }

    @Override
    public void mulPacked(int m, int n, int k, float[] ap, int aOff, float[] bp, int bOff, float[] c, int cOff, int ldc) {
        int rows = (m + PANEL_ROWS - 1) / PANEL_ROWS * PANEL_ROWS, cols = (n + PANEL_COLUMNS - 1) / PANEL_COLUMNS * PANEL_COLUMNS;
        for (int i = 0; i < rows; i++) {
            int a = aOff + i / PANEL_ROWS * PANEL_ROWS * k + i % PANEL_ROWS;
            for (int j = 0; j < cols; j++) {
                int b = bOff + j / PANEL_COLUMNS * PANEL_COLUMNS * k + j % PANEL_COLUMNS;
                float sum = 0;
                for (int p = 0; p < k; p++) sum += ap[a + p * PANEL_ROWS] * bp[b + p * PANEL_COLUMNS];
                c[cOff + i * ldc + j] = sum;
            }
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
