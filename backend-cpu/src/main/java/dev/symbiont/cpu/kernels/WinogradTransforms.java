package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;

import java.util.Arrays;

/**
 * The transforms of Winograd's F(2×2, 3×3) (Lavin &amp; Gray 2016, §4.1) and their adjoints, on the
 * 4×4 tiles of a block of whole tile rows. With
 * <pre>
 *   Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]   G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1]   Aᵀ = [1 1 1 0; 0 1 −1 −1]
 *   V = Bᵀ d B  (input tile d, 4×4)    U = G g Gᵀ  (kernel g, 3×3)    Y = Aᵀ (Σ_c U ⊙ V) A  (output tile, 2×2)
 * </pre>
 * and for the weight gradient dM = A dY Aᵀ, dg = Gᵀ dU G. Each of the 16 points ξ = 4i + j of a
 * tile lives in its own (channels × tiles) matrix, {@code m[ξ·plane + channel·T + t]} with
 * {@link #plane} ≥ channels·T, so the products over channels are 16 GEMMs. Tile row r of a block
 * is image r / th, tiles (r mod th, tx); output tile (ty, tx) covers output rows 2ty, 2ty + 1 and
 * reads input rows 2ty − padH … 2ty − padH + 3 (columns likewise); rows and columns outside the
 * input read zero, outputs past the edge of an odd map are dropped.
 */
final class WinogradTransforms {
    /** Points of a transformed tile: 4×4. */
    static final int POINTS = 16;

    private WinogradTransforms() {}

    /**
     * U_ξ[a][b] = (G g Gᵀ)_ξ for the 3×3 kernel g = weight[a][b], or with {@code flipped} the
     * input gradient's kernel g = weight[b][a] turned by 180° (its conv runs from O to C channels),
     * stored transposed — U_ξ[a][b] at {@code ξ·outs·ins + b·outs + a} — so that the GEMM packs each
     * U_ξ (its A operand) by plain copies rather than transposes: 64 × 112 × 64 products −4%, won 15
     * of 15 alternated rounds.
     *
     * @param weight (O, C·9) rows
     * @return 16 × ins × outs
     */
    static float[] weights(Rows weight, int outs, int ins, boolean flipped) {
        float[] u = new float[POINTS * outs * ins], w = weight.data();
        int plane = outs * ins;
        float[] t = new float[12];
        for (int a = 0; a < outs; a++) {
            for (int b = 0; b < ins; b++) {
                int src = flipped ? weight.start(b) + a * 9 : weight.start(a) + b * 9;
                for (int k = 0; k < 3; k++) {                       // t = G g: 4×3, column k
                    float g0 = w[src + tap(flipped, k)], g1 = w[src + tap(flipped, 3 + k)], g2 = w[src + tap(flipped, 6 + k)];
                    t[k] = g0;
                    t[3 + k] = 0.5f * (g0 + g1 + g2);
                    t[6 + k] = 0.5f * (g0 - g1 + g2);
                    t[9 + k] = g2;
                }
                int dst = b * outs + a;
                for (int i = 0; i < 4; i++) {                       // U = t Gᵀ: row i
                    float c0 = t[3 * i], c1 = t[3 * i + 1], c2 = t[3 * i + 2];
                    u[(4 * i) * plane + dst] = c0;
                    u[(4 * i + 1) * plane + dst] = 0.5f * (c0 + c1 + c2);
                    u[(4 * i + 2) * plane + dst] = 0.5f * (c0 - c1 + c2);
                    u[(4 * i + 3) * plane + dst] = c2;
                }
            }
        }
        return u;
    }

    /**
     * Floats from one point's (channels × tiles) matrix to the next in V, M and dM: channels·tiles
     * rounded up to an odd number of 64-byte lines. The transforms touch all 16 points of a tile at
     * once; at a multiple of 4 KiB apart (64 channels × 112 tiles is 7 × 4 KiB) those 16 streams
     * all map to the same L1 sets, which hold 8 lines each.
     */
    static int plane(int channels, int tiles) {
        int lines = (channels * tiles + 15) / 16;
        return 16 * (lines | 1);
    }

