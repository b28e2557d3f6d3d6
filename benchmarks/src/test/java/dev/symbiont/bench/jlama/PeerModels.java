package dev.symbiont.bench.jlama;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.symbiont.core.DType;
import dev.symbiont.models.hf.HfCheckpoint;
import dev.symbiont.models.hf.HfLogitsTest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Hugging Face model directories that Symbiont and jlama both read: config.json, random weights
 * in model.safetensors ({@link HfCheckpoint}'s writers, transformers' exact keys and layouts) and a
 * tokenizer.json. The tokenizer is a plain BPE vocabulary of one piece per id and no merges: the
 * engines are driven by token ids, and jlama only needs a tokenizer it can load.
 */
final class PeerModels {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PeerModels() {}

    /** A LlamaForCausalLM config: SiLU MLP, RoPE (θ 10 000), grouped-query attention with {@code kvHeads} key/value heads. */
    static Map<String, Object> llama(int vocab, int hidden, int layers, int heads, int kvHeads, int intermediate, int context) {
        Map<String, Object> c = HfLogitsTest.llamaConfig();
        c.put("vocab_size", vocab);
        c.put("hidden_size", hidden);
        c.put("intermediate_size", intermediate);
        c.put("num_hidden_layers", layers);
        c.put("num_attention_heads", heads);
        c.put("num_key_value_heads", kvHeads);
        c.put("max_position_embeddings", context);
        return c;
    }

    /** A GPT2LMHeadModel config: learned positions, tied embeddings, gelu_new, MLP width 4·{@code d}. */
    static Map<String, Object> gpt2(int vocab, int d, int layers, int heads, int context) {
        Map<String, Object> c = HfLogitsTest.gpt2Config();
        c.put("vocab_size", vocab);
        c.put("n_embd", d);
        c.put("n_head", heads);
        c.put("n_layer", layers);
        c.put("n_positions", context);
        c.put("n_ctx", context);
        c.put("bos_token_id", vocab - 1);
        c.put("eos_token_id", vocab - 1);
        return c;
    }

    /**
     * Writes {@code config}'s model with random weights (seeded) stored in {@code dtype} into {@code dir}: GPT-2 keys
     * without the {@code transformer.} prefix, as the gpt2 repositories on the Hub store them.
     */
    static Path write(Path dir, Map<String, Object> config, DType dtype, long seed) throws IOException {
        Map<String, Object> c = new LinkedHashMap<>(config);
        c.put("torch_dtype", dtype == DType.BFLOAT16 ? "bfloat16" : "float32");
        HfCheckpoint checkpoint = "gpt2".equals(c.get("model_type")) ? HfCheckpoint.gpt2(c, "", seed) : HfCheckpoint.llama(c, seed);
        if (dtype != DType.FLOAT32) checkpoint.in(dtype);
        checkpoint.write(dir, 1);
        writeTokenizer(dir, ((Number) c.get("vocab_size")).intValue());
        return dir;
    }

    /** tokenizer.json: a BPE model whose vocabulary names each id ({@code <unk>}, {@code <s>}, {@code </s>}, then {@code t3}, {@code t4}, …). */
    static void writeTokenizer(Path dir, int vocab) throws IOException {
        Map<String, Integer> pieces = new LinkedHashMap<>();
        pieces.put("<unk>", 0);
        pieces.put("<s>", 1);
        pieces.put("</s>", 2);
        for (int id = 3; id < vocab; id++) pieces.put("t" + id, id);
        Map<String, Object> model = new LinkedHashMap<>();
        model.put("type", "BPE");
        model.put("unk_token", "<unk>");
        model.put("fuse_unk", true);
        model.put("byte_fallback", false);
        model.put("vocab", pieces);
        model.put("merges", List.of());
        JSON.writeValue(dir.resolve("tokenizer.json").toFile(), Map.of("version", "1.0", "added_tokens", List.of(), "model", model));
    }
}
