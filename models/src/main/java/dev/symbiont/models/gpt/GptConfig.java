package dev.symbiont.models.gpt;

import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The shape of a {@link Gpt}. GPT-2 small is
 * {@code GptConfig.builder().vocab(50257).dModel(768).layers(12).heads(12).maxSeq(1024).build()}
 * (or positionally {@code GptConfig.of(50257, 768, 12, 12, 1024)}); a Llama-style model sets
 * {@code withNorm(RMS_NORM).withMlp(SWIGLU).withPositions(ROPE).withKvHeads(n)}.
 *
 * @param vocab          token ids lie in [0, vocab)
 * @param dModel         model width
 * @param layers         Transformer blocks
 * @param heads          query heads; must divide dModel
 * @param kvHeads        key/value heads; must divide heads (grouped-query attention)
 * @param ffSize         feed-forward hidden width
 * @param maxSeq         the longest sequence (learned-position table size, RoPE table size, generation limit)
 * @param dropout        embedding, attention, residual and MLP dropout, in [0, 1)
 * @param tiedEmbeddings the output head reuses the token embedding (Press and Wolf 2017)
 * @param norm           LayerNorm or RMSNorm
 * @param mlp            GELU MLP or SwiGLU
 * @param positions      learned positions or RoPE
 * @param ropeTheta      RoPE's frequency base θ (Su et al. 2021, eq. 15: θ_j = θ^(−2j/d)); 10 000 in the paper and
 *                       GPT-NeoX, 500 000 in Llama 3; saved with the config, read by attention only with RoPE
 */
