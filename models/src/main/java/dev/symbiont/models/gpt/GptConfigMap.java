package dev.symbiont.models.gpt;

import dev.symbiont.nn.attention.Biases;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.attention.RopeScaling;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link GptConfig} as the string pairs of a checkpoint's metadata: {@code vocab_size, d_model,
 * n_layers, n_heads, n_kv_heads, ff_size, max_seq, dropout, tied_embeddings}, {@code norm}
 * ("layer_norm" | "rms_norm"), {@code mlp} ("gelu" | "gelu_tanh" | "swiglu"), {@code positions}
 * ("learned" | "rope"), {@code rope_theta} (Hugging Face's name), and, since Hugging Face models
 * load into a GPT, {@code head_dim, norm_eps, qkv_bias, out_bias, mlp_bias, fused_qkv} and
 * {@code rope_scaling} ("none" | "llama3", with {@code rope_scaling_factor, _low_freq_factor,
 * _high_freq_factor, _original_max_position_embeddings}). Doubles are written so they read back
 * exactly. A key added after the first version is written only when its value differs from the
 * one every config had before it (so a GPT's metadata is what it always was), and is optional on
 * reading: absent, it reads as that value.
 */
final class GptConfigMap {
    private static final String[] REQUIRED_KEYS = {"vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "ff_size", "max_seq",
            "dropout", "tied_embeddings", "norm", "mlp", "positions"};
    private static final String LLAMA3 = "llama3", SCALING = "rope_scaling";

    private GptConfigMap() {}

    static Map<String, String> toMap(GptConfig c) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("vocab_size", Integer.toString(c.vocab()));
        m.put("d_model", Integer.toString(c.dModel()));
        m.put("n_layers", Integer.toString(c.layers()));
        m.put("n_heads", Integer.toString(c.heads()));
        m.put("n_kv_heads", Integer.toString(c.kvHeads()));
        m.put("ff_size", Integer.toString(c.ffSize()));
        m.put("max_seq", Integer.toString(c.maxSeq()));
        m.put("dropout", Double.toString(c.dropout()));
        m.put("tied_embeddings", Boolean.toString(c.tiedEmbeddings()));
        m.put("norm", name(c.norm()));
        m.put("mlp", name(c.mlp()));
        m.put("positions", name(c.positions()));
        m.put("rope_theta", Double.toString(c.ropeTheta()));
        if (c.headDim() * c.heads() != c.dModel()) m.put("head_dim", Integer.toString(c.headDim()));
        if (c.normEps() != c.norm().defaultEps()) m.put("norm_eps", Double.toString(c.normEps()));
        if (!c.biases().equals(Biases.all(c.mlp().isGelu()))) {
            m.put("qkv_bias", Boolean.toString(c.biases().qkv()));
            m.put("out_bias", Boolean.toString(c.biases().out()));
            m.put("mlp_bias", Boolean.toString(c.biases().mlp()));
        }
        if (!c.fusedQkv()) m.put("fused_qkv", "false");
        switch (c.ropeScaling()) {
            case RopeScaling.Unscaled none -> { }
            case RopeScaling.Llama3 l -> {
                m.put(SCALING, LLAMA3);
                m.put(SCALING + "_factor", Double.toString(l.factor()));
                m.put(SCALING + "_low_freq_factor", Double.toString(l.lowFreqFactor()));
                m.put(SCALING + "_high_freq_factor", Double.toString(l.highFreqFactor()));
                m.put(SCALING + "_original_max_position_embeddings", Integer.toString(l.originalMaxPositions()));
            }
        }
        return m;
    }

    static GptConfig fromMap(Map<String, String> m) {
        for (String key : REQUIRED_KEYS) {
            if (!m.containsKey(key)) throw new IllegalArgumentException("GptConfig.fromMap: key '" + key + "' is missing (have " + m.keySet() + ")");
        }
        MlpKind mlp = kind(m, "mlp", MlpKind.class);
        GptConfig.Builder b = GptConfig.builder().vocab(integer(m, "vocab_size")).dModel(integer(m, "d_model"))
                .layers(integer(m, "n_layers")).heads(integer(m, "n_heads")).kvHeads(integer(m, "n_kv_heads"))
                .ffSize(integer(m, "ff_size")).maxSeq(integer(m, "max_seq")).dropout(real(m, "dropout"))
                .tiedEmbeddings(bool(m, "tied_embeddings")).norm(kind(m, "norm", NormKind.class)).mlp(mlp)
                .positions(kind(m, "positions", PositionKind.class))
                .ropeTheta(m.containsKey("rope_theta") ? real(m, "rope_theta") : GptConfig.DEFAULT_ROPE_THETA)
                .fusedQkv(!m.containsKey("fused_qkv") || bool(m, "fused_qkv"))
                .ropeScaling(ropeScaling(m));
        if (m.containsKey("head_dim")) b.headDim(integer(m, "head_dim"));
        if (m.containsKey("norm_eps")) b.normEps(real(m, "norm_eps"));
        boolean gelu = mlp.isGelu();
        b.biases(new Biases(optionalBool(m, "qkv_bias", gelu), optionalBool(m, "out_bias", gelu), optionalBool(m, "mlp_bias", gelu)));
        return b.build();
    }

    private static RopeScaling ropeScaling(Map<String, String> m) {
        String kind = m.getOrDefault(SCALING, "none").trim();
        return switch (kind) {
            case "none" -> RopeScaling.NONE;
            case LLAMA3 -> {
                for (String part : new String[] {"_factor", "_low_freq_factor", "_high_freq_factor", "_original_max_position_embeddings"}) {
                    if (!m.containsKey(SCALING + part)) {
                        throw new IllegalArgumentException("GptConfig.fromMap: key '" + SCALING + part + "' is missing for rope_scaling llama3");
                    }
                }
                try {
                    yield new RopeScaling.Llama3(real(m, SCALING + "_factor"), real(m, SCALING + "_low_freq_factor"),
                            real(m, SCALING + "_high_freq_factor"), integer(m, SCALING + "_original_max_position_embeddings"));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("GptConfig.fromMap: " + e.getMessage(), e);
                }
            }
            default -> throw bad(SCALING, kind, "none | " + LLAMA3);
        };
    }

    private static String name(Enum<?> e) { return e.name().toLowerCase(Locale.ROOT); }

    private static int integer(Map<String, String> m, String key) {
        try {
            return Integer.parseInt(m.get(key).trim());
        } catch (NumberFormatException e) {
            throw bad(key, m.get(key), "an integer");
        }
    }

    private static double real(Map<String, String> m, String key) {
        try {
            return Double.parseDouble(m.get(key).trim());
        } catch (NumberFormatException e) {
            throw bad(key, m.get(key), "a number");
        }
    }

    private static boolean optionalBool(Map<String, String> m, String key, boolean absent) {
        return m.containsKey(key) ? bool(m, key) : absent;
    }

    private static boolean bool(Map<String, String> m, String key) {
        String v = m.get(key).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) throw bad(key, m.get(key), "true or false");
        return v.equals("true");
    }

    private static <E extends Enum<E>> E kind(Map<String, String> m, String key, Class<E> type) {
        String v = m.get(key).trim();
        for (E e : type.getEnumConstants()) if (e.name().equalsIgnoreCase(v)) return e;
        StringBuilder allowed = new StringBuilder();
        for (E e : type.getEnumConstants()) allowed.append(allowed.isEmpty() ? "" : " | ").append(name(e));
        throw bad(key, v, allowed.toString());
    }

    private static IllegalArgumentException bad(String key, String value, String expected) {
        return new IllegalArgumentException("GptConfig.fromMap: '" + key + "' = '" + value + "' is not " + expected);
    }
}
