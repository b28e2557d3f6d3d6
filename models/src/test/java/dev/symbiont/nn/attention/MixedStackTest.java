package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.block.CausalConvMixer;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.block.ResidualBlock;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.symbiont.nn.attention.AttentionTesting.assertClose;
import static dev.symbiont.nn.attention.AttentionTesting.randn;
import static dev.symbiont.nn.attention.AttentionTesting.rows;
import static org.junit.jupiter.api.Assertions.*;

/** A stack that mixes two kinds of sequence mixer (Jamba-style), each block with its own decoding state. */
class MixedStackTest {
    private static final BlockConfig C = BlockConfig.of(16, 4, 32).withKvHeads(2).withRope(12).withNorm(NormKind.RMS_NORM);

    private static ResidualBlock<CausalConvMixer, FeedForward> convBlock(Generator g) {
        return new ResidualBlock<>(C.norm().create(16), new CausalConvMixer(16, 3, g), C.norm().create(16), new FeedForward(C, g));
    }

    /** attention, convolution, attention. */
    private static DecoderStack hybrid() {
        Generator g = new Generator(21);
        return new DecoderStack(16, List.of(new TransformerBlock(C, g), convBlock(g), new TransformerBlock(C, g)), C.norm().create(16));
    }

    @Test
    void should_name_each_block_after_its_own_mixers() {
        var keys = hybrid().stateDict().keySet();
        assertTrue(keys.containsAll(List.of("blocks.0.attn.qkv.weight", "blocks.1.norm1.weight", "blocks.1.mixer.weight",
                "blocks.1.mlp.fc.weight", "blocks.2.attn.proj.weight", "norm_f.weight")), keys.toString());
    }

    @Test
    void should_decode_a_stack_of_two_mixer_kinds_incrementally_like_the_full_sequence() {
        DecoderStack stack = hybrid();
        Tensor x = randn(22, 2, 8, 16);
        Tensor full = stack.forward(x);
        DecodingState state = stack.newState(8);
        assertInstanceOf(KvCache.class, state.layer(0));
        assertInstanceOf(CausalConvMixer.Window.class, state.layer(1));
        int at = 0;
        for (int len : new int[] {3, 1, 2, 1, 1}) {
            Tensor step = stack.forward(x.narrow(1, at, len), null, state);
            assertClose(rows(full, at, len), step.toFloatArray(), 1e-5, "positions " + at + ".." + (at + len - 1));
            at += len;
        }
        assertEquals(8, state.length());
        assertEquals(8, state.layer(1).length(), "the convolution's window advanced with the cache");
        state.clear();
        assertEquals(0, state.layer(1).length());
        assertClose(rows(full, 0, 4), stack.forward(x.narrow(1, 0, 4), null, state).toFloatArray(), 1e-5, "after clear");
    }

    @Test
    void should_carry_the_convolution_window_between_steps() {
        DecoderStack stack = hybrid();
        Tensor x = randn(23, 1, 4, 16);
        DecodingState state = stack.newState(4), fresh = stack.newState(4);
        stack.forward(x.narrow(1, 0, 3), null, state);
        Tensor carried = stack.forward(x.narrow(1, 3, 1), null, state);
        // The same step with a window of zeros but the attention caches filled.
        stack.forward(x.narrow(1, 0, 3), null, fresh);
        fresh.layer(1).clear();
        Tensor forgotten = stack.forward(x.narrow(1, 3, 1), null, fresh);
        assertNotEquals(carried.sum().item(), forgotten.sum().item(), "without its window the convolution block differs");
    }

    @Test
    void should_refuse_a_decoding_state_made_by_another_kind_of_mixer() {
        ResidualBlock<CausalConvMixer, FeedForward> block = convBlock(new Generator(24));
        Tensor x = randn(25, 1, 2, 16);
        var e = assertThrows(IllegalArgumentException.class, () -> block.forward(x, null, true, new KvCache(4)));
        assertTrue(e.getMessage().contains("CausalConvMixer") && e.getMessage().contains("Window") && e.getMessage().contains("KvCache"),
                e.getMessage());
        TransformerBlock attention = new TransformerBlock(C, new Generator(26));
        e = assertThrows(IllegalArgumentException.class, () -> attention.forward(x, null, true, block.newState(4)));
        assertTrue(e.getMessage().contains("MultiHeadAttention") && e.getMessage().contains("KvCache"), e.getMessage());
    }
}
