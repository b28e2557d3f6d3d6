package dev.symbiont.nn.moe;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A model's mixture-of-experts settings: which layers are MoE and how each routes, and the
 * coefficients of the auxiliary losses — what a checkpoint's metadata records
 * ({@link #toMap}, {@link #fromMap}) so that a model can be rebuilt from it.
 *
 * @param experts             E per MoE layer
 * @param topK                k
 * @param hidden              each expert's hidden width
 * @param dispatch            capacity (Switch) or dropless (MegaBlocks)
 * @param renormalize         Mixtral's renormalised top-k weights, or Switch's raw probabilities
 * @param shared              dense experts every token also goes through, 0 for none
 * @param every               every n-th layer is MoE (1: all; 2: the 2nd, 4th, ...)
 * @param loadBalancingCoef   weight of the Switch load-balancing loss (Hugging Face's router_aux_loss_coef; 0.001-0.01)
 * @param zLossCoef           weight of the router z-loss (ST-MoE uses 0.001)
 * @param jitter              ε of the routers' training-time input jitter U(1 − ε, 1 + ε), 0 for none (Hugging Face's
 *                            router_jitter_noise, default 0; Switch used 0.01)
 * @param loadBalancing       how the balancing loss is formed from the layers: per layer and summed (Symbiont's default), or
 *                            across the layers as Hugging Face's Mixtral computes it
 */
public record MoeLayers(int experts, int topK, int hidden, Dispatch dispatch, boolean renormalize, int shared, int every,
                        double loadBalancingCoef, double zLossCoef, double jitter, LoadBalancing loadBalancing) {
    public MoeLayers {
        if (loadBalancing == null) throw new IllegalArgumentException("MoeLayers: loadBalancing is null; use LoadBalancing.PER_LAYER");
        if (every < 1) throw new IllegalArgumentException("MoeLayers: every must be ≥ 1, got " + every);
        if (!(loadBalancingCoef >= 0) || !(zLossCoef >= 0)) {
            throw new IllegalArgumentException("MoeLayers: loss coefficients must be ≥ 0, got " + loadBalancingCoef + " and " + zLossCoef);
        }
        new MoeConfig(1, experts, topK, hidden, dispatch, renormalize, jitter, shared); // validates experts, top-k, hidden, dispatch, jitter, shared
    }

    /** The balancing loss per layer ({@link LoadBalancing#PER_LAYER}). */
    public MoeLayers(int experts, int topK, int hidden, Dispatch dispatch, boolean renormalize, int shared, int every,
                     double loadBalancingCoef, double zLossCoef, double jitter) {
        this(experts, topK, hidden, dispatch, renormalize, shared, every, loadBalancingCoef, zLossCoef, jitter, LoadBalancing.PER_LAYER);
    }

    /** Without router jitter (Hugging Face's default), the balancing loss per layer. */
    public MoeLayers(int experts, int topK, int hidden, Dispatch dispatch, boolean renormalize, int shared, int every,
                     double loadBalancingCoef, double zLossCoef) {
        this(experts, topK, hidden, dispatch, renormalize, shared, every, loadBalancingCoef, zLossCoef, 0);
    }

    /** Every layer MoE, dropless, renormalised, no shared expert, balancing coefficient 0.01, no z-loss, no jitter. */
    public static MoeLayers of(int experts, int topK, int hidden) {
        return new MoeLayers(experts, topK, hidden, Dispatch.dropless(), true, 0, 1, 0.01, 0, 0);
    }

    /** These settings with router jitter ε (0: none). */
    public MoeLayers withJitter(double eps) {
        return new MoeLayers(experts, topK, hidden, dispatch, renormalize, shared, every, loadBalancingCoef, zLossCoef, eps, loadBalancing);
    }

    /** These settings with the balancing loss formed as {@code how} says. */
    public MoeLayers withLoadBalancing(LoadBalancing how) {
        return new MoeLayers(experts, topK, hidden, dispatch, renormalize, shared, every, loadBalancingCoef, zLossCoef, jitter, how);
    }

    /** The config of one MoE layer of width {@code dModel}. */
    public MoeConfig layer(int dModel) {
        return new MoeConfig(dModel, experts, topK, hidden, dispatch, renormalize, jitter, shared);
    }

    /** Whether layer {@code i} (from 0) is an MoE layer. */
    public boolean isMoe(int i) { return (i + 1) % every == 0; }

    // ---- checkpoint metadata ------------------------------------------------------------------

    /** The settings as string pairs, keys prefixed {@code moe_}; dispatch is {@code dropless} or {@code capacity:<factor>}. */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("moe_experts", Integer.toString(experts));
        m.put("moe_top_k", Integer.toString(topK));
        m.put("moe_hidden", Integer.toString(hidden));
        m.put("moe_dispatch", dispatch instanceof Dispatch.Capacity c ? "capacity:" + c.factor() : "dropless");
        m.put("moe_renormalize", Boolean.toString(renormalize));
        m.put("moe_shared_experts", Integer.toString(shared));
        m.put("moe_every", Integer.toString(every));
        m.put("moe_load_balancing_coef", Double.toString(loadBalancingCoef));
        m.put("moe_z_loss_coef", Double.toString(zLossCoef));
        m.put("moe_router_jitter_noise", Double.toString(jitter));
        m.put("moe_load_balancing", loadBalancing.name().toLowerCase(Locale.ROOT));
        return m;
    }

    /** Whether a checkpoint's metadata describes an MoE model. */
    public static boolean present(Map<String, String> m) { return m.containsKey("moe_experts"); }

    /**
     * The settings {@link #toMap} wrote; a missing or unreadable key throws naming it. Other keys
     * are ignored; {@code moe_router_jitter_noise} and {@code moe_load_balancing}, which older
     * checkpoints lack, read as 0 and {@code per_layer} when missing.
     */
    public static MoeLayers fromMap(Map<String, String> m) {
        return new MoeLayers(read(m, "moe_experts", Integer::parseInt, "an integer"), read(m, "moe_top_k", Integer::parseInt, "an integer"),
                read(m, "moe_hidden", Integer::parseInt, "an integer"), read(m, "moe_dispatch", MoeLayers::dispatch, "dropless or capacity:<factor>"),
                read(m, "moe_renormalize", MoeLayers::bool, "true or false"), read(m, "moe_shared_experts", Integer::parseInt, "an integer"),
                read(m, "moe_every", Integer::parseInt, "an integer"),
                read(m, "moe_load_balancing_coef", Double::parseDouble, "a number"), read(m, "moe_z_loss_coef", Double::parseDouble, "a number"),
                m.containsKey("moe_router_jitter_noise") ? read(m, "moe_router_jitter_noise", Double::parseDouble, "a number") : 0,
                m.containsKey("moe_load_balancing") ? read(m, "moe_load_balancing", MoeLayers::loadBalancing, "per_layer or across_layers")
                        : LoadBalancing.PER_LAYER);
    }

    private static <T> T read(Map<String, String> m, String key, Function<String, T> parse, String expected) {
        String v = m.get(key);
        if (v == null) throw new IllegalArgumentException("MoeLayers.fromMap: key '" + key + "' is missing (have " + m.keySet() + ")");
        try {
            return parse.apply(v.trim());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("MoeLayers.fromMap: '" + key + "' = '" + v + "' is not " + expected, e);
        }
    }

    private static Dispatch dispatch(String v) {
        if (v.equals("dropless")) return Dispatch.dropless();
        if (v.startsWith("capacity:")) return Dispatch.capacity(Double.parseDouble(v.substring("capacity:".length())));
        throw new IllegalArgumentException(v);
    }

    private static LoadBalancing loadBalancing(String v) { return LoadBalancing.valueOf(v.toUpperCase(Locale.ROOT)); }

    private static boolean bool(String v) {
        String s = v.toLowerCase(Locale.ROOT);
        if (!s.equals("true") && !s.equals("false")) throw new IllegalArgumentException(v);
        return s.equals("true");
    }
}
