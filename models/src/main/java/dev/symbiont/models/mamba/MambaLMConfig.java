package dev.symbiont.models.mamba;

import dev.symbiont.nn.mamba.MambaConfig;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The shape of a {@link MambaLM}, with Hugging Face's {@code MambaConfig} names in its
 * checkpoint metadata ({@link #toMap}). Mamba-130M is {@code MambaLMConfig.of(50280, 768, 24)}.
 *
 * @param vocab   token ids lie in [0, vocab) (vocab_size)
 * @param layers  Mamba blocks (num_hidden_layers)
 * @param mixer   every block's mixer: dModel (hidden_size), dInner (intermediate_size), dState (state_size),
 *                dtRank (time_step_rank), dConv (conv_kernel)
 * @param normEps the RMSNorms' ε (layer_norm_epsilon)
 */
public record MambaLMConfig(int vocab, int layers, MambaConfig mixer, double normEps) {
    /** Hugging Face's default layer_norm_epsilon. */
    public static final double DEFAULT_NORM_EPS = 1e-5;

    public MambaLMConfig {
        if (vocab <= 0 || layers <= 0) throw new IllegalArgumentException("MambaLMConfig: vocab and layers must be positive, got " + vocab + " and " + layers);
        if (mixer == null) throw new IllegalArgumentException("MambaLMConfig: the mixer config must be given");
        if (!(normEps > 0) || Double.isInfinite(normEps)) throw new IllegalArgumentException("MambaLMConfig: normEps must be positive, got " + normEps);
    }

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

    public int dModel() { return mixer.dModel(); }

    // ---- string map (checkpoint metadata) -------------------------------------------------------

    /**
     * The config as string pairs with Hugging Face's names: {@code vocab_size, hidden_size,
     * num_hidden_layers, intermediate_size, state_size, time_step_rank, conv_kernel,
     * layer_norm_epsilon}, and {@code expand} when d_inner is a multiple of d_model.
     */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("vocab_size", Integer.toString(vocab));
        m.put("hidden_size", Integer.toString(mixer.dModel()));
        m.put("num_hidden_layers", Integer.toString(layers));
        m.put("intermediate_size", Integer.toString(mixer.dInner()));
        if (mixer.dInner() % mixer.dModel() == 0) m.put("expand", Integer.toString(mixer.dInner() / mixer.dModel()));
        m.put("state_size", Integer.toString(mixer.dState()));
        m.put("time_step_rank", Integer.toString(mixer.dtRank()));
        m.put("conv_kernel", Integer.toString(mixer.dConv()));
        m.put("layer_norm_epsilon", Double.toString(normEps));
        return m;
    }

    /** Reads a config written by {@link #toMap}; a missing or unreadable key throws naming it, other keys are ignored. */
    public static MambaLMConfig fromMap(Map<String, String> m) {
        MambaConfig mixer = new MambaConfig(read(m, "hidden_size", Integer::parseInt), read(m, "intermediate_size", Integer::parseInt),
                read(m, "state_size", Integer::parseInt), read(m, "time_step_rank", Integer::parseInt), read(m, "conv_kernel", Integer::parseInt));
        return new MambaLMConfig(read(m, "vocab_size", Integer::parseInt), read(m, "num_hidden_layers", Integer::parseInt), mixer,
                read(m, "layer_norm_epsilon", Double::parseDouble));
    }

    private static <T> T read(Map<String, String> m, String key, Function<String, T> parse) {
        String v = m.get(key);
        if (v == null) throw new IllegalArgumentException("MambaLMConfig.fromMap: key '" + key + "' is missing (have " + m.keySet() + ")");
        try {
            return parse.apply(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("MambaLMConfig.fromMap: '" + key + "' = '" + v + "' is not a number", e);
        }
    }
}