    /** Kernel tap k = 3i + j as stored, or of the kernel turned by 180°. */
    private static int tap(boolean flipped, int k) { return flipped ? 8 - k : k; }

    /**
     * V[ξ][c][t] = (Bᵀ d B)_ξ for the block's tile rows [r0, r1), each tw tiles wide (T = (r1 − r0)·tw).
     * Four input rows at a time are copied into a zero-padded strip, combined down the rows
     * (Bᵀ, whole strips: loops the JIT vectorises), then across each tile's four columns (B). The
     * vector path combines the four rows straight from x into the strip's lower half instead, its
     * padded columns zeroed once per call.
     *
     * @param x      the input as (N·C·H, W) rows
     * @param strip  scratch of {@link #stripFloats(int)} floats
     * @param vector whether the combinations run on the Vector API ({@link VectorWinogradTiles})
     */
    static void input(Rows x, ConvGeometry g, int r0, int r1, int tw, int th, float[] v, float[] strip, boolean vector) {
        int c = g.inChannels(), h = g.inH(), w = g.inW(), ph = g.padH(), pw = g.padW();
        int wp = 2 * tw + 2, tiles = (r1 - r0) * tw, plane = plane(c, tiles);
        int copied = Math.max(0, Math.min(w, wp - pw));
        float[] xd = x.data();
        if (vector) Arrays.fill(strip, 0f);
        for (int r = r0; r < r1; r++) {
            int n = r / th, ty = r % th, t0 = (r - r0) * tw;
            for (int ch = 0; ch < c; ch++) {
                int rowBase = (n * c + ch) * h, dst = ch * tiles + t0, top = 2 * ty - ph;
                if (vector) {
                    VectorWinogradTiles.input(xd, start(x, rowBase, top, h), start(x, rowBase, top + 1, h),
                            start(x, rowBase, top + 2, h), start(x, rowBase, top + 3, h), pw, copied, strip, wp, tw, v, dst, plane);
                    continue;
                }
                for (int i = 0; i < 4; i++) {                       // the padded input rows 2ty − ph + i
                    int row = 2 * ty - ph + i, off = i * wp;
                    if (row < 0 || row >= h) {
                        Arrays.fill(strip, off, off + wp, 0f);
                        continue;
                    }
                    Arrays.fill(strip, off, off + pw, 0f);
                    System.arraycopy(xd, x.start(rowBase + row), strip, off + pw, copied);
                    Arrays.fill(strip, off + pw + copied, off + wp, 0f);
                }
                down(strip, wp);
                across(strip, wp, tw, v, dst, plane);
            }
        }
    }

    /** Where input row {@code row} of the plane starting at row rowBase begins, or −1 for a padding row. */
    private static int start(Rows x, int rowBase, int row, int h) {
        return row < 0 || row >= h ? -1 : x.start(rowBase + row);
    }

    /** Bᵀ down the strip's four padded rows: rows 4…7 of the strip. */
    private static void down(float[] strip, int wp) {
        int e = 4 * wp;
        for (int q = 0; q < wp; q++) {
            float b0 = strip[q], b1 = strip[wp + q], b2 = strip[2 * wp + q], b3 = strip[3 * wp + q];
            strip[e + q] = b0 - b2;
            strip[e + wp + q] = b1 + b2;
            strip[e + 2 * wp + q] = b2 - b1;
            strip[e + 3 * wp + q] = b1 - b3;
        }
    }

    /** B across the four columns of each of the tw tiles of the strip's rows 4…7, into V at dst + tx. */
    private static void across(float[] strip, int wp, int tw, float[] v, int dst, int plane) {
        for (int i = 0; i < 4; i++) {
            int src = 4 * wp + i * wp, p0 = 4 * i * plane + dst, p1 = p0 + plane, p2 = p1 + plane, p3 = p2 + plane;
            for (int tx = 0; tx < tw; tx++) {
                int q = src + 2 * tx;
                float d0 = strip[q], d1 = strip[q + 1], d2 = strip[q + 2], d3 = strip[q + 3];
                v[p0 + tx] = d0 - d2;
                v[p1 + tx] = d1 + d2;
                v[p2 + tx] = d2 - d1;
                v[p3 + tx] = d1 - d3;
            }
        }
    }

