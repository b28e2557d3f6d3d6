package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.block.DecoderStack;
import dev.symbiont.nn.block.DecodingState;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.symbiont.nn.attention.AttentionTesting.assertClose;
import static dev.symbiont.nn.attention.AttentionTesting.randn;
import static dev.symbiont.nn.attention.AttentionTesting.rows;
import static org.junit.jupiter.api.Assertions.*;

class TransformerStackTest {
    private static final BlockConfig BASE = BlockConfig.of(16, 4, 32);

    @Test
    void should_name_block_weights_after_their_role() {
        var keys = List.copyOf(new TransformerBlock(BASE, new Generator(1)).stateDict().keySet());
        assertEquals(List.of("norm1.weight", "norm1.bias", "attn.qkv.weight", "attn.qkv.bias", "attn.proj.weight", "attn.proj.bias",
                "norm2.weight", "norm2.bias", "mlp.fc.weight", "mlp.fc.bias", "mlp.proj.weight", "mlp.proj.bias"), keys);
        var llama = List.copyOf(new TransformerBlock(BASE.withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU).withFusedQkv(false)
                .withBias(false).withRope(8), new Generator(1)).stateDict().keySet());
        assertEquals(List.of("norm1.weight", "attn.q_proj.weight", "attn.k_proj.weight", "attn.v_proj.weight", "attn.out_proj.weight",
                "norm2.weight", "mlp.w1.weight", "mlp.w2.weight", "mlp.w3.weight"), llama);
        var stack = TransformerBlock.decoder(BASE, 2, new Generator(1)).stateDict().keySet();
        assertTrue(stack.contains("blocks.1.attn.qkv.weight") && stack.contains("norm_f.weight"), stack.toString());
    }

    @Test
    void should_compute_swiglu_as_w2_of_silu_w1_times_w3() {
        FeedForward ff = new FeedForward(BASE.withMlp(MlpKind.SWIGLU), new Generator(2));
        var s = ff.stateDict();
        Tensor x = randn(3, 2, 3, 16);
        Tensor expected = x.matmul(s.get("w1.weight").t()).silu().mul(x.matmul(s.get("w3.weight").t())).matmul(s.get("w2.weight").t());
        assertClose(expected, ff.forward(x), 1e-5, "SwiGLU");
        try (var noGrad = dev.symbiont.core.autograd.GradMode.disabled()) {
            assertClose(expected, ff.forward(x), 1e-5, "SwiGLU without gradients");
        }
    }

    @Test
    void should_add_attention_then_mlp_to_the_residual_stream() {
        TransformerBlock block = new TransformerBlock(BASE.withNorm(NormKind.RMS_NORM), new Generator(3));
        Map<String, Parameter> p = block.namedParameters();
        Tensor x = randn(4, 2, 5, 16);
        Tensor h = x.add(block.attn().forward(x.rmsNorm(new int[] {16}, p.get("norm1.weight").value(), 1e-6), null, true, null));
        Tensor y = h.add(block.mlp().forward(h.rmsNorm(new int[] {16}, p.get("norm2.weight").value(), 1e-6)));
        assertClose(y, block.forward(x, null, true, null), 1e-6, "pre-norm residual block");
    }

    @Test
    void should_ignore_padding_tokens_in_the_encoder() {
        TransformerEncoder encoder = new TransformerEncoder(BASE.withKvHeads(2).withRope(8), 2, new Generator(5));
        Tensor x = randn(6, 1, 6, 16);
        Tensor padding = Tensor.fromArray(new long[] {1, 1, 1, 1, 0, 0}, 1, 6);
        Tensor padded = encoder.forward(x, padding);
        Tensor otherPadding = Tensor.cat(List.of(x.narrow(1, 0, 4), randn(7, 1, 2, 16)), 1);
        Tensor shortOnly = encoder.forward(x.narrow(1, 0, 4), null);
        assertClose(shortOnly.toFloatArray(), rows(padded, 0, 4), 1e-5, "padded vs unpadded");
        assertClose(rows(padded, 0, 4), rows(encoder.forward(otherPadding, padding), 0, 4), 1e-6, "padding content");
        Tensor unmasked = encoder.forward(x, null);
        assertNotEquals(unmasked.narrow(1, 0, 1).sum().item(), padded.narrow(1, 0, 1).sum().item(), "without the mask padding is seen");
        var e = assertThrows(IllegalArgumentException.class, () -> encoder.forward(x, Tensor.ones(1, 5)));
        assertTrue(e.getMessage().contains("(1, 6)"), e.getMessage());
    }

    @Test
    void should_be_causal_in_the_decoder() {
        DecoderStack decoder = TransformerBlock.decoder(BASE.withKvHeads(1), 2, new Generator(8));
        Tensor x = randn(9, 2, 6, 16);
        Tensor changed = Tensor.cat(List.of(x.narrow(1, 0, 3), randn(10, 2, 3, 16)), 1);
        assertClose(rows(decoder.forward(x), 0, 3), rows(decoder.forward(changed), 0, 3), 0, "positions 0..2");
    }

    @Test
    void should_decode_a_stack_incrementally_like_the_full_sequence() {
        DecoderStack decoder = TransformerBlock.decoder(BASE.withKvHeads(2).withRope(12).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU),
                3, new Generator(11));
        Tensor x = randn(12, 2, 8, 16);
        Tensor full = decoder.forward(x);
        DecodingState state = decoder.newState(8);
        Tensor first = decoder.forward(x.narrow(1, 0, 5), null, state);
        assertClose(rows(full, 0, 5), first.toFloatArray(), 1e-5, "prefill");
        for (int t = 5; t < 8; t++) {
            assertClose(rows(full, t, 1), decoder.forward(x.narrow(1, t, 1), null, state).toFloatArray(), 1e-5, "step " + t);
        }
        var e = assertThrows(IllegalArgumentException.class, () -> decoder.forward(x, null, TransformerBlock.decoder(BASE, 2, new Generator(1)).newState(8)));
        assertTrue(e.getMessage().contains("has 2 layers, the stack has 3 blocks"), e.getMessage());
    }

    @Test
    void should_give_the_same_gradients_with_activation_checkpointing() {
        BlockConfig c = BASE.withKvHeads(2).withDropout(0.2).withRope(8);
        DecoderStack plain = TransformerBlock.decoder(c, 2, new Generator(13));
        DecoderStack checkpointed = TransformerBlock.decoder(c, 2, new Generator(13)).checkpointing(true);
        Tensor x = randn(14, 2, 6, 16);
        Tensor xa = x.detach().requiresGrad(true), xb = x.detach().requiresGrad(true);
        Tensor la = plain.forward(xa).square().sum(), lb = checkpointed.forward(xb).square().sum();
        assertEquals(la.item(), lb.item(), 1e-5, "same dropout masks, same loss");
        la.backward();
        lb.backward();
        assertClose(xa.grad(), xb.grad(), 1e-5, "input gradient");
        var pb = checkpointed.namedParameters();
        plain.namedParameters().forEach((name, p) -> assertClose(p.grad(), pb.get(name).grad(), 1e-5, name));
    }
}
