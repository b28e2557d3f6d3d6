package dev.symbiont.models;

import dev.symbiont.models.hf.KeyMap;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How a loaded model's files were laid out (Symbiont's run directory, a Hugging Face directory
 * with its key names, dtypes and shards), so that saving writes the same layout back.
 */
public interface ModelLayout {
    /** Writes {@code model} into {@code dir} in this layout, each file atomically. */
    void save(CausalLM model, Path dir) throws IOException;

    /**
     * How the files name the model's modules, mapped from Symbiont's state-dict keys (a module's
     * name is its weight's key without {@code .weight}); null when they are Symbiont's own names.
     * Adapters (PEFT's LoRA) name the modules they adapt this way.
     */
    default KeyMap moduleNames() { return null; }

    /** The layout's name for messages ({@code "symbiont"}, {@code "hugging face LlamaForCausalLM"}). */
    String describe();
}
