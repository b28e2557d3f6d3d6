package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Module;

import java.util.Arrays;
import java.util.List;
import java.util.function.DoubleUnaryOperator;

/**
 * Rotary position embeddings (RoPE, Su et al. 2021, eq. 34), in the rotate-half layout of
 * GPT-NeoX and Llama: the head dim is split into halves (x₁, x₂) and pair j = (x₁[j], x₂[j]) is
 * rotated by the angle m·θ_j at position m, θ_j = base^(−2j/d):
 * <pre>
 *   RoPE(x, m) = x ⊙ cos(m·θ) + rotate_half(x) ⊙ sin(m·θ),   rotate_half(x₁, x₂) = (−x₂, x₁)
 * </pre>
 * with θ repeated over both halves, optionally rescaled ({@link RopeScaling}: Llama 3.1's long
 * context). Rotating queries and keys makes q·k depend on positions only through their
 * difference (eq. 16). The cos and sin tables (positions, d) are non-persistent buffers: they
 * follow the module across backends but are not part of the state dict. One table serves every
 * layer of a stack (as Hugging Face's {@code rotary_emb}): {@link TransformerBlock#stack} shares it.
 * The table covers the first {@value #FIRST_POSITIONS} positions (all of them when maxSeq is
 * smaller, so a training step never rebuilds it) and doubles when a longer sequence comes: a model
 * whose context is a million positions does not hold a million rows it may never read.
 */
public final class RotaryEmbedding extends Module {
    /** Positions tabulated before any sequence asks for more. */
    static final int FIRST_POSITIONS = 8192;

    private final int dim, maxSeq;
    private final double base;
    private final RopeScaling scaling;
    /** θ_j after scaling, j = 0..dim/2−1. */
    private final double[] theta;
    /** Positions the tables hold now. */
    private int tabulated;

    /**
     * @param dim    head size d, even
     * @param maxSeq positions 0..maxSeq-1 are tabulated
     * @param base   the frequency base (10 000 in the paper)
     */
    public RotaryEmbedding(int dim, int maxSeq, double base) { this(dim, maxSeq, base, RopeScaling.NONE); }

    /**
     * @param dim     head size d, even
     * @param maxSeq  positions 0..maxSeq-1 are tabulated
     * @param base    the frequency base (10 000 in the paper)
     * @param scaling how the frequencies are rescaled ({@link RopeScaling#NONE}: not at all)
     */
    public RotaryEmbedding(int dim, int maxSeq, double base, RopeScaling scaling) {
        if (dim <= 0 || dim % 2 != 0) throw new IllegalArgumentException("RotaryEmbedding: dim must be positive and even, got " + dim);
        if (maxSeq <= 0) throw new IllegalArgumentException("RotaryEmbedding: maxSeq must be positive, got " + maxSeq);
        if (!(base > 1)) throw new IllegalArgumentException("RotaryEmbedding: base must be > 1, got " + base);
        if ((long) maxSeq * dim > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("RotaryEmbedding: a table of maxSeq " + maxSeq + " × dim " + dim + " exceeds a Java array");
        }
        this.dim = dim;
        this.maxSeq = maxSeq;
        this.base = base;
        this.scaling = scaling;
        double[] unscaled = new double[dim / 2];
        for (int j = 0; j < unscaled.length; j++) unscaled[j] = Math.pow(base, -2.0 * j / dim);
        this.theta = scaling.apply(unscaled);
        this.tabulated = Math.min(maxSeq, FIRST_POSITIONS);
        buffer("cos", table(tabulated, Math::cos), false);
        buffer("sin", table(tabulated, Math::sin), false);
    }

    /** f(m·θ_j) for positions m < positions, θ repeated over both halves: (positions, dim). */
    private Tensor table(int positions, DoubleUnaryOperator f) {
        int half = dim / 2;
        float[] t = new float[positions * dim];
        for (int m = 0; m < positions; m++) {
            for (int j = 0; j < half; j++) {
                float v = (float) f.applyAsDouble(m * theta[j]);
                t[m * dim + j] = v;
                t[m * dim + j + half] = v;
            }
        }
        return Tensor.fromArray(t, positions, dim);
    }

    /** Extends the tables to at least {@code positions} rows (doubling, at most maxSeq), on the backend they are on. */
    private void tabulate(int positions) {
        if (positions <= tabulated) return;
        tabulated = (int) Math.min(maxSeq, Math.max(positions, 2L * tabulated));
        var backend = buffer("cos").backend();
        setBuffer("cos", table(tabulated, Math::cos).to(backend));
        setBuffer("sin", table(tabulated, Math::sin).to(backend));
    }

    /**
     * Rotates x at absolute positions offset, offset+1, ... along its seq dim.
     *
     * @param x      (batch, heads, seq, dim)
     * @param offset position of x's first row (the KV cache's length when decoding incrementally)
     * @return (batch, heads, seq, dim)
     */
    public Tensor apply(Tensor x, int offset) {
        if (x.dim() != 4 || x.size(-1) != dim) {
            throw new IllegalArgumentException("RotaryEmbedding(dim=" + dim + "): expected x of shape (batch, heads, seq, " + dim
                    + "), got " + Arrays.toString(x.shape()));
        }
        int seq = x.size(2);
        if (offset < 0 || offset + seq > maxSeq) {
            throw new IllegalArgumentException("RotaryEmbedding: positions [" + offset + ", " + (offset + seq)
                    + ") lie outside the table of maxSeq = " + maxSeq);
        }
        tabulate(offset + seq);
        Tensor cos = buffer("cos").narrow(0, offset, seq), sin = buffer("sin").narrow(0, offset, seq); // (seq, dim)
        return x.mul(cos).add(rotateHalf(x).mul(sin));
    }

    /** (x₁, x₂) → (−x₂, x₁) over the last dim. */
    static Tensor rotateHalf(Tensor x) {
        int half = x.size(-1) / 2;
        return Tensor.cat(List.of(x.narrow(-1, half, half).neg(), x.narrow(-1, 0, half)), -1);
    }

    public int dim() { return dim; }

    public int maxSeq() { return maxSeq; }

    @Override
    protected String extraRepr() {
        return "dim=" + dim + ", maxSeq=" + maxSeq + ", base=" + base + (scaling == RopeScaling.NONE ? "" : ", scaling=" + scaling);
    }
}
