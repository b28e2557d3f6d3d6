package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;

/**
 * The sizes of one Mamba mixer (Gu &amp; Dao 2023; names as Hugging Face's {@code MambaConfig}).
 *
 * @param dModel the residual stream's width (hidden_size)
 * @param dInner the expanded width the scan runs at (intermediate_size; the paper's E·D, E = 2)
 * @param dState N, the state size per channel (state_size)
 * @param dtRank the rank of Δ's projection (time_step_rank)
 * @param dConv  the causal convolution's kernel (conv_kernel)
 */
public record MambaConfig(int dModel, int dInner, int dState, int dtRank, int dConv) implements StateSpaceConfig {
    public MambaConfig {
        if (dModel <= 0 || dInner <= 0 || dState <= 0 || dtRank <= 0 || dConv <= 0) {
            throw new IllegalArgumentException("MambaConfig: every size must be positive, got dModel=" + dModel + ", dInner=" + dInner
                    + ", dState=" + dState + ", dtRank=" + dtRank + ", dConv=" + dConv);
        }
    }

    /** The paper's defaults for width {@code dModel}: d_inner = 2·d, dt_rank = ⌈d/16⌉, N = 16, d_conv = 4. */
    public static MambaConfig of(int dModel) {
        return new MambaConfig(dModel, 2 * dModel, 16, (dModel + 15) / 16, 4);
    }

    @Override
    public String architecture() { return "mamba"; }

    @Override
    public MambaMixer newMixer(Generator g) { return new MambaMixer(this, g); }

    /** This config with state size {@code n}. */
    public MambaConfig withState(int n) { return new MambaConfig(dModel, dInner, n, dtRank, dConv); }
}
