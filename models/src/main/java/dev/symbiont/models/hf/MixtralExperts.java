package dev.symbiont.models.hf;

import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.LoadBalancing;
import dev.symbiont.nn.moe.MoeLayers;

/**
 * Mixtral's sparse mixture of experts ({@code MixtralSparseMoeBlock}; Jiang et al. 2024, eq. 1-2)
 * as Symbiont's {@link MoeLayers}: every block, {@code num_local_experts} SwiGLU experts of width
 * {@code intermediate_size}, each token to its {@code num_experts_per_tok} most probable (softmax
 * over all experts in float32, top-k, the k weights divided by their sum), dropless, no shared
 * expert. The balancing loss is transformers' ({@link LoadBalancing#ACROSS_LAYERS}) weighted by
 * {@code router_aux_loss_coef}, and only with {@code output_router_logits}, as transformers adds
 * it to the loss only then; {@code router_jitter_noise} is the routers' training-time jitter.
 */
final class MixtralExperts {
    private MixtralExperts() {}

    static MoeLayers read(HfConfig c) {
        double coef = c.real("router_aux_loss_coef", 0.001), jitter = c.real("router_jitter_noise", 0.0);
        if (coef < 0) throw c.invalid("router_aux_loss_coef", c.node("router_aux_loss_coef"), "a number >= 0");
        boolean balanced = c.bool("output_router_logits", false);
        int experts = c.positive("num_local_experts", 8), perToken = c.positive("num_experts_per_tok", 2);
        if (perToken > experts) {
            throw new IllegalArgumentException(c.file() + ": num_experts_per_tok = " + perToken + " exceeds num_local_experts = " + experts);
        }
        return new MoeLayers(experts, perToken, c.positive("intermediate_size"),
                Dispatch.dropless(), true, 0, 1, balanced ? coef : 0, 0, jitter, LoadBalancing.ACROSS_LAYERS);
    }
}
