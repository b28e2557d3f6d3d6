package dev.symbiont.peft;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.JsonFiles;
import dev.symbiont.models.hf.HfConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * PEFT's {@code adapter_config.json} for a LoRA adapter. Written as PEFT's {@code save_pretrained}
 * writes it: every field of its LoraConfig that Symbiont knows, keys sorted, {@code inference_mode}
 * true. Read with PEFT's defaults for absent fields; a field asking for what Symbiont does not run
 * (DoRA, per-module ranks, biases, modules to save, another PEFT method or task) is refused naming
 * the file, the field and its value, never ignored.
 */
final class AdapterConfigFile {
    private AdapterConfigFile() {}

    /** Writes {@code config} as PEFT does, atomically. */
    static void write(Path file, LoraConfig config) throws IOException {
        Map<String, Object> fields = new TreeMap<>();                      // sort_keys=True, as PEFT dumps it
        fields.put("alpha_pattern", Map.of());
        fields.put("auto_mapping", null);
        fields.put("base_model_name_or_path", config.baseModelNameOrPath());
        fields.put("bias", "none");
        fields.put("fan_in_fan_out", config.fanInFanOut());
        fields.put("inference_mode", true);
        fields.put("init_lora_weights", true);
        fields.put("layers_pattern", null);
        fields.put("layers_to_transform", null);
        fields.put("lora_alpha", config.loraAlpha());
        fields.put("lora_dropout", config.loraDropout());
        fields.put("modules_to_save", null);
        fields.put("peft_type", "LORA");
        fields.put("r", config.r());
        fields.put("rank_pattern", Map.of());
        fields.put("revision", null);
        fields.put("target_modules", switch (config.targetModules()) {
            case TargetModules.Names n -> n.names();
            case TargetModules.Regex p -> p.pattern();
            case TargetModules.AllLinear a -> TargetModules.ALL_LINEAR;
        });
        fields.put("task_type", "CAUSAL_LM");
        fields.put("use_dora", false);
        fields.put("use_rslora", config.useRslora());
        ObjectNode root = JsonFiles.newObject();
        fields.forEach((k, v) -> root.set(k, json(root, v)));
        JsonFiles.write(file, root);
    }

    private static JsonNode json(ObjectNode factory, Object v) {
        return switch (v) {
            case null -> factory.nullNode();
            case Boolean b -> factory.booleanNode(b);
            case Integer i -> factory.numberNode(i);
            case Double d -> d == Math.rint(d) && Math.abs(d) < 1e15 ? factory.numberNode(d.longValue()) : factory.numberNode(d);
            case String s -> factory.textNode(s);
            case List<?> list -> {
                ArrayNode a = factory.arrayNode();
                list.forEach(x -> a.add(json(factory, x)));
                yield a;
            }
            case Map<?, ?> m when m.isEmpty() -> factory.objectNode();
            default -> throw new IllegalStateException("AdapterConfigFile: cannot write " + v.getClass().getSimpleName());
        };
    }

    /**
     * Reads a LoRA adapter's config.
     *
     * @throws IOException when the file is missing, unreadable or not one JSON object
     * @throws IllegalArgumentException naming the file and the field for a value of the wrong type or one Symbiont does not run
     */
    static LoraConfig read(Path file) throws IOException {
        HfConfig c = HfConfig.read(file);
        String type = c.text("peft_type", null);
        if (!"LORA".equals(type)) throw c.unsupported("a PEFT adapter", "peft_type", type, "\"LORA\"");
        String task = c.text("task_type", null);
        if (task != null && !task.equals("CAUSAL_LM")) throw c.unsupported("a LoRA adapter", "task_type", task, "\"CAUSAL_LM\"");
        String bias = c.text("bias", "none");
        if (!bias.equals("none")) throw c.unsupported("a LoRA adapter", "bias", bias, "\"none\"");
        for (String flag : new String[] {"use_dora", "lora_bias"}) {
            if (c.bool(flag, false)) throw c.unsupported("a LoRA adapter", flag, true, "false");
        }
        for (String field : new String[] {"rank_pattern", "alpha_pattern", "modules_to_save", "layers_to_transform", "exclude_modules",
                "target_parameters", "trainable_token_indices"}) {
            JsonNode n = c.node(field);
            if (n != null && !(n.isContainerNode() && n.isEmpty())) {
                throw c.unsupported("a LoRA adapter", field, n, "null or empty");
            }
        }
        double alpha = c.real("lora_alpha", 8), dropout = c.real("lora_dropout", 0);
        if (alpha <= 0) throw c.invalid("lora_alpha", c.node("lora_alpha"), "a positive number");
        if (dropout < 0 || dropout >= 1) throw c.invalid("lora_dropout", c.node("lora_dropout"), "a probability in [0, 1)");
        return new LoraConfig(c.positive("r", 8), alpha, dropout, targets(c), c.bool("use_rslora", false),
                c.bool("fan_in_fan_out", false), c.text("base_model_name_or_path", null));
    }

    /** {@code target_modules}: a list of names, "all-linear" or a regular expression. */
    private static TargetModules targets(HfConfig c) {
        JsonNode n = c.node("target_modules");
        if (n == null) throw new IllegalArgumentException(c.file() + ": field 'target_modules' is missing; name the adapted modules");
        if (n.isTextual()) {
            try {
                return TargetModules.parse(n.asText());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(c.file() + ": " + e.getMessage(), e);
            }
        }
        if (!n.isArray() || n.isEmpty()) throw c.invalid("target_modules", n, "a list of module names or a regular expression");
        List<String> names = new ArrayList<>();
        for (JsonNode e : n) {
            if (!e.isTextual() || e.asText().isBlank()) throw c.invalid("target_modules", n, "a list of module names");
            names.add(e.asText());
        }
        return new TargetModules.Names(names);
    }
}
