package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.gemm.Gemm;

import java.util.Arrays;

import static dev.symbiont.cpu.kernels.WinogradTransforms.POINTS;

/**
 * 3×3, stride-1 convolution by Winograd's F(2×2, 3×3) (Lavin &amp; Gray 2016): each 2×2 output tile
 * costs 16 multiplies per channel pair instead of 36, so the GEMMs do 2.25× fewer FLOPs than
 * im2col's. Per block of whole tile rows (several images' rows when the maps are small):
 * <pre>
 *   forward        V_ξ = (Bᵀ d B)_ξ  (C × T)     M_ξ = U_ξ · V_ξ  (O × C)·(C × T)     Y = Aᵀ M A + bias
 *   input grad     the same on gradOut with the kernel turned by 180° and O ↔ C, padding 2 − p
 *   weight grad    dM = A dY Aᵀ      dU_ξ += dM_ξ · V_ξᵀ  (O × T)·(T × C)         dW = Gᵀ dU G
 * </pre>
 * with U = G g Gᵀ transformed once per call and stored transposed ({@link WinogradTransforms#weights}).
 * A block's V and M (16·T·(C + O) floats) are sized to BLOCK_FLOATS so they stay in the outer
 * caches between the transforms and the GEMMs, but hold at least MIN_TILES tiles, as each block
 * reads all of U. Blocks run in parallel, each on one thread with its GEMMs on that thread, when
 * there are at least as many as cores; else one after another with the 16 GEMMs spread across
 * the pool. The weight gradient sums per-chunk dU in chunk order, so the result does not depend
 * on scheduling.
 */
public final class WinogradConv {
    /** Floats of one block's V and M: 256 Ki floats, 1 MiB, two Zen 3 L2s. */
    static final int BLOCK_FLOATS = 1 << 18;
    /**
     * Fewest tiles per block even past BLOCK_FLOATS: every block reads all of U (16·O·C floats),
     * so wide layers on small maps (512 channels at 7×7: 16 MiB of U) need wide blocks to spread it.
     */
    static final int MIN_TILES = 64;

    private final Gemm gemm;
    private final boolean vector;

    /** {@code vector} runs the tile transforms on the Vector API; the GEMM is whichever the backend uses. */
    public WinogradConv(Gemm gemm, boolean vector) {
        this.gemm = gemm;
        this.vector = vector;
    }

    /** Whether F(2×2, 3×3) computes this convolution: a 3×3 kernel, stride 1, dilation 1, one group, padding 0 to 2. */
    public static boolean applies(ConvGeometry g) {
        return g.kernelH() == 3 && g.kernelW() == 3 && g.strideH() == 1 && g.strideW() == 1
                && g.dilationH() == 1 && g.dilationW() == 1 && g.groups() == 1
                && g.padH() >= 0 && g.padH() <= 2 && g.padW() >= 0 && g.padW() <= 2;
    }

    /**
     * out (N, O, outH, outW), contiguous = conv2d(x, weight) + bias.
     *
     * @param x      (N·C·H, W) rows
     * @param weight (O, C·9) rows
     * @param bias   null or (O) consecutive
     */
    public void forward(Rows x, Rows weight, Rows bias, ConvGeometry g, float[] out) {
        run(x, WinogradTransforms.weights(weight, g.outChannels(), g.inChannels(), false), bias, g, out);
    }

    /**
     * dx (N, C, H, W), contiguous and overwritten: the convolution of gradOut with the kernel
     * turned by 180° and its channel dims swapped, padding 2 − p, which for stride 1 is the
     * transposed convolution.
     *
     * @param grad gradOut as (N·O·outH, outW) rows
     */
    public void inputGradient(Rows grad, Rows weight, ConvGeometry g, float[] dx) {
        ConvGeometry t = new ConvGeometry(g.batch(), g.outChannels(), g.outH(), g.outW(), g.inChannels(), 3, 3, 1, 1,
                2 - g.padH(), 2 - g.padW(), 1, 1, 1, g.inH(), g.inW());
        run(grad, WinogradTransforms.weights(weight, g.inChannels(), g.outChannels(), true), null, t, dx);
    }

    private void run(Rows x, float[] u, Rows bias, ConvGeometry g, float[] out) {
        Blocks bl = Blocks.of(g);
        int o = g.outChannels(), c = g.inChannels();
        boolean across = bl.count() >= CpuThreads.parallelism();
        Parallel.forRange(bl.count(), across ? 1 : bl.count(), (from, to) -> {
            float[] v = new float[POINTS * WinogradTransforms.plane(c, bl.maxTiles())];
            float[] m = new float[POINTS * WinogradTransforms.plane(o, bl.maxTiles())];
            float[] strip = new float[WinogradTransforms.stripFloats(bl.tw())];
            for (int b = from; b < to; b++) {
                int r0 = bl.first(b), r1 = bl.end(b), tiles = (r1 - r0) * bl.tw();
                int vPlane = WinogradTransforms.plane(c, tiles), mPlane = WinogradTransforms.plane(o, tiles);
                WinogradTransforms.input(x, g, r0, r1, bl.tw(), bl.th(), v, strip, vector);
                if (across) {
                    for (int p = 0; p < POINTS; p++) {
                        gemm.sgemmBatched(1, o, tiles, c, u, p * o * c, 0, 1, o, v, p * vPlane, 0, tiles, 1,
                                m, p * mPlane, 0, tiles);
                    }
                } else {
                    gemm.sgemmBatched(POINTS, o, tiles, c, u, 0, o * c, 1, o, v, 0, vPlane, tiles, 1,
                            m, 0, mPlane, tiles);
                }
                WinogradTransforms.output(m, bias, g, r0, r1, bl.tw(), bl.th(), out, vector);
            }
        });
    }

