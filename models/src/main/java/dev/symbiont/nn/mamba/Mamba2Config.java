package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;

/**
 * The sizes of one Mamba-2 mixer (Dao &amp; Gu 2024; names as Hugging Face's {@code Mamba2Config}).
 * The scan runs at d_inner = heads · headDim; B and C have N states in each of nGroups groups,
 * shared by heads / nGroups heads (grouped-value attention's grouping, §7.2).
 *
 * @param dModel    the residual stream's width (hidden_size)
 * @param heads     SSM heads, each with its own scalar A, Δ and D (num_heads)
 * @param headDim   channels per head, P (head_dim)
 * @param dState    N, the state size of B and C (state_size)
 * @param nGroups   groups of B and C; divides heads (n_groups)
 * @param dConv     the causal convolution's kernel (conv_kernel)
 * @param chunkSize the SSD's chunk length Q: quadratic within a chunk, recurrent between chunks (chunk_size)
 */
public record Mamba2Config(int dModel, int heads, int headDim, int dState, int nGroups, int dConv, int chunkSize)
        implements StateSpaceConfig {
    /** mamba-ssm's and Hugging Face's chunk length. */
    public static final int DEFAULT_CHUNK = 256;
    /** mamba-ssm's head width, used where d_inner leaves at least eight heads of it. */
    public static final int DEFAULT_HEAD_DIM = 64;

    public Mamba2Config {
        // The record's fields are not set yet inside its compact constructor: format the arguments.
        String given = "dModel=" + dModel + ", heads=" + heads + ", headDim=" + headDim + ", dState=" + dState + ", nGroups=" + nGroups
                + ", dConv=" + dConv + ", chunkSize=" + chunkSize;
        if (dModel <= 0 || heads <= 0 || headDim <= 0 || dState <= 0 || nGroups <= 0 || dConv <= 0 || chunkSize <= 0) {
            throw new IllegalArgumentException("Mamba2Config: every size must be positive, got " + given);
        }
        if (heads % nGroups != 0) {
            throw new IllegalArgumentException("Mamba2Config: nGroups " + nGroups + " must divide heads " + heads + ", got " + given);
        }
    }

    /**
     * Hugging Face's defaults scaled to width {@code dModel}: expand 2, N 64, one group, d_conv 4,
     * chunk 256, and head width {@link #defaultHeadDim}.
     */
    public static Mamba2Config of(int dModel) { return of(dModel, 2, 0, 64); }

    /**
     * @param expand  d_inner = expand · dModel
     * @param headDim channels per head; 0 picks {@link #defaultHeadDim}
     * @param dState  N
     */
    public static Mamba2Config of(int dModel, int expand, int headDim, int dState) {
        if (dModel <= 0 || expand <= 0 || headDim < 0) {
            throw new IllegalArgumentException("Mamba2Config.of: dModel and expand must be positive and headDim non-negative, got "
                    + dModel + ", " + expand + ", " + headDim);
        }
        int dInner = expand * dModel, p = headDim == 0 ? defaultHeadDim(dInner) : headDim;
        if (dInner % p != 0) {
            throw new IllegalArgumentException("Mamba2Config.of: headDim " + p + " must divide d_inner " + dInner + " (expand " + expand
                    + " × dModel " + dModel + ")");
        }
        return new Mamba2Config(dModel, dInner / p, p, dState, 1, 4, DEFAULT_CHUNK);
    }

    /** 64 (mamba-ssm's) where d_inner holds at least eight heads of it, else d_inner / 8, else one head of all of d_inner. */
    public static int defaultHeadDim(int dInner) {
        if (dInner >= 8 * DEFAULT_HEAD_DIM) return DEFAULT_HEAD_DIM;
        return dInner % 8 == 0 ? dInner / 8 : dInner;
    }

    @Override
    public int dInner() { return heads * headDim; }

    /** The convolution's channels: x, B and C together, d_inner + 2 · nGroups · N. */
    public int convDim() { return dInner() + 2 * nGroups * dState; }

    @Override
    public String architecture() { return "mamba2"; }

    @Override
    public Mamba2Mixer newMixer(Generator g) { return new Mamba2Mixer(this, g); }

    @Override
    public Mamba2Mixer newMixer(Generator g, double normEps) { return new Mamba2Mixer(this, normEps, g); }

    /** This config with state size {@code n}. */
    public Mamba2Config withState(int n) { return new Mamba2Config(dModel, heads, headDim, n, nGroups, dConv, chunkSize); }

    /** This config with convolution kernel {@code k}. */
    public Mamba2Config withConv(int k) { return new Mamba2Config(dModel, heads, headDim, dState, nGroups, k, chunkSize); }

    /** This config with chunk length {@code q}. */
    public Mamba2Config withChunkSize(int q) { return new Mamba2Config(dModel, heads, headDim, dState, nGroups, dConv, q); }

    /** This config with {@code groups} groups of B and C. */
    public Mamba2Config withGroups(int groups) { return new Mamba2Config(dModel, heads, headDim, dState, groups, dConv, chunkSize); }
}
