package dev.symbiont.nn.moe;

import dev.symbiont.core.fused.moe.Moe;

/**
 * One mixture-of-experts feed-forward layer's shape.
 *
 * @param dModel      token width d
 * @param experts     E ≥ 1 SwiGLU experts
 * @param topK        k experts per token, 1 ≤ k ≤ E
 * @param hidden      each expert's hidden width (Mixtral's intermediate_size)
 * @param dispatch    capacity (Switch) or dropless (MegaBlocks)
 * @param renormalize rescale each token's k routing weights to sum to 1 (Mixtral) or not (Switch)
 * @param jitter      ε of the router's training-time input jitter, 0 for none
 * @param shared      dense SwiGLU experts every token also goes through (Qwen-MoE, DeepSeekMoE), 0 for none (Mixtral)
 */
public record MoeConfig(int dModel, int experts, int topK, int hidden, Dispatch dispatch, boolean renormalize, double jitter,
                        int shared) {
    public MoeConfig {
        if (dModel < 1 || hidden < 1) {
            throw new IllegalArgumentException("MoeConfig: dModel and hidden must be positive, got " + dModel + " and " + hidden);
        }
        if (experts < 1) throw new IllegalArgumentException("MoeConfig: experts must be ≥ 1, got " + experts);
        Moe.checkTopK("MoeConfig", topK, experts);
        if (!(jitter >= 0 && jitter < 1)) throw new IllegalArgumentException("MoeConfig: jitter must be in [0, 1), got " + jitter);
        if (shared < 0) throw new IllegalArgumentException("MoeConfig: shared experts must be ≥ 0, got " + shared);
        if (dispatch == null) throw new IllegalArgumentException("MoeConfig: dispatch is null; use Dispatch.dropless() or Dispatch.capacity(f)");
    }

    /** Mixtral's choices: dropless, renormalised, no jitter. */
    public static MoeConfig of(int dModel, int experts, int topK, int hidden) {
        return new MoeConfig(dModel, experts, topK, hidden, Dispatch.dropless(), true, 0, 0);
    }

    public MoeConfig withDispatch(Dispatch d) { return new MoeConfig(dModel, experts, topK, hidden, d, renormalize, jitter, shared); }

    public MoeConfig withRenormalize(boolean on) { return new MoeConfig(dModel, experts, topK, hidden, dispatch, on, jitter, shared); }

    public MoeConfig withJitter(double eps) { return new MoeConfig(dModel, experts, topK, hidden, dispatch, renormalize, eps, shared); }

    public MoeConfig withShared(int n) { return new MoeConfig(dModel, experts, topK, hidden, dispatch, renormalize, jitter, n); }
}
