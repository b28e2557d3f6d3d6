package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.LoadOptions;
import dev.symbiont.models.PretrainedModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.*;

/** A directory Symbiont cannot load is refused with one error naming the file and the key or field. */
class HfLoadErrorsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Path llama(Path dir, Consumer<Map<String, Object>> config, Consumer<HfCheckpoint> weights) throws Exception {
        Map<String, Object> c = HfLogitsTest.llamaConfig();
        config.accept(c);
        HfCheckpoint checkpoint = HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 21);
        checkpoint.config.clear();
        checkpoint.config.putAll(c);
        weights.accept(checkpoint);
        return checkpoint.write(dir, 1);
    }

    private static <T extends Throwable> String refused(Class<T> type, Executable load, String... mentions) {
        T e = assertThrows(type, load);
        for (String m : mentions) assertTrue(e.getMessage().contains(m), "'" + m + "' in: " + e.getMessage());
        return e.getMessage();
    }

    @Test
    void a_missing_tensor_is_named_with_the_directory(@TempDir Path dir) throws Exception {
        llama(dir, c -> { }, w -> w.weights.remove("model.layers.1.mlp.up_proj.weight"));
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir),
                dir.toString(), "missing [model.layers.1.mlp.up_proj.weight]");
    }

    @Test
    void a_wrong_shape_names_the_key_the_file_and_both_shapes(@TempDir Path dir) throws Exception {
        llama(dir, c -> { }, w -> {
            w.weights.put("model.norm.weight", new float[31]);
            w.shapes.put("model.norm.weight", new int[] {31});
        });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir),
                "model.norm.weight in model.safetensors is [31], the config makes [32]");
    }

    @Test
    void an_extra_tensor_or_layer_is_named_with_its_file(@TempDir Path dir) throws Exception {
        llama(dir, c -> c.put("num_hidden_layers", 1), w -> w.matrix("model.extra.weight", 2, 2));
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "unexpected [",
                "model.layers.1.self_attn.q_proj.weight in model.safetensors", "model.extra.weight in model.safetensors");
    }

    @Test
    void an_index_and_its_shards_must_agree_on_every_tensor(@TempDir Path dir) throws Exception {
        HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 22).write(dir, 2);
        Path index = dir.resolve(WeightFiles.INDEX);
        ObjectNode doc = (ObjectNode) JSON.readTree(index.toFile());
        ((ObjectNode) doc.get("weight_map")).put("model.layers.0.mlp.up_proj.weight", "model-00002-of-00002.safetensors");
        JSON.writeValue(index.toFile(), doc);
        refused(java.io.IOException.class, () -> PretrainedModels.load(dir), "model-00001-of-00002.safetensors holds tensor "
                + "'model.layers.0.mlp.up_proj.weight', which " + index + " does not list in it");
        ((ObjectNode) doc.get("weight_map")).put("model.layers.0.mlp.up_proj.weight", "../elsewhere.safetensors");
        JSON.writeValue(index.toFile(), doc);
        refused(java.io.IOException.class, () -> PretrainedModels.load(dir), "\"../elsewhere.safetensors\" is not the name of a .safetensors file");
    }

    @Test
    void an_unknown_or_later_architecture_is_refused_by_name(@TempDir Path dir) throws Exception {
        llama(dir, c -> c.put("architectures", List.of("FalconForCausalLM")), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "config.json: architecture FalconForCausalLM is not supported",
                "LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, MixtralForCausalLM, GPT2LMHeadModel, MambaForCausalLM, Mamba2ForCausalLM");
        llama(dir, c -> c.put("architectures", List.of("Qwen2MoeForCausalLM")), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "Qwen2MoeForCausalLM is not supported yet: its shared "
                + "expert's sigmoid gate");
        llama(dir, c -> { c.remove("architectures"); c.put("model_type", "mistral"); c.put("sliding_window", null); }, w -> { });
        assertEquals("hugging face MistralForCausalLM", PretrainedModels.load(dir).layout().describe(), "model_type names the class");
    }

    @Test
    void an_unsupported_config_value_names_the_field_and_the_architecture(@TempDir Path dir) throws Exception {
        llama(dir, c -> c.put("rope_scaling", Map.of("rope_type", "yarn", "factor", 4.0)), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), dir.resolve("config.json").toString(),
                "LlamaForCausalLM with rope_scaling.rope_type = yarn is not supported (supported: llama3, default");
        llama(dir, c -> c.put("rope_scaling", Map.of("type", "llama3", "factor", 8.0, "high_freq_factor", 4.0,
                "original_max_position_embeddings", 8192)), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "field 'rope_scaling.low_freq_factor' = null");
        llama(dir, c -> c.put("hidden_act", "gelu"), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "LlamaForCausalLM with hidden_act = gelu is not supported");
        llama(dir, c -> c.put("num_key_value_heads", 3), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "config.json: GptConfig: kvHeads (3) must divide heads (4)");
        llama(dir, c -> c.put("hidden_size", "32"), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "field 'hidden_size' = \"32\" is not a positive integer");
    }

    @Test
    void a_mixtral_whose_experts_do_not_fit_its_config_names_the_field_or_the_keys(@TempDir Path dir) throws Exception {
        Map<String, Object> config = HfLogitsTest.mixtralConfig();
        config.put("num_experts_per_tok", 5);
        HfCheckpoint.mixtral(config, 23).write(dir.resolve("k"), 1);
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir.resolve("k")), dir.resolve("k").resolve("config.json").toString(),
                "num_experts_per_tok = 5 exceeds num_local_experts = 4");
        HfCheckpoint fewer = HfCheckpoint.mixtral(HfLogitsTest.mixtralConfig(), 24);
        fewer.config.put("num_local_experts", 3);
        fewer.write(dir.resolve("e"), 1);
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir.resolve("e")), "unexpected [",
                "model.layers.0.block_sparse_moe.experts.3.w1.weight in model.safetensors", "block_sparse_moe.gate.weight in model.safetensors is [4, 32], the config makes [3, 32]");
    }

    @Test
    void a_config_far_larger_than_its_tensors_is_refused_before_it_is_built(@TempDir Path dir) throws Exception {
        llama(dir, c -> c.put("num_hidden_layers", 1_000_000), w -> { });
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "config.json: declares a model far larger than the");
    }

    @Test
    void a_tied_head_that_differs_from_the_embedding_is_refused(@TempDir Path dir) throws Exception {
        llama(dir, c -> c.put("tie_word_embeddings", true), w -> w.matrix("lm_head.weight", 29, 32));
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "'lm_head.weight' is tied to the token embedding");
        llama(dir, c -> c.put("tie_word_embeddings", true), w -> {
            w.weights.put("lm_head.weight", w.weights.get("model.embed_tokens.weight"));
            w.shapes.put("lm_head.weight", w.shapes.get("model.embed_tokens.weight"));
        });
        assertTrue(PretrainedModels.load(dir).model().stateDict().containsKey("lm_head.weight"), "an equal copy loads");
    }

    @Test
    void non_finite_weights_are_refused_unless_allowed(@TempDir Path dir) throws Exception {
        llama(dir, c -> { }, w -> w.weights.get("model.layers.0.mlp.down_proj.weight")[5] = Float.NaN);
        refused(IllegalArgumentException.class, () -> PretrainedModels.load(dir), "tensor 'model.layers.0.mlp.down_proj.weight' holds NaN");
        assertNotNull(PretrainedModels.load(dir, LoadOptions.defaults().allowingNonFinite(true)).model());
    }

    @Test
    void a_directory_without_weights_or_with_broken_files_says_which(@TempDir Path dir) throws Exception {
        Path model = llama(dir, c -> { }, w -> { });
        Files.delete(model.resolve("model.safetensors"));
        Files.writeString(model.resolve("pytorch_model.bin"), "pickle");
        refused(java.io.IOException.class, () -> PretrainedModels.load(dir), "no model.safetensors or model.safetensors.index.json",
                "pytorch_model.bin, which Symbiont does not read");
        Files.writeString(model.resolve("config.json"), "{\"architectures\": [\"LlamaForCausalLM\"],");
        refused(java.io.IOException.class, () -> PretrainedModels.load(dir), dir.resolve("config.json") + ": not valid JSON");
        Map<String, Tensor> ints = new LinkedHashMap<>();
        ints.put("model.embed_tokens.weight", Tensor.fromArray(new int[] {1, 2}, 1, 2));
        Safetensors.write(model.resolve("model.safetensors"), ints);
        Files.writeString(model.resolve("config.json"), JSON.writeValueAsString(HfLogitsTest.llamaConfig()));
        refused(java.io.IOException.class, () -> PretrainedModels.load(dir), "'model.embed_tokens.weight' is int32; model weights must be F32, BF16 or F16");
        refused(java.io.IOException.class, () -> PretrainedModels.load(dir.resolve("nowhere")), "does not exist");
    }
}
