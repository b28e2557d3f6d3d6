package dev.symbiont.nn.moe;

/**
 * How a model's load-balancing loss is formed from the routers of its MoE layers (both are
 * Switch Transformer's E · Σ_e f_e · P_e, Fedus et al. 2022, eq. 4; they differ in what f counts
 * and over what the means run).
 */
public enum LoadBalancing {
    /**
     * Per layer, f_e the fraction of the layer's T·k routed slots that go to expert e and P_e its
     * mean router probability, summed over the layers: a uniform router gives 1 per layer
     * ({@link RouterLosses#total}).
     */
    PER_LAYER,
    /**
     * Hugging Face's {@code load_balancing_loss_func} (Mixtral, Qwen2-MoE): the router outputs of
     * all L layers concatenated as one batch of L·T rows, f_ie the fraction of rows whose i-th
     * choice is e, summed over the k choices; that is k · E · Σ_e F_e · P_e with F and P the
     * layers' per-layer f and P averaged over the layers. A uniform router gives k
     * ({@link RouterLosses#acrossLayers}).
     */
    ACROSS_LAYERS
}
