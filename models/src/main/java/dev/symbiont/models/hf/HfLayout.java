package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.AtomicFiles;
import dev.symbiont.io.JsonFiles;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.TensorInfo;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.ModelLayout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A Hugging Face model directory's layout as it was read, written back by {@link #save}: its
 * {@code config.json} and {@code generation_config.json} byte for byte, and its weights under
 * the same keys, in the same dtypes (float32 weights narrowed back exactly: they were widened
 * from them), the same order and the same shards, with each shard's {@code __metadata__} and
 * the index's. A model saved unchanged is bit-identical in every tensor. A single file above
 * {@link #DEFAULT_MAX_SHARD_BYTES} is sharded, as transformers' {@code save_pretrained} does;
 * {@link #save(CausalLM, Path, long)} shards at any size. Saving removes the other layout's
 * entry file and stale {@code model-NNNNN-of-NNNNN.safetensors} shards from the directory, which
 * would otherwise be read in its place.
 */
public final class HfLayout implements ModelLayout {
    /** transformers' {@code max_shard_size} default, "5GB". */
    public static final long DEFAULT_MAX_SHARD_BYTES = 5_000_000_000L;
    private static final Pattern SHARD_NAME = Pattern.compile("model-\\d{5}-of-\\d{5}\\.safetensors");

    /** One tensor as the checkpoint stores it. */
    record Stored(String key, DType dtype, int[] shape) {
        long bytes() { return (long) Arrays.stream(shape).asLongStream().reduce(1, (a, b) -> a * b) * dtype.byteSize(); }
    }

    /** One weights file: its name, its safetensors metadata and its tensors in order. */
    record Shard(String file, Map<String, String> metadata, List<Stored> tensors) {}

    private final String architecture;
    private final KeyMap keys, moduleNames;
    private final byte[] config, generation;
    private final List<Shard> shards;
    private final ObjectNode index;

    private HfLayout(String architecture, KeyMap keys, KeyMap moduleNames, byte[] config, byte[] generation, List<Shard> shards,
                     ObjectNode index) {
        this.architecture = architecture;
        this.keys = keys;
        this.moduleNames = moduleNames;
        this.config = config;
        this.generation = generation;
        this.shards = List.copyOf(shards);
        this.index = index;
    }

    /** The layout of {@code files}, keeping the tensors the model loaded ({@code loaded}, by checkpoint key). */
    static HfLayout of(String architecture, KeyMap keys, KeyMap moduleNames, WeightFiles files, Map<String, TensorInfo> loaded)
            throws IOException {
        List<Shard> shards = new ArrayList<>();
        Map<String, List<Stored>> byFile = new LinkedHashMap<>();
        files.shards().keySet().forEach(f -> byFile.put(f, new ArrayList<>()));
        files.entries().values().forEach(e -> {
            if (loaded.containsKey(e.key())) byFile.get(e.file()).add(new Stored(e.key(), e.info().dtype(), e.info().shape()));
        });
        byFile.forEach((f, tensors) -> shards.add(new Shard(f, files.shards().get(f).metadata(), tensors)));
        Path generation = files.dir().resolve(GenerationConfigFile.NAME);
        return new HfLayout(architecture, keys, moduleNames, Files.readAllBytes(files.dir().resolve(HfModelDirectory.CONFIG)),
                Files.isRegularFile(generation) ? Files.readAllBytes(generation) : null, shards, files.index());
    }

    /** The model's modules as transformers names them ({@code model.layers.0.self_attn.q_proj}), as PEFT's adapters do. */
    @Override
    public KeyMap moduleNames() { return moduleNames; }

    @Override
    public String describe() { return "hugging face " + architecture + (index == null ? "" : ", " + shards.size() + " shards"); }

    /** Writes the model in the layout it was read in (a single file above {@link #DEFAULT_MAX_SHARD_BYTES} sharded). */
    @Override
    public void save(CausalLM model, Path dir) throws IOException {
        if (index == null && totalBytes() > DEFAULT_MAX_SHARD_BYTES) save(model, dir, DEFAULT_MAX_SHARD_BYTES);
        else write(model, dir, shards, index != null);
    }

    /**
     * Writes the model with its tensors, in order, in shards of at most {@code maxShardBytes}
     * (a tensor larger than that alone in one), named as transformers names them; one file when
     * all fit.
     */
    public void save(CausalLM model, Path dir, long maxShardBytes) throws IOException {
        if (maxShardBytes <= 0) throw new IllegalArgumentException("HfLayout.save: maxShardBytes must be positive, got " + maxShardBytes);
        List<List<Stored>> groups = new ArrayList<>();
        long size = 0;
        for (Shard s : shards) {
            for (Stored t : s.tensors) {
                if (groups.isEmpty() || (size > 0 && size + t.bytes() > maxShardBytes)) {
                    groups.add(new ArrayList<>());
                    size = 0;
                }
                groups.getLast().add(t);
                size += t.bytes();
            }
        }
        Map<String, String> format = Map.of("format", "pt");
        if (groups.size() == 1) {
            write(model, dir, List.of(new Shard(WeightFiles.SINGLE, format, groups.getFirst())), false);
            return;
        }
        List<Shard> out = new ArrayList<>();
        for (int i = 0; i < groups.size(); i++) {
            out.add(new Shard(String.format("model-%05d-of-%05d.safetensors", i + 1, groups.size()), format, groups.get(i)));
        }
        write(model, dir, out, true);
    }

    private long totalBytes() { return shards.stream().flatMap(s -> s.tensors.stream()).mapToLong(Stored::bytes).sum(); }

    private void write(CausalLM model, Path dir, List<Shard> out, boolean sharded) throws IOException {
        Files.createDirectories(dir);
        Map<String, Tensor> state = model.stateDict();
        for (Shard s : out) Safetensors.write(dir.resolve(s.file), tensors(state, s), s.metadata);
        if (sharded) JsonFiles.write(dir.resolve(WeightFiles.INDEX), index(out));
        AtomicFiles.write(dir.resolve(HfModelDirectory.CONFIG), o -> o.write(config));
        if (generation != null) AtomicFiles.write(dir.resolve(GenerationConfigFile.NAME), o -> o.write(generation));
        removeStale(dir, out, sharded);
    }

    /** A shard's tensors from the model's state dict, renamed, transposed back where stored transposed, in the stored dtype. */
    private Map<String, Tensor> tensors(Map<String, Tensor> state, Shard shard) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (Stored s : shard.tensors) {
            KeyMap.Mapped m = keys.toSymbiont(s.key);
            Tensor t = state.get(m.key());
            if (t == null) throw new IllegalArgumentException("HfLayout.save: the model has no '" + m.key() + "' to write as " + s.key);
            Tensor stored = m.transposed() ? t.t() : t;
            if (!Arrays.equals(stored.shape(), s.shape)) {
                throw new IllegalArgumentException("HfLayout.save: " + s.key + " was " + Arrays.toString(s.shape) + " in the checkpoint read, the "
                        + "model's is " + Arrays.toString(stored.shape()) + "; a model of another shape needs a config.json of its own");
            }
            out.put(s.key, stored.dtype() == s.dtype ? stored : stored.to(s.dtype));
        }
        return out;
    }

    /** The index: the one read with its total_size updated and its keys' files, or a new one in key order. */
    private ObjectNode index(List<Shard> out) {
        ObjectNode doc = index != null && out == shards ? index.deepCopy() : JsonFiles.newObject();
        JsonNode metadata = doc.get("metadata");
        ObjectNode meta = metadata instanceof ObjectNode m ? m : doc.putObject("metadata");
        meta.put("total_size", out.stream().flatMap(s -> s.tensors.stream()).mapToLong(Stored::bytes).sum());
        Map<String, String> fileOf = new TreeMap<>();
        out.forEach(s -> s.tensors.forEach(t -> fileOf.put(t.key, s.file)));
        ObjectNode map = JsonFiles.newObject();
        JsonNode old = doc.get("weight_map");
        if (old != null) old.properties().forEach(e -> { if (fileOf.containsKey(e.getKey())) map.put(e.getKey(), fileOf.get(e.getKey())); });
        fileOf.forEach((k, f) -> { if (!map.has(k)) map.put(k, f); });
        doc.set("weight_map", map);
        return doc;
    }

    /** Deletes the other layout's entry file and numbered shards this save did not write. */
    private static void removeStale(Path dir, List<Shard> written, boolean sharded) throws IOException {
        Files.deleteIfExists(dir.resolve(sharded ? WeightFiles.SINGLE : WeightFiles.INDEX));
        Set<String> names = written.stream().map(Shard::file).collect(Collectors.toSet());
        try (var listing = Files.list(dir)) {
            for (Path p : listing.toList()) {
                String name = p.getFileName().toString();
                if (SHARD_NAME.matcher(name).matches() && !names.contains(name)) Files.delete(p);
            }
        }
    }
}
