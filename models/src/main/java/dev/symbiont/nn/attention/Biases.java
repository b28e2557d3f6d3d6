package dev.symbiont.nn.attention;

/**
 * Which projections of a Transformer block carry a bias. GPT-2 has them all; Llama and Mistral
 * none (Llama's {@code attention_bias} turns on q, k, v and o, its {@code mlp_bias} the MLP's);
 * Qwen2 only q, k and v.
 *
 * @param qkv the query, key and value projections (or the fused {@code qkv})
 * @param out attention's output projection W_o
 * @param mlp the feed-forward projections
 */
public record Biases(boolean qkv, boolean out, boolean mlp) {
    /** Every projection has a bias (GPT-2). */
    public static final Biases ALL = new Biases(true, true, true);
    /** No projection has a bias (Llama, Mistral). */
    public static final Biases NONE = new Biases(false, false, false);

    /** {@link #ALL} or {@link #NONE}. */
    public static Biases all(boolean on) { return on ? ALL : NONE; }
}
