package dev.symbiont.train;

import dev.symbiont.amp.GradScaler;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.LoadReport;
import dev.symbiont.nn.Module;
import dev.symbiont.optim.Optimizer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a run needs to continue bit-identically, in one safetensors file: the model's
 * state dict under {@code model.}, the optimizer's under {@code optimizer.}, the gradient
 * scaler's under {@code scaler.}, and in the metadata the step, the data position and every
 * dropout generator's state ("seed,offset" of its Philox stream). Written atomically: a crash mid-save leaves the previous file.
 * The model keys are exactly the state-dict keys after the prefix, so the weights can be read
 * by anything that reads safetensors. A checkpoint of {@link ModelState#TRAINABLE} holds only the
 * parameters that train (a LoRA run's adapters, not the frozen base it was started on, which the
 * run loads again): it restores only those, and refuses one whose trainable keys differ.
 */
public final class TrainingCheckpoint {
    /** Version 2: generator states are Philox (seed, offset). */
    static final String FORMAT = "symbiont-training-checkpoint/2";
    /** Version 1 held SplitMix64 generator states; they load, reseeding Philox from the old state word. */
    static final String FORMAT_SPLITMIX = "symbiont-training-checkpoint/1";

    private TrainingCheckpoint() {}

    /** Where a run stands: optimizer steps taken and the next batch to read. */
    public record Position(long step, int epoch, int batch) {}

    /** Which of the model's tensors a checkpoint holds. */
    public enum ModelState {
        /** The whole state dict. */
        FULL,
        /** Only the parameters that are not frozen (by {@link Module#namedParameters()} name). */
        TRAINABLE
    }

    /** The metadata entry saying a checkpoint holds only the trainable parameters. */
    static final String MODEL_STATE = "model_state", TRAINABLE = "trainable";

    public static void save(Path file, Module model, Optimizer optimizer, GradScaler scaler, Position position) throws IOException {
        save(file, model, optimizer, scaler, position, Map.of());
    }

    /**
     * As {@link #save(Path, Module, Optimizer, GradScaler, Position)}, with {@code extra} entries
     * in the metadata (read back with {@link #metadata}); they may not replace the checkpoint's own.
     */
    public static void save(Path file, Module model, Optimizer optimizer, GradScaler scaler, Position position,
                            Map<String, String> extra) throws IOException {
        save(file, model, optimizer, scaler, position, extra, ModelState.FULL);
    }

    /** As {@link #save(Path, Module, Optimizer, GradScaler, Position, Map)}, holding the model's tensors {@code state} says. */
    public static void save(Path file, Module model, Optimizer optimizer, GradScaler scaler, Position position,
                            Map<String, String> extra, ModelState state) throws IOException {
        try (var write = HostTransfer.CHECKPOINT.allow()) {
            write(file, model, optimizer, scaler, position, extra, state);
        }
    }

    private static void write(Path file, Module model, Optimizer optimizer, GradScaler scaler, Position position,
                              Map<String, String> extra, ModelState state) throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        (state == ModelState.TRAINABLE ? trainable(model) : model.stateDict()).forEach((k, v) -> tensors.put("model." + k, v));
        optimizer.stateDict().forEach((k, v) -> tensors.put("optimizer." + k, v));
        if (scaler != null) scaler.stateDict().forEach((k, v) -> tensors.put("scaler." + k, v));
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("format", FORMAT);
        meta.put("step", Long.toString(position.step()));
        meta.put("epoch", Integer.toString(position.epoch()));
        meta.put("batch", Integer.toString(position.batch()));
        if (state == ModelState.TRAINABLE) meta.put(MODEL_STATE, TRAINABLE);
        dropouts(model).forEach((name, d) -> {
            long[] s = d.generator().state();
            meta.put("rng." + name, s[0] + "," + s[1]);
        });
        for (var e : extra.entrySet()) {
            if (meta.putIfAbsent(e.getKey(), e.getValue()) != null) {
                throw new IllegalArgumentException("TrainingCheckpoint.save: metadata key '" + e.getKey() + "' is the checkpoint's own");
            }
        }
        Safetensors.write(file, tensors, meta);
    }

    /** The metadata of a training checkpoint (its own entries and the extra ones it was saved with). */
    public static Map<String, String> metadata(Path file) throws IOException {
        return checked(file, Safetensors.header(file).metadata());
    }

    private static Map<String, String> checked(Path file, Map<String, String> meta) throws IOException {
        if (!FORMAT.equals(meta.get("format")) && !FORMAT_SPLITMIX.equals(meta.get("format"))) {
            throw new IOException(file + ": not a training checkpoint (metadata format is " + shown(meta.get("format")) + ", expected " + FORMAT + ")");
        }
        return meta;
    }

    /**
     * Checks, before a run rebuilds its model from {@code file}'s metadata, that the config there
     * describes the checkpoint's model tensors ({@link dev.symbiont.io.ConfigPreflight}): a damaged
     * config is refused naming the file before a model of its size is built.
     */
    public static void preflight(Path file, java.util.function.Supplier<? extends Module> build) throws IOException {
        dev.symbiont.io.ConfigPreflight.check(file, Safetensors.header(file), "model.", build);
    }

    /** Saves only the model's weights (state-dict keys, no prefix): what `generate` needs. */
    public static void saveWeights(Path file, Module model, Map<String, String> metadata) throws IOException {
        try (var write = HostTransfer.CHECKPOINT.allow()) {
            Safetensors.write(file, model.stateDict(), metadata);
        }
    }

    /**
     * Restores model, optimizer, scaler and dropout generators from {@code file} and returns the
     * position to continue from. The model and optimizer load strictly: a checkpoint from a
     * different configuration throws with the list of keys that disagree.
     */
    public static Position load(Path file, Module model, Optimizer optimizer, GradScaler scaler) throws IOException {
        try (var read = HostTransfer.CHECKPOINT.allow()) {
            return restore(file, model, optimizer, scaler);
        }
    }

    private static Position restore(Path file, Module model, Optimizer optimizer, GradScaler scaler) throws IOException {
        SafetensorsHeader header = Safetensors.header(file);
        Map<String, String> meta = checked(file, header.metadata());
        Position position = new Position(number(file, meta, "step"), (int) number(file, meta, "epoch"), (int) number(file, meta, "batch"));
        boolean splitMix = FORMAT_SPLITMIX.equals(meta.get("format"));
        Map<String, long[]> generators = new LinkedHashMap<>();
        for (String name : dropouts(model).keySet()) generators.put(name, generatorState(file, meta, name, splitMix));
        SafetensorsFile f = Safetensors.read(file);
        try {
            Map<String, Tensor> state = withPrefix(f.tensors(), "model.");
            NonFiniteWeights.check(file, state, false);
            if (TRAINABLE.equals(meta.get(MODEL_STATE))) {
                checkTrainable(model, state);
                model.loadStateDict(state, false);                 // the frozen rest is the model's own
            } else {
                model.loadStateDict(state, true);
            }
            optimizer.loadStateDict(withPrefix(f.tensors(), "optimizer."));
            if (scaler != null) scaler.loadStateDict(withPrefix(f.tensors(), "scaler."));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
        dropouts(model).forEach((name, d) -> d.generator().setState(generators.get(name)));
        return position;
    }

    /** The parameters that train, by name: what a {@link ModelState#TRAINABLE} checkpoint holds. */
    private static Map<String, Tensor> trainable(Module model) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        model.namedParameters().forEach((k, p) -> { if (!p.frozen()) out.put(k, p.value().detach()); });
        return out;
    }

    /** The checkpoint's model tensors are exactly the model's trainable parameters, each of its shape. */
    private static void checkTrainable(Module model, Map<String, Tensor> state) {
        Map<String, Tensor> expected = trainable(model);
        List<String> missing = new ArrayList<>(), unexpected = new ArrayList<>();
        List<LoadReport.Mismatch> mismatched = new ArrayList<>();
        expected.forEach((k, t) -> {
            Tensor given = state.get(k);
            if (given == null) missing.add(k);
            else if (!Arrays.equals(given.shape(), t.shape())) mismatched.add(new LoadReport.Mismatch(k, t.shape(), given.shape()));
        });
        state.keySet().forEach(k -> { if (!expected.containsKey(k)) unexpected.add(k); });
        LoadReport report = new LoadReport(missing, unexpected, mismatched);
        if (!report.isClean()) {
            throw new IllegalArgumentException("the checkpoint holds the trainable parameters of another model: " + report);
        }
    }

    /** A non-negative integer field of the metadata; an error naming the file, the field and its value. */
    private static long number(Path file, Map<String, String> meta, String field) throws IOException {
        String value = meta.get(field);
        if (value == null) throw new IOException(file + ": the checkpoint's metadata has no '" + field + "'");
        long n;
        try {
            n = Long.parseLong(value.strip());
        } catch (NumberFormatException e) {
            throw new IOException(file + ": the checkpoint's '" + field + "' is '" + shown(value) + "', not a whole number");
        }
        if (n < 0 || (!field.equals("step") && n > Integer.MAX_VALUE)) {
            throw new IOException(file + ": the checkpoint's '" + field + "' is " + n + ", outside [0, "
                    + (field.equals("step") ? Long.MAX_VALUE : Integer.MAX_VALUE) + "]");
        }
        return n;
    }

    /**
     * A dropout generator's saved state, "seed,offset" (version 1: the SplitMix64 state word,
     * which seeds a fresh Philox stream: the resumed run is deterministic but not the one v1 would give).
     */
    private static long[] generatorState(Path file, Map<String, String> meta, String name, boolean splitMix) throws IOException {
        String field = "rng." + name, saved = meta.get(field);
        if (saved == null) throw new IOException(file + ": no generator state for dropout '" + name + "' (metadata '" + field + "')");
        String[] words = saved.split(",");
        if (words.length != (splitMix ? words.length : 2) || words.length < 1) {
            throw new IOException(file + ": the checkpoint's '" + field + "' is '" + shown(saved) + "', expected two numbers \"seed,offset\"");
        }
        try {
            return splitMix ? new long[] {Long.parseLong(words[0].strip()), 0}
                            : new long[] {Long.parseLong(words[0].strip()), Long.parseLong(words[1].strip())};
        } catch (NumberFormatException e) {
            throw new IOException(file + ": the checkpoint's '" + field + "' is '" + shown(saved) + "', expected two numbers \"seed,offset\"");
        }
    }

    /** A value from the file as a message shows it: at most 60 characters. */
    private static String shown(String value) {
        return value == null || value.length() <= 60 ? value : value.substring(0, 60) + "... (" + value.length() + " characters)";
    }

    private static Map<String, Tensor> withPrefix(Map<String, Tensor> all, String prefix) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith(prefix)) out.put(k.substring(prefix.length()), v);
        });
        return out;
    }

    private static Map<String, Dropout> dropouts(Module model) {
        Map<String, Dropout> out = new LinkedHashMap<>();
        model.namedModules().forEach((name, m) -> {
            if (m instanceof Dropout d) out.put(name.isEmpty() ? "root" : name, d);
        });
        return out;
    }
}
