package dev.symbiont.models.gpt;

/**
 * How the next token is picked from logits ({@link Sampler}): the logits of tokens already in the
 * text first divided (positive) or multiplied (negative) by the repetition penalty (Keskar et al.
 * 2019, as Hugging Face's {@code repetition_penalty}, in greedy decoding too), then
 * softmax(logits / temperature), restricted to the topK most likely tokens, then to the smallest
 * set of most likely tokens whose probability reaches topP (nucleus sampling, Holtzman et al.
 * 2020), renormalised.
 *
 * @param temperature       0 for greedy decoding (argmax), otherwise > 0
 * @param topK              0 for no limit, otherwise the number of tokens kept
 * @param topP              in (0, 1]; 1 keeps every token
 * @param repetitionPenalty > 0; 1 for none, above 1 discourages repeats, below 1 favours them
 */
public record Sampling(double temperature, int topK, double topP, double repetitionPenalty) {
    public Sampling {
        if (!(temperature >= 0) || Double.isInfinite(temperature)) {
            throw new IllegalArgumentException("Sampling: temperature must be finite and >= 0 (0 = greedy), got " + temperature);
        }
        if (topK < 0) throw new IllegalArgumentException("Sampling: topK must be >= 0 (0 = no limit), got " + topK);
        if (!(topP > 0 && topP <= 1)) throw new IllegalArgumentException("Sampling: topP must be in (0, 1], got " + topP);
        if (!(repetitionPenalty > 0) || Double.isInfinite(repetitionPenalty)) {
            throw new IllegalArgumentException("Sampling: repetitionPenalty must be finite and > 0 (1 = none), got " + repetitionPenalty);
        }
    }

    /** Without a repetition penalty. */
    public Sampling(double temperature, int topK, double topP) { this(temperature, topK, topP, 1); }

    /** Always the most likely token. */
    public static Sampling greedy() { return new Sampling(0, 0, 1); }

    /** Plain sampling from softmax(logits / temperature). */
    public static Sampling temperature(double temperature) { return new Sampling(temperature, 0, 1); }

    public Sampling withTemperature(double t) { return new Sampling(t, topK, topP, repetitionPenalty); }

    public Sampling withTopK(int k) { return new Sampling(temperature, k, topP, repetitionPenalty); }

    public Sampling withTopP(double p) { return new Sampling(temperature, topK, p, repetitionPenalty); }

    public Sampling withRepetitionPenalty(double penalty) { return new Sampling(temperature, topK, topP, penalty); }

    public boolean isGreedy() { return temperature == 0; }

    /** Whether the penalty changes any logit. */
    public boolean penalisesRepeats() { return repetitionPenalty != 1; }
}
