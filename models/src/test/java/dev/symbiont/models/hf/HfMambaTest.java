package dev.symbiont.models.hf;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.gpt.Sampler;
import dev.symbiont.models.gpt.Sampling;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.nn.block.DecodingState;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.mamba.MambaConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.*;

/**
 * MambaForCausalLM and Mamba2ForCausalLM directories load as a {@link MambaLM}, give the logits of a reference forward
 * written from transformers' modeling code ({@link HfMambaReference}), decode over the recurrent state as the full
 * forward computes, and save back bit-identical.
 */
class HfMambaTest {
    private static final double TOLERANCE = 1e-4;
    private static final long[] IDS = {1, 5, 9, 3, 3, 17, 0, 26, 2};

    static Map<String, Object> mambaConfig() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", List.of("MambaForCausalLM"));
        c.put("model_type", "mamba");
        c.put("vocab_size", 29);
        c.put("hidden_size", 24);
        c.put("state_size", 4);
        c.put("num_hidden_layers", 2);
        c.put("expand", 2);
        c.put("intermediate_size", 48);
        c.put("conv_kernel", 4);
        c.put("time_step_rank", "auto");
        c.put("use_bias", false);
        c.put("use_conv_bias", true);
        c.put("hidden_act", "silu");
        c.put("layer_norm_epsilon", 1e-5);
        c.put("residual_in_fp32", true);
        c.put("tie_word_embeddings", true);
        c.put("bos_token_id", 0);
        c.put("eos_token_id", 0);
        return c;
    }

    /** Two groups of B and C over four heads, chunks of 4 (shorter than the sequences), an untied head and an ε of its own. */
    static Map<String, Object> mamba2Config() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", List.of("Mamba2ForCausalLM"));
        c.put("model_type", "mamba2");
        c.put("vocab_size", 29);
        c.put("hidden_size", 16);
        c.put("num_heads", 4);
        c.put("head_dim", 8);
        c.put("expand", 2);
        c.put("state_size", 8);
        c.put("n_groups", 2);
        c.put("conv_kernel", 4);
        c.put("chunk_size", 4);
        c.put("num_hidden_layers", 2);
        c.put("layer_norm_epsilon", 1e-3);
        c.put("use_bias", false);
        c.put("use_conv_bias", true);
        c.put("hidden_act", "silu");
        c.put("rms_norm", true);
        c.put("time_step_rank", 1);
        c.put("time_step_limit", List.of(0.0, Double.POSITIVE_INFINITY));
        c.put("tie_word_embeddings", false);
        return c;
    }

    private static HfMambaReference.Mamba mambaSpec(HfCheckpoint c) {
        return new HfMambaReference.Mamba(c.integer("hidden_size"), c.integer("intermediate_size"), c.integer("state_size"),
                (c.integer("hidden_size") + 15) / 16, c.integer("conv_kernel"), c.integer("num_hidden_layers"), c.integer("vocab_size"),
                ((Number) c.config.get("layer_norm_epsilon")).doubleValue(), !Boolean.FALSE.equals(c.config.get("tie_word_embeddings")));
    }

    private static HfMambaReference.Mamba2 mamba2Spec(HfCheckpoint c) {
        return new HfMambaReference.Mamba2(c.integer("hidden_size"), c.integer("num_heads"), c.integer("head_dim"), c.integer("state_size"),
                c.integer("n_groups"), c.integer("conv_kernel"), c.integer("num_hidden_layers"), c.integer("vocab_size"),
                ((Number) c.config.get("layer_norm_epsilon")).doubleValue(), Boolean.TRUE.equals(c.config.get("tie_word_embeddings")));
    }

    private static void assertMatches(CausalLM m, Function<long[], double[][]> reference, String what) {
        float[] got = m.forward(Tensor.fromArray(IDS, 1, IDS.length)).toFloatArray();
        double[][] expected = reference.apply(IDS);
        int vocab = expected[0].length;
        for (int t = 0; t < IDS.length; t++) {
            for (int v = 0; v < vocab; v++) {
                double e = expected[t][v], a = got[t * vocab + v];
                if (!(Math.abs(a - e) <= TOLERANCE * (1 + Math.abs(e)))) fail(what + ": position " + t + ", token " + v + ": " + a + " vs " + e);
            }
        }
    }

    @Test
    void a_tied_mamba_without_lm_head_matches_the_selective_scan_written_as_loops(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.mamba(mambaConfig(), 1);
        assertFalse(c.weights.containsKey("lm_head.weight"), "transformers leaves the tied head out of the file");
        PretrainedModel p = PretrainedModels.load(c.write(dir, 1));
        assertMatches(p.model(), ids -> HfMambaReference.mamba(c.weights, mambaSpec(c), ids), "mamba");
        MambaLM m = (MambaLM) p.model();
        assertEquals(new MambaConfig(24, 48, 4, 2, 4), m.config().mixer(), "time_step_rank auto = ⌈24/16⌉");
        assertSame(m.stateDict().get("backbone.embeddings.weight").storage(), m.stateDict().get("lm_head.weight").storage(), "tied");
        assertEquals("hugging face MambaForCausalLM", p.layout().describe());
    }

    @Test
    void a_bf16_mamba2_with_groups_an_untied_head_and_its_epsilon_matches_the_recurrence_written_as_loops(@TempDir Path dir) throws Exception {
        HfCheckpoint c = HfCheckpoint.mamba(mamba2Config(), 2).in(DType.BFLOAT16);
        String json = Files.readString(c.write(dir, 2).resolve("config.json"));
        assertTrue(json.contains("Infinity") && !json.contains("\"Infinity\""), "written as Python writes float('inf'): " + json);
        PretrainedModel p = PretrainedModels.load(dir);
        assertMatches(p.model(), ids -> HfMambaReference.mamba2(c.weights, mamba2Spec(c), ids), "mamba2");
        MambaLM m = (MambaLM) p.model();
        assertEquals(new Mamba2Config(16, 4, 8, 8, 2, 4, 4), m.config().mixer());
        assertFalse(m.config().tiedEmbeddings());
        HfCheckpoint c5 = HfCheckpoint.mamba(mamba2Config(), 2).in(DType.BFLOAT16);
        HfMambaReference.Mamba2 spec5 = new HfMambaReference.Mamba2(16, 4, 8, 8, 2, 4, 2, 29, 1e-5, false);
        double moved = Math.abs(HfMambaReference.mamba2(c5.weights, spec5, IDS)[8][0] - HfMambaReference.mamba2(c.weights, mamba2Spec(c), IDS)[8][0]);
        assertTrue(moved > 1e-3, "ε matters here, so the match shows it reached both norms: " + moved);
    }

    /** Logits decoded over the recurrent state: 3 tokens at once, then one at a time. */
    private static float[] decoded(CausalLM m, long[] ids) {
        DecodingState state = m.newState(ids.length);
        float[] out = new float[ids.length * m.vocab()];
        float[] first = m.forward(Tensor.fromArray(Arrays.copyOf(ids, 3), 1, 3), state).toFloatArray();
        System.arraycopy(first, 0, out, 0, first.length);
        for (int t = 3; t < ids.length; t++) {
            float[] step = m.forward(Tensor.fromArray(new long[] {ids[t]}, 1, 1), state).toFloatArray();
            System.arraycopy(step, 0, out, t * m.vocab(), step.length);
        }
        return out;
    }

    @Test
    void recurrent_decoding_gives_the_full_forwards_logits_and_greedy_tokens(@TempDir Path dir) throws Exception {
        for (HfCheckpoint c : List.of(HfCheckpoint.mamba(mambaConfig(), 3), HfCheckpoint.mamba(mamba2Config(), 4))) {
            CausalLM m = PretrainedModels.load(c.write(dir.resolve(c.config.get("model_type").toString()), 1)).model();
            float[] full = m.forward(Tensor.fromArray(IDS, 1, IDS.length)).toFloatArray(), step = decoded(m, IDS);
            for (int i = 0; i < full.length; i++) assertEquals(full[i], step[i], 1e-4 * (1 + Math.abs(full[i])), c.config.get("model_type") + " " + i);
            long[] greedy = m.generate(new long[] {3, 1, 4}, 8, Sampling.greedy(), new Generator(0));
            for (int n = 3; n < greedy.length; n++) {
                Tensor logits = m.forward(Tensor.fromArray(Arrays.copyOf(greedy, n), 1, n));
                assertEquals(Sampler.argmax(logits.select(1, n - 1).toFloatArray()), greedy[n], c.config.get("model_type") + " token " + n);
            }
        }
    }

    @Test
    void mamba_and_mamba2_save_back_bit_identical(@TempDir Path tmp) throws Exception {
        for (HfCheckpoint c : List.of(HfCheckpoint.mamba(mambaConfig(), 5).in(DType.BFLOAT16), HfCheckpoint.mamba(mamba2Config(), 6))) {
            String kind = c.config.get("model_type").toString();
            Path in = c.write(tmp.resolve(kind + "-in"), 2), out = tmp.resolve(kind + "-out");
            PretrainedModel p = PretrainedModels.load(in);
            p.save(out);
            for (String f : List.of("config.json", "model.safetensors.index.json")) {
                assertArrayEquals(Files.readAllBytes(in.resolve(f)), Files.readAllBytes(out.resolve(f)), kind + " " + f);
            }
            for (String shard : List.of("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")) {
                assertArrayEquals(Files.readAllBytes(in.resolve(shard)), Files.readAllBytes(out.resolve(shard)), kind + " " + shard);
            }
        }
    }

    private static String refused(Path dir, Map<String, Object> config, java.util.function.Consumer<Map<String, Object>> change) throws Exception {
        HfCheckpoint c = HfCheckpoint.mamba(config, 7);
        change.accept(c.config);
        c.write(dir, 1);
        return assertThrows(IllegalArgumentException.class, () -> PretrainedModels.load(dir)).getMessage();
    }

    @Test
    void configs_the_mixers_cannot_run_are_refused_naming_the_field(@TempDir Path dir) throws Exception {
        String m = refused(dir.resolve("a"), mambaConfig(), c -> c.remove("use_bias"));
        assertTrue(m.contains("MambaForCausalLM with use_bias = true is not supported"), "MambaConfig's default is true: " + m);
        m = refused(dir.resolve("b"), mambaConfig(), c -> c.put("use_conv_bias", false));
        assertTrue(m.contains("use_conv_bias = false is not supported"), m);
        m = refused(dir.resolve("c"), mamba2Config(), c -> c.put("time_step_limit", List.of(0.0, 10.0)));
        assertTrue(m.contains("Mamba2ForCausalLM with time_step_limit = [0.0,10.0] is not supported"), m);
        m = refused(dir.resolve("d"), mamba2Config(), c -> c.put("head_dim", 4));
        assertTrue(m.contains("num_heads · head_dim = 4 · 4 differs from expand · hidden_size = 2 · 16"), m);
        m = refused(dir.resolve("e"), mambaConfig(), c -> c.put("hidden_act", "gelu"));
        assertTrue(m.contains("hidden_act = gelu is not supported"), m);
        HfCheckpoint wrongHead = HfCheckpoint.mamba(mambaConfig(), 8);
        wrongHead.matrix("lm_head.weight", 29, 24);
        wrongHead.write(dir.resolve("f"), 1);
        m = assertThrows(IllegalArgumentException.class, () -> PretrainedModels.load(dir.resolve("f"))).getMessage();
        assertTrue(m.contains("'lm_head.weight' is tied to the token embedding"), m);
    }
}
