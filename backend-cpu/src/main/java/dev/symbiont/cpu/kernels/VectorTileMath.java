package dev.symbiont.cpu.kernels;

import dev.symbiont.cpu.gemm.PackedTiles;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static dev.symbiont.cpu.kernels.VectorTileKernels.EIGHT_ROWS;
import static dev.symbiont.cpu.kernels.VectorTileKernels.TRANSPOSED_STRIDE;
import static dev.symbiont.cpu.kernels.VectorTileKernels.row;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile4x1;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile4x2;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile4x2Cols;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile4x2Rows;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile8x2;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile8x2Cols;
import static dev.symbiont.cpu.kernels.VectorTileKernels.tile8x2Rows;

/**
 * {@link TileMath} on the Vector API. {@link #mulAdd} runs each block of C on one of the register
 * tiles of {@link VectorTileKernels}: 8 rows × 2 vectors where the register file has 32 vectors,
 * 4 rows × 2 vectors where it has 16, each in a copy for consecutive A rows and one for the
 * attention backward's transposed A (the tiles' comment says why, with the measurements).
 * Column tails run one masked vector at a time; row tails four rows, then one row at a time.
 * Products whose operands the kernels pack once and reread (the scores, dP) skip these tiles and run
 * on the GEMM's micro-kernel ({@link #mulPacked}). The row passes of the online softmax and the
 * vector multiply-adds ({@link #expSum}, {@link #axpy}, ...) follow: one vector loop each, then a
 * masked or scalar tail.
 */
final class VectorTileMath implements TileMath {
    static final VectorTileMath INSTANCE = new VectorTileMath();

    private VectorTileMath() {}

    @Override
    public void mulAdd(int m, int n, int k, float[] a, int aOff, int ars, int acs, float[] b, int bOff, int ldb,
                       float[] c, int cOff, int ldc, boolean accumulate) {
        int i = 0;
        if (EIGHT_ROWS) {
            for (; i + 8 <= m; i += 8) {
                int ai = aOff + i * ars, ci = cOff + i * ldc, j = 0;
                if (acs == 1) for (; j + 2 * L <= n; j += 2 * L) tile8x2Rows(k, a, ai, ars, b, bOff + j, ldb, c, ci + j, ldc, accumulate);
                else if (ars == 1 && acs == TRANSPOSED_STRIDE) for (; j + 2 * L <= n; j += 2 * L) tile8x2Cols(k, a, ai, b, bOff + j, ldb, c, ci + j, ldc, accumulate);
                else for (; j + 2 * L <= n; j += 2 * L) tile8x2(k, a, ai, ars, acs, b, bOff + j, ldb, c, ci + j, ldc, accumulate);
                for (; j < n; j += L) {
                    VectorMask<Float> mask = S.indexInRange(j, n);
                    tile4x1(k, a, ai, ars, acs, b, bOff + j, ldb, c, ci + j, ldc, accumulate, mask);
                    tile4x1(k, a, ai + 4 * ars, ars, acs, b, bOff + j, ldb, c, ci + j + 4 * ldc, ldc, accumulate, mask);
                }
            }
        }
        for (; i + 4 <= m; i += 4) {
            int ai = aOff + i * ars, ci = cOff + i * ldc, j = 0;
            if (acs == 1) for (; j + 2 * L <= n; j += 2 * L) tile4x2Rows(k, a, ai, ars, b, bOff + j, ldb, c, ci + j, ldc, accumulate);
            else if (ars == 1 && acs == TRANSPOSED_STRIDE) for (; j + 2 * L <= n; j += 2 * L) tile4x2Cols(k, a, ai, b, bOff + j, ldb, c, ci + j, ldc, accumulate);
            else for (; j + 2 * L <= n; j += 2 * L) tile4x2(k, a, ai, ars, acs, b, bOff + j, ldb, c, ci + j, ldc, accumulate);
            for (; j < n; j += L) tile4x1(k, a, ai, ars, acs, b, bOff + j, ldb, c, ci + j, ldc, accumulate, S.indexInRange(j, n));
        }
        for (; i < m; i++) {
            int ai = aOff + i * ars, ci = cOff + i * ldc;
            for (int j = 0; j < n; j += L) row(k, a, ai, acs, b, bOff + j, ldb, c, ci + j, accumulate, S.indexInRange(j, n));
        }
    }

    @Override
    public int panelRows() {
        return PackedTiles.ROWS;
    }

    @Override
    public int panelColumns() {
        return PackedTiles.COLUMNS;
    }

    @Override
    public void packA(float[] a, int aOff, int rs, int cs, int rows, int k, float[] dst, int dOff) {
        PackedTiles.packA(a, aOff, rs, cs, rows, k, dst, dOff);
    }

    @Override
    public void packB(float[] b, int bOff, int rs, int cs, int k, int cols, float[] dst, int dOff) {
        PackedTiles.packB(b, bOff, rs, cs, k, cols, dst, dOff);
    }

