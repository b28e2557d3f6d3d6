package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.RMSNorm;
import dev.symbiont.nn.block.ChannelMixer;
import dev.symbiont.nn.block.ResidualBlock;

/**
 * The Mamba block (Gu &amp; Dao 2023, §3.4 and Fig. 3): a pre-norm residual block over a
 * {@link MambaMixer} and no channel mixer — the mixer's gated expansion (in_proj to 2·d_inner,
 * the silu(z) gate, out_proj) takes the MLP's place:
 * <pre>
 *   y = x + Mixer(RMSNorm(x))
 * </pre>
 * Keys are Hugging Face's {@code MambaBlock}'s: {@code norm.weight} and {@code mixer.…}; its
 * decoding state is the mixer's fixed-size {@link MambaMixer.State}.
 */
public final class MambaBlock extends ResidualBlock<MambaMixer, ChannelMixer> {
    /** @param normEps the RMSNorm's ε (Hugging Face's layer_norm_epsilon, 1e-5) */
    public MambaBlock(MambaConfig config, double normEps, Generator g) {
        super(new RMSNorm(config.dModel(), normEps), new MambaMixer(config, g));
    }

    public MambaMixer mixer() { return sequenceMixer(); }
}
