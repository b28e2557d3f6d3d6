package dev.symbiont.nn.attention;

/**
 * The feed-forward half of a block ({@link FeedForward}): a GELU MLP with the exact erf GELU
 * (torch.nn.GELU's default) or GPT-2's tanh approximation (Hugging Face's {@code gelu_new}), both
 * with keys {@code fc}, {@code proj}; or SwiGLU (Shazeer 2020; Llama, keys {@code w1}, {@code w2}, {@code w3}).
 */
public enum MlpKind {
    GELU, GELU_TANH, SWIGLU;

    /** Whether the MLP is fc, GELU, proj (either GELU form). */
    public boolean isGelu() { return this != SWIGLU; }
}
