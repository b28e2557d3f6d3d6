package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.PoolGeometry;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

import java.util.Arrays;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * max_pool2d's forward on the Vector API, L outputs of a row at a time: for windows one column
 * apart (dilation 1) and a column stride of 1 or 2, tap j of outputs ow … ow + L − 1 is one vector
 * of a row padded with −∞ (stride 2: the even lanes of two). Per lane the taps are taken in window
 * order with the scalar loop's rule — a tap replaces the best so far when it is greater or NaN — so
 * the maxima and their indices are {@link PoolLoops#maxForward}'s, bit for bit; that loop is the
 * twin and runs every other geometry. The scalar loop's compare-and-select chain ran at ~150
 * cycles per 3 × 3 window.
 */
public final class VectorMaxPool {
    private VectorMaxPool() {}

    private static final VectorSpecies<Integer> I = S.withLanes(int.class);
    /** Lanes 0, 2, 4, … of two consecutive vectors. */
    private static final VectorShuffle<Float> EVEN = VectorShuffle.fromOp(S, i -> 2 * i);
    /** Column offsets of lanes 0 … L − 1 for column strides 1 and 2. */
    private static final IntVector STEP1 = IntVector.zero(I).addIndex(1), STEP2 = IntVector.zero(I).addIndex(2);

    /** Whether the vector loop computes this geometry: dilation 1 along the row, column stride 1 or 2. */
    public static boolean applies(PoolGeometry g) {
        return g.dilationW() == 1 && (g.strideW() == 1 || g.strideW() == 2);
    }

    /** As {@link PoolLoops#maxForward}; requires {@link #applies}. */
    public static void forward(Rows x, PoolGeometry g, float[] out, long[] indices) {
        int outW = g.outW(), runs = (outW + L - 1) / L, padded = runs * L, sw = g.strideW(), pw = g.padW();
        int stripLength = Math.max(pw + g.inW(), sw * padded + g.kernelW() + 2 * L);
        int grain = Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, g.outH() * outW * g.kernelH() * g.kernelW()));
        Parallel.forRange(g.batch() * g.channels(), grain, (p0, p1) -> {
            float[] strip = new float[stripLength], best = new float[padded];
            int[] where = new int[padded];
            Arrays.fill(strip, Float.NEGATIVE_INFINITY);                 // row copies fill [pw, pw + inW) only
            for (int p = p0; p < p1; p++) {
                for (int oh = 0; oh < g.outH(); oh++) outputRow(x, g, p, oh, strip, best, where, out, indices);
            }
        });
    }

    /** Output row oh of plane p. */
    private static void outputRow(Rows x, PoolGeometry g, int p, int oh, float[] strip, float[] best, int[] where,
                                  float[] out, long[] indices) {
        int inH = g.inH(), inW = g.inW(), outW = g.outW(), sw = g.strideW(), pw = g.padW(), dh = g.dilationH();
        int h0 = g.rowStart(oh), iLo = h0 >= 0 ? 0 : (-h0 + dh - 1) / dh;
        int iHi = h0 >= inH ? 0 : Math.min(g.kernelH(), (inH - 1 - h0) / dh + 1);
        // before any tap: −∞, and the index of the window's first tap inside the input (−1 if none)
        Arrays.fill(best, Float.NEGATIVE_INFINITY);
        for (int ow = 0; ow < outW; ow++) {
            int w0 = g.colStart(ow), first = Math.max(w0, 0);
            where[ow] = iLo < iHi && first < inW && first < w0 + g.kernelW() ? (h0 + iLo * dh) * inW + first : -1;
        }
        IntVector step = sw == 1 ? STEP1 : STEP2;
        for (int i = iLo; i < iHi; i++) {
            int h = h0 + i * dh;
            System.arraycopy(x.data(), x.start(p * inH + h), strip, pw, inW);
            for (int ow0 = 0; ow0 < outW; ow0 += L) {
                FloatVector b = FloatVector.fromArray(S, best, ow0);
                IntVector at = IntVector.fromArray(I, where, ow0);
                for (int j = 0; j < g.kernelW(); j++) {
                    int q = sw * ow0 + j;                                // strip column of lane 0's tap j
                    FloatVector v = sw == 1 ? FloatVector.fromArray(S, strip, q)
                            : FloatVector.fromArray(S, strip, q).rearrange(EVEN, FloatVector.fromArray(S, strip, q + L));
                    VectorMask<Float> take = v.compare(VectorOperators.GT, b).or(v.test(VectorOperators.IS_NAN));
                    b = b.blend(v, take);
                    at = at.blend(step.add(h * inW + q - pw), take.cast(I));
                }
                b.intoArray(best, ow0);
                at.intoArray(where, ow0);
            }
        }
        int o = (p * g.outH() + oh) * outW;
        System.arraycopy(best, 0, out, o, outW);
        for (int ow = 0; ow < outW; ow++) indices[o + ow] = where[ow];
    }
}
