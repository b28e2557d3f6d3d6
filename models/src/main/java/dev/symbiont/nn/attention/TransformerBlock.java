package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.ResidualBlock;

import java.util.ArrayList;
import java.util.List;

/**
 * The Transformer block (GPT-2; Llama with RMSNorm and SwiGLU): a pre-norm {@link ResidualBlock}
 * whose sequence mixer is self-attention and whose channel mixer is the feed-forward layer:
 * <pre>
 *   h = x + Attn(Norm₁(x))
 *   y = h + MLP(Norm₂(h))
 * </pre>
 * Keys: {@code norm1}, {@code attn}, {@code norm2}, {@code mlp}; its decoding state is a {@link KvCache}.
 */
public final class TransformerBlock extends ResidualBlock<MultiHeadAttention, FeedForward> {
    /** A block with a rotary embedding of its own when the config has RoPE. */
    public TransformerBlock(BlockConfig c, Generator g) { this(c, c.newRope(), g); }

    /** A block whose attention rotates by {@code rope} (null exactly without RoPE), which other blocks may share. */
    public TransformerBlock(BlockConfig c, RotaryEmbedding rope, Generator g) {
        super(c.newNorm(), new MultiHeadAttention(c, rope, g), c.newNorm(), new FeedForward(c, g));
    }

    /** {@code layers} blocks of one config sharing one RoPE table, drawn from {@code g} in order. */
    public static List<TransformerBlock> stack(BlockConfig c, int layers, Generator g) {
        if (layers <= 0) throw new IllegalArgumentException("TransformerBlock.stack: layers must be positive, got " + layers);
        RotaryEmbedding rope = c.newRope();
        List<TransformerBlock> list = new ArrayList<>();
        for (int i = 0; i < layers; i++) list.add(new TransformerBlock(c, rope, g));
        return list;
    }

    /** A causal decoder of {@code layers} blocks and a final norm ({@code blocks.<i>.…}, {@code norm_f}): GPT's stack. */
    public static DecoderStack decoder(BlockConfig c, int layers, Generator g) {
        return new DecoderStack(c.dModel(), stack(c, layers, g), c.newNorm());
    }

    public MultiHeadAttention attn() { return sequenceMixer(); }

    public FeedForward mlp() { return channelMixer(); }
}