    /** Floats of {@link #input}'s strip for tile rows tw tiles wide: four padded rows and their combinations. */
    static int stripFloats(int tw) { return 8 * (2 * tw + 2) + STRIP_SLACK; }

    /** Floats past the strip's eight rows that a vector run over a row of fewer tiles than lanes may read (2L + 2 ≤ 64). */
    private static final int STRIP_SLACK = 64;

    /**
     * out[n, o, 2ty + a, 2tx + b] = (Aᵀ M A)_ab + bias[o] for the block's tiles, dropping the
     * outputs past an odd map's edge.
     *
     * @param m    16 × O × T
     * @param bias null or (O) consecutive
     * @param out  contiguous (N, O, outH, outW)
     * @param vector whether whole runs of tiles go through the Vector API ({@link VectorWinogradTiles})
     */
    static void output(float[] m, Rows bias, ConvGeometry g, int r0, int r1, int tw, int th, float[] out, boolean vector) {
        int o = g.outChannels(), oh = g.outH(), ow = g.outW(), tiles = (r1 - r0) * tw, plane = plane(o, tiles);
        for (int r = r0; r < r1; r++) {
            int n = r / th, ty = r % th, t0 = (r - r0) * tw;
            boolean second = 2 * ty + 1 < oh;
            for (int oc = 0; oc < o; oc++) {
                float b = bias == null ? 0f : bias.data()[bias.offset() + oc];
                int base = ((n * o + oc) * oh + 2 * ty) * ow, src = oc * tiles + t0;
                int tx0 = vector ? VectorWinogradTiles.output(m, src, plane, tw, out, base, ow, second, b) : 0;
                outputRow(m, src, plane, tx0, tw, out, base, ow, second, b);
            }
        }
    }

    /** Aᵀ M A + b for the tiles [tx0, tw) of one tile row and channel: M's point ξ of tile tx at src + ξ·plane + tx. */
    static void outputRow(float[] m, int src, int plane, int tx0, int tw, float[] out, int base, int ow, boolean second, float b) {
        int fullTx = ow / 2;
        for (int tx = tx0; tx < tw; tx++) {
            int p = src + tx;
            float s00 = m[p] + m[p + 4 * plane] + m[p + 8 * plane];
            float s01 = m[p + plane] + m[p + 5 * plane] + m[p + 9 * plane];
            float s02 = m[p + 2 * plane] + m[p + 6 * plane] + m[p + 10 * plane];
            float s03 = m[p + 3 * plane] + m[p + 7 * plane] + m[p + 11 * plane];
            float s10 = m[p + 4 * plane] - m[p + 8 * plane] - m[p + 12 * plane];
            float s11 = m[p + 5 * plane] - m[p + 9 * plane] - m[p + 13 * plane];
            float s12 = m[p + 6 * plane] - m[p + 10 * plane] - m[p + 14 * plane];
            float s13 = m[p + 7 * plane] - m[p + 11 * plane] - m[p + 15 * plane];
            int at = base + 2 * tx;
            boolean right = tx < fullTx;
            out[at] = s00 + s01 + s02 + b;
            if (right) out[at + 1] = s01 - s02 - s03 + b;
            if (second) {
                out[at + ow] = s10 + s11 + s12 + b;
                if (right) out[at + ow + 1] = s11 - s12 - s13 + b;
            }
        }
    }

