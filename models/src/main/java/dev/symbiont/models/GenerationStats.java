package dev.symbiont.models;

import java.util.Locale;

/**
 * What one call of {@link CausalLM#generate(long[], GenerationConfig, dev.symbiont.core.Generator, java.util.function.LongConsumer)}
 * did and how fast. The first new token comes from the prompt's forward (prefill); each later one
 * from one decoding step over the cache, or, where the window slid, from a forward of the kept
 * window, which counts as decoding. Times are the model's: forwards and sampling, not what the
 * token callback spends.
 *
 * @param promptTokens  tokens of the prompt given
 * @param newTokens     tokens generated (a stop token included)
 * @param promptSeconds the prompt's forward and the first token's sampling
 * @param decodeSeconds the steps that gave the other {@code newTokens - 1} tokens
 */
public record GenerationStats(int promptTokens, int newTokens, double promptSeconds, double decodeSeconds) {
    public GenerationStats {
        if (promptTokens < 0 || newTokens < 0 || !(promptSeconds >= 0) || !(decodeSeconds >= 0)) {
            throw new IllegalArgumentException("GenerationStats: counts and times must be >= 0, got " + promptTokens + ", " + newTokens
                    + ", " + promptSeconds + " s, " + decodeSeconds + " s");
        }
    }

    /** Tokens per second of the decoding steps (after the first new token); 0 when there were none or they took no measurable time. */
    public double decodeTokensPerSecond() {
        int steps = Math.max(0, newTokens - 1);
        return steps == 0 || decodeSeconds == 0 ? 0 : steps / decodeSeconds;
    }

    /** Prompt tokens per second of the prefill; 0 when it took no measurable time. */
    public double promptTokensPerSecond() { return promptSeconds == 0 ? 0 : promptTokens / promptSeconds; }

    /** One line for a log: {@code "prompt 12 tokens in 0.041 s (292.7 tokens/s); 40 new tokens, decoding 118.3 tokens/s"}. */
    public String summary() {
        return String.format(Locale.ROOT, "prompt %d tokens in %.3f s (%.1f tokens/s); %d new tokens, decoding %.1f tokens/s",
                promptTokens, promptSeconds, promptTokensPerSecond(), newTokens, decodeTokensPerSecond());
    }
}