public record GptConfig(int vocab, int dModel, int layers, int heads, int kvHeads, int ffSize, int maxSeq, double dropout,
                        boolean tiedEmbeddings, NormKind norm, MlpKind mlp, PositionKind positions, double ropeTheta) {
    /** RoPE's base in the paper, and what a config saved without {@code rope_theta} reads as. */
    public static final double DEFAULT_ROPE_THETA = 10_000;

    public GptConfig {
        positive("vocab", vocab);
        positive("dModel", dModel);
        positive("layers", layers);
        positive("heads", heads);
        positive("kvHeads", kvHeads);
        positive("ffSize", ffSize);
        positive("maxSeq", maxSeq);
        if (dModel % heads != 0) throw new IllegalArgumentException("GptConfig: heads (" + heads + ") must divide dModel (" + dModel + ")");
        if (kvHeads > heads || heads % kvHeads != 0) {
            throw new IllegalArgumentException("GptConfig: kvHeads (" + kvHeads + ") must divide heads (" + heads + ")");
        }
        if (!(dropout >= 0 && dropout < 1)) throw new IllegalArgumentException("GptConfig: dropout must be in [0, 1), got " + dropout);
        if (norm == null || mlp == null || positions == null) {
            throw new IllegalArgumentException("GptConfig: norm, mlp and positions must be given, got " + norm + ", " + mlp + ", " + positions);
        }
        if (positions == PositionKind.ROPE && (dModel / heads) % 2 != 0) {
            throw new IllegalArgumentException("GptConfig: RoPE needs an even head size, got dModel / heads = " + dModel + " / " + heads
                    + " = " + dModel / heads);
        }
        if (!(ropeTheta > 1) || Double.isInfinite(ropeTheta)) {
            throw new IllegalArgumentException("GptConfig: ropeTheta must be finite and > 1, got " + ropeTheta);
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) throw new IllegalArgumentException("GptConfig: " + name + " must be positive, got " + value);
    }

    /**
     * GPT-2's choices: kvHeads = heads, ffSize = 4·dModel, no dropout, tied embeddings, LayerNorm, GELU, learned positions.
     * {@link #builder()} gives the same config by named fields.
     */
    public static GptConfig of(int vocab, int dModel, int layers, int heads, int maxSeq) {
        return builder().vocab(vocab).dModel(dModel).layers(layers).heads(heads).maxSeq(maxSeq).build();
    }

    public int headDim() { return dModel / heads; }

    /** The configuration of each block. Biases: on with a GELU MLP (GPT-2), off with SwiGLU (Llama). */
    public BlockConfig blockConfig() {
        return BlockConfig.of(dModel, heads, ffSize).withKvHeads(kvHeads).withDropout(dropout).withNorm(norm).withMlp(mlp)
                .withBias(mlp == MlpKind.GELU).withRope(positions == PositionKind.ROPE ? maxSeq : 0, ropeTheta);
    }

    public GptConfig withKvHeads(int n) { return with(b -> b.kvHeads = n); }
    public GptConfig withFfSize(int n) { return with(b -> b.ffSize = n); }
    public GptConfig withDropout(double p) { return with(b -> b.dropout = p); }
    public GptConfig withTiedEmbeddings(boolean on) { return with(b -> b.tiedEmbeddings = on); }
    public GptConfig withNorm(NormKind n) { return with(b -> b.norm = n); }
    public GptConfig withMlp(MlpKind m) { return with(b -> b.mlp = m); }
    public GptConfig withPositions(PositionKind p) { return with(b -> b.positions = p); }
    public GptConfig withRopeTheta(double theta) { return with(b -> b.ropeTheta = theta); }

    /** This config with the fields {@code change} sets, validated like any config. */
    private GptConfig with(Consumer<Builder> change) {
        Builder b = new Builder(this);
        change.accept(b);
        return b.build();
    }

    /**
     * A config by named fields, so that code reads without counting positional ints:
     * {@code GptConfig.builder().vocab(50257).dModel(768).layers(12).heads(12).maxSeq(1024).build()}.
     * vocab, dModel, layers, heads and maxSeq are required; the rest default to GPT-2's choices
     * as in {@link #of}: kvHeads = heads, ffSize = 4·dModel, no dropout, tied embeddings,
     * LayerNorm, GELU, learned positions.
     */
    public static Builder builder() { return new Builder(); }

    /** The fields of a {@link GptConfig} by name; {@link #build} validates them like any config. */
    public static final class Builder {
        private Integer vocab, dModel, layers, heads, maxSeq; // required: null until set
        private Integer kvHeads, ffSize; // null: derived from heads and dModel
        private double dropout, ropeTheta = DEFAULT_ROPE_THETA;
        private boolean tiedEmbeddings = true;
        private NormKind norm = NormKind.LAYER_NORM;
        private MlpKind mlp = MlpKind.GELU;
        private PositionKind positions = PositionKind.LEARNED;

        private Builder() {}

        private Builder(GptConfig c) {
            vocab = c.vocab; dModel = c.dModel; layers = c.layers; heads = c.heads; kvHeads = c.kvHeads; ffSize = c.ffSize;
            maxSeq = c.maxSeq; dropout = c.dropout; tiedEmbeddings = c.tiedEmbeddings; norm = c.norm; mlp = c.mlp;
            positions = c.positions; ropeTheta = c.ropeTheta;
        }

        public Builder vocab(int n) { vocab = n; return this; }
        public Builder dModel(int n) { dModel = n; return this; }
        public Builder layers(int n) { layers = n; return this; }
        public Builder heads(int n) { heads = n; return this; }
        public Builder maxSeq(int n) { maxSeq = n; return this; }
        public Builder kvHeads(int n) { kvHeads = n; return this; }
        public Builder ffSize(int n) { ffSize = n; return this; }
        public Builder dropout(double p) { dropout = p; return this; }
        public Builder tiedEmbeddings(boolean on) { tiedEmbeddings = on; return this; }
        public Builder norm(NormKind n) { norm = n; return this; }
        public Builder mlp(MlpKind m) { mlp = m; return this; }
        public Builder positions(PositionKind p) { positions = p; return this; }
        public Builder ropeTheta(double theta) { ropeTheta = theta; return this; }

        /** The config; a required field left unset is an error naming it. */
        public GptConfig build() {
            List<String> missing = new ArrayList<>();
            String[] names = {"vocab", "dModel", "layers", "heads", "maxSeq"};
            Integer[] values = {vocab, dModel, layers, heads, maxSeq};
            for (int i = 0; i < names.length; i++) if (values[i] == null) missing.add(names[i]);
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("GptConfig.builder(): " + String.join(", ", missing) + " not set; "
                        + String.join(", ", names) + " are required");
            }
            return new GptConfig(vocab, dModel, layers, heads, kvHeads == null ? heads : kvHeads, ffSize == null ? 4 * dModel : ffSize,
                    maxSeq, dropout, tiedEmbeddings, norm, mlp, positions, ropeTheta);
        }
    }

    // ---- string map (checkpoint metadata) -------------------------------------------------------

    private static final String[] REQUIRED_KEYS = {"vocab_size", "d_model", "n_layers", "n_heads", "n_kv_heads", "ff_size", "max_seq",
            "dropout", "tied_embeddings", "norm", "mlp", "positions"};

    /**
     * The config as string pairs for checkpoint metadata (safetensors' {@code __metadata__}):
     * {@code vocab_size, d_model, n_layers, n_heads, n_kv_heads, ff_size, max_seq, dropout,
     * tied_embeddings} and {@code norm} ("layer_norm" | "rms_norm"), {@code mlp} ("gelu" | "swiglu"),
     * {@code positions} ("learned" | "rope"), {@code rope_theta} (Hugging Face's name). Doubles are
     * written so they read back exactly.
     */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("vocab_size", Integer.toString(vocab));
        m.put("d_model", Integer.toString(dModel));
        m.put("n_layers", Integer.toString(layers));
        m.put("n_heads", Integer.toString(heads));
        m.put("n_kv_heads", Integer.toString(kvHeads));
        m.put("ff_size", Integer.toString(ffSize));
        m.put("max_seq", Integer.toString(maxSeq));
        m.put("dropout", Double.toString(dropout));
        m.put("tied_embeddings", Boolean.toString(tiedEmbeddings));
        m.put("norm", norm.name().toLowerCase(Locale.ROOT));
        m.put("mlp", mlp.name().toLowerCase(Locale.ROOT));
        m.put("positions", positions.name().toLowerCase(Locale.ROOT));
        m.put("rope_theta", Double.toString(ropeTheta));
        return m;
    }

    /**
     * Reads a config written by {@link #toMap()}. Every key of toMap is required except
     * {@code rope_theta}, which configs saved before it existed lack: they read as
     * {@link #DEFAULT_ROPE_THETA}. Other keys (the rest of a checkpoint's metadata) are ignored. A missing key or an unreadable value
     * throws naming the key; the result is validated like any config.
     */
    public static GptConfig fromMap(Map<String, String> m) {
        for (String key : REQUIRED_KEYS) {
            if (!m.containsKey(key)) throw new IllegalArgumentException("GptConfig.fromMap: key '" + key + "' is missing (have " + m.keySet() + ")");
        }
        return new GptConfig(integer(m, "vocab_size"), integer(m, "d_model"), integer(m, "n_layers"), integer(m, "n_heads"),
                integer(m, "n_kv_heads"), integer(m, "ff_size"), integer(m, "max_seq"), real(m, "dropout"), bool(m, "tied_embeddings"),
                kind(m, "norm", NormKind.class), kind(m, "mlp", MlpKind.class), kind(m, "positions", PositionKind.class),
                m.containsKey("rope_theta") ? real(m, "rope_theta") : DEFAULT_ROPE_THETA);
    }

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

    private static boolean bool(Map<String, String> m, String key) {
        String v = m.get(key).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false")) throw bad(key, m.get(key), "true or false");
        return v.equals("true");
    }

    private static <E extends Enum<E>> E kind(Map<String, String> m, String key, Class<E> type) {
        String v = m.get(key).trim();
        for (E e : type.getEnumConstants()) if (e.name().equalsIgnoreCase(v)) return e;
        StringBuilder allowed = new StringBuilder();
        for (E e : type.getEnumConstants()) allowed.append(allowed.isEmpty() ? "" : " | ").append(e.name().toLowerCase(Locale.ROOT));
        throw bad(key, v, allowed.toString());
    }

    private static IllegalArgumentException bad(String key, String value, String expected) {
        return new IllegalArgumentException("GptConfig.fromMap: '" + key + "' = '" + value + "' is not " + expected);
    }
}
