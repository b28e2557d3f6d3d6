package dev.symbiont.peft;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.nn.Linear;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static dev.symbiont.peft.TinyBases.logits;
import static org.junit.jupiter.api.Assertions.*;

/** Adapters saved and loaded in PEFT's layout: adapter_config.json's fields and adapter_model.safetensors's keys, exactly. */
class PeftLayoutTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** A trained adapter of r = 4 on q_proj and v_proj saved to {@code tmp/adapter}; returns the adapted logits. */
    private float[] saveAdapter() throws Exception {
        PretrainedModel base = TinyBases.llama(tmp.resolve("base"));
        LoraModel lora = Lora.apply(base, LoraConfig.of(4, 16, 0.05, "q_proj", "v_proj").withBaseModel("tiny-llama"));
        TinyBases.train(lora, 5);
        lora.model().eval();
        lora.save(tmp.resolve("adapter"));
        return logits(lora.model());
    }

    @Test
    void saving_writes_peft_s_config_fields_and_keys() throws Exception {
        saveAdapter();
        JsonNode c = JSON.readTree(tmp.resolve("adapter/adapter_config.json").toFile());
        assertEquals(List.of("alpha_pattern", "auto_mapping", "base_model_name_or_path", "bias", "fan_in_fan_out", "inference_mode",
                "init_lora_weights", "layers_pattern", "layers_to_transform", "lora_alpha", "lora_dropout", "modules_to_save", "peft_type", "r",
                "rank_pattern", "revision", "target_modules", "task_type", "use_dora", "use_rslora"), fieldNames(c), "PEFT's fields, sorted");
        assertEquals("LORA", c.get("peft_type").asText());
        assertEquals("CAUSAL_LM", c.get("task_type").asText());
        assertEquals(4, c.get("r").intValue());
        assertTrue(c.get("r").isInt());
        assertEquals(16, c.get("lora_alpha").intValue());
        assertEquals(0.05, c.get("lora_dropout").doubleValue());
        assertEquals("[\"q_proj\",\"v_proj\"]", c.get("target_modules").toString());
        assertEquals("none", c.get("bias").asText());
        assertEquals("tiny-llama", c.get("base_model_name_or_path").asText());
        assertFalse(c.get("fan_in_fan_out").booleanValue());
        assertTrue(c.get("inference_mode").booleanValue());
        assertTrue(c.get("modules_to_save").isNull());
        var header = Safetensors.header(tmp.resolve("adapter/adapter_model.safetensors"));
        assertEquals(Map.of("format", "pt"), header.metadata());
        TreeSet<String> keys = new TreeSet<>();
        for (int layer = 0; layer < 2; layer++) {
            for (String proj : new String[] {"q_proj", "v_proj"}) {
                for (String ab : new String[] {"A", "B"}) keys.add("base_model.model.model.layers." + layer + ".self_attn." + proj + ".lora_" + ab + ".weight");
            }
        }
        assertEquals(keys, new TreeSet<>(header.tensors().keySet()));
        assertArrayEquals(new int[] {32, 4}, header.tensors().get("base_model.model.model.layers.1.self_attn.q_proj.lora_B.weight").shape());
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> out = new java.util.ArrayList<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void an_adapter_loaded_onto_a_fresh_base_gives_the_same_logits() throws Exception {
        float[] saved = saveAdapter();
        PretrainedModel fresh = dev.symbiont.models.PretrainedModels.load(tmp.resolve("base"));
        float[] baseLogits = logits(fresh.model());
        LoraModel loaded = Lora.load(fresh, tmp.resolve("adapter"));
        assertArrayEquals(saved, logits(loaded.model()), "bit for bit");
        assertTrue(TinyBases.maxDiff(baseLogits, saved) > 1e-2, "and not the base's");
        assertEquals(4, loaded.config().r());
        assertEquals(0.05, loaded.config().loraDropout());
        assertEquals(4.0, loaded.adapters().values().iterator().next().scaling(), "α / r = 16 / 4");
        assertFalse(loaded.model().isTraining(), "the base's mode: eval");
    }

    /** Rewrites the adapter's weights file through {@code edit}. */
    private void editWeights(java.util.function.Consumer<Map<String, Tensor>> edit) throws Exception {
        Path file = tmp.resolve("adapter/adapter_model.safetensors");
        Map<String, Tensor> tensors = new LinkedHashMap<>(Safetensors.read(file).tensors());
        edit.accept(tensors);
        Safetensors.write(file, tensors, Map.of("format", "pt"));
    }

    private IllegalArgumentException loadFails() throws Exception {
        PretrainedModel fresh = dev.symbiont.models.PretrainedModels.load(tmp.resolve("base"));
        var e = assertThrows(IllegalArgumentException.class, () -> Lora.load(fresh, tmp.resolve("adapter")));
        fresh.model().namedModules().values().forEach(m -> {
            if (m instanceof Linear l) assertNull(l.adapter(), "a failed load leaves no adapter behind");
        });
        return e;
    }

    @Test
    void a_missing_key_is_named() throws Exception {
        saveAdapter();
        editWeights(t -> t.remove("base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight"));
        var e = loadFails();
        assertTrue(e.getMessage().contains("missing keys [base_model.model.model.layers.1.self_attn.v_proj.lora_A.weight]"), e.getMessage());
    }

    @Test
    void an_unexpected_key_is_named() throws Exception {
        saveAdapter();
        editWeights(t -> t.put("base_model.model.model.layers.0.mlp.up_proj.lora_A.weight", Tensor.zeros(4, 32)));
        var e = loadFails();
        assertTrue(e.getMessage().contains("unexpected keys [base_model.model.model.layers.0.mlp.up_proj.lora_A.weight]"), e.getMessage());
    }

    @Test
    void a_wrong_rank_is_named_with_both_shapes() throws Exception {
        saveAdapter();
        Path config = tmp.resolve("adapter/adapter_config.json");
        ObjectNode c = (ObjectNode) JSON.readTree(config.toFile());
        c.put("r", 8);
        Files.writeString(config, c.toString());
        var e = loadFails();
        assertTrue(e.getMessage().contains("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight: the adapter has [8, 32], the file [4, 32]"),
                e.getMessage());
    }

    @Test
    void config_fields_symbiont_does_not_run_are_refused_by_name() throws Exception {
        saveAdapter();
        Path config = tmp.resolve("adapter/adapter_config.json");
        String original = Files.readString(config);
        Map<String, String> refused = Map.of("use_dora", "true", "peft_type", "\"IA3\"", "bias", "\"all\"",
                "rank_pattern", "{\"q_proj\": 8}", "modules_to_save", "[\"lm_head\"]", "task_type", "\"SEQ_CLS\"");
        for (var field : refused.entrySet()) {
            ObjectNode c = (ObjectNode) JSON.readTree(original);
            c.set(field.getKey(), JSON.readTree(field.getValue()));
            Files.writeString(config, c.toString());
            var e = loadFails();
            assertTrue(e.getMessage().startsWith(config + ": ") && e.getMessage().contains(field.getKey()), e.getMessage());
        }
    }

    @Test
    void pickled_weights_are_named_for_what_they_are() throws Exception {
        saveAdapter();
        Path dir = tmp.resolve("adapter");
        Files.move(dir.resolve("adapter_model.safetensors"), dir.resolve("adapter_model.bin"));
        PretrainedModel fresh = dev.symbiont.models.PretrainedModels.load(tmp.resolve("base"));
        var e = assertThrows(java.io.IOException.class, () -> Lora.load(fresh, dir));
        assertTrue(e.getMessage().contains("adapter_model.bin is PyTorch's pickle format"), e.getMessage());
    }

    @Test
    void a_gpt2_adapter_round_trips_with_fan_in_fan_out() throws Exception {
        PretrainedModel base = TinyBases.gpt2(tmp.resolve("gpt2"), "");
        LoraModel lora = Lora.apply(base, LoraConfig.of(2, 4, 0, "c_attn", "c_fc"));
        TinyBases.train(lora, 6);
        float[] adapted = logits(lora.model());
        lora.save(tmp.resolve("gpt2-adapter"));
        assertTrue(JSON.readTree(tmp.resolve("gpt2-adapter/adapter_config.json").toFile()).get("fan_in_fan_out").booleanValue());
        LoraModel loaded = Lora.load(dev.symbiont.models.PretrainedModels.load(tmp.resolve("gpt2")), tmp.resolve("gpt2-adapter"));
        assertArrayEquals(adapted, logits(loaded.model()));
    }
}