    /**
     * The weight gradient dw (O, C, 3, 3), overwritten, and the bias gradient db (O), overwritten,
     * each when not null.
     *
     * @param x    (N·C·H, W) rows
     * @param grad gradOut as (N·O, outH·outW) rows
     */
    public void weightGradient(Rows x, Rows grad, ConvGeometry g, float[] dw, float[] db) {
        if (dw == null) {
            if (db != null) biasGradient(grad, g, db);
            return;
        }
        Blocks bl = Blocks.of(g);
        int o = g.outChannels(), c = g.inChannels(), plane = o * c;
        if (bl.count() == 0) {                                          // an empty batch
            Arrays.fill(dw, 0f);
            if (db != null) Arrays.fill(db, 0f);
            return;
        }
        boolean across = bl.count() >= CpuThreads.parallelism();
        int grain = across ? 1 : bl.count(), chunks = Parallel.chunks(bl.count(), grain);
        float[][] duParts = new float[chunks][], dbParts = new float[chunks][];
        Parallel.forChunks(bl.count(), grain, (chunk, from, to) -> {
            float[] v = new float[POINTS * WinogradTransforms.plane(c, bl.maxTiles())];
            float[] dm = new float[POINTS * WinogradTransforms.plane(o, bl.maxTiles())];
            float[] strip = new float[WinogradTransforms.stripFloats(bl.tw())];
            float[] du = new float[POINTS * plane];
            float[] dbAcc = db == null ? null : new float[o];
            for (int b = from; b < to; b++) {
                int r0 = bl.first(b), r1 = bl.end(b), tiles = (r1 - r0) * bl.tw();
                int vPlane = WinogradTransforms.plane(c, tiles), mPlane = WinogradTransforms.plane(o, tiles);
                WinogradTransforms.gradOutput(grad, g, r0, r1, bl.tw(), bl.th(), dm, dbAcc, vector);
                WinogradTransforms.input(x, g, r0, r1, bl.tw(), bl.th(), v, strip, vector);
                for (int p = 0; p < POINTS; p++) {                      // dU_ξ += dM_ξ · V_ξᵀ, summed in place
                    gemm.sgemmAccumulate(o, c, tiles, dm, p * mPlane, tiles, 1, v, p * vPlane, 1, tiles, du, p * plane, c);
                }
            }
            duParts[chunk] = du;
            dbParts[chunk] = dbAcc;
        });
        float[] du = duParts[0];
        for (int k = 1; k < chunks; k++) {
            for (int i = 0; i < du.length; i++) du[i] += duParts[k][i];
        }
        WinogradTransforms.weightGradient(du, o, c, dw);
        if (db != null) {
            System.arraycopy(dbParts[0], 0, db, 0, o);
            for (int k = 1; k < chunks; k++) {
                for (int i = 0; i < o; i++) db[i] += dbParts[k][i];
            }
        }
    }

    /** db[o] = Σ gradOut[:, o], overwritten: the bias gradient alone. */
    private static void biasGradient(Rows grad, ConvGeometry g, float[] db) {
        int o = g.outChannels(), pixels = g.outPixels();
        Arrays.fill(db, 0, o, 0f);
        for (int n = 0; n < g.batch(); n++) {
            for (int oc = 0; oc < o; oc++) {
                float s = 0;
                for (int l = 0, at = grad.start(n * o + oc); l < pixels; l++) s += grad.data()[at + l];
                db[oc] += s;
            }
        }
    }

    /**
     * The output's tile rows (N·th of them, each tw tiles wide) cut into blocks of {@code rows}
     * whole tile rows: as many as keep 16·T·(C + O) floats within BLOCK_FLOATS, or reach
     * MIN_TILES, and still leave a block per core; at least one.
     */
    record Blocks(int th, int tw, int rows, int total) {
        static Blocks of(ConvGeometry g) {
            int th = (g.outH() + 1) / 2, tw = (g.outW() + 1) / 2, total = g.batch() * th;
            long perRow = (long) POINTS * tw * (g.inChannels() + g.outChannels());
            int perCore = (total + CpuThreads.parallelism() - 1) / CpuThreads.parallelism();
            long wanted = Math.max(BLOCK_FLOATS / Math.max(1, perRow), (MIN_TILES + tw - 1) / Math.max(1, tw));
            int rows = (int) Math.max(1, Math.min(perCore, wanted));
            return new Blocks(th, tw, rows, total);
        }

        int count() { return (total + rows - 1) / rows; }

        int first(int block) { return block * rows; }

        int end(int block) { return Math.min(total, (block + 1) * rows); }

        /** Tiles in the largest block. */
        int maxTiles() { return Math.max(1, rows * tw); }
    }
}
