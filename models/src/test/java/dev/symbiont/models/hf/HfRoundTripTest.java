package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.io.TensorInfo;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

/** Saving a loaded Hugging Face model writes its layout back: the same files, keys, order, dtypes and bits. */
class HfRoundTripTest {
    /** Every tensor's raw bytes in a directory's weights files, by key, in file order. */
    private static Map<String, byte[]> tensorBytes(Path dir) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (Path file : weightFiles(dir)) {
            SafetensorsHeader h = Safetensors.header(file);
            byte[] all = Files.readAllBytes(file);
            h.tensors().values().stream().sorted((a, b) -> Long.compare(a.begin(), b.begin())).forEach(t ->
                    out.put(t.name(), Arrays.copyOfRange(all, (int) (h.dataStart() + t.begin()), (int) (h.dataStart() + t.end()))));
        }
        return out;
    }

    private static List<Path> weightFiles(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".safetensors")).sorted().toList();
        }
    }

    /** Each weights file's entries as "key dtype shape" lines, in data order. */
    private static Map<String, List<String>> headers(Path dir) throws IOException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Path file : weightFiles(dir)) {
            SafetensorsHeader h = Safetensors.header(file);
            out.put(file.getFileName().toString(), h.tensors().values().stream().sorted((a, b) -> Long.compare(a.begin(), b.begin()))
                    .map(t -> t.name() + " " + t.dtype() + " " + Arrays.toString(t.shape())).toList());
        }
        return out;
    }

    private static void assertSameTensors(Map<String, byte[]> expected, Map<String, byte[]> actual) {
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(actual.keySet()), "keys in order");
        expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), k + ": bit-identical"));
    }

    private static Tensor logits(PretrainedModel p) {
        return p.model().forward(Tensor.fromArray(new long[] {1, 7, 3, 12, 0}, 1, 5));
    }

    @Test
    void a_sharded_bf16_model_saves_back_bit_identical_with_its_index_and_configs(@TempDir Path tmp) throws Exception {
        Map<String, Object> config = HfLogitsTest.llamaConfig();
        config.put("tie_word_embeddings", true);
        HfCheckpoint c = HfCheckpoint.llama(config, 11).in(DType.BFLOAT16);
        c.generation.put("eos_token_id", List.of(2, 5));
        c.generation.put("do_sample", true);
        c.generation.put("temperature", 0.6);
        Path in = c.write(tmp.resolve("in"), 3), out = tmp.resolve("out");
        PretrainedModel p = PretrainedModels.load(in);
        p.save(out);
        assertEquals(fileNames(in), fileNames(out));
        assertEquals(headers(in), headers(out), "keys, dtypes, shapes and order of every shard");
        assertSameTensors(tensorBytes(in), tensorBytes(out));
        for (String f : List.of("config.json", "generation_config.json")) {
            assertArrayEquals(Files.readAllBytes(in.resolve(f)), Files.readAllBytes(out.resolve(f)), f);
        }
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree(in.resolve(WeightFiles.INDEX).toFile()), json.readTree(out.resolve(WeightFiles.INDEX).toFile()), "the index");
        assertEquals(0, logits(p).sub(logits(PretrainedModels.load(out))).abs().max().item(), "the saved model computes the same");
    }

    @Test
    void a_sharded_bf16_mixtral_saves_back_bit_identical_experts_and_routers(@TempDir Path tmp) throws Exception {
        HfCheckpoint c = HfCheckpoint.mixtral(HfLogitsTest.mixtralConfig(), 15).in(DType.BFLOAT16);
        Path in = c.write(tmp.resolve("in"), 2), out = tmp.resolve("out");
        PretrainedModel p = PretrainedModels.load(in);
        p.save(out);
        assertEquals(fileNames(in), fileNames(out));
        assertEquals(headers(in), headers(out));
        assertTrue(tensorBytes(out).containsKey("model.layers.1.block_sparse_moe.experts.3.w2.weight"));
        assertSameTensors(tensorBytes(in), tensorBytes(out));
        assertArrayEquals(Files.readAllBytes(in.resolve("config.json")), Files.readAllBytes(out.resolve("config.json")));
        assertEquals(0, logits(p).sub(logits(PretrainedModels.load(out))).abs().max().item());
    }

    @Test
    void gpt2_keeps_its_prefixless_keys_and_transposed_conv1d_weights_and_drops_the_mask_buffers(@TempDir Path tmp) throws Exception {
        HfCheckpoint c = HfCheckpoint.gpt2(HfLogitsTest.gpt2Config(), "", 12);
        c.put("h.0.attn.bias", new float[16 * 16], 1, 1, 16, 16);
        Path in = c.write(tmp.resolve("in"), 1), out = tmp.resolve("out");
        PretrainedModels.load(in).save(out);
        Map<String, byte[]> expected = tensorBytes(in);
        expected.remove("h.0.attn.bias");
        assertSameTensors(expected, tensorBytes(out));
        assertEquals(Map.of("format", "pt"), Safetensors.header(out.resolve("model.safetensors")).metadata());
    }

    @Test
    void a_save_with_a_shard_size_shards_and_a_later_single_file_save_removes_the_stale_shards(@TempDir Path tmp) throws Exception {
        HfCheckpoint c = HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 13);
        Path in = c.write(tmp.resolve("in"), 1), out = tmp.resolve("out");
        PretrainedModel p = PretrainedModels.load(in);
        HfLayout layout = (HfLayout) p.layout();
        long max = 8 * 1024;
        layout.save(p.model(), out, max);
        List<Path> shards = weightFiles(out);
        assertTrue(shards.size() > 2, shards.toString());
        for (Path s : shards) {
            var h = Safetensors.header(s);
            assertTrue(h.dataLength() <= max || h.tensors().size() == 1, s + " holds " + h.dataLength() + " bytes");
            assertTrue(s.getFileName().toString().matches(String.format("model-\\d{5}-of-%05d\\.safetensors", shards.size())), s.toString());
        }
        assertSameTensors(sorted(tensorBytes(in)), sorted(tensorBytes(out)));
        PretrainedModel resharded = PretrainedModels.load(out);
        assertEquals(0, logits(p).sub(logits(resharded)).abs().max().item());
        resharded.save(out);                                     // keeps its shards
        assertEquals(shards, weightFiles(out));
        layout.save(p.model(), out, Long.MAX_VALUE);              // one file: the shards and index go
        assertEquals(List.of(out.resolve("model.safetensors")), weightFiles(out));
        assertFalse(Files.exists(out.resolve(WeightFiles.INDEX)));
        assertSameTensors(tensorBytes(in), tensorBytes(out));
    }

    @Test
    void a_trained_weight_is_saved_in_the_files_dtype(@TempDir Path tmp) throws Exception {
        HfCheckpoint c = HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 14).in(DType.BFLOAT16);
        Path in = c.write(tmp.resolve("in"), 1), out = tmp.resolve("out");
        PretrainedModel p = PretrainedModels.load(in);
        var norm = p.model().namedParameters().get("norm_f.weight");
        norm.update(norm.value().add(1.0 / 3));
        p.save(out);
        TensorInfo saved = Safetensors.header(out.resolve("model.safetensors")).tensors().get("model.norm.weight");
        assertEquals(DType.BFLOAT16, saved.dtype());
        float[] expected = norm.value().to(DType.BFLOAT16).to(DType.FLOAT32).toFloatArray();
        assertArrayEquals(expected, Safetensors.read(out.resolve("model.safetensors")).tensors().get("model.norm.weight")
                .to(DType.FLOAT32).toFloatArray());
        Map<String, byte[]> before = tensorBytes(in), after = tensorBytes(out);
        List<String> changed = new ArrayList<>();
        before.forEach((k, v) -> { if (!Arrays.equals(v, after.get(k))) changed.add(k); });
        assertEquals(List.of("model.norm.weight"), changed);
    }

    private static Map<String, byte[]> sorted(Map<String, byte[]> m) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        new TreeSet<>(m.keySet()).forEach(k -> out.put(k, m.get(k)));
        return out;
    }

    private static List<String> fileNames(Path dir) throws IOException {
        try (var files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
