package dev.symbiont.models.gpt;

import dev.symbiont.nn.attention.Biases;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.attention.RopeScaling;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class GptConfigTest {
    private static final GptConfig LLAMA = GptConfig.of(100, 32, 2, 4, 16).withKvHeads(2).withFfSize(48).withDropout(0.1)
            .withTiedEmbeddings(false).withNorm(NormKind.RMS_NORM).withMlp(MlpKind.SWIGLU).withPositions(PositionKind.ROPE);

    @Test
    void should_round_trip_through_a_string_map() {
        Map<String, String> m = LLAMA.toMap();
        assertEquals("rms_norm", m.get("norm"));
        assertEquals("rope", m.get("positions"));
        assertEquals("0.1", m.get("dropout"));
        assertEquals(LLAMA, GptConfig.fromMap(m));
        assertEquals(GptConfig.of(50257, 768, 12, 12, 1024), GptConfig.fromMap(GptConfig.of(50257, 768, 12, 12, 1024).toMap()));
        Map<String, String> withOthers = new HashMap<>(m);
        withOthers.put("format", "pt");
        assertEquals(LLAMA, GptConfig.fromMap(withOthers), "other metadata is ignored");
    }

    @Test
    void should_state_each_change_once_and_keep_every_other_field() {
        GptConfig base = GptConfig.of(100, 32, 2, 4, 16);
        GptConfig.Builder gpt2 = GptConfig.builder().vocab(100).dModel(32).layers(2).heads(4).maxSeq(16).headDim(8).ffSize(128)
                .tiedEmbeddings(true).norm(NormKind.LAYER_NORM).normEps(1e-5).mlp(MlpKind.GELU).biases(Biases.ALL).fusedQkv(true)
                .positions(PositionKind.LEARNED).ropeScaling(RopeScaling.NONE);
        assertEquals(gpt2.kvHeads(2).ropeTheta(10_000).build(), base.withKvHeads(2));
        assertEquals(gpt2.kvHeads(4).ropeTheta(5e5).build(), base.withRopeTheta(5e5));
        assertEquals(LLAMA, LLAMA.withRopeTheta(3).withRopeTheta(GptConfig.DEFAULT_ROPE_THETA));
        var e = assertThrows(IllegalArgumentException.class, () -> base.withRopeTheta(1));
        assertTrue(e.getMessage().contains("ropeTheta must be finite and > 1, got 1.0"), e.getMessage());
    }

    @Test
    void should_read_a_config_saved_without_rope_theta_as_the_papers_base() {
        Map<String, String> old = new HashMap<>(LLAMA.withRopeTheta(5e5).toMap());
        assertEquals("500000.0", old.remove("rope_theta"));
        assertEquals(10_000, GptConfig.fromMap(old).ropeTheta());
        assertEquals(LLAMA, GptConfig.fromMap(old));
    }

    @Test
    void should_save_rope_theta_with_the_weights_and_change_the_logits_with_it(@TempDir Path dir) throws Exception {
        GptConfig llama3 = LLAMA.withDropout(0).withRopeTheta(500_000);
        Gpt model = new Gpt(llama3, new Generator(1), 0.3);
        Path file = dir.resolve("model.safetensors");
        Safetensors.write(file, model.stateDict(), model.config().toMap());
        SafetensorsFile saved = Safetensors.read(file);
        GptConfig restored = GptConfig.fromMap(saved.metadata());
        assertEquals(500_000, restored.ropeTheta());
        Tensor ids = Tensor.fromArray(new long[] {4, 8, 15, 16, 23, 42, 7, 3, 9, 1, 0, 2}, 1, 12);
        Gpt reloaded = new Gpt(restored, new Generator(2)), otherTheta = new Gpt(restored.withRopeTheta(10_000), new Generator(2));
        reloaded.loadStateDict(saved.tensors(), true);
        otherTheta.loadStateDict(saved.tensors(), true);
        float[] logits = model.forward(ids).toFloatArray();
        assertArrayEquals(logits, reloaded.forward(ids).toFloatArray(), "the saved base reproduces the model");
        assertFalse(Arrays.equals(logits, otherTheta.forward(ids).toFloatArray()), "the same weights at another base differ");
    }

    @Test
    void should_name_the_key_when_a_map_is_incomplete_or_unreadable() {
        Map<String, String> m = new HashMap<>(LLAMA.toMap());
        m.remove("n_kv_heads");
        var e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("'n_kv_heads' is missing"), e.getMessage());
        m.put("n_kv_heads", "two");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("'n_kv_heads' = 'two' is not an integer"), e.getMessage());
        m.put("n_kv_heads", "2");
        m.put("mlp", "relu");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("gelu | gelu_tanh | swiglu"), e.getMessage());
        m.put("mlp", "swiglu");
        m.put("n_kv_heads", "3");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("kvHeads (3) must divide heads (4)"), e.getMessage());
    }

    @Test
    void should_reject_inconsistent_shapes_with_the_numbers() {
        var e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 30, 2, 4, 16));
        assertTrue(e.getMessage().contains("heads (4) must divide dModel (30)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withKvHeads(3));
        assertTrue(e.getMessage().contains("kvHeads (3) must divide heads (4)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 24, 2, 8, 16).withPositions(PositionKind.ROPE));
        assertTrue(e.getMessage().contains("even head size"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.of(0, 32, 2, 4, 16));
        assertTrue(e.getMessage().contains("vocab must be positive"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withDropout(1));
        assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withNorm(null));
        assertThrows(IllegalArgumentException.class, () -> GptConfig.of(100, 32, 2, 4, 16).withRopeTheta(Double.NaN));
    }

    @Test
    void should_build_the_same_config_by_named_fields() {
        GptConfig named = GptConfig.builder().vocab(100).dModel(32).layers(2).heads(4).maxSeq(16).build();
        assertEquals(GptConfig.of(100, 32, 2, 4, 16), named);
        assertEquals(4, named.kvHeads());
        assertEquals(128, named.ffSize());
        GptConfig llama = GptConfig.builder().vocab(100).dModel(32).layers(2).heads(4).kvHeads(2).ffSize(96).maxSeq(16)
                .norm(NormKind.RMS_NORM).mlp(MlpKind.SWIGLU).positions(PositionKind.ROPE).ropeTheta(500_000)
                .tiedEmbeddings(false).dropout(0.1).build();
        assertEquals(GptConfig.of(100, 32, 2, 4, 16).withKvHeads(2).withFfSize(96).withNorm(NormKind.RMS_NORM)
                .withMlp(MlpKind.SWIGLU).withPositions(PositionKind.ROPE).withRopeTheta(500_000).withTiedEmbeddings(false)
                .withDropout(0.1), llama);
    }

    @Test
    void should_name_the_required_fields_a_builder_left_unset() {
        var e = assertThrows(IllegalArgumentException.class, () -> GptConfig.builder().dModel(32).heads(4).build());
        assertTrue(e.getMessage().contains("vocab, layers, maxSeq not set"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> GptConfig.builder().vocab(100).dModel(32).layers(2).heads(4).maxSeq(16).kvHeads(3).build());
        assertTrue(e.getMessage().contains("kvHeads (3) must divide heads (4)"), e.getMessage());
    }

    @Test
    void should_round_trip_the_fields_hugging_face_models_need() {
        GptConfig hf = LLAMA.withDropout(0).withHeadDim(12).withNormEps(1e-5).withBiases(new Biases(true, false, false)).withFusedQkv(false)
                .withRopeTheta(500_000).withRopeScaling(new RopeScaling.Llama3(8, 1, 4, 8192));
        Map<String, String> m = hf.toMap();
        assertEquals("12", m.get("head_dim"));
        assertEquals("llama3", m.get("rope_scaling"));
        assertEquals("8192", m.get("rope_scaling_original_max_position_embeddings"));
        assertEquals(hf, GptConfig.fromMap(m));
        assertEquals(MlpKind.GELU_TANH, GptConfig.fromMap(LLAMA.withMlp(MlpKind.GELU_TANH).toMap()).mlp());
    }

    @Test
    void should_write_the_hugging_face_fields_only_when_they_differ_from_what_configs_had_before() {
        Map<String, String> old = LLAMA.toMap();
        for (String key : new String[] {"head_dim", "norm_eps", "qkv_bias", "out_bias", "mlp_bias", "fused_qkv", "rope_scaling"}) {
            assertFalse(old.containsKey(key), key);
        }
        GptConfig read = GptConfig.fromMap(old);
        assertEquals(LLAMA, read);
        assertEquals(1e-6, read.normEps(), "RMSNorm's default");
        assertEquals(Biases.NONE, read.biases(), "SwiGLU models had no biases");
        Map<String, String> gpt2 = GptConfig.of(50, 16, 1, 2, 8).toMap();
        assertEquals(Biases.ALL, GptConfig.fromMap(gpt2).biases(), "GELU models had all their biases");
        assertEquals(1e-5, GptConfig.fromMap(gpt2).normEps(), "LayerNorm's default");
    }

    @Test
    void should_name_the_key_of_an_unknown_or_incomplete_rope_scaling() {
        Map<String, String> m = new HashMap<>(LLAMA.withRopeScaling(new RopeScaling.Llama3(8, 1, 4, 8192)).toMap());
        m.remove("rope_scaling_factor");
        m.put("rope_scaling", "yarn");
        var e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("'rope_scaling' = 'yarn' is not none | llama3"), e.getMessage());
        m.put("rope_scaling", "llama3");
        e = assertThrows(IllegalArgumentException.class, () -> GptConfig.fromMap(m));
        assertTrue(e.getMessage().contains("'rope_scaling_factor' is missing"), e.getMessage());
    }

    @Test
    void should_let_a_given_head_width_differ_from_dModel_over_heads() {
        GptConfig wide = GptConfig.builder().vocab(100).dModel(30).layers(2).heads(4).headDim(6).maxSeq(16).build();
        assertEquals(6, wide.headDim());
        assertEquals(6, wide.blockConfig().headDim());
        assertEquals(8, GptConfig.of(100, 32, 2, 4, 16).headDim(), "dModel / heads by default");
    }
}
