package dev.symbiont.models.gpt;

/**
 * How the next token is picked from logits ({@link Sampler}): softmax(logits / temperature),
 * restricted to the topK most likely tokens, then to the smallest set of most likely tokens
 * whose probability reaches topP (nucleus sampling, Holtzman et al. 2020), renormalised.
 *
 * @param temperature 0 for greedy decoding (argmax), otherwise > 0
 * @param topK        0 for no limit, otherwise the number of tokens kept
 * @param topP        in (0, 1]; 1 keeps every token
 */
public record Sampling(double temperature, int topK, double topP) {
    public Sampling {
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("Sampling: temperature must be finite and >= 0 (0 = greedy), got " + temperature);
        }
        if (topK < 0) throw new IllegalArgumentException("Sampling: topK must be >= 0 (0 = no limit), got " + topK);
        if (!(topP > 0 && topP <= 1)) throw new IllegalArgumentException("Sampling: topP must be in (0, 1], got " + topP);
    }

    /** Always the most likely token. */
    public static Sampling greedy() { return new Sampling(0, 0, 1); }

    /** Plain sampling from softmax(logits / temperature). */
    public static Sampling temperature(double temperature) { return new Sampling(temperature, 0, 1); }

    public Sampling withTopK(int k) { return new Sampling(temperature, k, topP); }

    public Sampling withTopP(double p) { return new Sampling(temperature, topK, p); }

    public boolean isGreedy() { return temperature == 0; }
}
