package dev.symbiont.cli;

import dev.symbiont.models.gpt.GptConfig;
import picocli.CommandLine.ParseResult;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The settings that define a training run, saved in its checkpoint's metadata (as {@code run.*}
 * beside the model's {@link GptConfig#toMap()}) so that {@code train --resume} rebuilds the same
 * run from {@code --out} alone. On resume a flag given again may change the schedule
 * ({@code --steps}, {@code --lr}, {@code --eval-every}); one that would change the model or the
 * data order must agree with the checkpoint.
 */
record RunSettings(Map<String, String> values, Map<String, String> model) {
    private static final String PREFIX = "run.";
    /** Settings a resumed run cannot change: the model's shape, the corpus and the data order. */
    private static final Set<String> FIXED = Set.of("corpus", "batch", "context", "d_model", "layers", "heads", "seed");

    static RunSettings fresh(TrainCommand command) { return new RunSettings(command.flags(), null); }

    static RunSettings resumed(Map<String, String> metadata, ParseResult parsed, TrainCommand command) {
        Map<String, String> values = new LinkedHashMap<>();
        metadata.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) values.put(k.substring(PREFIX.length()), v);
        });
        if (values.isEmpty()) {
            throw new IllegalArgumentException("the checkpoint in --out has no run settings (written by an older version); start over with --force");
        }
        command.flags().forEach((key, given) -> {
            String flag = "--" + key.replace('_', '-');
            if (!parsed.hasMatchedOption(flag)) return;
            if (FIXED.contains(key) && !given.equals(values.get(key))) {
                throw new IllegalArgumentException(flag + " " + given + " differs from the checkpoint's " + values.get(key)
                        + ": a resumed run keeps its model and data; drop the flag or start over with --force");
            }
            values.put(key, given);
        });
        return new RunSettings(values, Map.copyOf(metadata));
    }

    /** The model: from the flags for a new run, from the checkpoint for a resumed one (which must fit the corpus). */
    GptConfig model(int vocab) {
        if (model == null) return GptConfig.of(vocab, integer("d_model"), integer("layers"), integer("heads"), context());
        GptConfig saved = GptConfig.fromMap(model);
        if (saved.vocab() != vocab) {
            throw new IllegalArgumentException("the corpus has " + vocab + " distinct characters but the checkpoint's model has "
                    + saved.vocab() + ": resume with the corpus the run started on");
        }
        return saved;
    }

    /** What the checkpoint stores: the model's config and these settings. */
    Map<String, String> toMetadata(GptConfig config) {
        Map<String, String> m = new LinkedHashMap<>(config.toMap());
        values.forEach((k, v) -> m.put(PREFIX + k, v));
        return m;
    }

    Path corpus() { return values.get("corpus").isEmpty() ? null : Path.of(values.get("corpus")); }
    int steps() { return integer("steps"); }
    int batch() { return integer("batch"); }
    int context() { return integer("context"); }
    int evalEvery() { return integer("eval_every"); }
    double lr() { return Double.parseDouble(values.get("lr")); }
    long seed() { return Long.parseLong(values.get("seed")); }

    private int integer(String key) { return Integer.parseInt(values.get(key)); }
}
