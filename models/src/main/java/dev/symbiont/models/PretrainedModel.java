package dev.symbiont.models;

import dev.symbiont.core.Generator;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.LongConsumer;

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
     * Continues {@code prompt} as the generation config says: its length, its sampling and
     * repetition penalty, stopping after an end-of-sequence id (kept in the result); past the
     * model's context ({@link CausalLM#maxSeq}) the window slides.
     *
     * @return the prompt followed by the new tokens
     */
    public long[] generate(long[] prompt, Generator g) { return generate(prompt, generation, g); }

    /** As {@link #generate(long[], Generator)} with {@code maxNewTokens} new tokens at most. */
    public long[] generate(long[] prompt, int maxNewTokens, Generator g) {
        return generate(prompt, generation.withMaxNewTokens(maxNewTokens), g);
    }

    /** As {@link #generate(long[], Generator)} with {@code config} (the model's defaults changed with its {@code with*} methods). */
    public long[] generate(long[] prompt, GenerationConfig config, Generator g) {
        if ((long) prompt.length + config.newTokens(prompt.length) > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("PretrainedModel.generate: prompt of " + prompt.length + " tokens + " + config.newTokens(prompt.length)
                    + " new tokens exceeds what a Java array holds; take the tokens as they come with stream");
        }
        var out = new Object() {
            long[] ids = Arrays.copyOf(prompt, prompt.length + Math.min(config.newTokens(prompt.length), 4096));
            int size = prompt.length;
        };
        model.generate(prompt, config, g, id -> {
            if (out.size == out.ids.length) out.ids = Arrays.copyOf(out.ids, (int) Math.min(Integer.MAX_VALUE - 8, 2L * out.ids.length));
            out.ids[out.size++] = id;
        });
        return Arrays.copyOf(out.ids, out.size);
    }

    /**
     * Streams a continuation of {@code prompt} as the generation config says, each new token to
     * {@code onToken} as soon as it is picked ({@link CausalLM#generate(long[], GenerationConfig, Generator, LongConsumer)}).
     *
     * @return the counts and the time the prompt and the decoding steps took
     */
    public GenerationStats stream(long[] prompt, Generator g, LongConsumer onToken) { return model.generate(prompt, generation, g, onToken); }

    /** Writes the model into {@code dir} in the layout it was read in. */
    public void save(Path dir) throws IOException { layout.save(model, dir); }
}
