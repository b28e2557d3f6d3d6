package dev.symbiont.models.mamba;

import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.mamba.MambaConfig;
import dev.symbiont.nn.mamba.StateSpaceConfig;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The shape of a {@link MambaLM}, with Hugging Face's {@code MambaConfig} or {@code Mamba2Config}
 * names in its checkpoint metadata ({@link #toMap}). Mamba-130M is {@code MambaLMConfig.of(50280, 768, 24)},
 * Mamba-2-130M {@code MambaLMConfig.mamba2(50280, Mamba2Config.of(768).withState(128), 24)}.
 *
 * @param vocab   token ids lie in [0, vocab) (vocab_size)
 * @param layers  Mamba blocks (num_hidden_layers)
 * @param mixer   every block's mixer, of either kind: a {@link MambaConfig} (Mamba-1) or a {@link Mamba2Config} (Mamba-2)
 * @param normEps the RMSNorms' ε (layer_norm_epsilon), the Mamba-2 mixer's gated norm's too
 * @param tiedEmbeddings the output head is the embedding matrix (tie_word_embeddings; mamba-ssm's models all tie), or a
 *                matrix of its own ({@code lm_head.weight}, as Mamba-2 checkpoints such as Mamba-Codestral have)
 */
public record MambaLMConfig(int vocab, int layers, StateSpaceConfig mixer, double normEps, boolean tiedEmbeddings) {
    /** Hugging Face's default layer_norm_epsilon. */
    public static final double DEFAULT_NORM_EPS = 1e-5;

    public MambaLMConfig {
        if (vocab <= 0 || layers <= 0) throw new IllegalArgumentException("MambaLMConfig: vocab and layers must be positive, got " + vocab + " and " + layers);
        if (mixer == null) throw new IllegalArgumentException("MambaLMConfig: the mixer config must be given");
        if (!(normEps > 0) || Double.isInfinite(normEps)) throw new IllegalArgumentException("MambaLMConfig: normEps must be positive, got " + normEps);
    }

    /** A model whose output head is its embedding matrix. */
    public MambaLMConfig(int vocab, int layers, StateSpaceConfig mixer, double normEps) { this(vocab, layers, mixer, normEps, true); }

    /** This config with the head tied to the embeddings or not. */
    public MambaLMConfig withTiedEmbeddings(boolean tied) { return new MambaLMConfig(vocab, layers, mixer, normEps, tied); }

    /** The paper's defaults at width {@code dModel}: expand 2, N 16, d_conv 4, dt_rank ⌈d/16⌉ ({@link MambaConfig#of}). */
    public static MambaLMConfig of(int vocab, int dModel, int layers) {
        return new MambaLMConfig(vocab, layers, MambaConfig.of(dModel), DEFAULT_NORM_EPS);
    }

    /**
     * The paper's defaults with the state size N, the conv kernel and the expansion E given
     * (d_inner = E·dModel), as the command line's {@code --d-state}, {@code --d-conv}, {@code --expand} set them.
     */
    public static MambaLMConfig of(int vocab, int dModel, int layers, int dState, int dConv, int expand) {
        if (expand <= 0) throw new IllegalArgumentException("MambaLMConfig: expand must be positive, got " + expand);
        MambaConfig m = MambaConfig.of(dModel);
        return new MambaLMConfig(vocab, layers, new MambaConfig(dModel, expand * dModel, dState, m.dtRank(), dConv), DEFAULT_NORM_EPS);
    }

    /** A Mamba-2 model: every block's mixer is {@code mixer}, the norms' ε 1e-5. */
    public static MambaLMConfig mamba2(int vocab, Mamba2Config mixer, int layers) {
        return new MambaLMConfig(vocab, layers, mixer, DEFAULT_NORM_EPS);
    }

    public int dModel() { return mixer.dModel(); }

    // ---- string map (checkpoint metadata) -------------------------------------------------------

    /**
     * The config as string pairs with Hugging Face's names: {@code vocab_size, hidden_size,
     * num_hidden_layers, layer_norm_epsilon, state_size, conv_kernel}, and for Mamba-1
     * {@code intermediate_size, time_step_rank} ({@code expand} when d_inner is a multiple of
     * d_model), for Mamba-2 {@code num_heads, head_dim, n_groups, chunk_size, expand} (the last
     * when d_inner is a multiple of d_model), and {@code tie_word_embeddings=false} for an untied
     * head. The kind itself is the model's {@code architecture}.
     */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("vocab_size", Integer.toString(vocab));
        m.put("hidden_size", Integer.toString(mixer.dModel()));
        m.put("num_hidden_layers", Integer.toString(layers));
        switch (mixer) {
            case MambaConfig c -> {
                m.put("intermediate_size", Integer.toString(c.dInner()));
                m.put("time_step_rank", Integer.toString(c.dtRank()));
            }
            case Mamba2Config c -> {
                m.put("num_heads", Integer.toString(c.heads()));
                m.put("head_dim", Integer.toString(c.headDim()));
                m.put("n_groups", Integer.toString(c.nGroups()));
                m.put("chunk_size", Integer.toString(c.chunkSize()));
            }
        }
        if (mixer.dInner() % mixer.dModel() == 0) m.put("expand", Integer.toString(mixer.dInner() / mixer.dModel()));
        m.put("state_size", Integer.toString(mixer.dState()));
        m.put("conv_kernel", Integer.toString(mixer.dConv()));
        m.put("layer_norm_epsilon", Double.toString(normEps));
        if (!tiedEmbeddings) m.put("tie_word_embeddings", "false");     // written only when untied: older metadata reads as tied
        return m;
    }

    /**
     * Reads a config written by {@link #toMap}, of the kind {@code architecture} names ({@code mamba},
     * {@code mamba2}); a missing or unreadable key throws naming it, other keys are ignored.
     */
    public static MambaLMConfig fromMap(String architecture, Map<String, String> m) {
        int d = read(m, "hidden_size", Integer::parseInt), n = read(m, "state_size", Integer::parseInt), k = read(m, "conv_kernel", Integer::parseInt);
        StateSpaceConfig mixer = switch (architecture) {
            case "mamba" -> new MambaConfig(d, read(m, "intermediate_size", Integer::parseInt), n, read(m, "time_step_rank", Integer::parseInt), k);
            case "mamba2" -> new Mamba2Config(d, read(m, "num_heads", Integer::parseInt), read(m, "head_dim", Integer::parseInt), n,
                    read(m, "n_groups", Integer::parseInt), k, read(m, "chunk_size", Integer::parseInt));
            default -> throw new IllegalArgumentException("MambaLMConfig.fromMap: architecture '" + architecture + "' is neither mamba nor mamba2");
        };
        if (m.containsKey("expand")) {                          // redundant with the sizes: it must agree with them
            int expand = read(m, "expand", Integer::parseInt);
            if ((long) expand * d != mixer.dInner()) {
                throw new IllegalArgumentException("MambaLMConfig.fromMap: 'expand' = " + expand + " contradicts the inner width "
                        + mixer.dInner() + " (hidden_size " + d + (architecture.equals("mamba") ? ", intermediate_size " : ", num_heads·head_dim ")
                        + mixer.dInner() + ")");
            }
        }
        boolean tied = !m.containsKey("tie_word_embeddings") || tied(m.get("tie_word_embeddings"));
        return new MambaLMConfig(read(m, "vocab_size", Integer::parseInt), read(m, "num_hidden_layers", Integer::parseInt), mixer,
                read(m, "layer_norm_epsilon", Double::parseDouble), tied);
    }

    /** {@link #fromMap(String, Map)} of the kind the map's {@code architecture} key names, Mamba-1 without one. */
    public static MambaLMConfig fromMap(Map<String, String> m) { return fromMap(m.getOrDefault(CausalLM.ARCHITECTURE, "mamba"), m); }

    private static <T> T read(Map<String, String> m, String key, Function<String, T> parse) {
        String v = m.get(key);
        if (v == null) throw new IllegalArgumentException("MambaLMConfig.fromMap: key '" + key + "' is missing (have " + m.keySet() + ")");
        try {
            return parse.apply(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("MambaLMConfig.fromMap: '" + key + "' = '" + v + "' is not a number", e);
        }
    }

    private static boolean tied(String v) {
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("MambaLMConfig.fromMap: 'tie_word_embeddings' = '" + v + "' is not true or false");
        }
        return v.equals("true");
    }
}
