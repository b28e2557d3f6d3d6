package dev.symbiont.models;

import java.io.IOException;
import java.nio.file.Path;

/**
 * How a loaded model's files were laid out (Symbiont's run directory, a Hugging Face directory
 * with its key names, dtypes and shards), so that saving writes the same layout back.
 */
public interface ModelLayout {
    /** Writes {@code model} into {@code dir} in this layout, each file atomically. */
    void save(CausalLM model, Path dir) throws IOException;

    /** The layout's name for messages ({@code "symbiont"}, {@code "hugging face LlamaForCausalLM"}). */
    String describe();
}
