package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.symbiont.nn.attention.AttentionTesting.assertClose;
import static dev.symbiont.nn.attention.AttentionTesting.randn;
import static org.junit.jupiter.api.Assertions.*;

/** The block options Hugging Face's models need: head widths of their own, biases per projection, GPT-2's tanh GELU, biased SwiGLU, ε. */
class BlockVariantsTest {
    private static final BlockConfig LLAMA = BlockConfig.of(16, 4, 24).withKvHeads(2).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU)
            .withFusedQkv(false).withBias(false).withRope(12, 500_000);

    private static int[] shape(Map<String, Tensor> state, String key) {
        assertTrue(state.containsKey(key), key + " in " + state.keySet());
        return state.get(key).shape();
    }

    @Test
    void should_project_to_heads_of_the_given_width_and_back_to_dModel() {
        var attn = new MultiHeadAttention(LLAMA.withHeadDim(6), new Generator(1));
        Map<String, Tensor> s = attn.stateDict();
        assertArrayEquals(new int[] {24, 16}, shape(s, "q_proj.weight"), "heads · headDim = 4 · 6 rows");
        assertArrayEquals(new int[] {12, 16}, shape(s, "k_proj.weight"), "kvHeads · headDim = 2 · 6");
        assertArrayEquals(new int[] {16, 24}, shape(s, "out_proj.weight"), "back to dModel");
        assertEquals(6, attn.rope().dim());
        Tensor x = randn(2, 2, 5, 16);
        Tensor full = attn.forward(x, null, true, null);
        assertArrayEquals(new int[] {2, 5, 16}, full.shape());
        KvCache cache = attn.newState(5);
        Tensor first = attn.forward(x.narrow(1, 0, 3), null, true, cache), rest = attn.forward(x.narrow(1, 3, 2), null, true, cache);
        assertClose(full, Tensor.cat(List.of(first, rest), 1), 1e-5, "decoding over the cache");
    }

    @Test
    void should_put_biases_only_where_the_config_asks() {
        Map<String, Tensor> qwen = new MultiHeadAttention(LLAMA.withBiases(new Biases(true, false, false)), new Generator(1)).stateDict();
        for (String p : new String[] {"q_proj", "k_proj", "v_proj"}) assertTrue(qwen.containsKey(p + ".bias"), p);
        assertFalse(qwen.containsKey("out_proj.bias"));
        Map<String, Tensor> mlp = new FeedForward(LLAMA.withBiases(new Biases(false, false, true)), new Generator(1)).stateDict();
        assertEquals(List.of("w1.weight", "w1.bias", "w2.weight", "w2.bias", "w3.weight", "w3.bias"), List.copyOf(mlp.keySet()));
    }

    @Test
    void should_compute_biased_swiglu_as_down_of_silu_gate_times_up() {
        var ff = new FeedForward(LLAMA.withBiases(new Biases(false, false, true)), new Generator(2));
        Map<String, Tensor> s = ff.stateDict();
        Tensor x = randn(3, 2, 3, 16);
        Tensor gate = x.matmul(s.get("w1.weight").t()).add(s.get("w1.bias")), up = x.matmul(s.get("w3.weight").t()).add(s.get("w3.bias"));
        Tensor expected = gate.silu().mul(up).matmul(s.get("w2.weight").t()).add(s.get("w2.bias"));
        assertClose(expected, ff.forward(x), 1e-5, "biased SwiGLU");
    }

    @Test
    void should_use_the_tanh_approximation_for_gpt2s_gelu() {
        BlockConfig c = BlockConfig.of(16, 4, 24).withMlp(MlpKind.GELU_TANH);
        var ff = new FeedForward(c, new Generator(3));
        Map<String, Tensor> s = ff.stateDict();
        Tensor x = randn(4, 2, 3, 16).mul(3);
        float[] h = x.matmul(s.get("fc.weight").t()).add(s.get("fc.bias")).toFloatArray();
        for (int i = 0; i < h.length; i++) {
            double v = h[i];
            h[i] = (float) (0.5 * v * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (v + 0.044715 * v * v * v))));
        }
        Tensor expected = Tensor.fromArray(h, 2, 3, 24).matmul(s.get("proj.weight").t()).add(s.get("proj.bias"));
        assertClose(expected, ff.forward(x), 1e-5, "gelu_new");
        Tensor erf = new FeedForward(c.withMlp(MlpKind.GELU), new Generator(3)).forward(x);
        assertNotEquals(0, erf.sub(ff.forward(x)).abs().max().item(), "the erf form differs");
    }

    @Test
    void should_normalise_with_the_given_eps() {
        Tensor x = randn(5, 3, 16).mul(1e-3);
        for (NormKind kind : NormKind.values()) {
            BlockConfig c = BlockConfig.of(16, 4, 24).withNorm(kind, 1e-2);
            assertEquals(kind.defaultEps(), BlockConfig.of(16, 4, 24).withNorm(kind).normEps(), kind + "'s default");
            Tensor y = c.newNorm().forward(x), tight = BlockConfig.of(16, 4, 24).withNorm(kind).newNorm().forward(x);
            // tiny inputs: a large ε shrinks the output, a small one leaves it near unit scale
            assertTrue(y.abs().max().item() < 0.1 * tight.abs().max().item(), kind + ": " + y.abs().max().item());
        }
    }

    @Test
    void should_share_one_rope_table_across_the_blocks_of_a_stack() {
        List<TransformerBlock> blocks = TransformerBlock.stack(LLAMA, 3, new Generator(4));
        assertSame(blocks.get(0).attn().rope(), blocks.get(2).attn().rope());
        var e = assertThrows(IllegalArgumentException.class, () -> new MultiHeadAttention(LLAMA, new RotaryEmbedding(8, 12, 10_000),
                new Generator(1)));
        assertTrue(e.getMessage().contains("RoPE over heads of 4"), e.getMessage());
    }
}
