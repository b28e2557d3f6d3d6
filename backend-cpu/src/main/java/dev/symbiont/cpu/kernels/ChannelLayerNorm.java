package dev.symbiont.cpu.kernels;

/**
 * Layer norm over the channels of x (N, C, L) at every (n, l) — ConvNeXt's LayerNorm2d — on the
 * channels-first layout as it lies, forward and backward. x is N·C rows of L consecutive floats.
 * A task takes one image and a block of up to {@link #BLOCK} positions and walks the block's C
 * row pieces (C KiB, in L2 for the widths ConvNeXt uses) a few times: per-position sums over C, then the output,
 * with loops along l that the JIT vectorises. So no channels-last copy is made, and x is read
 * from memory once per pass of the op.
 *
 * <p>Arithmetic follows the reference: mean = Σ_c x / C, var = Σ_c (x − mean)² / C,
 * rstd = 1/√(var + eps) with eps rounded to float, y = ((x − mean)·rstd)·w + b. The weight and
 * bias gradients are summed per chunk of tasks and then in chunk order, so results do not
 * depend on thread timing. Outputs are contiguous.
 */
public final class ChannelLayerNorm {
    private ChannelLayerNorm() {}

    /** Positions per task. */
    static final int BLOCK = 256;

    /** y (N·C·L) and, per (n, l), mean and rstd (N·L). w and b: C values from wOff / bOff, or null. */
    public static void forward(Rows x, int n, int c, int l, float[] w, int wOff, float[] b, int bOff, double eps,
                               float[] y, float[] mean, float[] rstd) {
        float epsF = (float) eps, inv = 1f / c;
        int blocks = (l + BLOCK - 1) / BLOCK;
        Parallel.forRange(n * blocks, grain(c, l), (from, to) -> {
            float[] xd = x.data(), q = new float[Math.min(l, BLOCK)];
            for (int task = from; task < to; task++) {
                int i = task / blocks, l0 = task % blocks * BLOCK, len = Math.min(BLOCK, l - l0), at = i * l + l0;
                java.util.Arrays.fill(mean, at, at + len, 0f);
                for (int ch = 0; ch < c; ch++) add(xd, x.start(i * c + ch) + l0, mean, at, len);
                for (int j = 0; j < len; j++) mean[at + j] *= inv;
                java.util.Arrays.fill(q, 0, len, 0f);
                for (int ch = 0; ch < c; ch++) {
                    int src = x.start(i * c + ch) + l0;
                    for (int j = 0; j < len; j++) {
                        float d = xd[src + j] - mean[at + j];
                        q[j] += d * d;
                    }
                }
                for (int j = 0; j < len; j++) rstd[at + j] = (float) (1.0 / Math.sqrt(q[j] * inv + epsF));
                for (int ch = 0; ch < c; ch++) {
                    int src = x.start(i * c + ch) + l0, dst = (i * c + ch) * l + l0;
                    float wc = w == null ? 1f : w[wOff + ch], bc = b == null ? 0f : b[bOff + ch];
                    for (int j = 0; j < len; j++) y[dst + j] = (xd[src + j] - mean[at + j]) * rstd[at + j] * wc + bc;
                }
            }
        });
    }

    /**
     * gx = (ĝ − Σ_c ĝ / C − x̂·Σ_c ĝ·x̂ / C)·rstd with ĝ = g·w[c] and x̂ = (x − mean)·rstd, per (n, l);
     * gw[c] = Σ g·x̂ and gb[c] = Σ g over N and L, written when non-null.
     */
    public static void backward(Rows g, Rows x, int n, int c, int l, float[] w, int wOff, Rows mean, Rows rstd,
                                float[] gx, float[] gw, float[] gb) {
        float inv = 1f / c;
        int blocks = (l + BLOCK - 1) / BLOCK, tasks = n * blocks, grain = grain(c, l);
        int chunks = Parallel.chunks(tasks, grain);
        float[][] gwParts = new float[chunks][], gbParts = new float[chunks][];
        Parallel.forChunks(tasks, grain, (chunk, from, to) -> {
            int width = Math.min(l, BLOCK);
            float[] xd = x.data(), gd = g.data(), sg = new float[width], sgx = new float[width], xhat = new float[width];
            float[] gwAcc = gw == null ? null : new float[c], gbAcc = gb == null ? null : new float[c];
            for (int task = from; task < to; task++) {
                int i = task / blocks, l0 = task % blocks * BLOCK, len = Math.min(BLOCK, l - l0);
                int mAt = mean.start(0) + i * l + l0, rAt = rstd.start(0) + i * l + l0;
                float[] md = mean.data(), rd = rstd.data();
                java.util.Arrays.fill(sg, 0, len, 0f);
                java.util.Arrays.fill(sgx, 0, len, 0f);
                for (int ch = 0; ch < c; ch++) {
                    int xs = x.start(i * c + ch) + l0, gs = g.start(i * c + ch) + l0;
                    float wc = w == null ? 1f : w[wOff + ch];
                    float dw = 0, db = 0;
                    for (int j = 0; j < len; j++) {
                        float xh = (xd[xs + j] - md[mAt + j]) * rd[rAt + j], gh = gd[gs + j] * wc;
                        sg[j] += gh;
                        sgx[j] += gh * xh;
                    }
                    if (gwAcc != null || gbAcc != null) {
                        for (int j = 0; j < len; j++) {
                            float gv = gd[gs + j];
                            dw += gv * ((xd[xs + j] - md[mAt + j]) * rd[rAt + j]);
                            db += gv;
                        }
                        if (gwAcc != null) gwAcc[ch] += dw;
                        if (gbAcc != null) gbAcc[ch] += db;
                    }
                }
                for (int ch = 0; ch < c; ch++) {
                    int xs = x.start(i * c + ch) + l0, gs = g.start(i * c + ch) + l0, dst = (i * c + ch) * l + l0;
                    float wc = w == null ? 1f : w[wOff + ch];
                    for (int j = 0; j < len; j++) xhat[j] = (xd[xs + j] - md[mAt + j]) * rd[rAt + j];
                    for (int j = 0; j < len; j++) {
                        gx[dst + j] = (gd[gs + j] * wc - sg[j] * inv - xhat[j] * sgx[j] * inv) * rd[rAt + j];
                    }
                }
            }
            gwParts[chunk] = gwAcc;
            gbParts[chunk] = gbAcc;
        });
        for (int k = 0; k < chunks; k++) {                                   // written, not added to: gw, gb may hold anything
            if (gw != null) sum(gwParts[k], gw, c, k == 0);
            if (gb != null) sum(gbParts[k], gb, c, k == 0);
        }
    }

    /** dst[0, n) = src (first) or += src. */
    private static void sum(float[] src, float[] dst, int n, boolean first) {
        if (first) System.arraycopy(src, 0, dst, 0, n);
        else add(src, 0, dst, 0, n);
    }

    /** dst[dOff + j] += src[sOff + j] for j in [0, n). */
    private static void add(float[] src, int sOff, float[] dst, int dOff, int n) {
        for (int j = 0; j < n; j++) dst[dOff + j] += src[sOff + j];
    }

    /** Tasks per chunk that keep a chunk above {@link Parallel#ELEMENT_GRAIN} elements. */
    private static int grain(int c, int l) {
        return Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, c * Math.min(l, BLOCK)));
    }
}
