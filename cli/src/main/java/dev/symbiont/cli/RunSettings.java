package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.models.CausalLM;
import picocli.CommandLine.ParseResult;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The settings that define a training run, saved in its checkpoint's metadata (as {@code run.*}
 * beside the model's {@link CausalLM#metadata()}) so that {@code train --resume} rebuilds the same
 * run from {@code --out} alone. On resume a flag given again may change the schedule
 * ({@code --steps}, {@code --lr}, {@code --eval-every}); one that would change the model or the
 * data order (or the optimizer, whose state the checkpoint holds) must agree with the checkpoint.
 */
record RunSettings(Map<String, String> values, Map<String, String> model) {
    private static final String PREFIX = "run.";
    /** Settings a resumed run cannot change: the task, the model's shape (a fine-tune's adapters), the data and its order. */
    private static final Set<String> FIXED = Set.of("corpus", "batch", "context", "d_model", "layers", "heads", "seed",
            "arch", "d_state", "d_conv", "expand", "head_dim", "experts", "top_k", "shared_experts", "task", "width", "data",
            "optimizer", "r", "alpha", "dropout", "target");

    static RunSettings fresh(TrainCommand command) { return fresh(command.flags()); }

    /** A new run's settings: the flags, by setting name. */
    static RunSettings fresh(Map<String, String> flags) { return new RunSettings(flags, null); }

    static RunSettings resumed(Map<String, String> metadata, ParseResult parsed, TrainCommand command) {
        Map<String, String> values = saved(metadata);
        if (!values.containsKey("arch")) values.put("arch", Architecture.of(metadata).flag()); // runs saved before --arch existed
        return resumed(values, metadata, parsed, command.flags());
    }

    /**
     * A resumed run's settings: the checkpoint's, with those of {@code flags} given again on the
     * command line in their place, where the run may change them.
     */
    static RunSettings resumed(Map<String, String> metadata, ParseResult parsed, Map<String, String> flags) {
        return resumed(saved(metadata), metadata, parsed, flags);
    }

    /** The run settings in a checkpoint's metadata. */
    private static Map<String, String> saved(Map<String, String> metadata) {
        Map<String, String> values = new LinkedHashMap<>();
        metadata.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) values.put(k.substring(PREFIX.length()), v);
        });
        if (values.isEmpty()) {
            throw new IllegalArgumentException("the checkpoint in --out has no run settings (written by an older version); start over with --force");
        }
        return values;
    }

    private static RunSettings resumed(Map<String, String> values, Map<String, String> metadata, ParseResult parsed, Map<String, String> flags) {
        checkSaved(values);
        flags.forEach((key, given) -> {
            String flag = ArchitectureOptions.flag(key);
            if (!parsed.hasMatchedOption(flag)) return;
            if (FIXED.contains(key) && !given.equals(values.get(key))) {
                throw new IllegalArgumentException(flag + " " + given + " differs from the checkpoint's " + values.get(key)
                        + ": a resumed run keeps its model and data; drop the flag or start over with --force");
            }
            values.put(key, given);
        });
        return new RunSettings(values, Map.copyOf(metadata));
    }

    /**
     * The model, of {@code family}: from the flags for a new run, from the checkpoint's metadata
     * for a resumed one (which must fit the corpus); weights drawn from {@code g}.
     */
    CausalLM model(Architecture family, int vocab, Generator g, double initStd) {
        if (model == null) return family.create(this, vocab, g, initStd);
        CausalLM saved = Architecture.load(model, g, initStd);
        if (saved.vocab() != vocab) {
            throw new IllegalArgumentException("the corpus has " + vocab + " distinct characters but the checkpoint's model has "
                    + saved.vocab() + ": resume with the corpus the run started on");
        }
        return saved;
    }

    /** What the checkpoint stores: the model's family and config and these settings. */
    Map<String, String> toMetadata(CausalLM model) { return toMetadata(model.metadata()); }

    /** What the checkpoint stores: the model's metadata and these settings. */
    Map<String, String> toMetadata(Map<String, String> modelMetadata) {
        Map<String, String> m = new LinkedHashMap<>(modelMetadata);
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

    String text(String key) { return values.get(key); }

    /** The setting, or {@code fallback} for a run saved before the setting existed. */
    String text(String key, String fallback) { return values.getOrDefault(key, fallback); }

    int integer(String key) { return Integer.parseInt(values.get(key)); }

    /** Saved settings that are whole numbers of at least 1, or at least 0, and finite non-negative numbers. */
    private static final Set<String> POSITIVE = Set.of("batch", "context", "d_model", "layers", "heads", "d_state", "d_conv",
            "expand", "experts", "top_k", "width", "r");
    private static final Set<String> NON_NEGATIVE = Set.of("steps", "eval_every", "shared_experts", "crop_padding",
            "head_dim");                                             // head_dim 0: chosen from the width
    private static final Set<String> FINITE = Set.of("lr", "weight_decay", "minutes", "dropout", "warmup", "alpha");

    /**
     * The saved settings held to the ranges their command-line options have, so a damaged
     * checkpoint is refused naming the setting instead of failing later with a parser's message.
     */
    static void checkSaved(Map<String, String> values) {
        for (var e : values.entrySet()) {
            String key = e.getKey(), v = e.getValue();
            if (POSITIVE.contains(key) || NON_NEGATIVE.contains(key)) {
                long n;
                try {
                    n = Long.parseLong(v.strip());
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException("the checkpoint's saved setting run." + key + " is '" + v + "', not a whole number");
                }
                long min = POSITIVE.contains(key) ? 1 : 0;
                if (n < min || n > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("the checkpoint's saved setting run." + key + " is " + n + ", outside ["
                            + min + ", " + Integer.MAX_VALUE + "]");
                }
            } else if (FINITE.contains(key)) {
                double d;
                try {
                    d = Double.parseDouble(v.strip());
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException("the checkpoint's saved setting run." + key + " is '" + v + "', not a number");
                }
                if (!Double.isFinite(d) || d < 0) {
                    throw new IllegalArgumentException("the checkpoint's saved setting run." + key + " is " + v + "; it must be a finite number >= 0");
                }
            } else if (key.equals("seed")) {
                try {
                    Long.parseLong(v.strip());
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException("the checkpoint's saved setting run.seed is '" + v + "', not a whole number");
                }
            }
        }
        for (String required : new String[] {"steps", "batch", "lr", "seed"}) {
            if (!values.containsKey(required)) throw new IllegalArgumentException("the checkpoint's saved settings have no run." + required);
        }
    }
}
