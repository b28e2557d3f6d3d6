package dev.symbiont.models.hf;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.LoadOptions;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.block.DecodingState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Tiny random-weight checkpoints in Hugging Face's exact layout load and give the logits of a
 * reference forward written from transformers' modeling code ({@link HfReference}), to within
 * 1e-4·(1 + |logit|) (float32 against double; the reference reads the same rounded BF16/F16
 * values the file stores), and decode over the KV cache as the full forward does.
 */
public class HfLogitsTest {
    private static final double TOLERANCE = 1e-4;
    private static final long[][] SEQUENCES = {{1, 5, 9, 3, 3, 17, 0}, {26, 2, 11, 8, 4, 4, 21}};

    public static Map<String, Object> llamaConfig() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", List.of("LlamaForCausalLM"));
        c.put("model_type", "llama");
        c.put("vocab_size", 29);
        c.put("hidden_size", 32);
        c.put("intermediate_size", 40);
        c.put("num_hidden_layers", 2);
        c.put("num_attention_heads", 4);
        c.put("num_key_value_heads", 2);
        c.put("max_position_embeddings", 32);
        c.put("rms_norm_eps", 1e-5);
        c.put("rope_theta", 10000.0);
        c.put("hidden_act", "silu");
        c.put("tie_word_embeddings", false);
        c.put("attention_bias", false);
        c.put("mlp_bias", false);
        c.put("torch_dtype", "float32");
        c.put("bos_token_id", 1);
        c.put("eos_token_id", 2);
        return c;
    }

    /** A tiny MixtralForCausalLM config: GQA attention as Llama's, 4 experts of width 24, 2 per token. */
    static Map<String, Object> mixtralConfig() {
        Map<String, Object> c = llamaConfig();
        c.put("architectures", List.of("MixtralForCausalLM"));
        c.put("model_type", "mixtral");
        c.remove("attention_bias");
        c.remove("mlp_bias");
        c.put("intermediate_size", 24);
        c.put("num_local_experts", 4);
        c.put("num_experts_per_tok", 2);
        c.put("rope_theta", 1000000.0);
        c.put("sliding_window", null);
        c.put("router_aux_loss_coef", 0.02);
        c.put("output_router_logits", false);
        c.put("router_jitter_noise", 0.0);
        return c;
    }

    public static Map<String, Object> gpt2Config() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", List.of("GPT2LMHeadModel"));
        c.put("model_type", "gpt2");
        c.put("vocab_size", 31);
        c.put("n_embd", 32);
        c.put("n_head", 4);
        c.put("n_layer", 2);
        c.put("n_positions", 16);
        c.put("n_ctx", 16);
        c.put("n_inner", null);
        c.put("activation_function", "gelu_new");
        c.put("layer_norm_epsilon", 1e-5);
        c.put("resid_pdrop", 0.1);
        c.put("bos_token_id", 30);
        c.put("eos_token_id", 30);
        return c;
    }

    /** {@code logits} (batch, seq, vocab) against the reference of each sequence. */
    private static void assertMatches(Tensor logits, java.util.function.Function<long[], double[][]> reference, String what) {
        float[] got = logits.contiguous().toFloatArray();
        int seq = logits.size(1), vocab = logits.size(2);
        for (int b = 0; b < logits.size(0); b++) {
            double[][] expected = reference.apply(SEQUENCES[b]);
            for (int t = 0; t < seq; t++) {
                for (int v = 0; v < vocab; v++) {
                    double e = expected[t][v], a = got[(b * seq + t) * vocab + v];
                    if (!(Math.abs(a - e) <= TOLERANCE * (1 + Math.abs(e)))) {
                        fail(what + ": sequence " + b + ", position " + t + ", token " + v + ": " + a + " vs reference " + e);
                    }
                }
            }
        }
    }

    /** The model's logits for both sequences as one batch: (2, 7, vocab). */
    private static Tensor forward(PretrainedModel p) {
        long[] ids = new long[14];
        System.arraycopy(SEQUENCES[0], 0, ids, 0, 7);
        System.arraycopy(SEQUENCES[1], 0, ids, 7, 7);
        return p.model().forward(Tensor.fromArray(ids, 2, 7));
    }

    static HfReference.Llama llamaSpec(HfCheckpoint c, double[] invFreq) {
        int hidden = c.integer("hidden_size"), heads = c.integer("num_attention_heads");
        int dim = c.config.containsKey("head_dim") ? c.integer("head_dim") : hidden / heads;
        double eps = c.config.containsKey("rms_norm_eps") ? ((Number) c.config.get("rms_norm_eps")).doubleValue() : 1e-6;
        return new HfReference.Llama(hidden, heads, c.integer("num_key_value_heads"), dim, c.integer("intermediate_size"),
                c.integer("num_hidden_layers"), c.integer("vocab_size"), eps, invFreq, Boolean.TRUE.equals(c.config.get("tie_word_embeddings")),
                c.config.containsKey("num_experts_per_tok") ? c.integer("num_experts_per_tok") : 0);
    }

    @Test
    void llama_with_grouped_query_attention_and_llama3_rope_scaling_matches_the_reference(@TempDir Path dir) throws Exception {
        Map<String, Object> config = llamaConfig();
        // head width 8, θ_j = 1, 0.1, 0.01, 0.001: one frequency kept, one smoothed, two divided by the factor
        config.put("rope_scaling", Map.of("rope_type", "llama3", "factor", 4.0, "low_freq_factor", 1.0, "high_freq_factor", 4.0,
                "original_max_position_embeddings", 64));
        HfCheckpoint c = HfCheckpoint.llama(config, 1);
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        double[] inv = HfReference.llama3(HfReference.invFreq(8, 10_000), 4, 1, 4, 64);
        assertMatches(forward(p), ids -> HfReference.llama(c.weights, llamaSpec(c, inv), ids), "llama GQA llama3");
        Gpt gpt = (Gpt) p.model();
        assertEquals(2, gpt.config().kvHeads());
        assertFalse(gpt.config().tiedEmbeddings());
        double[] plain = HfReference.invFreq(8, 10_000);
        double[][] unscaled = HfReference.llama(c.weights, llamaSpec(c, plain), SEQUENCES[0]);
        assertNotEquals(unscaled[6][0], forward(p).select(0, 0).select(0, 6).toFloatArray()[0], 1e-3, "the scaling changes the logits");
    }

    @Test
    void a_tied_sharded_bf16_llama_with_its_own_head_dim_and_biases_matches_the_reference(@TempDir Path dir) throws Exception {
        Map<String, Object> config = llamaConfig();
        config.put("hidden_size", 24);
        config.put("head_dim", 8);                         // 4 heads of 8 = 32, not 24
        config.put("tie_word_embeddings", true);
        config.put("attention_bias", true);
        config.put("mlp_bias", true);
        config.put("rope_theta", 500000.0);
        config.remove("rms_norm_eps");                      // LlamaConfig's default 1e-6
        config.put("torch_dtype", "bfloat16");
        HfCheckpoint c = HfCheckpoint.llama(config, 2).in(DType.BFLOAT16);
        assertFalse(c.weights.containsKey("lm_head.weight"));
        PretrainedModel p = PretrainedModels.load(c.write(dir, 3));
        assertMatches(forward(p), ids -> HfReference.llama(c.weights, llamaSpec(c, HfReference.invFreq(8, 500_000)), ids), "tied bf16 llama");
        // the matrices (every Linear and the tied embedding) kept as stored, norms and biases widened
        for (Parameter param : p.model().parameters()) {
            assertEquals(param.value().dim() == 2 ? DType.BFLOAT16 : DType.FLOAT32, param.value().dtype(), param.toString());
        }
        assertSame(p.model().stateDict().get("tok_emb.weight").storage(), p.model().stateDict().get("lm_head.weight").storage(), "tied");
        PretrainedModel widened = PretrainedModels.load(dir, LoadOptions.defaults().inFloat32(true));
        for (Parameter param : widened.model().parameters()) assertEquals(DType.FLOAT32, param.value().dtype(), "widened at load");
        assertMatches(forward(widened), ids -> HfReference.llama(c.weights, llamaSpec(c, HfReference.invFreq(8, 500_000)), ids),
                "tied bf16 llama widened at load");
    }

    @Test
    void mistral_matches_the_reference_within_its_sliding_window_and_refuses_longer_sequences(@TempDir Path dir) throws Exception {
        Map<String, Object> config = llamaConfig();
        config.put("architectures", List.of("MistralForCausalLM"));
        config.put("model_type", "mistral");
        config.put("num_key_value_heads", 1);
        config.put("sliding_window", 7);
        config.put("max_position_embeddings", 64);
        HfCheckpoint c = HfCheckpoint.llama(config, 3);
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        assertMatches(forward(p), ids -> HfReference.llama(c.weights, llamaSpec(c, HfReference.invFreq(8, 10_000)), ids), "mistral");
        assertEquals(7, p.model().maxSeq(), "sequences are limited to the window");
        var e = assertThrows(IllegalArgumentException.class, () -> p.model().forward(Tensor.fromArray(new long[8], 1, 8)));
        assertTrue(e.getMessage().contains("exceed maxSeq 7"), e.getMessage());
    }

    @Test
    void qwen2_with_qkv_biases_and_f16_weights_matches_the_reference(@TempDir Path dir) throws Exception {
        Map<String, Object> config = llamaConfig();
        config.put("architectures", List.of("Qwen2ForCausalLM"));
        config.put("model_type", "qwen2");
        config.remove("attention_bias");
        config.remove("mlp_bias");
        config.put("tie_word_embeddings", true);
        config.put("rope_theta", 1000000.0);
        config.put("use_sliding_window", false);
        config.put("sliding_window", 4);
        config.put("max_window_layers", 1);
        HfCheckpoint c = HfCheckpoint.llama(config, 4).in(DType.FLOAT16);
        assertTrue(c.weights.containsKey("model.layers.0.self_attn.q_proj.bias") && !c.weights.containsKey("model.layers.0.self_attn.o_proj.bias"));
        PretrainedModel p = PretrainedModels.load(c.write(dir, 2));
        assertMatches(forward(p), ids -> HfReference.llama(c.weights, llamaSpec(c, HfReference.invFreq(8, 1e6)), ids), "qwen2");
        assertEquals(32, p.model().maxSeq(), "no sliding window unless use_sliding_window");
    }

    @Test
    void mixtral_routes_each_token_to_its_renormalised_top_two_experts_as_the_reference_does(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.mixtral(mixtralConfig(), 9);
        PretrainedModel p = PretrainedModels.load(c.write(dir, 2));
        assertMatches(forward(p), ids -> HfReference.llama(c.weights, llamaSpec(c, HfReference.invFreq(8, 1e6)), ids), "mixtral");
        Gpt gpt = (Gpt) p.model();
        assertEquals(4, gpt.moe().experts());
        assertEquals(2, gpt.moe().topK());
        assertTrue(gpt.moe().renormalize());
        assertEquals(1, gpt.moe().every(), "every block is sparse");
        assertEquals(0, p.model().auxiliaryLoss().item(), "without output_router_logits transformers adds no balancing loss");
    }

    @Test
    void gpt2_with_conv1d_weights_and_a_tied_head_matches_the_reference(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.gpt2(gpt2Config(), "transformer.", 5);
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        var spec = new HfReference.Gpt2(32, 4, 2, 31, 1e-5, "transformer.");
        assertMatches(forward(p), ids -> HfReference.gpt2(c.weights, spec, ids), "gpt2");
    }

    @Test
    void gpt2_saved_without_the_transformer_prefix_and_with_mask_buffers_loads_too(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.gpt2(gpt2Config(), "", 6).in(DType.BFLOAT16);
        for (int i = 0; i < 2; i++) {
            c.put("h." + i + ".attn.bias", new float[16 * 16], 1, 1, 16, 16);     // the causal-mask buffers old files hold
            c.put("h." + i + ".attn.masked_bias", new float[] {-10_000}, 1);
        }
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        var spec = new HfReference.Gpt2(32, 4, 2, 31, 1e-5, "");
        assertMatches(forward(p), ids -> HfReference.gpt2(c.weights, spec, ids), "gpt2 without prefix, bf16");
    }

    /** Logits of each position decoded one token at a time over the KV cache. */
    private static float[] decoded(CausalLM model, long[] ids) {
        DecodingState state = model.newState(ids.length);
        List<Float> out = new ArrayList<>();
        Tensor first = model.forward(Tensor.fromArray(new long[] {ids[0], ids[1], ids[2]}, 1, 3), state);
        for (float f : first.contiguous().toFloatArray()) out.add(f);
        for (int t = 3; t < ids.length; t++) {
            for (float f : model.forward(Tensor.fromArray(new long[] {ids[t]}, 1, 1), state).toFloatArray()) out.add(f);
        }
        float[] a = new float[out.size()];
        for (int i = 0; i < a.length; i++) a[i] = out.get(i);
        return a;
    }

    @Test
    void kv_cache_decoding_gives_the_full_forwards_logits_and_greedy_tokens(@TempDir Path dir) throws Exception {
        Map<String, Object> llama = llamaConfig();
        llama.put("rope_scaling", Map.of("rope_type", "llama3", "factor", 4.0, "low_freq_factor", 1.0, "high_freq_factor", 4.0,
                "original_max_position_embeddings", 64));
        List<PretrainedModel> models = List.of(
                PretrainedModels.load(HfCheckpoint.llama(llama, 7).write(dir.resolve("llama"), 2)),
                PretrainedModels.load(HfCheckpoint.mixtral(mixtralConfig(), 10).write(dir.resolve("mixtral"), 1)),
                PretrainedModels.load(HfCheckpoint.gpt2(gpt2Config(), "transformer.", 8).write(dir.resolve("gpt2"), 1)));
        for (PretrainedModel p : models) {
            CausalLM m = p.model();
            long[] ids = SEQUENCES[1];
            float[] full = m.forward(Tensor.fromArray(ids, 1, ids.length)).toFloatArray(), step = decoded(m, ids);
            assertEquals(full.length, step.length);
            for (int i = 0; i < full.length; i++) assertEquals(full[i], step[i], 1e-4 * (1 + Math.abs(full[i])), p.layout().describe() + " " + i);
            long[] greedy = m.generate(new long[] {3, 1, 4}, 8, Sampling.greedy(), new Generator(0));
            long[] recomputed = {3, 1, 4};
            for (int n = 0; n < 8; n++) {
                Tensor logits = m.forward(Tensor.fromArray(recomputed, 1, recomputed.length));
                recomputed = java.util.Arrays.copyOf(recomputed, recomputed.length + 1);
                recomputed[recomputed.length - 1] = (long) logits.select(1, recomputed.length - 2).argmax(-1, false).item();
            }
            assertArrayEquals(recomputed, greedy, p.layout().describe());
        }
    }
}
