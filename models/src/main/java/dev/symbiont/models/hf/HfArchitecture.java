package dev.symbiont.models.hf;

import java.util.Set;

/**
 * One Hugging Face model class Symbiont runs ({@code LlamaForCausalLM}, {@code GPT2LMHeadModel},
 * ...): how its {@code config.json} becomes a model and how the checkpoint names the model's
 * keys. {@link HfArchitectures} holds them by name; a new one is one class and one line there.
 */
public interface HfArchitecture {
    /** The class name {@code config.json}'s {@code architectures[0]} gives. */
    String name();

    /** The {@code model_type}, which names the class when a config lists no architectures. */
    String modelType();

    /**
     * What the config describes: how to build the model and how its keys are named.
     *
     * @param config   the parsed config.json
     * @param fileKeys the checkpoint's tensor keys (a layout may differ in its prefix)
     * @throws IllegalArgumentException naming the file, the architecture and the field for a value it cannot run
     */
    HfModelPlan plan(HfConfig config, Set<String> fileKeys);
}
