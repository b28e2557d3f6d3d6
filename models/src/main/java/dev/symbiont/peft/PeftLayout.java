package dev.symbiont.peft;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.io.TensorInfo;
import dev.symbiont.nn.KeyList;
import dev.symbiont.nn.Parameter;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PEFT's adapter directory: {@code adapter_config.json} ({@link AdapterConfigFile}) and
 * {@code adapter_model.safetensors}, whose keys are PEFT's with the adapter name left out:
 * <pre>
 *   base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight    (r, in)
 *   base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight    (out, r)
 *   base_model.model.transformer.h.0.attn.c_attn.lora_A.weight        (GPT-2: the same shapes, fan_in_fan_out only in the config)
 * </pre>
 * Both files are written atomically, the weights first. Loading checks every key and shape
 * against the adapters the config describes before any value is read.
 */
public final class PeftLayout {
    /** The adapter's config file. */
    public static final String CONFIG = "adapter_config.json";
    /** The adapter's weights file. */
    public static final String WEIGHTS = "adapter_model.safetensors";
    /** The pickled weights file older PEFT wrote, which Symbiont does not read. */
    static final String PICKLED_WEIGHTS = "adapter_model.bin";

    private PeftLayout() {}

    /** Whether {@code dir} holds an adapter config. */
    public static boolean holds(Path dir) { return Files.isRegularFile(dir.resolve(CONFIG)); }

    static void save(LoraModel lora, Path dir) throws IOException {
        Files.createDirectories(dir);
        Map<String, Tensor> tensors = lora.adapterStateDict();
        try (var write = HostTransfer.CHECKPOINT.allow()) {
            Safetensors.write(dir.resolve(WEIGHTS), tensors, Map.of("format", "pt"));
        }
        AdapterConfigFile.write(dir.resolve(CONFIG), lora.config());
    }

    /** The weights file is there (a pickled one named for what it is). */
    static void checkWeightsPresent(Path dir) throws IOException {
        if (Files.isRegularFile(dir.resolve(WEIGHTS))) return;
        if (Files.isRegularFile(dir.resolve(PICKLED_WEIGHTS))) {
            throw new IOException(dir.resolve(PICKLED_WEIGHTS) + " is PyTorch's pickle format, which Symbiont does not read; save the "
                    + "adapter with safetensors (PEFT's save_pretrained does by default) to get " + WEIGHTS);
        }
        throw new IOException("no adapter weights at " + dir.resolve(WEIGHTS));
    }

    /** Loads the weights file into {@code lora}'s adapters: every key and shape checked first, values widened to float32. */
    static void loadWeights(LoraModel lora, Path dir) throws IOException {
        Path file = dir.resolve(WEIGHTS);
        Map<String, Parameter> expected = new LinkedHashMap<>();
        lora.adapters().forEach((name, a) -> {
            expected.put(LoraModel.keyA(name), a.a());
            expected.put(LoraModel.keyB(name), a.b());
        });
        check(file, Safetensors.header(file), expected);
        Backend backend = expected.values().iterator().next().value().backend();
        SafetensorsFile read;
        try (var load = HostTransfer.CHECKPOINT.allow()) {
            read = Safetensors.read(file, backend, DType.FLOAT32);
        }
        NonFiniteWeights.check(file, read.tensors(), false);
        expected.forEach((key, p) -> p.update(read.tensors().get(key)));
    }

    /** Every expected key present with its shape and a floating dtype, and no other: otherwise an error listing each that is not. */
    private static void check(Path file, SafetensorsHeader header, Map<String, Parameter> expected) {
        List<String> missing = new ArrayList<>(), unexpected = new ArrayList<>(), mismatched = new ArrayList<>();
        Map<String, TensorInfo> found = header.tensors();
        expected.forEach((key, p) -> {
            TensorInfo t = found.get(key);
            if (t == null) missing.add(key);
            else if (!Arrays.equals(t.shape(), p.shape())) {
                mismatched.add(key + ": the adapter has " + Arrays.toString(p.shape()) + ", the file " + Arrays.toString(t.shape()));
            }
        });
        found.keySet().forEach(k -> { if (!expected.containsKey(k)) unexpected.add(k); });
        List<String> problems = new ArrayList<>();
        if (!missing.isEmpty()) problems.add("missing keys " + KeyList.of(missing));
        if (!unexpected.isEmpty()) problems.add("unexpected keys " + KeyList.of(unexpected));
        if (!mismatched.isEmpty()) problems.add("shape mismatches " + KeyList.of(mismatched));
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(file + " does not fit the adapters " + CONFIG + " describes (" + expected.size() / 2
                    + " modules, r as configured): " + String.join("; ", problems));
        }
        found.forEach((k, t) -> {
            if (!t.dtype().isFloating()) throw new IllegalArgumentException(file + ": tensor '" + k + "' is " + t.dtype() + ", not floating point");
        });
    }
}