    /**
     * dM[ξ][o][t] = (A dY Aᵀ)_ξ for the block's 2×2 gradOut tiles (zero past an odd map's edge),
     * and db[o] += Σ dY when db is not null.
     *
     * @param grad gradOut as (N·O, outH·outW) rows
     * @param dm   16 × O × T
     */
    static void gradOutput(Rows grad, ConvGeometry g, int r0, int r1, int tw, int th, float[] dm, float[] db, boolean vector) {
        int o = g.outChannels(), oh = g.outH(), ow = g.outW(), tiles = (r1 - r0) * tw, plane = plane(o, tiles);
        float[] gd = grad.data();
        for (int r = r0; r < r1; r++) {
            int n = r / th, ty = r % th, t0 = (r - r0) * tw;
            boolean second = 2 * ty + 1 < oh;
            for (int oc = 0; oc < o; oc++) {
                int row = grad.start(n * o + oc) + 2 * ty * ow, dst = oc * tiles + t0;
                float sum = 0;
                int tx0 = 0;
                if (vector) {
                    tx0 = VectorWinogradTiles.fullTiles(tw, ow);
                    sum = VectorWinogradTiles.gradOutput(gd, row, ow, second, tx0, dm, dst, plane);
                }
                sum += gradRow(gd, row, ow, second, tx0, tw, dm, dst, plane);
                if (db != null) db[oc] += sum;
            }
        }
    }

    /** A dY Aᵀ for the tiles [tx0, tw) of one tile row and channel (gradOut's row 2ty at row); returns Σ dY. */
    static float gradRow(float[] gd, int row, int ow, boolean second, int tx0, int tw, float[] dm, int dst, int plane) {
        int fullTx = ow / 2;
        float sum = 0;
        for (int tx = tx0; tx < tw; tx++) {
            int at = row + 2 * tx;
            boolean right = tx < fullTx;
            float y00 = gd[at], y01 = right ? gd[at + 1] : 0f;
            float y10 = second ? gd[at + ow] : 0f, y11 = second && right ? gd[at + ow + 1] : 0f;
            sum += (y00 + y01) + (y10 + y11);
            int p = dst + tx;
            spread(dm, p, plane, y00, y01);                     // rows of A dY, each times Aᵀ
            spread(dm, p + 4 * plane, plane, y00 + y10, y01 + y11);
            spread(dm, p + 8 * plane, plane, y00 - y10, y01 - y11);
            spread(dm, p + 12 * plane, plane, -y10, -y11);
        }
        return sum;
    }

    /** One row (a, b) of A dY times Aᵀ: (a, a + b, a − b, −b) at four points plane apart. */
    private static void spread(float[] dm, int p, int plane, float a, float b) {
        dm[p] = a;
        dm[p + plane] = a + b;
        dm[p + 2 * plane] = a - b;
        dm[p + 3 * plane] = -b;
    }

    /**
     * dw[o][c][k][l] = (Gᵀ dU G)_kl: the 3×3 kernel gradient from the Winograd-domain one.
     *
     * @param du 16 × O × C
     * @param dw contiguous (O, C, 3, 3), overwritten
     */
    static void weightGradient(float[] du, int outs, int ins, float[] dw) {
        int plane = outs * ins;
        float[] t = new float[12];
        for (int a = 0; a < outs; a++) {
            for (int b = 0; b < ins; b++) {
                int src = a * ins + b;
                for (int j = 0; j < 4; j++) {                       // t = Gᵀ dU: 3×4, column j
                    float u0 = du[j * plane + src], u1 = du[(4 + j) * plane + src];
                    float u2 = du[(8 + j) * plane + src], u3 = du[(12 + j) * plane + src];
                    t[j] = u0 + 0.5f * (u1 + u2);
                    t[4 + j] = 0.5f * (u1 - u2);
                    t[8 + j] = 0.5f * (u1 + u2) + u3;
                }
                int dst = (a * ins + b) * 9;
                for (int k = 0; k < 3; k++) {                       // dg = t G: row k
                    float u0 = t[4 * k], u1 = t[4 * k + 1], u2 = t[4 * k + 2], u3 = t[4 * k + 3];
                    dw[dst + 3 * k] = u0 + 0.5f * (u1 + u2);
                    dw[dst + 3 * k + 1] = 0.5f * (u1 - u2);
                    dw[dst + 3 * k + 2] = 0.5f * (u1 + u2) + u3;
                }
            }
        }
    }
}
