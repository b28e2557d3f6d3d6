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
    public TransformerBlock(BlockConfig c, Generator g) {
        super(c.norm().create(c.dModel()), new MultiHeadAttention(c, g), c.norm().create(c.dModel()), new FeedForward(c, g));
    }

    /** {@code layers} blocks of one config, drawn from {@code g} in order. */
    public static List<TransformerBlock> stack(BlockConfig c, int layers, Generator g) {
        if (layers <= 0) throw new IllegalArgumentException("TransformerBlock.stack: layers must be positive, got " + layers);
        List<TransformerBlock> list = new ArrayList<>();
        for (int i = 0; i < layers; i++) list.add(new TransformerBlock(c, g));
        return list;
    }

    /** A causal decoder of {@code layers} blocks and a final norm ({@code blocks.<i>.…}, {@code norm_f}): GPT's stack. */
    public static DecoderStack decoder(BlockConfig c, int layers, Generator g) {
        return new DecoderStack(c.dModel(), stack(c, layers, g), c.norm().create(c.dModel()));
    }

    public MultiHeadAttention attn() { return sequenceMixer(); }

    public FeedForward mlp() { return channelMixer(); }
}