    /** The GEMM's micro-kernel over the panels: constant strides, so no bounds check stays in its loop (see {@link PackedTiles}). */
    @Override
    public void mulPacked(int m, int n, int k, float[] ap, int aOff, float[] bp, int bOff, float[] c, int cOff, int ldc) {
        PackedTiles.multiply(m, n, k, ap, aOff, bp, bOff, c, cOff, ldc);
    }


    /** 8 × 16 blocks in registers where the CPU has 16-lane vectors; the edges (and other CPUs) as the scalar twin. */
    @Override
    public float max(float[] x, int off, int n) {
        FloatVector m = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) m = m.max(FloatVector.fromArray(S, x, off + i));
        float r = m.reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) r = Math.max(r, x[off + i]);
        return r;
    }

    @Override
    public void exp(float[] x, int off, int n, float shift) {
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) {
            VectorMath.exp(FloatVector.fromArray(S, x, off + i).sub(shift)).intoArray(x, off + i);
        }
        if (i < n) {
            VectorMask<Float> mask = S.indexInRange(i, n);
            VectorMath.exp(FloatVector.fromArray(S, x, off + i, mask).sub(shift)).intoArray(x, off + i, mask);
        }
    }

    @Override
    public float expSum(float[] x, int off, int n, float shift) {
        FloatVector s0 = FloatVector.zero(S), s1 = s0;
        int i = 0;
        for (int bound = n - n % (2 * L); i < bound; i += 2 * L) {
            FloatVector e0 = VectorMath.exp(FloatVector.fromArray(S, x, off + i).sub(shift));
            FloatVector e1 = VectorMath.exp(FloatVector.fromArray(S, x, off + i + L).sub(shift));
            e0.intoArray(x, off + i);
            e1.intoArray(x, off + i + L);
            s0 = s0.add(e0);
            s1 = s1.add(e1);
        }
        if (i < n) {
            VectorMask<Float> mask = S.indexInRange(i, n);
            for (; i < n; i += L, mask = S.indexInRange(i, n)) {
                FloatVector e = VectorMath.exp(FloatVector.fromArray(S, x, off + i, mask).sub(shift));
                e.intoArray(x, off + i, mask);
                s0 = s0.add(e, mask);
            }
        }
        return VectorReductions.addLanes(s0.add(s1));
    }

    @Override
    public void scale(float[] y, int yOff, float factor, float[] x, int xOff, int n) {
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) FloatVector.fromArray(S, y, yOff + i).mul(factor).intoArray(x, xOff + i);
        for (; i < n; i++) x[xOff + i] = y[yOff + i] * factor;
    }

    @Override
    public void addStrided(float[] x, int xOff, float[] m, int mOff, int mStride, int n) {
        if (mStride != 1 && mStride != 0) {
            for (int i = 0; i < n; i++) x[xOff + i] += m[mOff + i * mStride];
            return;
        }
        int i = 0;
        if (mStride == 0) {
            float v = n == 0 ? 0 : m[mOff];
            for (int bound = S.loopBound(n); i < bound; i += L) FloatVector.fromArray(S, x, xOff + i).add(v).intoArray(x, xOff + i);
            for (; i < n; i++) x[xOff + i] += v;
            return;
        }
        for (int bound = S.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(S, x, xOff + i).add(FloatVector.fromArray(S, m, mOff + i)).intoArray(x, xOff + i);
        }
        for (; i < n; i++) x[xOff + i] += m[mOff + i];
    }

    @Override
    public void axpy(float a, float[] x, int xOff, float[] y, int yOff, int n) {
        FloatVector av = FloatVector.broadcast(S, a);
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(S, x, xOff + i).fma(av, FloatVector.fromArray(S, y, yOff + i)).intoArray(y, yOff + i);
        }
        for (; i < n; i++) y[yOff + i] += a * x[xOff + i];
    }

    @Override
    public float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        FloatVector s0 = FloatVector.zero(S), s1 = s0;
        int i = 0;
        for (int bound = n - n % (2 * L); i < bound; i += 2 * L) {
            s0 = FloatVector.fromArray(S, a, aOff + i).fma(FloatVector.fromArray(S, b, bOff + i), s0);
            s1 = FloatVector.fromArray(S, a, aOff + i + L).fma(FloatVector.fromArray(S, b, bOff + i + L), s1);
        }
        float s = VectorReductions.addLanes(s0.add(s1));
        for (; i < n; i++) s += a[aOff + i] * b[bOff + i];
        return s;
    }

    @Override
    public void softmaxGrad(float[] p, float[] dp, int off, int n, float d) {
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(S, p, off + i).mul(FloatVector.fromArray(S, dp, off + i).sub(d)).intoArray(dp, off + i);
        }
        for (; i < n; i++) dp[off + i] = p[off + i] * (dp[off + i] - d);
    }
}