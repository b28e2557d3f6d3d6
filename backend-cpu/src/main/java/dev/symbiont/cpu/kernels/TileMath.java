package dev.symbiont.cpu.kernels;

/**
 * The inner loops of the tiled attention kernels ({@link FlashAttention},
 * {@link FlashAttentionBackward}) and of the direct depthwise convolution ({@link DepthwiseConv}):
 * a small register-tiled matrix product, the row passes of an online softmax and a row
 * multiply-add, over blocks that stay in cache. Two implementations with the same
 * contract: {@link VectorTileMath} on the Vector API and {@link ScalarTileMath}, its plain-Java
 * twin, for JVMs without the incubator module or with {@code -Dsymbiont.cpu.vector=false}.
 *
 * <p>This interface touches no Vector-API type, so the kernels load either way.
 */
public interface TileMath {

    /** The Vector-API twin when {@code vector}, else the scalar one (whose class needs no incubator module). */
    static TileMath of(boolean vector) {
        return vector ? VectorTileMath.INSTANCE : ScalarTileMath.INSTANCE;
    }

    /**
     * C (+)= A·B for an m×n C and inner size k. A's element (i, p) is {@code a[aOff + i·ars + p·acs]}
     * (any strides: a transposed A costs nothing); B's row p is consecutive from
     * {@code b[bOff + p·ldb]}; C's row i from {@code c[cOff + i·ldc]}. Overwrites C unless {@code accumulate}.
     */
    void mulAdd(int m, int n, int k, float[] a, int aOff, int ars, int acs, float[] b, int bOff, int ldb,
                float[] c, int cOff, int ldc, boolean accumulate);

    /** Rows of a packed A panel ({@link #packA}): A's rows are packed and multiplied this many at a time. */
    int panelRows();

    /** Columns of a packed B panel ({@link #packB}). */
    int panelColumns();

    /**
     * A (rows × k, element (i, p) at {@code a[aOff + i·rs + p·cs]}) into panels of {@link #panelRows}
     * rows from {@code dst[dOff]}: panel q, element (r, p) at {@code q·panelRows·k + p·panelRows + r};
     * the last panel's missing rows are zero. Takes ⌈rows / panelRows⌉·panelRows·k floats.
     */
    void packA(float[] a, int aOff, int rs, int cs, int rows, int k, float[] dst, int dOff);

    /**
     * B (k × cols, element (p, j) at {@code b[bOff + p·rs + j·cs]}) into panels of {@link #panelColumns}
     * columns from {@code dst[dOff]}: panel q, element (p, j) at {@code q·panelColumns·k + p·panelColumns + j};
     * the last panel's missing columns are zero. Takes ⌈cols / panelColumns⌉·panelColumns·k floats.
     */
    void packB(float[] b, int bOff, int rs, int cs, int k, int cols, float[] dst, int dOff);

    /**
     * C = A·B from packed panels (A's first panel at {@code ap[aOff]}, B's at {@code bp[bOff]}), overwriting
     * C's rows up to m rounded up to {@link #panelRows} and its columns up to n rounded up to
     * {@link #panelColumns}: C needs room for them (the padding's values are zero products).
     */
    void mulPacked(int m, int n, int k, float[] ap, int aOff, float[] bp, int bOff, float[] c, int cOff, int ldc);

    /** max of x[off, off + n); −∞ for n = 0. */
    float max(float[] x, int off, int n);

    /** x[i] = exp(x[i] − shift) over [off, off + n); returns their sum. */
    float expSum(float[] x, int off, int n, float shift);

    /**
     * x[i] = exp(x[i] − shift) over [off, off + n), the same values as {@link #expSum} without the
     * sum: the backward recomputes P from the forward's logsumexp and needs no row sum.
     */
    void exp(float[] x, int off, int n, float shift);

    /** x[xOff + i] = y[yOff + i] · factor over i in [0, n). */
    void scale(float[] y, int yOff, float factor, float[] x, int xOff, int n);

    /** x[xOff + i] += m[mOff + i·mStride] over i in [0, n); mStride may be 0 (a broadcast value) or any step. */
    void addStrided(float[] x, int xOff, float[] m, int mOff, int mStride, int n);

    /** y[yOff + i] += a · x[xOff + i] over i in [0, n): one tap of a direct convolution. */
    void axpy(float a, float[] x, int xOff, float[] y, int yOff, int n);

    /** Σ a[aOff + i] · b[bOff + i] over i in [0, n). */
    float dot(float[] a, int aOff, float[] b, int bOff, int n);

    /** dp[off + i] = p[off + i] · (dp[off + i] − d) over i in [0, n): dS = P ∘ (dP − D). */
    void softmaxGrad(float[] p, float[] dp, int off, int n, float d);
}
