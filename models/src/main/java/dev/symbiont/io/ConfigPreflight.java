package dev.symbiont.io;

import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.meta.MetaBackend;
import dev.symbiont.nn.LoadReport;
import dev.symbiont.nn.Module;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Checks that a file's config describes its tensors before the model is built for real. The
 * model is built on the {@link MetaBackend} (shapes, no data) from the config in the file's
 * metadata and its state dict compared with the file's header, so a config that declares a
 * model larger than its tensors (a million layers in a file of kilobytes) is refused in
 * milliseconds, naming the file, the key and both shapes, before anything of that size exists.
 */
public final class ConfigPreflight {
    /** Storages a meta build may make per tensor of the file (initialisation makes a few temporaries each). */
    static final int STORAGES_PER_TENSOR = 64;
    /** Metadata keys that count layers, compared with the layers the file's keys hold when a build runs over budget. */
    static final List<String> LAYER_COUNTS = List.of("n_layers", "num_hidden_layers", "num_layers");

    private ConfigPreflight() {}

    /**
     * Builds {@code build} on the meta device and compares its state dict (keys under
     * {@code prefix} in the file) with {@code header}; throws an IllegalArgumentException naming
     * {@code file} when they disagree or the build fails. Returns the meta-built model, whose
     * config the caller may read (its tensors have no data).
     */
    public static Module check(Path file, SafetensorsHeader header, String prefix, Supplier<? extends Module> build) {
        Map<String, TensorInfo> stored = new java.util.LinkedHashMap<>();
        header.tensors().forEach((k, v) -> {
            if (k.startsWith(prefix)) stored.put(k.substring(prefix.length()), v);
        });
        Map<String, Tensor> state;
        Module model;
        try {
            model = metaBuild(stored.size(), build);
            state = model.stateDict();
        } catch (MetaBackend.BudgetExceededException e) {
            throw new IllegalArgumentException(file + ": its config declares a model far larger than the " + stored.size()
                    + " tensors it holds" + layerMismatch(header.metadata(), stored.keySet()) + "; refusing to build it");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": its config does not describe a buildable model: " + shortened(e.getMessage()), e);
        }
        List<String> missing = new ArrayList<>(), unexpected = new ArrayList<>();
        List<LoadReport.Mismatch> mismatched = new ArrayList<>();
        state.forEach((k, t) -> {
            TensorInfo info = stored.get(k);
            if (info == null) missing.add(prefix + k);
            else if (!Arrays.equals(info.shape(), t.shape())) mismatched.add(new LoadReport.Mismatch(prefix + k, t.shape(), info.shape()));
        });
        for (String k : stored.keySet()) if (!state.containsKey(k)) unexpected.add(prefix + k);
        LoadReport report = new LoadReport(missing, unexpected, mismatched);
        if (!report.isClean()) {
            throw new IllegalArgumentException(file + ": its config and its tensors disagree" + layerMismatch(header.metadata(), stored.keySet())
                    + ": " + report);
        }
        return model;
    }

    /**
     * Builds {@code build} on the meta device (shapes, no data), allowed as many storages as a
     * model of {@code tensors} tensors makes with its initialisation.
     *
     * @throws MetaBackend.BudgetExceededException when the build makes more: its config declares
     *         a model far larger than the file's tensors
     */
    public static Module metaBuild(int tensors, Supplier<? extends Module> build) {
        try (Scope s = Backends.use(new MetaBackend(STORAGES_PER_TENSOR * (long) tensors + 4096))) {
            return build.get();
        }
    }

    /** A message that echoes the file's own text, cut so the error stays one readable line. */
    public static String shortened(String message) {
        String m = String.valueOf(message);
        return m.length() <= 300 ? m : m.substring(0, 300) + "... (" + m.length() + " characters)";
    }

    /** ", n_layers is 46341 but the tensors hold 2 layers" when the metadata's layer count is not the keys'. */
    static String layerMismatch(Map<String, String> metadata, java.util.Set<String> keys) {
        int layers = 0;
        for (String k : keys) {
            for (String part : k.split("\\.")) {
                if (!part.isEmpty() && part.length() < 10 && part.chars().allMatch(Character::isDigit)) {
                    layers = Math.max(layers, Integer.parseInt(part) + 1);
                    break;
                }
            }
        }
        StringBuilder s = new StringBuilder();
        for (String key : LAYER_COUNTS) {
            String declared = metadata.get(key);
            if (declared != null && !declared.equals(Integer.toString(layers))) {
                s.append(", ").append(key).append(" is ").append(declared).append(" but the tensors hold ").append(layers).append(" layers");
            }
        }
        return s.toString();
    }
}
