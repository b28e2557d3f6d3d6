package dev.symbiont.peft;

import dev.symbiont.core.Generator;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Seed;
import dev.symbiont.nn.attention.FeedForward;
import dev.symbiont.nn.attention.MultiHeadAttention;
import dev.symbiont.nn.block.Mlp;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Low-rank adaptation (LoRA) of a language model, as PEFT's {@code get_peft_model} and
 * {@code PeftModel.from_pretrained} do it:
 * <pre>
 *   PretrainedModel base = PretrainedModels.load(Path.of("Llama-3.2-1B"));
 *   LoraModel lora = Lora.apply(base, LoraConfig.of(8, 16, 0.05, "q_proj", "v_proj"));
 *   System.out.println(lora.trainableParameters());   // trainable params: 851,968 || all params: ... || trainable%: 0.0689
 *   ... train lora.model() with an optimizer over its trainable parameters ...
 *   lora.save(Path.of("my-adapter"));                 // adapter_config.json + adapter_model.safetensors, PEFT's keys
 *   LoraModel again = Lora.load(PretrainedModels.load(Path.of("Llama-3.2-1B")), Path.of("my-adapter"));
 * </pre>
 * Targets are matched against the module names adapters use ({@link ModuleNames}: transformers'
 * for a Hugging Face model); the linear layers of attention and MLP blocks can be adapted.
 * Every base parameter is frozen and a {@link LoraAdapter} attached to each target.
 */
public final class Lora {
    private Lora() {}

    /** A linear layer that can carry an adapter: its Symbiont path, its name for adapters, itself, and whether it is a Conv1D. */
    record Target(String path, String peftName, Linear linear, boolean conv1d) {}

    /** Adapts {@code base} (its modules named as its layout names them), adapters' A drawn from the shared {@link Seed} generator. */
    public static LoraModel apply(PretrainedModel base, LoraConfig config) {
        return apply(base.model(), ModuleNames.of(base.layout()), config, Seed.generator());
    }

    /**
     * Freezes {@code model} and attaches an adapter to each linear layer {@code config} targets.
     *
     * @param names how adapters name the model's modules
     * @param g     the source of each A's initial values (and of the adapters' dropout seeds)
     * @return the adapted model, its config with PEFT's {@code fan_in_fan_out} as the targets need it
     *         and {@code all-linear} resolved to the names it found
     * @throws IllegalArgumentException when no layer matches, a matched layer cannot be adapted, or
     *         the model carries adapters already
     */
    public static LoraModel apply(CausalLM model, ModuleNames names, LoraConfig config, Generator g) {
        refuseAdapted(model);
        List<Target> targets = targets(model, names, config.targetModules());
        boolean conv1d = targets.stream().anyMatch(Target::conv1d);
        LoraConfig effective = config.withFanInFanOut(conv1d);
        if (config.targetModules() instanceof TargetModules.AllLinear) {
            TreeSet<String> found = new TreeSet<>();
            targets.forEach(t -> found.add(t.peftName().substring(t.peftName().lastIndexOf('.') + 1)));
            effective = effective.withTargetModules(new TargetModules.Names(List.copyOf(found)));
        }
        model.freeze();
        Map<String, LoraAdapter> adapters = new LinkedHashMap<>();
        for (Target t : targets) {
            LoraAdapter a = new LoraAdapter(t.linear(), config.r(), config.scaling(), config.loraDropout(), g);
            if (!model.isTraining()) a.eval();
            t.linear().attach(a);
            adapters.put(t.peftName(), a);
        }
        return new LoraModel(model, names, effective, adapters);
    }

    /** Loads the PEFT adapter in {@code dir} onto {@code base}: {@link #load(CausalLM, ModuleNames, Path)} with the base's names. */
    public static LoraModel load(PretrainedModel base, Path dir) throws IOException {
        return load(base.model(), ModuleNames.of(base.layout()), dir);
    }

