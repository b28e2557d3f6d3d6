package dev.symbiont.nn.attention;

/**
 * The feed-forward half of a block ({@link FeedForward}): a GELU MLP (GPT-2, keys {@code fc},
 * {@code proj}) or SwiGLU (Shazeer 2020; Llama, keys {@code w1}, {@code w2}, {@code w3}).
 */
public enum MlpKind { GELU, SWIGLU }
