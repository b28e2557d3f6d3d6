package dev.symbiont.models;

import dev.symbiont.core.Generator;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A model loaded from a directory by {@link PretrainedModels#load}: the model, its generation
 * defaults ({@code generation_config.json}), and the layout its files had, which {@link #save}
 * writes back.
 *
 * @param model      the model, in eval mode, on the backend it was loaded to
 * @param generation its generation defaults ({@link GenerationConfig#DEFAULT} when the directory has none)
 * @param source     the directory it was read from
 * @param layout     how its files were laid out
 */
public record PretrainedModel(CausalLM model, GenerationConfig generation, Path source, ModelLayout layout) {
    /**
     * Continues {@code prompt} as the generation config says: its length, its sampling, stopping
     * after an end-of-sequence id (kept in the result). The continuation is cut where the model's
     * context ({@link CausalLM#maxSeq}) ends.
     *
     * @return the prompt followed by the new tokens
     */
    public long[] generate(long[] prompt, Generator g) { return generate(prompt, generation.newTokens(prompt.length), g); }

    /** As {@link #generate(long[], Generator)} with {@code maxNewTokens} new tokens at most. */
    public long[] generate(long[] prompt, int maxNewTokens, Generator g) {
        int room = (int) Math.max(0, Math.min(maxNewTokens, (long) model.maxSeq() - prompt.length));
        return model.generate(prompt, room, generation.sampling(), g, generation.stopIds());
    }

    /** Writes the model into {@code dir} in the layout it was read in. */
    public void save(Path dir) throws IOException { layout.save(model, dir); }
}
