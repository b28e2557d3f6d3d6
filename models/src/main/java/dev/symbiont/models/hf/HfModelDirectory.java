package dev.symbiont.models.hf;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.io.TensorInfo;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.GenerationConfig;
import dev.symbiont.models.LoadOptions;
import dev.symbiont.models.PretrainedModel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A Hugging Face model directory: {@code config.json} (which class, which sizes),
 * {@code generation_config.json} (stop ids, sampling), and the weights in {@code model.safetensors}
 * or shards listed by {@code model.safetensors.index.json}. Loading reads the config and the
 * headers, checks every tensor's key and shape against a meta-device build of the model
 * ({@link HfPreflight}), then builds the model and loads the weights shard by shard
 * ({@link HfWeightLoader}), widened to float32; the model keeps the directory's layout to save it
 * back ({@link HfLayout}).
 */
public final class HfModelDirectory {
    public static final String CONFIG = "config.json";

    private HfModelDirectory() {}

    /** Whether {@code dir} has a config.json. */
    public static boolean holds(Path dir) { return Files.isRegularFile(dir.resolve(CONFIG)); }

    /**
     * The generation defaults of {@code dir} ({@code generation_config.json}, else the ids of
     * {@code config.json}), read without the weights: what a caller overrides before generating.
     *
     * @throws IOException when a file is unreadable or malformed (named)
     * @throws IllegalArgumentException naming the file and the field for a value out of range
     */
    public static GenerationConfig generationConfig(Path dir) throws IOException {
        return GenerationConfigFile.read(dir, HfConfig.read(dir.resolve(CONFIG)));
    }

    /**
     * Loads the model in {@code dir} onto the options' backend, in eval mode.
     *
     * @throws IOException when a file is missing, unreadable or malformed (named)
     * @throws IllegalArgumentException naming the file and the field, key or shape when the model is
     *         not one Symbiont runs or the weights do not fit the config
     */
    public static PretrainedModel load(Path dir, LoadOptions options) throws IOException {
        HfConfig config = HfConfig.read(dir.resolve(CONFIG));
        HfArchitecture architecture = HfArchitectures.of(config);
        WeightFiles files = WeightFiles.open(dir);
        Map<String, WeightFiles.Entry> entries = files.entries();
        HfModelPlan plan = architecture.plan(config, entries.keySet());
        Map<String, TensorInfo> loaded = HfPreflight.check(config, files, entries, plan);
        GenerationConfig generation = GenerationConfigFile.read(dir, config);
        Backend backend = options.target();
        CausalLM model;
        try (var on = Backends.use(backend)) {
            model = plan.build().get();
        }
        HfWeightLoader.load(model, files, plan, backend, options.allowNonFinite());
        if (!options.float32()) StoredPrecision.keep(model, plan.keys(), loaded);
        model.eval();
        return new PretrainedModel(model, generation, dir, HfLayout.of(architecture.name(), plan.keys(), plan.moduleNames(), files, loaded));
    }
}
