package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.core.DType;
import dev.symbiont.io.Excerpt;
import dev.symbiont.io.JsonFiles;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.io.TensorInfo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The safetensors files of a Hugging Face model directory, read by their headers only:
 * {@code model.safetensors}, or the shards {@code model.safetensors.index.json} lists in its
 * {@code weight_map} (tensor key → shard file). Every listed tensor must be in its shard, and
 * every tensor of a shard listed there; weights are F32, BF16 or F16. Anything else is an error
 * naming the key and the file.
 *
 * @param dir           the directory
 * @param shards        each weights file's header, in file-name order (one for an unsharded model)
 * @param index         the index document, or null for a single {@code model.safetensors}
 */
record WeightFiles(Path dir, Map<String, SafetensorsHeader> shards, ObjectNode index) {
    static final String SINGLE = "model.safetensors", INDEX = "model.safetensors.index.json";
    /** An index lists every tensor once: a few hundred kilobytes for the largest models. */
    static final int MAX_INDEX_BYTES = 64 << 20;

    /** Where a tensor lies. */
    record Entry(String key, String file, TensorInfo info) {}

    /** Whether {@code dir} holds either layout's entry file. */
    static boolean present(Path dir) { return Files.isRegularFile(dir.resolve(SINGLE)) || Files.isRegularFile(dir.resolve(INDEX)); }

    /** Reads the headers of {@code dir}'s weights; the index wins where both layouts are present, as transformers reads them. */
    static WeightFiles open(Path dir) throws IOException {
        Path index = dir.resolve(INDEX), single = dir.resolve(SINGLE);
        if (Files.isRegularFile(index)) return sharded(dir, index);
        if (Files.isRegularFile(single)) return new WeightFiles(dir, Map.of(SINGLE, checked(single, Safetensors.header(single))), null);
        String bin = Files.exists(dir.resolve("pytorch_model.bin")) || Files.exists(dir.resolve("pytorch_model.bin.index.json"))
                ? " (it has PyTorch pickles, pytorch_model.bin, which Symbiont does not read: convert them to safetensors)" : "";
        throw new IOException(dir + ": no " + SINGLE + " or " + INDEX + bin);
    }

    private static WeightFiles sharded(Path dir, Path indexFile) throws IOException {
        ObjectNode index = JsonFiles.readObject(indexFile, MAX_INDEX_BYTES);
        JsonNode map = index.get("weight_map");
        if (!(map instanceof ObjectNode weightMap) || weightMap.isEmpty()) {
            throw new IOException(indexFile + ": no \"weight_map\" object of tensor names to shard files");
        }
        Map<String, List<String>> listed = new LinkedHashMap<>();
        for (var e : weightMap.properties()) {
            if (!e.getValue().isTextual()) throw new IOException(indexFile + ": weight_map[\"" + e.getKey() + "\"] is not a file name");
            String shard = e.getValue().asText();
            if (!shard.endsWith(".safetensors") || shard.contains("/") || shard.contains("\\") || shard.startsWith(".")) {
                throw new IOException(indexFile + ": weight_map[\"" + e.getKey() + "\"] = " + Excerpt.quote(shard)
                        + " is not the name of a .safetensors file beside the index");
            }
            listed.computeIfAbsent(shard, k -> new ArrayList<>()).add(e.getKey());
        }
        Map<String, SafetensorsHeader> shards = new LinkedHashMap<>();
        for (String shard : new TreeSet<>(listed.keySet())) {
            Path file = dir.resolve(shard);
            if (!Files.isRegularFile(file)) {
                throw new IOException(indexFile + " lists " + listed.get(shard).size() + " tensors in " + shard + " (" + listed.get(shard).getFirst()
                        + ", ...), which does not exist");
            }
            SafetensorsHeader header = checked(file, Safetensors.header(file));
            for (String key : listed.get(shard)) {
                if (!header.tensors().containsKey(key)) throw new IOException(indexFile + " lists tensor '" + key + "' in " + file + ", which lacks it");
            }
            for (String key : header.tensors().keySet()) {
                if (!shard.equals(weightMap.path(key).asText(null))) {
                    throw new IOException(file + " holds tensor '" + key + "', which " + indexFile + " does not list in it");
                }
            }
            shards.put(shard, header);
        }
        return new WeightFiles(dir, shards, index);
    }

    /** The header, its weights checked to be of a floating dtype a model can load. */
    private static SafetensorsHeader checked(Path file, SafetensorsHeader header) throws IOException {
        for (TensorInfo t : header.tensors().values()) {
            if (t.dtype() != DType.FLOAT32 && t.dtype() != DType.BFLOAT16 && t.dtype() != DType.FLOAT16) {
                throw new IOException(file + ": tensor '" + t.name() + "' is " + t.dtype() + "; model weights must be F32, BF16 or F16");
            }
        }
        return header;
    }

    /** Every tensor by key: shards in file-name order, each in the order of its data. */
    Map<String, Entry> entries() {
        Map<String, Entry> out = new LinkedHashMap<>();
        shards.forEach((file, header) -> header.tensors().values().stream().sorted(Comparator.comparingLong(TensorInfo::begin))
                .forEach(t -> out.put(t.name(), new Entry(t.name(), file, t))));
        return out;
    }

    /** The path of a shard. */
    Path path(String shard) { return dir.resolve(shard); }

    /** How many tensors the files hold. */
    int tensorCount() { return shards.values().stream().mapToInt(h -> h.tensors().size()).sum(); }
}
