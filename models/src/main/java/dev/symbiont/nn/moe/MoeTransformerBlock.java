package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.MultiHeadAttention;
import dev.symbiont.nn.attention.RotaryEmbedding;
import dev.symbiont.nn.attention.TransformerBlock;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.ResidualBlock;

import java.util.ArrayList;
import java.util.List;

/**
 * The Transformer block with a mixture of experts in place of the MLP (Switch Transformer, Fedus
 * et al. 2022, fig. 2; Mixtral):
 * <pre>
 *   h = x + Attn(Norm₁(x))
 *   y = h + MoE(Norm₂(h))
 * </pre>
 * Keys: {@code norm1}, {@code attn}, {@code norm2}, {@code block_sparse_moe}; its decoding state is attention's.
 */
public final class MoeTransformerBlock extends ResidualBlock<MultiHeadAttention, MoeFeedForward> {
    public MoeTransformerBlock(BlockConfig c, MoeConfig moe, Generator g) { this(c, c.newRope(), moe, g); }

    /** A block whose attention rotates by {@code rope} (null exactly without RoPE), which other blocks may share. */
    public MoeTransformerBlock(BlockConfig c, RotaryEmbedding rope, MoeConfig moe, Generator g) {
        super(c.newNorm(), new MultiHeadAttention(c, rope, g), c.newNorm(), new MoeFeedForward(moe, g));
    }

    /**
     * A causal decoder of {@code layers} blocks whose every {@code m.every()}-th block (the 2nd,
     * 4th, ... for every 2, as Switch; all for every 1) is an MoE block and the rest dense
     * {@link TransformerBlock}s; keys {@code blocks.<i>.…} and {@code norm_f}.
     */
    public static DecoderStack decoder(BlockConfig c, MoeLayers m, int layers, Generator g) {
        if (layers <= 0) throw new IllegalArgumentException("MoeTransformerBlock.decoder: layers must be positive, got " + layers);
        MoeConfig moe = m.layer(c.dModel());
        RotaryEmbedding rope = c.newRope();
        List<ResidualBlock<?, ?>> blocks = new ArrayList<>();
        for (int i = 0; i < layers; i++) {
            blocks.add(m.isMoe(i) ? new MoeTransformerBlock(c, rope, moe, g) : new TransformerBlock(c, rope, g));
        }
        return new DecoderStack(c.dModel(), blocks, c.newNorm());
    }

    public MultiHeadAttention attn() { return sequenceMixer(); }

    public MoeFeedForward moe() { return channelMixer(); }
}
