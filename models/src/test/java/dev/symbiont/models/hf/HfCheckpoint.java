package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.io.Safetensors;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A tiny random-weight Hugging Face checkpoint written in the exact layout transformers saves:
 * config.json with Hugging Face's field names, tensors under Hugging Face's keys (sorted, as
 * safetensors' writer orders them) in the chosen dtype, in one model.safetensors or in shards
 * listed by model.safetensors.index.json. {@link #weights} holds the values as the file stores
 * them, widened to float32, for the reference forward.
 */
public final class HfCheckpoint {
    /** Writes float('inf') as Python's json does: Infinity, unquoted. */
    private static final ObjectMapper JSON = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(JsonWriteFeature.WRITE_NAN_AS_STRINGS).build();

    final Map<String, Object> config;
    final Map<String, Object> generation = new LinkedHashMap<>();
    final Map<String, int[]> shapes = new TreeMap<>();
    final Map<String, float[]> weights = new TreeMap<>();
    private final Generator g;
    DType dtype = DType.FLOAT32;

    HfCheckpoint(Map<String, Object> config, long seed) {
        this.config = new LinkedHashMap<>(config);
        this.g = new Generator(seed);
    }

    /**
     * A Llama, Mistral, Qwen2 or Mixtral checkpoint (by {@code architectures}) of the config's sizes, random weights; Mixtral's
     * blocks hold {@code block_sparse_moe.gate} (E, hidden) and {@code num_local_experts} experts' w1, w2, w3 in place of the MLP.
     */
    public static HfCheckpoint llama(Map<String, Object> config, long seed) {
        HfCheckpoint c = new HfCheckpoint(config, seed);
        int hidden = c.integer("hidden_size"), heads = c.integer("num_attention_heads"), kv = c.integer("num_key_value_heads");
        int dim = config.containsKey("head_dim") ? c.integer("head_dim") : hidden / heads, ff = c.integer("intermediate_size");
        boolean qwen = c.config.get("architectures").toString().contains("Qwen2"), attnBias = Boolean.TRUE.equals(config.get("attention_bias"));
        boolean mlpBias = Boolean.TRUE.equals(config.get("mlp_bias")), mixtral = c.config.get("architectures").toString().contains("Mixtral");
        c.matrix("model.embed_tokens.weight", c.integer("vocab_size"), hidden);
        for (int i = 0; i < c.integer("num_hidden_layers"); i++) {
            String p = "model.layers." + i + ".";
            c.norm(p + "input_layernorm.weight", hidden);
            c.linear(p + "self_attn.q_proj", heads * dim, hidden, qwen || attnBias);
            c.linear(p + "self_attn.k_proj", kv * dim, hidden, qwen || attnBias);
            c.linear(p + "self_attn.v_proj", kv * dim, hidden, qwen || attnBias);
            c.linear(p + "self_attn.o_proj", hidden, heads * dim, attnBias);
            c.norm(p + "post_attention_layernorm.weight", hidden);
            if (mixtral) {
                c.matrix(p + "block_sparse_moe.gate.weight", c.integer("num_local_experts"), hidden);
                for (int e = 0; e < c.integer("num_local_experts"); e++) {
                    String x = p + "block_sparse_moe.experts." + e + ".";
                    c.matrix(x + "w1.weight", ff, hidden);
                    c.matrix(x + "w2.weight", hidden, ff);
                    c.matrix(x + "w3.weight", ff, hidden);
                }
                continue;
            }
            c.linear(p + "mlp.gate_proj", ff, hidden, mlpBias);
            c.linear(p + "mlp.up_proj", ff, hidden, mlpBias);
            c.linear(p + "mlp.down_proj", hidden, ff, mlpBias);
        }
        c.norm("model.norm.weight", hidden);
        if (!Boolean.TRUE.equals(config.get("tie_word_embeddings"))) c.matrix("lm_head.weight", c.integer("vocab_size"), hidden);
        return c;
    }

    /** A Mixtral checkpoint: {@link #llama} of a MixtralForCausalLM config. */
    static HfCheckpoint mixtral(Map<String, Object> config, long seed) { return llama(config, seed); }

    /** A GPT-2 checkpoint: Conv1D weights (in, out), keys under {@code prefix} ("transformer." or ""). */
    public static HfCheckpoint gpt2(Map<String, Object> config, String prefix, long seed) {
        HfCheckpoint c = new HfCheckpoint(config, seed);
        int d = c.integer("n_embd");
        c.matrix(prefix + "wte.weight", c.integer("vocab_size"), d);
        c.matrix(prefix + "wpe.weight", c.integer("n_positions"), d);
        for (int i = 0; i < c.integer("n_layer"); i++) {
            String p = prefix + "h." + i + ".";
            c.layerNorm(p + "ln_1", d);
            c.conv1d(p + "attn.c_attn", d, 3 * d);
            c.conv1d(p + "attn.c_proj", d, d);
            c.layerNorm(p + "ln_2", d);
            c.conv1d(p + "mlp.c_fc", d, 4 * d);
            c.conv1d(p + "mlp.c_proj", 4 * d, d);
        }
        c.layerNorm(prefix + "ln_f", d);
        return c;
    }

    /**
     * A MambaForCausalLM checkpoint ({@code state-spaces/mamba-*-hf}'s keys), or a Mamba2ForCausalLM one when the config
     * names it: random projections, A_log = log(1..N) plus noise, Δ's bias around softplus⁻¹(0.05), D near 1; no
     * {@code lm_head.weight} when tied.
     */
    static HfCheckpoint mamba(Map<String, Object> config, long seed) {
        HfCheckpoint c = new HfCheckpoint(config, seed);
        boolean two = c.config.get("architectures").toString().contains("Mamba2");
        int d = c.integer("hidden_size"), di = c.integer("expand") * d, n = c.integer("state_size"), k = c.integer("conv_kernel");
        c.matrix("backbone.embeddings.weight", c.integer("vocab_size"), d);
        for (int i = 0; i < c.integer("num_hidden_layers"); i++) {
            String p = "backbone.layers." + i + ".";
            c.norm(p + "norm.weight", d);
            int heads = two ? c.integer("num_heads") : 0, convDim = two ? di + 2 * c.integer("n_groups") * n : di;
            c.matrix(p + "mixer.in_proj.weight", two ? di + convDim + heads : 2 * di, d);
            c.put(p + "mixer.conv1d.weight", c.random(convDim * k, 0, 0.4), convDim, 1, k);
            c.put(p + "mixer.conv1d.bias", c.random(convDim, 0, 0.1), convDim);
            int channels = two ? heads : di, states = two ? 1 : n;
            float[] aLog = c.random(channels * states, 0, 0.1);
            for (int j = 0; j < aLog.length; j++) aLog[j] += (float) Math.log(1 + j % states);
            if (two) {
                c.put(p + "mixer.dt_bias", c.random(heads, -3, 0.5), heads);
                c.put(p + "mixer.A_log", aLog, heads);
                c.put(p + "mixer.D", c.random(heads, 1, 0.1), heads);
                c.norm(p + "mixer.norm.weight", di);
            } else {
                int rank = (d + 15) / 16;
                c.matrix(p + "mixer.x_proj.weight", rank + 2 * n, di);
                c.matrix(p + "mixer.dt_proj.weight", di, rank);
                c.put(p + "mixer.dt_proj.bias", c.random(di, -3, 0.5), di);
                c.put(p + "mixer.A_log", aLog, di, n);
                c.put(p + "mixer.D", c.random(di, 1, 0.1), di);
            }
            c.matrix(p + "mixer.out_proj.weight", d, di);
        }
        c.norm("backbone.norm_f.weight", d);
        if (Boolean.FALSE.equals(config.get("tie_word_embeddings"))) c.matrix("lm_head.weight", c.integer("vocab_size"), d);
        return c;
    }

    int integer(String field) { return ((Number) config.get(field)).intValue(); }

    /** Stores the tensors in {@code d} from now on (the values are rounded to it). */
    public HfCheckpoint in(DType d) {
        dtype = d;
        weights.replaceAll((k, v) -> Tensor.fromArray(v, v.length).to(d).to(DType.FLOAT32).toFloatArray());
        return this;
    }

    void put(String key, float[] values, int... shape) {
        shapes.put(key, shape.clone());
        weights.put(key, dtype == DType.FLOAT32 ? values : Tensor.fromArray(values, values.length).to(dtype).to(DType.FLOAT32).toFloatArray());
    }

    float[] random(int n, double mean, double std) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (mean + std * g.nextGaussian());
        return v;
    }

    void matrix(String key, int rows, int cols) { put(key, random(rows * cols, 0, 0.3), rows, cols); }

    private void norm(String key, int n) { put(key, random(n, 1, 0.1), n); }

    private void linear(String prefix, int out, int in, boolean bias) {
        matrix(prefix + ".weight", out, in);
        if (bias) put(prefix + ".bias", random(out, 0, 0.1), out);
    }

    private void conv1d(String prefix, int in, int out) {
        matrix(prefix + ".weight", in, out);
        put(prefix + ".bias", random(out, 0, 0.1), out);
    }

    private void layerNorm(String prefix, int n) {
        norm(prefix + ".weight", n);
        put(prefix + ".bias", random(n, 0, 0.1), n);
    }

    /** The tensors as the file holds them, in key order. */
    Map<String, Tensor> tensors() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        weights.forEach((k, v) -> out.put(k, Tensor.fromArray(v, shapes.get(k)).to(dtype)));
        return out;
    }

    /** Writes the directory: one weights file when {@code shards} is 1, else that many shards and an index. */
    public Path write(Path dir, int shards) throws IOException {
        Files.createDirectories(dir);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        if (!generation.isEmpty()) JSON.writeValue(dir.resolve("generation_config.json").toFile(), generation);
        Map<String, Tensor> all = tensors();
        if (shards == 1) {
            Safetensors.write(dir.resolve("model.safetensors"), all, Map.of("format", "pt"));
            return dir;
        }
        List<String> keys = new ArrayList<>(all.keySet());
        Map<String, String> weightMap = new TreeMap<>();
        long total = 0;
        int per = (keys.size() + shards - 1) / shards;
        for (int s = 0; s < shards; s++) {
            String file = String.format("model-%05d-of-%05d.safetensors", s + 1, shards);
            Map<String, Tensor> part = new LinkedHashMap<>();
            for (String k : keys.subList(s * per, Math.min(keys.size(), (s + 1) * per))) {
                part.put(k, all.get(k));
                weightMap.put(k, file);
                total += (long) all.get(k).numel() * dtype.byteSize();
            }
            Safetensors.write(dir.resolve(file), part, Map.of("format", "pt"));
        }
        JSON.writeValue(dir.resolve("model.safetensors.index.json").toFile(), Map.of("metadata", Map.of("total_size", total),
                "weight_map", weightMap));
        return dir;
    }
}
