package dev.symbiont.cpu.kernels;

import dev.symbiont.core.Half;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * y = x·Wᵀ + b for a few rows of x and a row-major W (out, in) of float32 or bfloat16 bits: a
 * decoding step's linear layers, where every weight is read once per token and the time is the
 * memory traffic. A GEMM would pack W first (one more pass over it, for one row); here each
 * output is a dot product along W's row, four rows of W at a time against each row of x, so
 * the block stays in L1 while the rows of x pass over it. Bfloat16 weights are widened in
 * registers (a 16-bit shift), so they cost half the bytes of float32 ones and no copy.
 *
 * <p>{@code vector} false runs the scalar twin, the same loop one element at a time. Output
 * rows are split over the pool once the weights exceed {@link Parallel#ELEMENT_GRAIN}.
 */
public final class MatVec {
    private MatVec() {}

    /** The most rows of x this kernel takes; more rows reuse each weight enough to pay for a GEMM's packing. */
    public static final int MAX_ROWS = 4;

    /** Output features per block: four accumulators in flight hide the FMA latency. */
    private static final int BLOCK = 4;

    /**
     * W as the kernel reads it: row j starts at {@code offset + j·rowStride}, its elements
     * consecutive; {@code data} is a float[] or a short[] of bfloat16 bits.
     */
    public record Weights(Object data, int offset, int rowStride) {
        public Weights {
            if (!(data instanceof float[]) && !(data instanceof short[])) {
                throw new IllegalArgumentException("MatVec: weights must be float[] or short[] (bfloat16), got " + data.getClass());
            }
        }
    }

    /**
     * y[i·ldy + j] = bias[biasOff + j] (0 without a bias) + Σ_p x[xOff + i·xStride + p]·W[j, p]
     * for i &lt; rows, j &lt; out, p &lt; in.
     *
     * @throws IllegalArgumentException when rows exceeds {@link #MAX_ROWS}
     */
    public static void forward(boolean vector, int rows, int out, int in, float[] x, int xOff, int xStride, Weights w,
                               float[] bias, int biasOff, float[] y, int ldy) {
        if (rows > MAX_ROWS) throw new IllegalArgumentException("MatVec: at most " + MAX_ROWS + " rows, got " + rows);
        int blocks = (out + BLOCK - 1) / BLOCK;
        int grain = Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, BLOCK * in));
        Parallel.forRange(blocks, grain, (from, to) -> {
            float[] sums = new float[BLOCK], tail = new float[BLOCK];
            for (int block = from; block < to; block++) {
                int j0 = block * BLOCK, n = Math.min(BLOCK, out - j0);
                for (int i = 0; i < rows; i++) {
                    int xi = xOff + i * xStride;
                    if (vector && n == BLOCK) Lanes.block(x, xi, in, w, j0, sums, tail);
                    else scalarBlock(x, xi, in, w, j0, n, sums);
                    for (int b = 0; b < n; b++) {
                        y[i * ldy + j0 + b] = sums[b] + (bias == null ? 0f : bias[biasOff + j0 + b]);
                    }
                }
            }
        });
    }

    /** The scalar twin: sums[b] = Σ_p x[xi + p]·W[j0 + b, p] for b &lt; n, accumulated in order. */
    private static void scalarBlock(float[] x, int xi, int in, Weights w, int j0, int n, float[] sums) {
        for (int b = 0; b < n; b++) {
            int row = w.offset() + (j0 + b) * w.rowStride();
            float s = 0;
            if (w.data() instanceof float[] f) {
                for (int p = 0; p < in; p++) s = Math.fma(x[xi + p], f[row + p], s);
            } else {
                short[] h = (short[]) w.data();
                for (int p = 0; p < in; p++) s = Math.fma(x[xi + p], Half.bf16ToFloat(h[row + p]), s);
            }
            sums[b] = s;
        }
    }

    /** The Vector-API loop, in a class of its own so the scalar twin loads without the module. */
    private static final class Lanes {
        /** Shorts at half the float width: one load widens to one float vector. */
        private static final VectorSpecies<Short> SHORTS = VectorSpecies.of(short.class, VectorShape.forBitSize(S.vectorBitSize() / 2));
        private static final VectorSpecies<Integer> INTS = VectorSpecies.of(int.class, S.vectorShape());

        /** {@code tail}: scratch of {@link #BLOCK} for the columns past the last whole vector. */
        static void block(float[] x, int xi, int in, Weights w, int j0, float[] sums, float[] tail) {
            int stride = w.rowStride(), r0 = w.offset() + j0 * stride, end = S.loopBound(in);
            FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
            if (w.data() instanceof float[] f) {
                for (int p = 0; p < end; p += L) {
                    FloatVector xv = FloatVector.fromArray(S, x, xi + p);
                    a0 = FloatVector.fromArray(S, f, r0 + p).fma(xv, a0);
                    a1 = FloatVector.fromArray(S, f, r0 + stride + p).fma(xv, a1);
                    a2 = FloatVector.fromArray(S, f, r0 + 2 * stride + p).fma(xv, a2);
                    a3 = FloatVector.fromArray(S, f, r0 + 3 * stride + p).fma(xv, a3);
                }
            } else {
                short[] h = (short[]) w.data();
                for (int p = 0; p < end; p += L) {
                    FloatVector xv = FloatVector.fromArray(S, x, xi + p);
                    a0 = widen(h, r0 + p).fma(xv, a0);
                    a1 = widen(h, r0 + stride + p).fma(xv, a1);
                    a2 = widen(h, r0 + 2 * stride + p).fma(xv, a2);
                    a3 = widen(h, r0 + 3 * stride + p).fma(xv, a3);
                }
            }
            sums[0] = a0.reduceLanes(VectorOperators.ADD);
            sums[1] = a1.reduceLanes(VectorOperators.ADD);
            sums[2] = a2.reduceLanes(VectorOperators.ADD);
            sums[3] = a3.reduceLanes(VectorOperators.ADD);
            if (end < in) {
                Weights rest = new Weights(w.data(), w.offset() + end, stride);
                scalarBlock(x, xi + end, in - end, rest, j0, BLOCK, tail);
                for (int b = 0; b < BLOCK; b++) sums[b] += tail[b];
            }
        }

        /** L bfloat16 values from h[at]: each the high half of a float32, so a shift widens it exactly. */
        private static FloatVector widen(short[] h, int at) {
            return ((IntVector) ShortVector.fromArray(SHORTS, h, at).convertShape(VectorOperators.S2I, INTS, 0))
                    .lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
        }
    }
}