    /**
     * Reads {@code dir/adapter_config.json}, attaches the adapters it describes to {@code model}
     * and loads {@code dir/adapter_model.safetensors} into them.
     *
     * @throws IOException when a file is missing, unreadable or malformed (named)
     * @throws IllegalArgumentException naming the file and the field, or every missing, unexpected and
     *         mis-shaped key, when the adapter does not fit the model or asks for what Symbiont cannot run
     */
    public static LoraModel load(CausalLM model, ModuleNames names, Path dir) throws IOException {
        LoraConfig config = AdapterConfigFile.read(dir.resolve(PeftLayout.CONFIG));
        PeftLayout.checkWeightsPresent(dir);
        refuseAdapted(model);
        LoraModel lora;
        try {
            lora = apply(model, names, config, new Generator(0));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(dir.resolve(PeftLayout.CONFIG) + ": " + e.getMessage(), e);
        }
        try {
            PeftLayout.loadWeights(lora, dir);
        } catch (IOException | RuntimeException e) {
            lora.unload();                                    // the model as it was: no half-loaded adapters left on it
            throw e;
        }
        return lora;
    }

    private static void refuseAdapted(CausalLM model) {
        model.namedModules().forEach((path, m) -> {
            if (m instanceof Linear l && l.adapter() != null) {
                throw new IllegalArgumentException("Lora.apply: the model carries adapters already (at " + path + "); unload them first");
            }
        });
    }

    /** The layers {@code targets} picks, in module order; at least one. */
    static List<Target> targets(CausalLM model, ModuleNames names, TargetModules targets) {
        List<String> linearNames = new ArrayList<>();
        List<Target> out = scan(model, names, targets, linearNames);
        if (out.isEmpty()) {
            throw new IllegalArgumentException("Lora.apply: target_modules " + targets + " matches no linear layer of the model; its linear "
                    + "layers are named like " + examples(linearNames));
        }
        return out;
    }

    /** The layers {@code targets} picks, in module order; the names of the linear layers it looked at go to {@code linearNames}. */
    private static List<Target> scan(CausalLM model, ModuleNames names, TargetModules targets, List<String> linearNames) {
        Map<String, Module> modules = model.namedModules();
        List<Target> out = new ArrayList<>();
        for (var e : modules.entrySet()) {
            if (!(e.getValue() instanceof Linear linear)) continue;
            String path = e.getKey(), name = names.peftName(path);
            Module parent = modules.get(path.contains(".") ? path.substring(0, path.lastIndexOf('.')) : "");
            boolean adaptable = parent instanceof MultiHeadAttention || parent instanceof FeedForward || parent instanceof Mlp;
            if (name == null || (targets instanceof TargetModules.AllLinear && !adaptable)) continue;
            linearNames.add(name);
            if (!targets.matches(name)) continue;
            if (!adaptable) {
                throw new IllegalArgumentException("Lora.apply: target_modules " + targets + " matches " + name + ", a linear layer of "
                        + parent.getClass().getSimpleName() + ", which Symbiont cannot adapt: it reads the weight directly. "
                        + "LoRA adapts the linear layers of attention and MLP blocks");
            }
            out.add(new Target(path, name, linear, names.conv1d(path)));
        }
        return out;
    }

    /** The distinct last names of {@code names} ("q_proj, k_proj, ..."), for messages. */
    private static String examples(List<String> names) {
        TreeSet<String> last = new TreeSet<>();
        names.forEach(n -> last.add(n.substring(n.lastIndexOf('.') + 1)));
        return last.isEmpty() ? "(none)" : String.join(", ", last) + (names.isEmpty() ? "" : " (e.g. " + names.getFirst() + ")");
    }

    /** The adaptable linear layers' names, for a default {@link TargetModules#defaultFor}. */
    public static List<String> adaptableNames(CausalLM model, ModuleNames names) {
        return scan(model, names, new TargetModules.AllLinear(), new ArrayList<>()).stream().map(Target::peftName).toList();
    }
}
