package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.RMSNorm;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.FeedForward;
import dev.symbiont.nn.attention.TransformerBlock;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.block.ResidualBlock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Jamba-style stack — an attention block between two Mamba blocks on the generic residual
 * block — decodes token by token (KV cache and Mamba states side by side) to the same
 * outputs as its full forward.
 */
class HybridStackTest {

    private static DecoderStack hybrid() {
        Generator g = new Generator(9);
        BlockConfig c = BlockConfig.of(8, 2, 16);
        MambaConfig m = new MambaConfig(8, 16, 4, 1, 4);
        List<ResidualBlock<?, ?>> blocks = List.of(
                new ResidualBlock<>(new RMSNorm(8), new MambaMixer(m, g), new RMSNorm(8), new FeedForward(c, g)),
                new TransformerBlock(c, g),
                new ResidualBlock<>(new RMSNorm(8), new MambaMixer(m, g), new RMSNorm(8), new FeedForward(c, g)));
        return new DecoderStack(8, blocks, new RMSNorm(8));
    }

    @Test
    void attentionAndMambaBlocksDecodeTokenByTokenAsTheFullForward() {
        DecoderStack stack = hybrid();
        Tensor x = Tensor.randn(new Generator(10), 2, 9, 8);
        float[] full = stack.forward(x).toFloatArray();
        DecodingState state = stack.newState(16);
        assertInstanceOf(MambaMixer.State.class, state.layer(0));
        List<Tensor> parts = new ArrayList<>(List.of(stack.forward(x.narrow(1, 0, 3), null, state)));
        for (int t = 3; t < 9; t++) parts.add(stack.forward(x.narrow(1, t, 1), null, state));
        float[] stepped = Tensor.cat(parts, 1).toFloatArray();
        for (int i = 0; i < full.length; i++) assertEquals(full[i], stepped[i], 1e-4, "element " + i);
        assertEquals(9, state.length());
        assertTrue(stack.stateDict().containsKey("blocks.0.mixer.A_log") && stack.stateDict().containsKey("blocks.1.attn.qkv.weight"));
    }
}
