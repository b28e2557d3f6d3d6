package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.RMSNorm;
import dev.symbiont.nn.block.ChannelMixer;
import dev.symbiont.nn.block.ResidualBlock;
import dev.symbiont.nn.block.SequenceMixer;

/**
 * The Mamba block (Gu &amp; Dao 2023, §3.4 and Fig. 3; Dao &amp; Gu 2024, Fig. 6 for Mamba-2): a
 * pre-norm residual block over a state-space mixer — {@link MambaMixer} or {@link Mamba2Mixer},
 * as the config's kind says — and no channel mixer: the mixer's gated expansion (in_proj to
 * about 2·d_inner, the silu(z) gate, out_proj) takes the MLP's place:
 * <pre>
 *   y = x + Mixer(RMSNorm(x))
 * </pre>
 * Keys are Hugging Face's {@code MambaBlock}'s and {@code Mamba2Block}'s: {@code norm.weight} and
 * {@code mixer.…}; its decoding state is the mixer's fixed-size state.
 */
public final class MambaBlock extends ResidualBlock<SequenceMixer, ChannelMixer> {
    /** @param normEps the RMSNorms' ε (Hugging Face's layer_norm_epsilon, 1e-5), the block's and the mixer's own */
    public MambaBlock(StateSpaceConfig config, double normEps, Generator g) {
        super(new RMSNorm(config.dModel(), normEps), config.newMixer(g, normEps));
    }

    public SequenceMixer mixer() { return sequenceMixer(); }
}
